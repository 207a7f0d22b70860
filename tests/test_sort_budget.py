"""A whole read that would not fit in memory (``--sort`` of an unsorted file) is refused before
it starts, with the command that sorts the file beyond memory (issue 28)."""
import re
import shutil
import subprocess

import numpy as np
import pytest

import idlewise
from idlewise import IdlewiseError
from idlewise.traces import write_parquet
from idlewise.traces.budget import estimated_records, memory_budget_bytes


def _unsorted_csv(path, n=20_000, seed=3):
    rng = np.random.default_rng(seed)
    t = np.cumsum(rng.exponential(0.5, n))
    swap = rng.integers(0, n - 1, n // 50)
    t[swap], t[swap + 1] = t[swap + 1], t[swap].copy()
    with open(path, "w") as f:
        f.write("time_s,offset_bytes,size_bytes,op\n")
        for a, o, s, w in zip(t, rng.integers(0, 1 << 30, n) // 512 * 512, rng.integers(1, 64, n) * 512, rng.random(n) < 0.3):
            f.write(f"{a:.6f},{o},{s},{'W' if w else 'R'}\n")
    return path


def test_a_sort_beyond_the_budget_is_refused_with_the_sort_that_works(tmp_path, monkeypatch):
    path = _unsorted_csv(tmp_path / "unsorted.csv")
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", "100kB")
    with pytest.raises(IdlewiseError, match=r"unsorted.csv: --sort reads the trace whole: about [\d,]+ records, .* more than the "
                                            r"0.0 GB of memory available \(IDLEWISE_MEMORY_BUDGET") as refused:
        idlewise.read_trace(path, sort=True)
    # The command it gives sorts the file, which then replays as read with the numbers of --sort.
    # GNU coreutils and bash are on every machine this project supports (Linux, CI): the command
    # the error names must run, so their absence is a failure, not a skip.
    assert shutil.which("sort") and shutil.which("bash"), "the error names GNU sort; it must be here to check it"
    command = re.search(r"GNU sort works beyond memory\): (.*) > sorted, then", str(refused.value)).group(1)
    sorted_path = tmp_path / "sorted.csv"
    subprocess.run(["bash", "-c", f"{command} > {sorted_path}"], check=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", "1GB")
    whole = idlewise.simulate(idlewise.read_trace(path, sort=True), "hitachi-travelstar-5k320", ["timeout:2s"], progress=False)
    streamed = idlewise.simulate_file(sorted_path, "hitachi-travelstar-5k320", ["timeout:2s"], progress=False)
    for key in ("energy_j", "mean_response_s", "p99_response_s", "wakeups", "requests"):
        assert streamed[0][key] == whole[0][key]


def test_the_command_line_says_it_in_one_line(tmp_path, monkeypatch, capsys):
    from idlewise.cli import main

    path = _unsorted_csv(tmp_path / "unsorted.csv", n=2_000)
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", "1kB")
    assert main(["simulate", str(path), "--sort", "--device", "hitachi-travelstar-5k320", "--policy", "timeout:2s"]) == 2
    err = capsys.readouterr().err
    assert "--sort reads the trace whole" in err and "Traceback" not in err


def test_within_the_budget_the_sort_goes_on(tmp_path, monkeypatch):
    path = _unsorted_csv(tmp_path / "unsorted.csv", n=2_000)
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", "1GiB")
    assert len(idlewise.read_trace(path, sort=True)) == 2_000


@pytest.mark.parametrize("text, expected", [("123", 123), ("8GB", 8 * 10**9), ("512MiB", 512 << 20), ("1.5 kB", 1500), ("2TiB", 2 << 40)])
def test_a_budget_reads_with_its_unit(monkeypatch, text, expected):
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", text)
    assert memory_budget_bytes() == expected


@pytest.mark.parametrize("text", ["lots", "8 parsecs", "GB", "-3GB"])
def test_a_budget_that_is_not_one_is_named(monkeypatch, text):
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", text)
    with pytest.raises(IdlewiseError, match="IDLEWISE_MEMORY_BUDGET: a number of bytes"):
        memory_budget_bytes()


def test_records_are_estimated_close_to_the_count(tmp_path):
    path = _unsorted_csv(tmp_path / "unsorted.csv", n=50_000)
    assert estimated_records(str(path), "csv") == pytest.approx(50_001, rel=0.05)
    trace = idlewise.read_trace(path, sort=True)
    write_parquet(trace, tmp_path / "t.parquet")
    assert estimated_records(str(tmp_path / "t.parquet"), "parquet") == 50_000


def test_any_whole_read_beyond_the_budget_says_to_replay_as_read(tmp_path, monkeypatch, capsys):
    """What still reads the trace whole (read_trace, --sort): beyond the budget, said before the
    read, with the streamed commands as the way out; `hybrid` and a stream:K transform stream."""
    from idlewise.cli import main

    path = _unsorted_csv(tmp_path / "t.csv", n=2_000)
    monkeypatch.setenv("IDLEWISE_MEMORY_BUDGET", "1kB")
    with pytest.raises(IdlewiseError, match=r"t.csv: this reads the trace whole: about [\d,]+ records.* Instead, replay it as it is read: "
                                            r"`idlewise simulate`, `sweep`, `advise`, `report` or `hybrid` of the file"):
        idlewise.read_trace(path)
    # A stream:K transform streams now (it is the device read), so only the whole read is refused.
    assert main(["trace", "stats", str(path), "--transform", "stream:0"]) == 2
    assert "single device" in capsys.readouterr().err  # read as it goes, refused at once: no devices to pick
    assert main(["trace", "stats", str(path), "--sort"]) == 2
    assert "--sort reads the trace whole" in capsys.readouterr().err  # with the GNU sort command that does it
    # hybrid streams: the unsorted file is refused at its first late line, not for its size.
    assert main(["hybrid", str(path), "--hybrid", "seed003-e7k100-ultra-ii", "--json"]) == 2
    err = capsys.readouterr().err
    assert "t.csv: line" in err and "is earlier than" in err and "this reads the trace whole" not in err, err
