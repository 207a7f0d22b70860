"""What `advise` says a recording held (issue 62): busy hours, the longest quiet, what woke the
disk on a schedule. A hand-built week with known jobs gives known answers; the summary is the
same however the requests are cut into batches; streamed and whole reads say the same; the
lines fit 80 columns."""

import json

import numpy as np
import pytest

from idlewise.activity import Activity, described
from idlewise.cli import main

MONDAY = 1_795_996_800.0  # 2026-11-30 00:00 UTC, a Monday
DAY, HOUR = 86_400.0, 3_600.0


def hand_built_week() -> np.ndarray:
    """Seven days from Monday 00:00 UTC: a health check at :10 and :40 of every hour (one
    request each), a backup at 02:00-02:20 every day (600 requests, one every 2 s), and a
    scrub on Sunday 04:00-04:50 (3,000 requests, one a second)."""
    checks = [d * DAY + h * HOUR + m * 60.0 for d in range(7) for h in range(24) for m in (10, 40)]
    backups = [d * DAY + 2 * HOUR + 2.0 * k for d in range(7) for k in range(600)]
    scrub = [6 * DAY + 4 * HOUR + k for k in range(3000)]
    return np.sort(np.array(checks + backups + scrub))


def test_a_week_with_known_jobs_says_them():
    t = hand_built_week()
    activity = Activity(0.0, MONDAY)
    activity.add(t)
    s = activity.summary(7 * DAY)
    assert s["requests"] == 7 * 48 + 7 * 600 + 3000
    assert s["clock"] == "UTC"
    # The health check: between wake-ups (a request after a minute idle), 30 min is the most
    # common step; the backup and the scrub are one wake-up each.
    assert s["every"]["interval_s"] == 1800.0
    # The backup wakes the disk at 02:00 after 20 minutes of quiet on all 7 days; the checks'
    # wake-ups (02:40 after the backup's 20 minutes among them) are the 30-minute job's.
    assert s["every"]["phase_s"] == 600.0
    assert s["daily"] == [{"time_of_day_s": 7200.0, "at": "02:00", "days": 7, "of_days": 7}]
    # The scrub: the busiest hour outside the daily job, once (a week cannot say weekly).
    assert s["standout_hour"] == {"start_s": 6 * DAY + 4 * HOUR, "requests": 3002, "times_typical": 1501.0,
                                  "at": "Sun 04:00", "weekly": None}
    # The longest quiet: 30 min between checks, the earliest three (the 10-minute idle start
    # and the 20-minute idle end are shorter).
    assert [(q["length_s"], q["at"]) for q in s["longest_quiet"]] == [(1800.0, "Mon 00:10"), (1800.0, "Mon 00:40"),
                                                                      (1800.0, "Mon 01:10")]
    shares = s["hours_of_day"]
    assert shares[2] == pytest.approx((7 * 600 + 14) / s["requests"], abs=1e-4)
    assert shares[4] == pytest.approx((3000 + 14) / s["requests"], abs=1e-4)
    assert sum(shares) == pytest.approx(1.0, abs=1e-3)
    lines = described(s)
    assert lines[0] == "what the recording held (times UTC):"
    assert "    daily at 02:00 (7 of 7 days)" in lines
    assert "  busiest hour: Sun 04:00, 3,002 requests (1501x a typical hour), once" in lines
    assert all(len(line) <= 80 for line in lines)


def test_a_nightly_job_on_a_sleeping_disk_is_seen_by_its_wake_ups():
    # A disk idle all day but for a job at 03:05 on 6 of 7 days (skipped on Wednesday): each
    # wakes it after hours of quiet, at the same time of day, give or take a few minutes.
    rng = np.random.default_rng(1)
    t = np.sort(np.concatenate([d * DAY + 3 * HOUR + 300.0 + rng.uniform(-120, 120) + np.arange(20.0)
                                for d in range(7) if d != 2]))
    activity = Activity(0.0, MONDAY)
    activity.add(t)
    daily = activity.summary(7 * DAY)["daily"]
    assert len(daily) == 1 and daily[0]["days"] == 6 and daily[0]["of_days"] == 7
    assert abs(daily[0]["time_of_day_s"] - (3 * HOUR + 300.0)) < 180


def test_fourteen_days_tell_a_weekly_job_from_a_one_off():
    week = hand_built_week()
    two = np.concatenate([week, week + 7 * DAY])
    activity = Activity(0.0, MONDAY)
    activity.add(two)
    assert activity.summary(14 * DAY)["standout_hour"]["weekly"] is True
    once = np.sort(np.concatenate([week, week[week < 6 * DAY] + 7 * DAY]))  # no scrub the second Sunday
    activity = Activity(0.0, MONDAY)
    activity.add(once)
    assert activity.summary(14 * DAY)["standout_hour"]["weekly"] is False


def test_without_a_wall_clock_times_count_from_the_start():
    activity = Activity(None, None)
    activity.add(hand_built_week() + 100.0)
    s = activity.summary()
    assert s["clock"] == "from the recording's start"
    first = 100.0 + 600.0  # the first request: time 0 of a trace without a wall clock or a start
    assert activity.when(first + 600.0) == "day 1 00:10" and activity.when(first + 2 * DAY + 3600.0) == "day 3 01:00"
    assert all(q["at"].startswith("day ") for q in s["longest_quiet"])


@pytest.mark.parametrize("seed", range(20))
def test_the_summary_is_the_same_however_the_batches_are_cut(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 5000))
    t = np.cumsum(rng.choice([0.01, 1.0, 120.0, 2000.0, 40_000.0], n, p=[0.6, 0.25, 0.1, 0.04, 0.01]) * rng.random(n))
    start = float(rng.uniform(-100, 0)) if rng.random() < 0.5 else None
    clock = MONDAY + float(rng.integers(0, 86400)) if rng.random() < 0.5 else None
    whole = Activity(start, clock)
    whole.add(t)
    cut = Activity(start, clock)
    edges = np.sort(rng.integers(0, n + 1, int(rng.integers(0, 30))))
    for part in np.split(t, edges):
        cut.add(part)
    end = float(t[-1] + rng.uniform(0, 5000))
    assert json.dumps(whole.summary(end), sort_keys=True) == json.dumps(cut.summary(end), sort_keys=True)


def test_advice_says_what_the_week_held_in_lines_that_fit(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    path = "python/idlewise/data/hplajw/ajw.1week.srt"
    assert main(["advise", path, "--stream", "0", "--device", "seagate-constellation-es1-500gb", "--json"]) == 0
    activity = json.loads(capsys.readouterr().out)["activity"]
    assert activity["every"]["interval_s"] == 1800.0 and activity["every"]["times"] > 150
    assert activity["longest_quiet"][0]["length_s"] == pytest.approx(29.5 * 60, abs=30)
    assert main(["advise", path, "--stream", "0", "--device", "seagate-constellation-es1-500gb"]) == 0
    out = capsys.readouterr().out
    held = out[out.index("what the recording held"):out.index("every setting tried")].splitlines()
    assert 4 <= len(held) <= 6 and all(len(line) <= 80 for line in held)
    assert "woken on a schedule: every 30.0 min" in out


def test_streamed_and_whole_advice_say_the_same_of_a_recording(tmp_path):
    from test_recordings_streamed import generated

    import idlewise

    path = generated(tmp_path / "r.diskstats", np.random.default_rng(3), snapshots=600, interval=600.0, lead=20, tail=30)
    streamed = idlewise.advise(str(path), "hitachi-travelstar-5k320", progress=False)
    whole = idlewise.advise(idlewise.read_trace(path), "hitachi-travelstar-5k320", progress=False)
    assert streamed["activity"] == whole["activity"]
    assert streamed["activity"]["clock"] == "UTC"
