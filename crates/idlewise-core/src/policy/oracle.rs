//! `oracle`: the offline optimum per gap (ALGORITHMS §2.4). Knowing the gap length `T`, it picks
//! the mode, and the paths down and back (direct or chained, whichever is cheapest and fits), with
//! the least energy `E_down + E_up + P·(T − T_down − T_up)` (or `P_ready·T` to stay), goes there
//! at once and wakes early so the device is ready exactly at the next arrival: it adds no delay. Gaps are independent because every
//! request needs the ready mode, so the sum of per-gap optima is the optimum over schedules that
//! add no delay. The run's last gap, after which no request comes, needs no wake-up: there it
//! takes the cheapest path down at once, or stays ready ([`Device::best_choice_for_tail`]).

use super::{BuildContext, Family, GapStart, Plan, Policy, PolicySpec, Step};
use crate::device::{Device, READY};
use crate::error::Result;

pub(super) const FAMILY: Family = Family {
    name: "oracle",
    summary: "Offline optimum per gap over all modes, with pre-wake (no added delay); the lower reference.",
    params: &[],
    example: "oracle",
    run_by_the_drive: false,
    build,
};

/// The plan is read off the device's tables, which the run passes with each gap.
struct Oracle;

fn build(spec: &PolicySpec, _device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    spec.expect_keys(&[])?;
    Ok(Box::new(Oracle))
}

impl Policy for Oracle {
    fn name(&self) -> &str {
        "oracle"
    }
    fn reads_gap_lengths(&self) -> bool {
        true
    }
    /// No mode's round trip fits a shorter gap, so `best_choice_for_gap` can only stay ready.
    fn stays_ready_below_s(&self, device: &Device) -> f64 {
        device.shortest_round_trip_s()
    }
    /// (Where a mode is held for the gap's first moments, `GapStart::held`, the plan for it
    /// sets off when the hold ends, and only if its round trip still fits; the other modes'
    /// plans are weighed against it as they are.)
    fn plan_gap(&mut self, gap: &GapStart, plan: &mut Plan) {
        if gap.ends_run {
            let (choice, at_s) = gap.device.best_choice_for_held_tail(gap.gap_s, gap.held);
            if choice.mode != READY {
                plan.steps.push(Step { at_s, mode: choice.mode, route: choice.down });
            }
            return;
        }
        let (choice, at_s) = gap.device.best_choice_for_held_gap(gap.gap_s, gap.held);
        if choice.mode != READY {
            plan.steps.push(Step { at_s, mode: choice.mode, route: choice.down });
            plan.prewake = true;
            plan.prewake_route = choice.up;
        }
    }
}
