//! `stpm`: seed 000's self-tuning disk power management (§4.2.2, equations 2–3).
//!
//! For each low-power mode, with `P_hp` the ready-mode power, `P_lp` the mode's power, the
//! transition times and energies from the device and `P_base` the platform base power:
//!
//! ```text
//! C_E  = E_down − P_hp·T_down + E_up + P_base·T_up                       (2)
//! T_be = (T_up·K + C_E·(100 − K)) / ((P_hp − P_lp)·(100 − K))             (3)
//! ```
//!
//! `K` is the global knob: 0 saves energy, 100 is pure performance (no power management).
//! During an idle gap the policy moves to each low-power mode at its `T_be`, shallow modes first
//! (low-power idle, then standby); a shallower mode whose `T_be` is not earlier than a deeper
//! mode's is skipped.
//!
//! Ghost hints (§4.4): the module keeps a running total of the hints' weighted benefits, lowered
//! between hints by what staying in performance idle would have cost, `(100 − K)·(P_hp − P_mode)`
//! per second. When the total passes the mode's break-even threshold — equation 3's weighted
//! transition cost `T_up·K + C_E·(100 − K)` — it spins the disk up and starts again from zero.

use super::{fmt_num, monotone_cascade, BuildContext, Family, GapStart, ParamDoc, Plan, Policy, PolicySpec, Step};
use crate::device::{Device, READY};
use crate::error::Result;

pub(super) const FAMILY: Family = Family {
    name: "stpm",
    summary: "Self-tuning power management (seed 000): disks: per-mode break-even with base power (eqs. 2-3); network cards: CAM/PSM by runs of transfers; one 0-100 knob.",
    params: &[
        ParamDoc { name: "knob", default: "50", help: "0 = save energy ... 100 = performance (no power management)" },
        ParamDoc { name: "base", default: "the run's base power", help: "platform base power that pays for delays, e.g. base=1.44W" },
        ParamDoc { name: "run_gap", default: "500ms", help: "network devices: transfers closer than this form a run" },
        ParamDoc { name: "window", default: "100", help: "network devices: runs kept in the run-length histogram" },
    ],
    example: "stpm:knob=50",
    run_by_the_drive: false,
    build,
};

struct Stpm {
    name: String,
    steps: Vec<Step>,
    knob: f64,
    ready_power_w: f64,
    /// Per mode: power and equation 3's weighted transition cost (the hint threshold).
    mode_power_w: Vec<f64>,
    hint_threshold: Vec<f64>,
    hint_total: f64,
    last_hint_s: f64,
}

/// Equation 3's numerator: the knob-weighted cost of one round trip through `mode`.
fn weighted_transition_cost(device: &Device, mode: usize, knob: f64, base_power_w: f64) -> f64 {
    let p_hp = device.modes[READY].power_w;
    let down = device.down_route(mode);
    let up = device.up_route(mode);
    let cost_energy_j = down.energy_j - p_hp * down.time_s + up.energy_j + base_power_w * up.time_s;
    up.time_s * knob + cost_energy_j * (100.0 - knob)
}

/// The STPM break-even time (equation 3) of one mode; infinite at knob 100 or if the mode
/// saves no power.
pub(crate) fn stpm_break_even_s(device: &Device, mode: usize, knob: f64, base_power_w: f64) -> f64 {
    let p_hp = device.modes[READY].power_w;
    let p_lp = device.modes[mode].power_w;
    if p_lp >= p_hp || knob >= 100.0 {
        return f64::INFINITY;
    }
    weighted_transition_cost(device, mode, knob, base_power_w) / ((p_hp - p_lp) * (100.0 - knob))
}

fn build(spec: &PolicySpec, device: &Device, ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    if device.kind == crate::device::DeviceKind::Network {
        return super::stpm_network::build(spec, device, ctx);
    }
    spec.expect_keys(&["knob", "base"])?;
    let knob = spec.number("knob", 50.0, 0.0, 100.0)?;
    let base_power_w = spec.power_w("base", ctx.base_power_w)?;
    super::require_low_power_mode(spec, device)?;
    let steps = (1..device.mode_count())
        .map(|m| Step::to(stpm_break_even_s(device, m, knob, base_power_w).max(0.0), m))
        .collect();
    Ok(Box::new(Stpm {
        name: format!("stpm:knob={},base={}W", fmt_num(knob), fmt_num(base_power_w)),
        steps: monotone_cascade(device, steps),
        knob,
        ready_power_w: device.modes[READY].power_w,
        mode_power_w: device.modes.iter().map(|m| m.power_w).collect(),
        hint_threshold: (0..device.mode_count())
            .map(|m| if m == READY { f64::INFINITY } else { weighted_transition_cost(device, m, knob, base_power_w) })
            .collect(),
        hint_total: 0.0,
        last_hint_s: f64::NEG_INFINITY,
    }))
}

impl Policy for Stpm {
    fn name(&self) -> &str {
        &self.name
    }
    fn plan_gap(&mut self, _gap: &GapStart, plan: &mut Plan) {
        plan.steps.extend_from_slice(&self.steps);
    }

    fn ghost_hint(&mut self, now_s: f64, mode: usize, benefit: f64) -> bool {
        if mode == READY {
            return false;
        }
        if self.last_hint_s.is_finite() {
            let staying_cost = (100.0 - self.knob) * (self.ready_power_w - self.mode_power_w[mode]) * (now_s - self.last_hint_s);
            self.hint_total = (self.hint_total - staying_cost).max(0.0);
        }
        self.last_hint_s = now_s;
        self.hint_total += benefit;
        if self.hint_total >= self.hint_threshold[mode] {
            self.hint_total = 0.0;
            return true;
        }
        false
    }
}
