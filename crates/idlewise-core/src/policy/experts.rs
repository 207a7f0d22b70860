//! `experts`: Helmbold, Long & Sherrod's multiple-experts spin-down with the share update
//! (Herbster–Warmuth), as in ALGORITHMS §3.1.
//!
//! - Experts: `n` fixed timeouts `x_i = B / spacing^i`, i = 0..n−1, where `B` is the break-even
//!   time of the deepest mode (the "spin-down cost" in seconds of idling in the ready mode).
//! - Timeout used for a gap: the weight-averaged timeout `τ = Σ w_i·x_i` (weights normalised).
//! - Loss of expert `i` on a gap of length `s`, in seconds of ready-mode power (reduced units),
//!   with `c = B` and spin-up penalty `λ` (seconds; 0 = pure energy):
//!   `E(x, s) = s if s ≤ x else x + c`, `OPT(s) = min(s, c)`,
//!   `L = min(1, (E − OPT + λ·1{s > x}) / (c + λ))`.
//! - Update: `w_i ← w_i·e^(−η·L_i)`, then share `pool = Σ w_i·(1 − (1−α)^L_i)`,
//!   `w_i ← w_i·(1−α)^L_i + pool/n`.
//!
//! Defaults η = 4, α = 0.08, n = 25, spacing 1.15 come from a public reimplementation
//! (ALGORITHMS marks them unverified against the paper); the loss is the energy-regret loss
//! that ALGORITHMS recommends, since the paper's exact loss could not be checked.

use super::{fmt_num, BuildContext, Family, GapStart, ParamDoc, Plan, Policy, PolicySpec};
use crate::device::Device;
use crate::error::Result;

pub(super) const FAMILY: Family = Family {
    name: "experts",
    summary: "Helmbold et al. multiple-experts share algorithm: weighted-average timeout over a grid of expert timeouts.",
    params: &[
        ParamDoc { name: "n", default: "25", help: "number of experts" },
        ParamDoc { name: "spacing", default: "1.15", help: "ratio between neighbouring expert timeouts x_i = B/spacing^i" },
        ParamDoc { name: "eta", default: "4", help: "learning rate of the loss update" },
        ParamDoc { name: "alpha", default: "0.08", help: "share rate" },
        ParamDoc { name: "lambda", default: "0", help: "spin-up penalty in seconds of ready-mode power (0 = energy only)" },
    ],
    example: "experts",
    run_by_the_drive: false,
    build,
};

struct Experts {
    name: String,
    mode: usize,
    cost_s: f64,
    lambda_s: f64,
    eta: f64,
    alpha: f64,
    timeouts_s: Vec<f64>,
    weights: Vec<f64>,
    /// Per expert, the last fractional loss and its two factors `(1−α)^L` and `e^(−ηL)`: every
    /// gap longer than `B` gives expert `i` the same loss, so most gaps reuse them instead of
    /// calling `powf` and `exp` (the cached values are the very ones those calls return).
    factors: Vec<LossFactors>,
}

#[derive(Debug, Clone, Copy)]
struct LossFactors {
    loss: f64,
    kept: f64,
    decay: f64,
}

fn build(spec: &PolicySpec, device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    spec.expect_keys(&["n", "spacing", "eta", "alpha", "lambda"])?;
    let n = spec.number("n", 25.0, 1.0, 10_000.0)?.round() as usize;
    let spacing = spec.number("spacing", 1.15, 1.0 + 1e-9, 100.0)?;
    let eta = spec.number("eta", 4.0, 0.0, 1e6)?;
    let alpha = spec.number("alpha", 0.08, 0.0, 1.0)?;
    let lambda_s = spec.number("lambda", 0.0, 0.0, 1e9)?;
    let mode = super::require_low_power_mode(spec, device)?;
    let cost_s = device.break_even_s(mode);
    let timeouts_s = if cost_s.is_finite() { (0..n).map(|i| cost_s / spacing.powi(i as i32)).collect() } else { Vec::new() };
    Ok(Box::new(Experts {
        name: format!("experts:n={n},spacing={},eta={},alpha={},lambda={}", fmt_num(spacing), fmt_num(eta), fmt_num(alpha), fmt_num(lambda_s)),
        mode,
        cost_s,
        lambda_s,
        eta,
        alpha,
        weights: vec![1.0 / n as f64; timeouts_s.len()],
        factors: vec![LossFactors { loss: 0.0, kept: 1.0, decay: 1.0 }; timeouts_s.len()],
        timeouts_s,
    }))
}

impl Experts {
    fn loss(&self, timeout_s: f64, gap_s: f64) -> f64 {
        let c = self.cost_s;
        let slept = gap_s > timeout_s;
        let energy = if slept { timeout_s + c } else { gap_s };
        let regret = energy - gap_s.min(c) + if slept { self.lambda_s } else { 0.0 };
        (regret / (c + self.lambda_s)).clamp(0.0, 1.0)
    }
}

impl Policy for Experts {
    fn name(&self) -> &str {
        &self.name
    }

    fn plan_gap(&mut self, _gap: &GapStart, plan: &mut Plan) {
        if self.timeouts_s.is_empty() {
            return;
        }
        let total: f64 = self.weights.iter().sum();
        let timeout_s: f64 = self.weights.iter().zip(&self.timeouts_s).map(|(w, x)| w * x).sum::<f64>() / total;
        plan.push(timeout_s, self.mode);
    }

    fn end_gap(&mut self, idle_s: f64) {
        let n = self.timeouts_s.len();
        if n == 0 {
            return;
        }
        let mut pool = 0.0;
        for i in 0..n {
            let loss = self.loss(self.timeouts_s[i], idle_s);
            // A zero loss keeps the weight (both factors are exactly 1).
            let (kept, decay) = if loss == 0.0 {
                (1.0, 1.0)
            } else {
                let cached = &mut self.factors[i];
                if cached.loss != loss {
                    *cached = LossFactors { loss, kept: (1.0 - self.alpha).powf(loss), decay: (-self.eta * loss).exp() };
                }
                (cached.kept, cached.decay)
            };
            let w = self.weights[i] * decay;
            pool += w * (1.0 - kept);
            self.weights[i] = w * kept;
        }
        let share = pool / n as f64;
        let mut total = 0.0;
        for w in &mut self.weights {
            *w += share;
            total += *w;
        }
        // Renormalise so weights never underflow over millions of gaps.
        if total > 0.0 {
            for w in &mut self.weights {
                *w /= total;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::tests::two_state;
    use crate::policy::BuildContext;

    #[test]
    fn learns_short_timeouts_on_long_gaps_and_long_timeouts_on_short_gaps() {
        let d = two_state(); // B = 4 s
        let spec = PolicySpec::parse("experts").unwrap();
        let timeout_after = |gap: f64| {
            let mut p = spec.build(&d, &BuildContext::default()).unwrap();
            for _ in 0..200 {
                p.end_gap(gap);
            }
            let mut plan = Plan::default();
            p.plan_gap(&GapStart { device: &d, time_s: 0.0, gap_s: 0.0, ends_run: false, held: None }, &mut plan);
            plan.steps[0].at_s
        };
        let long = timeout_after(100.0);
        let short = timeout_after(1.0);
        assert!(long < 0.5, "long gaps should drive the timeout towards 0, got {long}");
        assert!(short > 2.0, "short gaps should drive the timeout towards B, got {short}");
    }
}
