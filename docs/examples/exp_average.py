"""An adaptive spin-down policy in Python: predict the next idle period as an exponential
average of the past ones (Hwang and Wu, "A predictive system shutdown method for energy saving
of event-driven computation", ICCAD 1997), sleep at once when the prediction says a low-power
mode pays off, else wait for the deepest mode's break-even time.

    idlewise simulate TRACE --device ibm-microdrive-340mb \
        --policy "python:docs/examples/exp_average.py:ExpAverage:a=0.5" --policy predictive:prewake=0

It is the engine's ``predictive`` policy without its pre-wake (``predictive:prewake=0``), written
in Python; tests/test_python_policies.py checks the two give the same rows.
"""

import math

import idlewise


class ExpAverage(idlewise.Policy):
    """Exponential-average idle prediction: I[n+1] = a·i[n] + (1 − a)·I[n], its growth capped
    at csat·I[n]."""

    def __init__(self, a=0.5, csat=2.0):
        if not 0 <= a <= 1 or csat < 1:
            raise ValueError(f"a must be in [0, 1] and csat at least 1, got a={a}, csat={csat}")
        self.a, self.csat = a, csat
        self.prediction_s = 0.0

    def start(self, device):
        # The device's physics, asked once: where to go, and when waiting is worth it.
        self.device = device
        self.ready, self.deepest = device.ready_mode, device.deepest_mode
        self.break_even_s = device.break_even_s(self.deepest)

    def plan(self, now_s):
        mode, _ = self.device.best_mode_for_gap(self.prediction_s)
        if mode != self.ready:
            return [(0.0, mode)]  # the prediction pays for a round trip: sleep now
        # Predicted too short: a watchdog sleeps once the break-even time has passed.
        return [(self.break_even_s, self.deepest)] if math.isfinite(self.break_even_s) else []

    def idle_ended(self, idle_s):
        following = self.a * idle_s + (1 - self.a) * self.prediction_s
        self.prediction_s = min(following, self.csat * self.prediction_s) if self.prediction_s > 0 else following
