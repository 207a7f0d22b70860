//! `predictive`: exponential-average idle prediction (Hwang & Wu; ALGORITHMS §3.5).
//!
//! - Prediction: `I[n+1] = a·i[n] + (1 − a)·I[n]`, with growth capped at `csat·I[n]`
//!   (over-prediction correction); the first prediction is 0.
//! - At gap start, if the prediction is long enough that some low-power mode beats staying ready
//!   for a gap of that length, move at once to the mode that is best for the predicted length and,
//!   with `prewake=1`, start waking so as to be ready at the predicted end. If the gap outlasts
//!   the prediction, a watchdog moves to the deepest mode at its break-even time after the
//!   predicted end.
//! - Otherwise (under-prediction watchdog), move to the deepest mode after its break-even time.

use super::{fmt_num, BuildContext, Family, GapStart, ParamDoc, Plan, Policy, PolicySpec, Step};
use crate::device::{Device, READY};
use crate::error::Result;

pub(super) const FAMILY: Family = Family {
    name: "predictive",
    summary: "Hwang-Wu exponential-average idle prediction with immediate shutdown, pre-wake-up and a break-even watchdog.",
    params: &[
        ParamDoc { name: "a", default: "0.5", help: "weight of the latest gap in the exponential average (0..1)" },
        ParamDoc { name: "csat", default: "2", help: "cap on growth of the prediction per gap (over-prediction correction)" },
        ParamDoc { name: "prewake", default: "1", help: "1 = wake so as to be ready at the predicted end of the gap, 0 = wake on arrival" },
    ],
    example: "predictive",
    run_by_the_drive: false,
    build,
};

struct Predictive {
    name: String,
    deepest: usize,
    deepest_break_even_s: f64,
    a: f64,
    csat: f64,
    prewake: bool,
    prediction_s: f64,
}

fn build(spec: &PolicySpec, device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    spec.expect_keys(&["a", "csat", "prewake"])?;
    let a = spec.number("a", 0.5, 0.0, 1.0)?;
    let csat = spec.number("csat", 2.0, 1.0, 1e9)?;
    let prewake = spec.number("prewake", 1.0, 0.0, 1.0)? >= 0.5;
    let deepest = super::require_low_power_mode(spec, device)?;
    Ok(Box::new(Predictive {
        name: format!("predictive:a={},csat={},prewake={}", fmt_num(a), fmt_num(csat), u8::from(prewake)),
        deepest,
        deepest_break_even_s: device.break_even_s(deepest),
        a,
        csat,
        prewake,
        prediction_s: 0.0,
    }))
}

impl Policy for Predictive {
    fn name(&self) -> &str {
        &self.name
    }

    fn plan_gap(&mut self, gap: &GapStart, plan: &mut Plan) {
        let choice = gap.device.best_choice_for_gap(self.prediction_s);
        let mode = choice.mode;
        if mode == READY {
            if self.deepest_break_even_s.is_finite() {
                plan.push(self.deepest_break_even_s, self.deepest);
            }
            return;
        }
        plan.steps.push(Step { at_s: 0.0, mode, route: choice.down });
        if self.prewake {
            let up = choice.up.map_or_else(|| gap.device.up_route(mode), |id| gap.device.route_by_id(id));
            plan.steps.push(Step { at_s: self.prediction_s - up.time_s, mode: READY, route: choice.up });
            if self.deepest_break_even_s.is_finite() {
                plan.push(self.prediction_s + self.deepest_break_even_s, self.deepest);
            }
        }
    }

    fn end_gap(&mut self, idle_s: f64) {
        let next = self.a * idle_s + (1.0 - self.a) * self.prediction_s;
        self.prediction_s = if self.prediction_s > 0.0 { next.min(self.csat * self.prediction_s) } else { next };
    }
}
