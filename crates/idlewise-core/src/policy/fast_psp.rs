//! A network card's firmware switch to CAM under traffic (Cisco's "Fast PSP"), wrapped around
//! whatever policy runs the card: the card, not the policy, decides to stay awake while packets
//! stream in, and the policy's plan for an idle gap starts only when that hold ends.

use std::collections::VecDeque;

use super::{GapStart, Plan, Policy};
use crate::device::FastPsp;

pub struct FastPspPolicy<'p> {
    inner: Box<dyn Policy + 'p>,
    switch: FastPsp,
    /// Arrivals within the last `window_s`.
    recent: VecDeque<f64>,
    /// The card stays in CAM until then.
    cam_until_s: f64,
}

impl<'p> FastPspPolicy<'p> {
    pub fn new(inner: Box<dyn Policy + 'p>, switch: FastPsp) -> Self {
        FastPspPolicy { inner, switch, recent: VecDeque::new(), cam_until_s: f64::NEG_INFINITY }
    }
}

impl Policy for FastPspPolicy<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn plan_gap(&mut self, gap: &GapStart, plan: &mut Plan) {
        let hold_left_s = self.cam_until_s - gap.time_s;
        let psp = self.switch.psp_mode;
        if hold_left_s <= 0.0 {
            self.inner.plan_gap(gap, plan);
            return;
        }
        // Held in CAM: a planned move into PSP waits for the hold to end, and is dropped if the
        // plan has switched the card off by then. The policy is told of the hold: the oracle,
        // which plans to be awake again exactly at the next request, would otherwise have its
        // move pushed past its own wake-up, and the request wait for it.
        self.inner.plan_gap(&GapStart { held: Some((psp, hold_left_s)), ..*gap }, plan);
        let first_other_s = plan.steps.iter().filter(|s| s.mode != psp).map(|s| s.at_s).fold(f64::INFINITY, f64::min);
        for step in plan.steps.iter_mut().filter(|s| s.mode == psp) {
            step.at_s = step.at_s.max(hold_left_s);
        }
        plan.steps.retain(|s| s.mode != psp || s.at_s < first_other_s);
    }

    fn end_gap(&mut self, idle_s: f64) {
        self.inner.end_gap(idle_s)
    }

    fn serve_in_mode(&mut self, mode: usize, arrival_s: f64) -> bool {
        self.inner.serve_in_mode(mode, arrival_s)
    }

    fn note_transfer(&mut self, arrival_s: f64) {
        self.inner.note_transfer(arrival_s);
        self.recent.push_back(arrival_s);
        while self.recent.front().is_some_and(|&t| t < arrival_s - self.switch.window_s) {
            self.recent.pop_front();
        }
        if self.recent.len() >= self.switch.burst_requests as usize {
            self.cam_until_s = self.cam_until_s.max(arrival_s + self.switch.hold_s);
        }
    }

    fn reads_gap_lengths(&self) -> bool {
        self.inner.reads_gap_lengths()
    }

    fn ghost_hint(&mut self, now_s: f64, mode: usize, benefit: f64) -> bool {
        self.inner.ghost_hint(now_s, mode, benefit)
    }

    fn observes_requests(&self) -> bool {
        self.inner.observes_requests()
    }

    fn observe_request(&mut self, request: &super::Arrival) {
        self.inner.observe_request(request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Device;
    use crate::policy::{BuildContext, PolicySpec};

    fn card() -> Device {
        let text = "name = \"card\"\nkind = \"network\"\n\
            [[modes]]\nname = \"cam\"\npower_w = 1.0\nserves = true\n\
            [[modes]]\nname = \"doze\"\npower_w = 0.1\nserves = true\n\
            [[modes]]\nname = \"off\"\npower_w = 0.0\n\
            [[transitions]]\nfrom = \"cam\"\nto = \"doze\"\ntime_s = 0\nenergy_j = 0\n\
            [[transitions]]\nfrom = \"doze\"\nto = \"cam\"\ntime_s = 0.01\nenergy_j = 0.01\n\
            [[transitions]]\nfrom = \"cam\"\nto = \"off\"\ntime_s = 0\nenergy_j = 0\n\
            [[transitions]]\nfrom = \"doze\"\nto = \"off\"\ntime_s = 0\nenergy_j = 0\n\
            [[transitions]]\nfrom = \"off\"\nto = \"cam\"\ntime_s = 0.3\nenergy_j = 0.1\n\
            [fast_psp]\npsp_mode = \"doze\"\nburst_requests = 2\nwindow_s = 1.0\nhold_s = 5.0\n\
            [service]\noverhead_s = 0\nread_bandwidth_bytes_per_s = 1e6\nwrite_bandwidth_bytes_per_s = 1e6\nactive_power_w = 1.0\n";
        Device::from_toml(text, "card.toml").unwrap()
    }

    fn plan_after(spec: &str, arrivals: &[f64], gap_start_s: f64) -> Vec<(f64, usize)> {
        let d = card();
        let mut p = PolicySpec::parse(spec).unwrap().build(&d, &BuildContext::default()).unwrap();
        for &t in arrivals {
            p.note_transfer(t);
        }
        let mut plan = Plan::default();
        p.plan_gap(&GapStart { device: &d, time_s: gap_start_s, gap_s: f64::INFINITY, ends_run: false, held: None }, &mut plan);
        plan.steps.iter().map(|s| (s.at_s, s.mode)).collect()
    }

    #[test]
    fn a_burst_holds_the_card_in_cam_and_leaves_the_os_switch_off_alone() {
        // One request: the policy dozes 0.1 s into the gap.
        assert_eq!(plan_after("timeout:doze=100ms", &[0.0], 0.5), vec![(0.1, 1)]);
        // Two within a second: CAM until 0.5 + 5 = 5.5 s; the gap starts at 0.6, so doze at 4.9.
        let held = plan_after("timeout:doze=100ms", &[0.0, 0.5], 0.6);
        assert_eq!(held.len(), 1);
        assert!((held[0].0 - 4.9).abs() < 1e-12 && held[0].1 == 1, "{held:?}");
        // Two seconds apart: no burst.
        assert_eq!(plan_after("timeout:doze=100ms", &[0.0, 2.0], 2.1), vec![(0.1, 1)]);
        // The OS's switch-off is not the firmware's: it keeps its time, and a doze it would
        // come after is dropped.
        assert_eq!(plan_after("timeout:off=200ms", &[0.0, 0.5], 0.6), vec![(0.2, 2)]);
        assert_eq!(plan_after("timeout:doze=100ms,off=2s", &[0.0, 0.5], 0.6), vec![(2.0, 2)]);
    }

    #[test]
    fn the_psp_mode_must_be_a_low_power_mode_of_a_network_card() {
        let bad = |patch: &str| {
            let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/idlewise/catalog/cisco-aironet-350-swap.toml")).unwrap();
            let text = text.replace("psp_mode = \"doze\"", patch);
            Device::from_toml(&text, "cisco.toml").unwrap_err().to_string()
        };
        assert!(bad("psp_mode = \"nap\"").contains("fast_psp.psp_mode"));
        assert!(bad("psp_mode = \"wait\"").contains("not the ready mode"));
    }
}
