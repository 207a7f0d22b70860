//! The network half of `stpm` (seed 000 §4.2.1; Anand, Nightingale & Flinn, MobiCom 2003), chosen
//! by `stpm` for devices of kind `network`. The seed describes it only in outline, so this is the
//! toolkit form of ALGORITHMS.md §4.4, with every constant a parameter:
//!
//! - Transfers less than `run_gap` apart form a *run*; the lengths (in transfers) of the last
//!   `window` runs form a histogram. Ghost hints count as transfers.
//! - When a transfer arrives with the card in PSM, `k` transfers into the current run, the
//!   expected rest of the run is `n = E[L − k + 1 | L ≥ k]` transfers (0 without history). Staying
//!   in PSM delays each by half a beacon period on average: delay `n·B/2`, energy `P_base·n·B/2`.
//!   Switching to CAM delays this transfer by the switch time `T_up`, and costs `E_up + E_down`,
//!   the extra CAM power over the rest of the run and its tail, `(P_cam − P_psm)·(n·s + run_gap)`
//!   with `s` the mean spacing of transfers in runs, plus `P_base·T_up`.
//! - Each is weighed like the cache's equation 4, `K·delay + (100 − K)·energy`; the card goes to
//!   CAM when that is cheaper. In CAM it returns to PSM after `run_gap` without a transfer.
//! - Times between runs form a second histogram (the last `window`). If the card has a mode that
//!   does not serve (off), the policy switches off after the idle time `τ` that minimises the
//!   expected cost over those samples: rent `(100 − K)·(P_psm − P_off)` per second spent in PSM
//!   instead of off, against the buy cost of the off round trip, `K·d + (100 − K)·(E_down + E_up +
//!   P_base·d)` with `d = T_up(off) − B/2` its extra delay over a PSM wake-up (the sample scan of
//!   ALGORITHMS.md §2.2; `τ = ∞`, never off, when no sample pays).

use std::collections::VecDeque;

use super::{fmt_num, BuildContext, GapStart, Plan, Policy, PolicySpec};
use crate::device::{Device, READY};
use crate::error::Result;

pub(super) struct NetworkStpm {
    name: String,
    psm: usize,
    knob: f64,
    base_power_w: f64,
    run_gap_s: f64,
    window: usize,
    beacon_s: f64,
    up_time_s: f64,
    switch_energy_j: f64,
    extra_cam_power_w: f64,
    runs: VecDeque<u32>,
    /// Times between the last transfer of a run and the first of the next.
    between_runs_s: VecDeque<f64>,
    /// The mode that does not serve (off), with the rent and buy cost of using it.
    off: Option<(usize, f64, f64)>,
    current_run: u32,
    last_transfer_s: f64,
    mean_spacing_s: f64,
}

pub(super) fn build(spec: &PolicySpec, device: &Device, ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    spec.expect_keys(&["knob", "base", "run_gap", "window"])?;
    let knob = spec.number("knob", 50.0, 0.0, 100.0)?;
    let base_power_w = spec.power_w("base", ctx.base_power_w)?;
    let run_gap_s = match spec.raw("run_gap") {
        Some(raw) => spec.duration_s(raw, "run_gap")?,
        None => 0.5,
    };
    let window = spec.number("window", 100.0, 1.0, 1e6)? as usize;
    let psm = super::psm::serving_low_power_mode(spec, device)?;
    let beacon_s = device.service.beacon_period_s.ok_or_else(|| {
        spec.error(format!("device '{}' gives no service.beacon_period_s, which network STPM needs", device.name))
    })?;
    let (up, down) = (device.up_route(psm), device.down_route(psm));
    let off = (1..device.mode_count())
        .filter(|&m| !device.modes[m].serves && device.modes[m].power_w < device.modes[psm].power_w)
        .min_by(|&a, &b| device.modes[a].power_w.total_cmp(&device.modes[b].power_w))
        .and_then(|m| {
            let (into, back) = (device.route(psm, m)?, device.up_route(m));
            let extra_delay_s = (back.time_s - beacon_s / 2.0).max(0.0);
            let rent = (100.0 - knob) * (device.modes[psm].power_w - device.modes[m].power_w);
            let buy = knob * extra_delay_s + (100.0 - knob) * (into.energy_j + back.energy_j + base_power_w * extra_delay_s);
            Some((m, rent, buy))
        });
    Ok(Box::new(NetworkStpm {
        name: format!("stpm:knob={},base={}W", fmt_num(knob), fmt_num(base_power_w)),
        psm,
        knob,
        base_power_w,
        run_gap_s,
        window,
        beacon_s,
        up_time_s: up.time_s,
        switch_energy_j: up.energy_j + down.energy_j,
        extra_cam_power_w: device.modes[READY].power_w - device.modes[psm].power_w,
        runs: VecDeque::with_capacity(window),
        between_runs_s: VecDeque::with_capacity(window),
        off,
        current_run: 0,
        last_transfer_s: f64::NEG_INFINITY,
        mean_spacing_s: beacon_s,
    }))
}

/// The threshold `τ ∈ {0} ∪ samples ∪ {∞}` minimising `Σ rent·min(S, τ) + buy·1{S > τ}` over
/// the samples (ALGORITHMS.md §2.2); infinite when never switching is cheapest.
pub(crate) fn best_threshold(samples: &mut [f64], rent: f64, buy: f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let n = samples.len() as f64;
    let never = rent * samples.iter().sum::<f64>();
    let (mut best, mut arg) = (buy * n, 0.0);
    let mut prefix = 0.0;
    for (i, &s) in samples.iter().enumerate() {
        prefix += s;
        let cost = rent * prefix + (n - i as f64 - 1.0) * (rent * s + buy);
        if cost < best {
            best = cost;
            arg = s;
        }
    }
    // On a tie, never switching: it costs the same and adds no wake-up.
    if best < never { arg } else { f64::INFINITY }
}

impl NetworkStpm {
    /// Expected transfers left in the current run, this one included.
    fn expected_remaining(&self) -> f64 {
        let k = self.current_run.max(1);
        let (count, sum) = self.runs.iter().filter(|&&l| l >= k).fold((0u32, 0u64), |(c, s), &l| (c + 1, s + u64::from(l)));
        if count == 0 { 0.0 } else { sum as f64 / f64::from(count) - f64::from(k) + 1.0 }
    }

    fn cam_is_cheaper(&self) -> bool {
        let n = self.expected_remaining();
        if n <= 0.0 {
            return false;
        }
        let k = self.knob;
        let psm_delay = n * self.beacon_s / 2.0;
        let psm_cost = k * psm_delay + (100.0 - k) * self.base_power_w * psm_delay;
        let cam_energy = self.switch_energy_j
            + self.extra_cam_power_w * (n * self.mean_spacing_s + self.run_gap_s)
            + self.base_power_w * self.up_time_s;
        let cam_cost = k * self.up_time_s + (100.0 - k) * cam_energy;
        cam_cost < psm_cost
    }
}

impl Policy for NetworkStpm {
    fn name(&self) -> &str {
        &self.name
    }

    fn plan_gap(&mut self, _gap: &GapStart, plan: &mut Plan) {
        plan.push(self.run_gap_s, self.psm);
        if let Some((off, rent, buy)) = self.off {
            if !self.between_runs_s.is_empty() {
                let mut samples: Vec<f64> = self.between_runs_s.iter().copied().collect();
                let tau = best_threshold(&mut samples, rent, buy);
                if tau.is_finite() {
                    plan.push(tau.max(self.run_gap_s), off);
                }
            }
        }
    }

    fn serve_in_mode(&mut self, mode: usize, _arrival_s: f64) -> bool {
        mode == self.psm && !self.cam_is_cheaper()
    }

    fn ghost_hint(&mut self, now_s: f64, mode: usize, _benefit: f64) -> bool {
        // Seed 000 §4.4: a hint to the network manager counts as a transfer in the current run.
        self.note_transfer(now_s);
        mode == self.psm && self.cam_is_cheaper()
    }

    fn note_transfer(&mut self, arrival_s: f64) {
        let spacing = arrival_s - self.last_transfer_s;
        if spacing > self.run_gap_s {
            if self.current_run > 0 {
                if self.runs.len() == self.window {
                    self.runs.pop_front();
                    self.between_runs_s.pop_front();
                }
                self.runs.push_back(self.current_run);
                self.between_runs_s.push_back(spacing);
            }
            self.current_run = 0;
        } else if spacing.is_finite() {
            self.mean_spacing_s = 0.9 * self.mean_spacing_s + 0.1 * spacing;
        }
        self.current_run += 1;
        self.last_transfer_s = arrival_s;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::device_sim::DeviceSim;
    use crate::replay::ReplayOptions;

    pub(crate) fn cisco() -> Device {
        Device::from_toml(include_str!("../../../../python/idlewise/catalog/cisco-350.toml"), "cisco-350.toml").unwrap()
    }

    /// The Cisco 350 with an off mode whose wake-up (re-association) costs more than leaving PSM,
    /// as it must for the card to be consistent (test-only values).
    fn cisco_with_off() -> Device {
        let text = include_str!("../../../../python/idlewise/catalog/cisco-350.toml").replace(
            "[service]",
            "[[modes]]\nname = \"off\"\npower_w = 0.0\n[[transitions]]\nfrom = \"psm\"\nto = \"off\"\ntime_s = 0.0\nenergy_j = 0.0\n\
             [[transitions]]\nfrom = \"off\"\nto = \"cam\"\ntime_s = 1.0\nenergy_j = 1.2\n[service]",
        );
        Device::from_toml(&text, "cisco-with-off.toml").unwrap()
    }

    fn run(spec: &str, base_power_w: f64, times: &[f64], size: f64) -> crate::metrics::RunResult {
        run_on(cisco(), spec, base_power_w, times, size)
    }

    fn run_on(d: Device, spec: &str, base_power_w: f64, times: &[f64], size: f64) -> crate::metrics::RunResult {
        let p = PolicySpec::parse(spec).unwrap().build(&d, &BuildContext { base_power_w }).unwrap();
        let mut sim = DeviceSim::new(std::sync::Arc::new(d), p, &ReplayOptions { base_power_w, ..Default::default() }, times[0], times.len());
        for &t in times {
            let t = t.max(sim.free_at());
            sim.request(t, size, false, 0.0);
        }
        let end = sim.free_at();
        sim.finish(end)
    }

    #[test]
    fn best_threshold_scans_the_samples() {
        // rent 1, buy 2: gaps of 10 s favour switching at once; gaps of 1 s never pay.
        assert_eq!(best_threshold(&mut [10.0, 10.0, 10.0], 1.0, 2.0), 0.0);
        assert_eq!(best_threshold(&mut [1.0, 1.0, 1.0], 1.0, 2.0), f64::INFINITY);
        // Mixed: short gaps of 1 s and long ones of 20 s: wait past the short ones.
        assert_eq!(best_threshold(&mut [1.0, 20.0, 1.0, 20.0, 1.0, 20.0, 1.0], 1.0, 2.0), 1.0);
    }

    #[test]
    fn stpm_switches_the_card_off_between_long_quiet_spells() {
        // Runs of 5 transfers, then 60 s of quiet: after a few runs the inter-run histogram makes
        // switching off pay, and later quiet spells are spent off.
        let mut times = Vec::new();
        for run in 0..8 {
            for i in 0..5 {
                times.push(run as f64 * 60.0 + i as f64 * 0.1);
            }
        }
        let r = run_on(cisco_with_off(), "stpm:knob=50", 1.44, &times, 4096.0);
        let off = r.mode_names.iter().position(|m| m == "off").unwrap();
        assert!(r.time_by_mode_s[off] > 200.0, "time off: {}", r.time_by_mode_s[off]);
        let psm_only = run_on(cisco_with_off(), "psm", 1.44, &times, 4096.0);
        assert!(r.energy_j < psm_only.energy_j);
        // At knob 99 the off round trip's delay costs too much: the card stays in PSM.
        let fast = run_on(cisco_with_off(), "stpm:knob=99", 1.44, &times, 4096.0);
        assert_eq!(fast.time_by_mode_s[off], 0.0);
    }

    #[test]
    fn psm_download_waits_for_the_next_beacon() {
        // 32 KiB requested at 1.03 s in PSM over the catalog card's TCP link (20 ms each way,
        // 375,000 B/s down, 32,000 B/s up, MSS 1460, initial window 2, a 300-byte request).
        // Every downlink packet waits at the access point for a beacon (every 0.1 s):
        // SYN-ACK at the AP 1.07 -> card 1.1; request up 9.375 ms, at the server 1.129375;
        // window 2: first ACK needs the first segment at the AP at 1.153 -> beacon 1.2, ACK at
        // the server 1.22; window 4 likewise -> 1.32; window 8 -> 1.42; the last 12,328 bytes
        // reach the AP at 1.42 + 0.032875 + 0.02 = 1.4729 -> beacon 1.5. So 0.47 s, dozing at
        // 0.39 W except while receiving (32768/375000 s at 1.64 W) and sending the request
        // (9.375 ms at 2.021 W).
        let d = cisco();
        let psm = d.mode_index("psm").unwrap();
        let served = d.service_in_mode(psm, 1.03, 32768.0, false);
        let (rx, tx) = (32768.0 / 375_000.0, 300.0 / 32_000.0);
        assert!((served.time_s - 0.47).abs() < 1e-12, "{}", served.time_s);
        assert!((served.energy_j - ((0.47 - rx - tx) * 0.39 + rx * 1.64 + tx * 2.021)).abs() < 1e-12);
        // In CAM the same fetch takes 0.2539 s: PSM added the rest.
        let (cam_s, _) = d.service(32768.0, false, 0.0, 0.0);
        assert!((served.power_management_wait_s - (0.47 - cam_s)).abs() < 1e-12);
        // Uploads wait for their acknowledgements' beacons too.
        let up = d.service_in_mode(psm, 1.03, 1000.0, true);
        assert!(up.time_s > d.service(1000.0, true, 0.0, 0.0).0);
    }

    #[test]
    fn static_psm_serves_every_transfer_without_switching() {
        let r = run("psm", 0.0, &[0.0, 5.0, 10.0], 32768.0);
        assert_eq!(r.wakeups, 0);
        // Down to PSM once (0.41 s, 0.53 J), never back to CAM.
        assert_eq!(r.transition_counts, vec![("cam".to_string(), "psm".to_string(), 1)]);
        assert!((r.accounted_time_s() - r.makespan_s).abs() < 1e-9);
    }

    #[test]
    fn stpm_switches_to_cam_for_long_runs_when_performance_matters() {
        // Runs of 30 transfers 100 ms apart, 3 s between runs. After the first run the histogram
        // predicts long runs: at knob 95 the card goes to CAM early in each run; at knob 5 the
        // switch's energy outweighs the delay it saves and the card stays in PSM.
        let mut times = Vec::new();
        for run in 0..6 {
            for i in 0..30 {
                times.push(run as f64 * 6.0 + i as f64 * 0.1);
            }
        }
        let fast = run("stpm:knob=95", 1.44, &times, 4096.0);
        let thrifty = run("stpm:knob=5", 1.44, &times, 4096.0);
        let cam_switches = |r: &crate::metrics::RunResult| {
            r.transition_counts.iter().filter(|(a, b, _)| a == "psm" && b == "cam").map(|(_, _, c)| *c).sum::<u64>()
        };
        assert!(cam_switches(&fast) >= 5, "knob 95 should switch to CAM in the runs after the first: {}", cam_switches(&fast));
        assert_eq!(cam_switches(&thrifty), 0);
        assert!(fast.mean_response_s < thrifty.mean_response_s);
        assert!(fast.energy_j > thrifty.energy_j);
    }
}
