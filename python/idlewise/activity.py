"""What a recording held, for the administrator reading advice: when the disk was busy, its
longest times without a request, and what woke it on a schedule (a job every 30 minutes, a
nightly backup, a weekly scrub). Accumulated a batch of arrivals at a time, in column
operations, as the replay reads the recording: memory is an hour's count per hour recorded
and a time per wake-up, whatever the number of requests.

A *wake-up* here is the first request after at least :data:`WAKE_GAP_S` without one: what
would spin a disk up under any timeout the advisor tries beyond a minute. Times of day are the
recording's wall clock in UTC where it has one (a diskstats recording's Unix times), else counted
from its start."""

from __future__ import annotations

import datetime
import math
from collections import Counter
from typing import Optional

import numpy as np

#: The quiet before a request that makes it a wake-up.
WAKE_GAP_S = 60.0
#: The quiet before a wake-up that a daily job's follows: a disk under any timeout up to
#: 10 minutes would be asleep.
JOB_GAP_S = 600.0
#: Wake-ups within this many seconds of the same time of day count as the same daily job.
SAME_TIME_S = 300.0
#: A wake-up this close to the grid of a job every few minutes or hours is that job's.
ON_THE_GRID_S = 90.0
#: The longest quiet periods kept.
LONGEST_KEPT = 3


class Activity:
    """Accumulates arrivals (:meth:`add`, in time order) over a recording that runs from
    ``start_s`` (its first snapshot; None: its first request) to the end given to
    :meth:`summary`; ``start_unix_s`` is the wall-clock time of the trace's time 0, where the
    recording has one."""

    def __init__(self, start_s: Optional[float] = None, start_unix_s: Optional[float] = None):
        self.start_s, self.start_unix_s = start_s, start_unix_s
        self.requests = 0
        self.first_s = self.last_s = None
        self._hours = np.zeros(0, np.int64)  # requests in each hour from _hour0_s
        self._hour0_s: Optional[float] = None
        self._gaps = np.zeros(0), np.zeros(0)  # the longest quiet periods: (lengths, starts)
        self._wakes: list = []  # (time, quiet before) of each wake-up, a batch's array at a time

    def add(self, time_s) -> None:
        """A batch of arrival times, in time order, after the previous batch's."""
        t = np.asarray(time_s, dtype=np.float64)
        if not len(t):
            return
        if self._hour0_s is None:
            self._hour0_s = self._hour_before(self.start_s if self.start_s is not None else float(t[0]))
            self.first_s = float(t[0])
        # The first request's quiet is the recording's idle start, where the start is known (else
        # nothing is known before it: no wake-up).
        previous = self.last_s if self.last_s is not None else (self.start_s if self.start_s is not None else float(t[0]))
        before = np.concatenate([[previous], t[:-1]])
        quiet = t - before
        self._keep_longest(quiet[1:] if self.last_s is None else quiet, before[1:] if self.last_s is None else before)
        woken = quiet >= WAKE_GAP_S
        if woken.any():
            self._wakes.append((t[woken], quiet[woken]))
        hours = np.floor((t - self._hour0_s) / 3600.0).astype(np.int64)
        counts = np.bincount(hours - hours[0])
        top = int(hours[0]) + len(counts)
        if top > len(self._hours):
            self._hours = np.concatenate([self._hours, np.zeros(top - len(self._hours), np.int64)])
        self._hours[int(hours[0]):top] += counts
        self.requests += len(t)
        self.last_s = float(t[-1])

    def _hour_before(self, t: float) -> float:
        """The start of the hour ``t`` lies in, on the wall clock where there is one."""
        if self.start_unix_s is None:
            return t
        return math.floor((self.start_unix_s + t) / 3600.0) * 3600.0 - self.start_unix_s

    def _keep_longest(self, lengths, starts) -> None:
        if not len(lengths):
            return
        if len(lengths) > LONGEST_KEPT:
            # The longest, the earliest of equals (a batch is in time order): the same periods
            # however the batches are cut.
            kth = np.partition(lengths, -LONGEST_KEPT)[-LONGEST_KEPT]
            above = np.flatnonzero(lengths > kth)
            top = np.concatenate([above, np.flatnonzero(lengths == kth)[:LONGEST_KEPT - len(above)]])
            lengths, starts = lengths[top], starts[top]
        merged_l, merged_s = np.concatenate([self._gaps[0], lengths]), np.concatenate([self._gaps[1], starts])
        order = np.lexsort((merged_s, -merged_l))[:LONGEST_KEPT]  # longest first, the earlier of equals
        self._gaps = merged_l[order], merged_s[order]

    # --- what it held -------------------------------------------------------------------------

    def summary(self, end_s: Optional[float] = None) -> dict:
        """JSON-ready: the span, the hours of the day by share of requests, the longest quiet
        periods (the recording's idle start and end among them), a period something woke the
        disk at, daily jobs, and the one hour that stood out."""
        if not self.requests:
            return {"requests": 0}
        start = self.start_s if self.start_s is not None else self.first_s
        end = max(end_s if end_s is not None else self.last_s, self.last_s)
        lengths, starts = self._gaps
        ends = [(self.first_s - start, start), (end - self.last_s, self.last_s)]
        lengths = np.concatenate([lengths, [length for length, _ in ends]])
        starts = np.concatenate([starts, [at for _, at in ends]])
        order = [i for i in np.lexsort((starts, -lengths)) if lengths[i] > 0][:LONGEST_KEPT]
        wake_t = np.concatenate([t for t, _ in self._wakes]) if self._wakes else np.zeros(0)
        wake_q = np.concatenate([q for _, q in self._wakes]) if self._wakes else np.zeros(0)
        days = (end - start) / 86400.0
        every = _period(wake_t)
        daily = self._daily(wake_t, wake_q, start, days, every)
        return {
            "requests": self.requests,
            "start_s": start, "end_s": end,
            "start_unix_s": self.start_unix_s,
            "clock": "UTC" if self.start_unix_s is not None else "from the recording's start",
            "hours_of_day": self._hours_of_day(),
            "longest_quiet": [{"start_s": float(starts[i]), "length_s": float(lengths[i]), "at": self.when(float(starts[i]))}
                              for i in order],
            "wakeups": len(wake_t),
            "every": every,
            "daily": daily,
            "standout_hour": self._standout(days, daily),
        }

    def when(self, t: float) -> str:
        """A time as an administrator reads it: weekday and time of day on the wall clock, or
        day and time from the recording's start."""
        if self.start_unix_s is not None:
            moment = datetime.datetime.fromtimestamp(self.start_unix_s + t, datetime.timezone.utc)
            return moment.strftime("%a %H:%M")
        start = self.start_s if self.start_s is not None else self.first_s
        since = t - start
        return f"day {int(since // 86400) + 1} {_clock(since % 86400)}"

    def _time_of_day(self, t):
        """Seconds into the day (wall clock, or from the recording's start) of times ``t``."""
        base = self.start_unix_s if self.start_unix_s is not None else -(self.start_s if self.start_s is not None else self.first_s)
        return np.mod(np.asarray(t) + base, 86400.0)

    def _hours_of_day(self) -> list:
        """Each hour of the day's share of the requests (24 numbers, hour 0 first)."""
        hour0 = self._time_of_day(self._hour0_s) // 3600  # the hour of day the first bin is
        by_hour = np.zeros(24, np.int64)
        np.add.at(by_hour, (np.arange(len(self._hours)) + int(hour0)) % 24, self._hours)
        return (by_hour / by_hour.sum()).round(4).tolist()

    def _daily(self, wake_t, wake_q, start, days, every) -> list:
        """Times of day something woke the disk after :data:`JOB_GAP_S` of quiet, within
        :data:`SAME_TIME_S` of each other, on most days of three or more: a scheduled job's
        signature (a person's day starts at a different minute each day). Wake-ups on the grid
        of a job every few minutes or hours (``every``) are that job's."""
        whole_days = int(days)
        if whole_days < 3:
            return []
        most = max(3, math.ceil(0.7 * whole_days))
        candidate = wake_q >= JOB_GAP_S
        if every is not None:
            interval = every["interval_s"]
            off = np.abs(np.mod(wake_t - every["phase_s"] + interval / 2, interval) - interval / 2)
            candidate &= off > ON_THE_GRID_S
        jobs = wake_t[candidate]
        seconds = self._time_of_day(jobs)
        day = np.floor((jobs - start) / 86400.0).astype(np.int64)
        found, used = [], np.zeros(len(jobs), bool)
        for i in np.argsort(seconds, kind="stable"):
            if used[i]:
                continue
            apart = np.abs(np.mod(seconds - seconds[i] + 43200.0, 86400.0) - 43200.0)  # around midnight too
            near = (apart <= SAME_TIME_S) & ~used
            on_days = len(set(day[near].tolist()))
            if on_days >= most:
                used |= near
                at = float(np.median(seconds[near]))
                found.append({"time_of_day_s": at, "at": _clock(at), "days": on_days, "of_days": whole_days})
        return sorted(found, key=lambda job: (-job["days"], job["time_of_day_s"]))[:3]

    def _days_by_hour(self):
        """The hourly counts as rows of a day (hour 0 of the day first), partial days padded."""
        hod0 = int(self._time_of_day(self._hour0_s) // 3600)
        n = len(self._hours)
        padded = np.zeros(-(-(hod0 + n) // 24) * 24, np.int64)
        padded[hod0:hod0 + n] = self._hours
        return padded.reshape(-1, 24)

    def _typical_hour(self) -> float:
        """Requests in a typical busy hour: the median of the hours with any."""
        busy = self._hours[self._hours > 0]
        return float(np.median(busy)) if len(busy) else 0.0

    def _standout(self, days, daily: list) -> Optional[dict]:
        """The busiest hour outside the daily jobs, where it had at least five times the
        requests of a typical busy hour: a batch job's, once in the recording or weekly."""
        if np.count_nonzero(self._hours) < 24:
            return None
        typical = self._typical_hour()
        hod0 = int(self._time_of_day(self._hour0_s) // 3600)
        daily_hours = {int(job["time_of_day_s"] // 3600) for job in daily}
        hours = self._hours.copy()
        for hour in daily_hours:
            hours[(hour - hod0) % 24::24] = 0
        peak = int(np.argmax(hours))
        if hours[peak] < 5 * typical:
            return None
        t = self._hour0_s + peak * 3600.0
        week_later = peak + 168 < len(hours) and hours[peak + 168] >= 5 * typical
        week_before = peak >= 168 and hours[peak - 168] >= 5 * typical
        return {"start_s": t, "requests": int(hours[peak]), "times_typical": round(hours[peak] / typical, 1),
                "at": self.when(t), "weekly": bool(week_later or week_before) if days >= 14 else None}


def _clock(seconds: float) -> str:
    minutes = int(round(seconds / 60.0)) % (24 * 60)
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _period(wake_t) -> Optional[dict]:
    """The interval something woke the disk at, where one interval (to the nearest 30 s, at a
    minute or more) is at least a quarter of those between wake-ups, four times or more."""
    if len(wake_t) < 5:
        return None
    steps = np.round(np.diff(wake_t) / 30.0) * 30.0
    steps = steps[steps >= 60.0]
    if not len(steps):
        return None
    step, times = Counter(steps.tolist()).most_common(1)[0]
    if times < 4 or times < 0.25 * len(steps):
        return None
    # Where on its grid the job wakes the disk: the most common phase, to 30 s.
    phases = np.mod(np.round(np.mod(wake_t, step) / 30.0) * 30.0, step)
    phase = Counter(phases.tolist()).most_common(1)[0][0]
    return {"interval_s": step, "times": times, "phase_s": phase}


def described(summary: dict) -> list:
    """The summary in a few lines of at most 80 columns."""
    if not summary.get("requests"):
        return []
    from .traces.describe import span_text

    clock = "UTC" if summary["clock"] == "UTC" else "from its start"
    lines = [f"what the recording held (times {clock}):"]
    shares = summary["hours_of_day"]
    top = [h for h in sorted(range(24), key=lambda h: (-shares[h], h))[:3] if shares[h] > 0]
    quiet = sum(share == 0 for share in shares)
    lines.append("  busiest hours of the day: " + ", ".join(f"{h:02d}-{(h + 1) % 24:02d}h {_share(shares[h])}" for h in top)
                 + (f"; {quiet} without a request" if quiet else ""))
    if summary["longest_quiet"]:
        lines.append("  longest quiet: " + ", ".join(f"{span_text(q['length_s'])} at {q['at']}" for q in summary["longest_quiet"]))
    scheduled = []
    if summary["every"]:
        every = summary["every"]
        scheduled.append(f"every {span_text(every['interval_s'])} ({every['times']:,} times)")
    scheduled.extend(f"daily at {job['at']} ({job['days']} of {job['of_days']} days)" for job in summary["daily"])
    wakeups = f"{summary['wakeups']:,} wake-up{'s' if summary['wakeups'] != 1 else ''} after a minute idle"
    lines.append("  woken on a schedule: " + (scheduled[0] if scheduled else f"none seen ({wakeups})"))
    lines.extend("    " + item for item in scheduled[1:])
    standout = summary["standout_hour"]
    if standout:
        how_often = {True: "weekly", False: "not a week later", None: "once"}[standout["weekly"]]
        lines.append(f"  busiest hour: {standout['at']}, {standout['requests']:,} requests "
                     f"({standout['times_typical']:.0f}x a typical hour), {how_often}")
    return [_fitted(line) for line in lines]


def _share(share: float) -> str:
    return "<1%" if share < 0.005 else f"{share:.0%}"


def _fitted(line: str, width: int = 80) -> str:
    """A line cut at ``width`` columns, where a list of items ends at one that fits."""
    if len(line) <= width:
        return line
    cut = max(line.rfind("; ", 0, width), line.rfind(", ", 0, width))
    return line[:cut] if cut > 0 else line[:width - 1] + "…"


__all__ = ["Activity", "WAKE_GAP_S", "described"]
