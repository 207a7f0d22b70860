"""idlewise report (issue 12): one self-contained HTML file, checked as a reader meets it — in a
real headless Chromium (no console errors, figures laid out, the table sorts, a screenshot that
shows the plots) — and as a file (no network references, byte-identical when rerun)."""

import os
import re
import shutil

import numpy as np
import pytest

import idlewise
from idlewise import IdlewiseError
from idlewise.cli import main
from idlewise.reporting import busiest_window, parse_window, point_label, report, report_from_rows

from conftest import SRT, TOY_DISK, TRACES

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
# CI installs Chromium (.ci/run) and sets this, so there the browser test cannot quietly skip.
REQUIRE_BROWSER = os.environ.get("IDLEWISE_REQUIRE_BROWSER") == "1"


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    path = tmp_path_factory.mktemp("dev") / "toy.toml"
    path.write_text(TOY_DISK)
    return str(path)


@pytest.fixture(scope="module")
def hplajw_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert main(["report", SRT, "--stream", "0", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:2s..32s/10s",
                 "--policy", "stpm:knob=50", "--window", "5490min..92h", "--out", str(out)]) == 0
    return out


def test_the_report_is_one_file_that_needs_no_network(hplajw_report):
    html = hplajw_report.read_text()
    # Nothing is fetched: no external scripts, styles or images (SVG namespaces are names, not loads).
    assert not re.search(r"<(script|img|link|iframe)[^>]+(src|href)=", html)
    assert not re.search(r"url\((?!#)", html)
    titles = re.findall(r"<h2[^>]*>([^<]+)</h2>", html)
    # Summary and plots first, the table of runs last (open: a few runs).
    assert titles == ["Idle gaps", "Energy and response", "Energy by mode", "Wake-ups and rated cycles",
                      "Mode timeline: hitachi-travelstar-5k320", "Results"]
    assert "<details open>" in html
    assert html.count("<svg") == 5
    # Every run is a row, the references included; the trade-off labels each run by its value.
    assert len(re.findall(r"<tr><td", html)) == 4 + 1 + 2
    for label in (">2 s<", ">12 s<", ">22 s<", ">32 s<", ">stpm 50<", ">oracle<"):
        assert label in html, label
    assert "always-on: 1.025 MJ, above the axes" in html


def test_the_same_runs_give_the_same_bytes(toy, tmp_path):
    trace = idlewise.Trace.from_arrays([0.0, 50.0, 400.0, 410.0, 2000.0], [4096] * 5)
    a, b = tmp_path / "a.html", tmp_path / "b.html"
    report(trace, toy, ["timeout:5s", "timeout:60s"], a, progress=False)
    report(trace, toy, ["timeout:5s", "timeout:60s"], b, progress=False)
    assert a.read_bytes() == b.read_bytes()


@pytest.mark.skipif(BROWSER is None and not REQUIRE_BROWSER, reason="no Chromium on this machine (apt-get install chromium)")
def test_the_report_in_headless_chromium(hplajw_report, tmp_path):
    from playwright.sync_api import sync_playwright

    assert BROWSER, "IDLEWISE_REQUIRE_BROWSER=1 but no Chromium found"
    with sync_playwright() as p:
        # Chromium keeps its sockets under TMPDIR; a deep one runs past a socket path's 107
        # bytes and the browser dies at launch: it gets a short one.
        browser = p.chromium.launch(executable_path=BROWSER, args=["--no-sandbox"],
                                    env={**os.environ, "TMPDIR": "/tmp" if os.path.isdir("/tmp") else os.environ.get("TMPDIR", "")})
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        problems = []
        page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.on("request", lambda r: problems.append(f"fetched {r.url}") if not r.url.startswith("file:") else None)
        page.goto(hplajw_report.as_uri())
        page.wait_for_load_state("load")
        assert problems == []
        # Every figure is laid out at a readable size, none wider than the page.
        boxes = [svg.bounding_box() for svg in page.query_selector_all("figure svg")]
        assert len(boxes) == 5
        for box in boxes:
            assert 500 <= box["width"] <= 1200 and box["height"] >= 250, box
        # The table sorts by a click: energy ascending puts the oracle (the least) first and
        # always-on (the most) last; a second click reverses.
        header = page.locator("#runs th", has_text="energy (J)")
        header.click()
        first_column = lambda: page.eval_on_selector_all("#runs tbody tr", "rows => rows.map(r => r.cells[0].textContent)")
        energies = page.eval_on_selector_all("#runs tbody tr", "rows => rows.map(r => Number(r.cells[1].dataset.sort))")
        assert energies == sorted(energies)
        assert first_column()[0] == "oracle" and first_column()[-1] == "always-on"
        header.click()
        assert first_column()[0] == "always-on"
        shot = tmp_path / "report.png"
        page.screenshot(path=str(shot), full_page=True)
        browser.close()
    # The screenshot shows the plots: a tall page with the figures' colours in it.
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)[:, :, :3]
    assert pixels.shape[0] > 2500
    colours = {tuple(c) for c in (pixels[::7, ::7] * 255).astype(int).reshape(-1, 3)}
    assert len(colours) > 200
    standby_grey = np.array([0x43, 0x4C, 0x57]) / 255  # the timeline's standby segments
    assert (np.abs(pixels - standby_grey).max(axis=2) < 0.02).sum() > 5000


def test_a_report_from_a_sweeps_rows(tmp_path, capsys):
    rows = tmp_path / "runs.parquet"
    assert main(["sweep", SRT, "--stream", "0", "--device", "hitachi-travelstar-5k320", "--device", "ibm-microdrive-340mb",
                 "--policy", "timeout:5s..25s/10s", "--out", str(rows)]) == 0
    out = tmp_path / "rows.html"
    assert main(["report", "--from", str(rows), "--out", str(out)]) == 0
    html = out.read_text()
    assert "A sweep&#39;s rows hold results, not the trace" in html
    # One panel per device: the two devices' points are never joined.
    assert html.count("<svg") == 3
    assert len(re.findall(r"<tr><td", html)) == 6
    assert ">hitachi-travelstar-5k320<" in html and ">ibm-microdrive-340mb<" in html  # a device column, as they differ


def test_report_errors_name_what_to_fix(tmp_path, capsys, toy):
    out = str(tmp_path / "r.html")
    assert main(["report", "--from", str(tmp_path / "missing.parquet"), "--out", out]) == 2
    assert "missing.parquet: no such file" in capsys.readouterr().err
    assert main(["report", "--from", "x.parquet", "--device", toy, "--out", out]) == 2
    assert "leave out --device" in capsys.readouterr().err
    assert main(["report", SRT, "--device", "hitachi-travelstar-5k320", "--out", out]) == 2
    assert "the trace holds 2 devices (0, 1); a report is of one: pick it with --stream K" in capsys.readouterr().err
    assert main(["report", SRT, "--device", "no-such-disk", "--out", out]) == 2
    assert "unknown device 'no-such-disk'" in capsys.readouterr().err
    assert main(["report", SRT, "--stream", "0", "--device", toy, "--window", "5h", "--out", out]) == 2
    assert "write it FROM..TO" in capsys.readouterr().err
    with pytest.raises(IdlewiseError, match="TO must be later"):
        parse_window("2h..1h")
    assert parse_window("1h..90min") == (3600.0, 5400.0)


def test_the_default_window_is_where_policies_differ(toy):
    # Gaps the toy disk (break-even 10 s + ...) may or may not sleep through cluster in the third
    # half hour; elsewhere requests come every second or an hour apart.
    busy = np.arange(0.0, 1800.0, 1.0)
    telling = 3600.0 + np.arange(0.0, 1800.0, 60.0)
    quiet = np.array([7200.0, 9000.0, 10800.0])
    trace = idlewise.Trace.from_arrays(np.concatenate([busy, telling, quiet]), [1] * (len(busy) + len(telling) + 3))
    assert busiest_window(trace, idlewise.load_device(toy)) == (3600.0, 5400.0)


def test_point_labels_are_the_swept_value():
    assert point_label({"policy": "timeout:2s", "family": "timeout", "timeout_s": 2.0}) == "2 s"
    assert point_label({"policy": "timeout:600s", "family": "timeout", "timeout_s": 600.0}) == "600 s"
    assert point_label({"policy": "timeout:0s", "family": "timeout", "timeout_s": 0.0}) == "0 s"  # not "0 µs"
    assert point_label({"policy": "timeout:7200s", "family": "timeout", "timeout_s": 7200.0}) == "7,200 s"
    assert point_label({"policy": "stpm:knob=50,base=0W", "family": "stpm", "knob": 50.0}) == "stpm 50"
    assert point_label({"policy": "experts:n=25", "family": "experts"}, alone=True) == "experts"
    assert point_label({"policy": "experts:n=25", "family": "experts"}) == "experts:n=25"


@pytest.mark.parametrize("count, step", [(30, 2), (601, 1)])
def test_a_sweep_s_labels_are_thinned_to_what_fits_and_never_collide(count, step):
    """A sweep's points are labelled where a label fits (the ends always): the labels drawn
    never overlap one another, and the title counts those left to the table."""
    import matplotlib.backends.backend_agg

    from idlewise.plotting import place_labels, spread_order, subplots
    from idlewise.reporting import tradeoff_figure

    trace = idlewise.read_trace(SRT, stream=0)
    timeouts = [f"timeout:{t}s" for t in range(0, count * step, step)]
    rows = idlewise.simulate(trace, "hitachi-travelstar-5k320", timeouts, progress=False).to_pandas()
    svg = tradeoff_figure(rows)
    shown = [t for t in rows["timeout_s"] if f">{point_label({'policy': '', 'family': 'timeout', 'timeout_s': t})}<" in svg]
    left_out = re.search(r"\(([\d,]+) runs not labelled where labels would overlap", svg)
    assert len(shown) + (int(left_out.group(1).replace(",", "")) if left_out else 0) == count
    assert rows["timeout_s"].min() in shown and rows["timeout_s"].max() in shown
    assert 5 <= len(shown) <= 80  # a few spread along the line, never a blot
    # Drawn, the labels' own boxes are apart.
    fig, ax = subplots(figsize=(9, 4.6))
    order = rows.sort_values("timeout_s").to_dict("records")
    ax.plot([r["mean_response_s"] for r in order], [r["energy_j"] for r in order], marker="o")
    labels = [(order[k]["mean_response_s"], order[k]["energy_j"], point_label(order[k]), "k") for k in spread_order(count)]
    place_labels(ax, labels[:2], optional=labels[2:])
    renderer = matplotlib.backends.backend_agg.FigureCanvasAgg(fig).get_renderer()
    boxes = [text.get_window_extent(renderer) for text in ax.texts]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert a.intersection(a, b) is None or a.intersection(a, b).width * a.intersection(a, b).height < 2.0


def test_the_wakeups_figure_draws_each_rating(tmp_path):
    # A toy disk rated for both: both kinds of bars and both budget lines, each named.
    path = tmp_path / "toy.toml"
    path.write_text(TOY_DISK + 'load_unload_cycles = 1000\nload_unload_modes = ["standby"]\n')
    trace = idlewise.Trace.from_arrays([0.0, 1000.0, 1100.0], [1, 1, 1], end_time_s=4000.0)
    out = tmp_path / "r.html"
    report(trace, str(path), ["timeout:60s"], str(out))
    html = out.read_text()
    assert "3,650 rated start/stop cycles over 5 years" in html
    assert "1,000 rated load/unload cycles over 5 years" in html
    assert "wake-ups that use a rated load/unload cycle" in html


def test_a_report_of_a_large_sweep_plots_the_first_groups_and_folds_its_table(tmp_path):
    runs = tmp_path / "runs.parquet"
    idlewise.sweep([TRACES / "disksim" / "ascii.trace"], ["hitachi-microdrive-1gb"], ["timeout:1s..3s/1s"],
                   transforms=["none", "compress:64ops"], progress=False).to_pandas().to_parquet(runs)
    html = report_from_rows(runs, tmp_path / "r.html").read_text()
    # 14 devices x 2 transforms: 28 groups, the first 8 drawn; 84 runs, every one in the folded table.
    assert "The first 6 of 28 groups (trace, stream, transform, device) are plotted; every run is in the table." in html
    assert len(re.findall(r"<tr><td", html)) == 84 and "<details>" in html and "All 84 runs, one row each (click to show)" in html


# --- a report of a file as it is read (issue 28) ---------------------------------------------------

DATA = os.path.join(os.path.dirname(__file__), "data")


@pytest.mark.parametrize("path, stream, transform, window", [
    (os.path.join(DATA, "disksim", "ascii.trace"), 3, None, None),
    (os.path.join(DATA, "spc", "financial1-prefix.ascii"), 5, "compress-reorder:16ops", None),
    (SRT, 1, "window:1h..2d+compress:2s", (600.0, 2400.0)),
])
def test_a_file_is_reported_as_it_is_read_with_the_bytes_of_a_whole_read(tmp_path, path, stream, transform, window):
    """Passes over the file (statistics and window, the runs, the window's arrivals) in bounded
    memory give the very file a trace read whole gives."""
    from idlewise.traces import apply_transform

    devices, policies = ["hitachi-travelstar-5k320", "ibm-microdrive-340mb"], ["timeout:2s", "stpm:knob=50"]
    streamed = report(path, devices, policies, tmp_path / "streamed.html", stream=stream, transform=transform, window=window,
                      progress=False)
    trace = idlewise.read_trace(path, stream=stream)
    whole = report(apply_transform(trace, transform) if transform else trace, devices, policies, tmp_path / "whole.html",
                   transform=transform, window=window, progress=False)
    assert streamed.read_bytes() == whole.read_bytes()


def test_the_command_line_reports_a_file_as_it_is_read(tmp_path):
    from idlewise.cli import build_parser
    from idlewise.cli._common import _streamable

    args = build_parser().parse_args(["report", SRT, "--stream", "0", "--device", "hitachi-travelstar-5k320", "--out", "x.html"])
    assert _streamable(args)
    out = tmp_path / "cli.html"
    assert main(["report", SRT, "--stream", "0", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:10s",
                 "--out", str(out)]) == 0
    python = report(SRT, ["hitachi-travelstar-5k320"], ["timeout:10s"], tmp_path / "py.html", stream=0, progress=False)
    assert out.read_bytes() == python.read_bytes()


def test_trace_statistics_fed_in_parts_are_the_whole_trace_s():
    from idlewise.traces.stats import TraceStats, trace_stats

    trace = idlewise.read_trace(SRT, stream=0)
    whole = trace_stats(trace, "hitachi-travelstar-5k320")
    rng = np.random.default_rng(2)
    for _ in range(5):
        parts = TraceStats(trace.name, "hitachi-travelstar-5k320")
        cuts = sorted({0, len(trace), *rng.integers(0, len(trace), 7).tolist()})
        for a, b in zip(cuts, cuts[1:]):
            parts.push(trace.subset(slice(a, b)))
        got = parts.result()
        # Counts, sizes, the median and the maximum exactly; sums of seconds to rounding.
        for key in ("requests", "reads", "writes", "bytes_read", "bytes_written", "size_bytes", "span_s"):
            assert got[key] == whole[key], key
        for key in ("count", "median_s", "max_s", "below_1ms", "above_10000s"):
            assert got["gaps"][key] == whole["gaps"][key], key
        assert got["gaps"]["idle_total_s"] == pytest.approx(whole["gaps"]["idle_total_s"], rel=1e-12)
        assert [h["count"] for h in got["gaps"]["histogram"]] == [h["count"] for h in whole["gaps"]["histogram"]]
        assert [m["gaps_longer"] for m in got["modes"]] == [m["gaps_longer"] for m in whole["modes"]]


def test_beyond_the_exact_limit_the_median_gap_is_within_its_bucket(monkeypatch):
    import idlewise.traces.stats as stats

    trace = idlewise.read_trace(SRT, stream=0)
    exact = stats.trace_stats(trace, "hitachi-travelstar-5k320")["gaps"]["median_s"]
    monkeypatch.setattr(stats, "EXACT_MEDIAN_GAPS", 1000)
    binned = stats.TraceStats(trace.name, "hitachi-travelstar-5k320")
    for a in range(0, len(trace), 4000):
        binned.push(trace.subset(slice(a, a + 4000)))
    median = binned.result()["gaps"]["median_s"]
    assert median == pytest.approx(exact, rel=1 / 2048) and median != exact


def test_a_file_out_of_order_is_refused_naming_it_and_the_line(tmp_path, capsys):
    path = tmp_path / "late.csv"
    path.write_text("time_s,offset_bytes,size_bytes,op\n0.0,0,4096,R\n5.0,0,4096,R\n4.0,0,4096,W\n9.0,0,4096,R\n")
    assert main(["report", str(path), "--device", "hitachi-travelstar-5k320", "--out", str(tmp_path / "r.html")]) == 2
    assert f"{path}: line 4, field 'time_s': time 4.0 is earlier than line 3's 5.0" in capsys.readouterr().err


def test_a_report_of_hundreds_of_runs_stays_readable(tmp_path):
    # 601 timeouts: the bar figures show the runs worth reading (the frontier, each family's
    # least energy), and say so; the trade-off figure labels at most 40 points a family.
    from idlewise.reporting import BARS_MAX
    from idlewise.sweeps import write_rows

    results = idlewise.sweep([SRT], ["hitachi-travelstar-5k320"], ["timeout:0s..600s/1s"], stream=0, progress=False)
    write_rows(results, str(tmp_path / "runs.parquet"))
    html = report_from_rows(tmp_path / "runs.parquet", tmp_path / "r.html").read_text()
    shown = re.search(r"the (\d+) runs of the frontier and each family's least energy, of 601", html)
    assert shown and 1 <= int(shown.group(1)) <= BARS_MAX
    assert "601 from runs.parquet" in html
