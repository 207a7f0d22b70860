"""Built-in policies written again in Python, from their definitions (not by calling the engine's
own): the differential tests of `idlewise.Policy` run each beside its built-in."""

import math

import idlewise


class Timeout(idlewise.Policy):
    """`timeout:T`: the deepest mode after T of idleness."""

    family = "py-timeout"

    def __init__(self, timeout_s):
        self.timeout_s = timeout_s

    def start(self, device):
        self.deepest = device.deepest_mode

    def plan(self, now_s):
        return [(self.timeout_s, self.deepest)]


class LowerEnvelope(idlewise.Policy):
    """`breakeven`: each mode is a line γ + P·T (a gap of length T spent there); at every idle
    time the policy is in the lowest line's mode (Irani, Shukla and Gupta), each crossing held at
    or above its mode's round trip, deeper modes only as idle time grows."""

    family = "py-breakeven"

    def start(self, device):
        modes = device.modes
        ready = modes[0]["name"]
        p0 = modes[0]["power_w"]
        lines = []
        for m in modes[1:]:
            if m["power_w"] >= p0:
                continue
            (down_s, down_j), (up_s, up_j) = device.route(ready, m["name"]), device.route(m["name"], ready)
            trip = down_s + up_s
            lines.append((m["name"], m["power_w"], down_j + up_j - m["power_w"] * trip, trip))
        lines.sort(key=lambda line: (-line[1], line[2]))
        hull = [(ready, p0, 0.0, 0.0)]

        def cross(a, b):
            return (b[2] - a[2]) / (a[1] - b[1])

        for line in lines:
            if hull[-1][1] == line[1]:
                continue
            while len(hull) >= 2 and cross(hull[-2], line) <= cross(hull[-2], hull[-1]):
                hull.pop()
            hull.append(line)
        power = {m["name"]: m["power_w"] for m in modes}
        steps = sorted(((max(cross(a, b), b[3], 0.0), b[0]) for a, b in zip(hull, hull[1:])), key=lambda step: step[0])
        steps = [step for step in steps if math.isfinite(step[0])]
        kept = []
        for at, mode in steps:  # deeper as idle time grows
            while kept and power[kept[-1][1]] > power[mode] and kept[-1][0] >= at:
                kept.pop()
            if not kept or power[mode] < power[kept[-1][1]]:
                kept.append((at, mode))
        self.steps = kept

    def plan(self, now_s):
        return self.steps


class Counting(idlewise.Policy):
    """`timeout:T` that tells the class's ``log`` every request and idle period it sees (the
    engine runs copies of the instance: a class attribute is what they share)."""

    log: list = []

    def __init__(self, timeout_s=2.0):
        self.timeout_s = timeout_s

    def start(self, device):
        self.deepest = device.deepest_mode

    def plan(self, now_s):
        type(self).log.append(("plan", now_s))
        return [(self.timeout_s, self.deepest)]

    def observe(self, request):
        type(self).log.append(("request", request.index, request.time_s, request.size_bytes, request.is_write,
                               request.idle_s, request.woke))

    def idle_ended(self, idle_s):
        type(self).log.append(("idle", idle_s))
