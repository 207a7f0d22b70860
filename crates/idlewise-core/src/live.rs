//! A power manager for a real device (seed 000's system, live): the same [`DeviceSim`] and policy
//! objects a replay runs, fed the device's activity as it is observed, asked what the policy
//! has decided by now, and answering applications' two questions (what mode, what an access
//! would cost) and their ghost hints.
//!
//! The model is the simulation: fed the same requests, a [`LiveDisk`] holds the very run
//! `simulate` computes, bit for bit. What the live loop adds is *when it acts*: a decision the
//! plan makes at time `p` is carried out at the first poll at or after `p`, so late by less than
//! one poll interval; one planned inside an interval that turned out to hold I/O was overtaken
//! by that I/O. The Python face (`idlewise manage`) reads the activity, runs the commands and
//! keeps the log; this file decides.

use std::sync::Arc;

use crate::device::{Device, READY};
use crate::device_sim::{DeviceSim, DeviceState};
use crate::error::{Error, Result};
use crate::metrics::RunResult;
use crate::options::ReplayOptions;
use crate::policy::{BuildContext, PolicySpec};
use crate::system::power_manager::{access_estimate, Estimate};

/// Why a mode changed.
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    /// The policy's plan for an idle gap, `idle_s` into it.
    Plan { idle_s: f64 },
    /// I/O arrived while the device rested in a low-power mode: the device wakes itself.
    Access,
    /// A ghost hint made the policy wake the device.
    Hint,
    /// The device was found in another mode than the model's (a state probe): woken, or spun
    /// down, by something other than the manager. The model is corrected at the probe.
    Outside,
}

/// One mode change of the model, at the time the model makes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub time_s: f64,
    pub from_mode: usize,
    pub to_mode: usize,
    pub cause: Cause,
}

/// What an application asks of a managed device (seed 000 §4.1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Status {
    /// The mode the device rests in, or is moving to.
    pub mode: usize,
    /// Whether a transition is under way (to `mode`).
    pub moving: bool,
    /// Since when the device has been in `mode` (or busy, in the ready mode).
    pub since_s: f64,
    /// The model's energy from the start.
    pub energy_j: f64,
    /// What an access of the asked size would cost now.
    pub access: Estimate,
}

/// One managed device.
pub struct LiveDisk {
    sim: DeviceSim<'static>,
    device: Arc<Device>,
    base_power_w: f64,
    /// The open gap (its start) and how many of its planned hops were reported.
    reported: Option<(f64, usize)>,
    /// When the device last entered its current mode (a request, a hop's end).
    since_s: f64,
    /// When the last request fed completes.
    last_finish_s: f64,
}

impl LiveDisk {
    /// A device model under a policy, starting in its ready mode at `start_s`. An offline
    /// policy (the oracle reads each gap's length before it starts) cannot run live.
    pub fn new(device: Arc<Device>, spec: &str, base_power_w: f64, start_s: f64) -> Result<LiveDisk> {
        LiveDisk::with_spec(device, &PolicySpec::parse(spec)?, base_power_w, start_s)
    }

    /// [`LiveDisk::new`] of a parsed spec (a policy made outside the engine too).
    pub fn with_spec(device: Arc<Device>, spec: &PolicySpec, base_power_w: f64, start_s: f64) -> Result<LiveDisk> {
        let policy = spec.build(&device, &BuildContext { base_power_w })?;
        if policy.reads_gap_lengths() {
            return Err(Error::Option {
                option: "policy".into(),
                message: format!("{} is offline: it knows each idle period's length before it starts, which no live manager does", spec.text),
            });
        }
        let opts = ReplayOptions { base_power_w, ..ReplayOptions::default() };
        let sim = DeviceSim::new(device.clone(), policy, &opts, start_s, 0);
        Ok(LiveDisk { sim, device, base_power_w, reported: None, since_s: start_s, last_finish_s: start_s })
    }

    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// Where the device is at `now`, without opening an idle gap of length zero at the last
    /// completion (a replay never asks a policy to plan one).
    fn state(&mut self, now: f64) -> DeviceState {
        if self.sim.gap_start_s().is_none() && now <= self.sim.free_at() {
            return DeviceState::Busy { until_s: self.sim.free_at() };
        }
        self.sim.state_at(now)
    }

    /// The plan's hops that begin before `until` and were not reported yet.
    fn due(&mut self, until: f64, out: &mut Vec<Decision>) {
        let hops = self.sim.planned_hops(until);
        let Some(start) = self.sim.gap_start_s() else { return };
        let done = match self.reported {
            Some((s, n)) if s == start => n,
            _ => 0,
        };
        for &(at, index) in &hops[done.min(hops.len())..] {
            let hop = &self.device.transitions[index];
            out.push(Decision { time_s: at, from_mode: hop.from, to_mode: hop.to, cause: Cause::Plan { idle_s: at - start } });
            self.since_s = at + hop.time_s;
        }
        self.reported = Some((start, hops.len()));
    }

    /// The mode changes the policy has made by `now` since the last call (none while busy).
    pub fn advance(&mut self, now: f64) -> Vec<Decision> {
        let mut out = Vec::new();
        self.due(now, &mut out);
        out
    }

    /// Requests observed (in time order, at or after everything given before): the plan's
    /// hops before each arrival, then the wake-up an arrival in a low-power mode causes.
    /// `service_s`, where the device reported how long they kept it busy, is each request's
    /// service (priced at the model's power: `Device::observed_service`), so the model's idle
    /// periods begin when the device's did, not when the model's own queue would drain.
    pub fn feed(&mut self, arrival_s: &[f64], size_bytes: &[f64], is_write: &[bool], service_s: Option<&[f64]>) -> Vec<Decision> {
        let mut out = Vec::new();
        for (i, ((&a, &size), &write)) in arrival_s.iter().zip(size_bytes).zip(is_write).enumerate() {
            self.due(a, &mut out);
            let resting = match self.state(a) {
                DeviceState::Mode { mode } => mode,
                DeviceState::Transition { to, .. } => to,
                DeviceState::Busy { .. } => READY,
            };
            let observed = service_s.map(|s| self.device.observed_service(s[i], write));
            self.last_finish_s = self.sim.request_measured_from(a, a, size, write, 0.0, observed);
            if resting != READY {
                // Woken (or served where it rests, a mode that serves): its time there restarts.
                if !self.device.modes[resting].serves {
                    out.push(Decision { time_s: a, from_mode: resting, to_mode: READY, cause: Cause::Access });
                }
                self.since_s = a;
            }
            self.reported = None;
        }
        out
    }

    /// A ghost hint at `now` (seed 000 §4.4): an application would have read `size_bytes` had
    /// the device been ready. Its benefit is what the access costs now over what it would cost
    /// ready, weighted by `knob` (`K·seconds + (100 − K)·joules`, as the energy-aware cache
    /// weighs it); the policy decides whether to wake. Returns the wake-up, if any.
    pub fn hint(&mut self, now: f64, size_bytes: f64, knob: f64) -> Vec<Decision> {
        let mut out = Vec::new();
        self.due(now, &mut out);
        let state = self.state(now);
        let cost = |e: Estimate| e.time_s * knob + e.energy_j * (100.0 - knob);
        let here = access_estimate(&self.device, state, now, &[size_bytes], self.base_power_w);
        let ready = access_estimate(&self.device, DeviceState::Mode { mode: READY }, now, &[size_bytes], self.base_power_w);
        let benefit = cost(here) - cost(ready);
        let resting = match state {
            DeviceState::Mode { mode } => mode,
            DeviceState::Transition { to, .. } => to,
            DeviceState::Busy { .. } => READY,
        };
        if benefit > 0.0 && resting != READY {
            if let Some(ready_s) = self.sim.ghost_hint(now, benefit) {
                out.push(Decision { time_s: now, from_mode: resting, to_mode: READY, cause: Cause::Hint });
                self.since_s = ready_s;
                self.reported = None;
            }
        }
        out
    }

    /// The mode the model rests in at `now` (or is moving to; ready while busy).
    fn resting(&mut self, now: f64) -> usize {
        match self.state(now) {
            DeviceState::Mode { mode } => mode,
            DeviceState::Transition { to, .. } => to,
            DeviceState::Busy { .. } => READY,
        }
    }

    /// After the open gap's plan was revised at `now`: every hop beginning before `until` is
    /// taken as reported, and the model's mode began when the last of them ended.
    fn settle_revised(&mut self, now: f64, until: f64) {
        let Some(start) = self.sim.gap_start_s() else { return };
        let hops = self.sim.planned_hops(until);
        self.since_s = hops.last().map_or(start, |&(at, h)| at + self.device.transitions[h].time_s).min(now);
        self.reported = Some((start, hops.len()));
    }

    /// The hop the plan began at `planned_s` did not happen (its command failed, or was held
    /// back): the model stays in the mode the device is in, so it books what the device did,
    /// and the policy's move into `to` is planned again at `retry_s` (None: not in this gap).
    /// False when no gap is open (the device is busy: nothing to undo).
    pub fn undo_hop(&mut self, now: f64, planned_s: f64, to: usize, retry_s: Option<f64>) -> bool {
        let then: Vec<(f64, usize)> = retry_s.map(|r| (r.max(now), to)).into_iter().collect();
        if !self.sim.revise_open_plan(planned_s, &then) {
            return false;
        }
        self.settle_revised(now, now);
        true
    }

    /// The device was found in `actual` at `now` by a probe that does not wake it (`hdparm
    /// -C`, REQUEST SENSE, NVMe's power state): where the model says otherwise it is corrected
    /// at `now` (the device moved between two probes; the model books the move at the second),
    /// woken if the device is ready, moved down if the device rests lower than the model says.
    /// Returns the correction, if any.
    pub fn correct(&mut self, now: f64, actual: usize) -> Vec<Decision> {
        let mut out = Vec::new();
        self.due(now, &mut out);
        let model = self.resting(now);
        if model == actual {
            return out;
        }
        if actual == READY {
            let ready_s = self.sim.wake(now);
            out.push(Decision { time_s: now, from_mode: model, to_mode: READY, cause: Cause::Outside });
            self.since_s = ready_s;
            self.reported = None;
        } else if self.sim.revise_open_plan(now, &[(now, actual)]) {
            out.push(Decision { time_s: now, from_mode: model, to_mode: actual, cause: Cause::Outside });
            self.settle_revised(now, f64::INFINITY);
            self.since_s = now;
        }
        out
    }

    /// The device's mode, how long it has been there, the energy so far and what an access of
    /// `size_bytes` would cost now.
    pub fn status(&mut self, now: f64, size_bytes: f64) -> Status {
        let mut ignored = Vec::new();
        self.due(now, &mut ignored);
        let state = self.state(now);
        let (mode, moving) = match state {
            DeviceState::Mode { mode } => (mode, false),
            DeviceState::Transition { to, .. } => (to, true),
            DeviceState::Busy { .. } => (READY, false),
        };
        let access = access_estimate(&self.device, state, now, &[size_bytes], self.base_power_w);
        Status { mode, moving, since_s: self.since_s.min(now), energy_j: self.sim.energy_to(now), access }
    }

    /// When the last request fed completes (the model's).
    pub fn last_finish_s(&self) -> f64 {
        self.last_finish_s
    }

    /// Ends the run at `end_s`: the account `simulate` gives for the same requests and end.
    pub fn finish(self, end_s: f64) -> RunResult {
        self.sim.finish(end_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk() -> Arc<Device> {
        Arc::new(Device::from_toml(include_str!("../../../python/idlewise/catalog/hitachi-microdrive-1gb.toml"), "microdrive").unwrap())
    }

    /// A hand-worked timeout: idle from 1 s (the request's completion), the plan moves the
    /// microdrive down at 1 s + 10 s; an access at 100 s wakes it.
    #[test]
    fn a_timeout_spins_down_after_its_idle_time_and_an_access_wakes_it() {
        let device = disk();
        let service = device.service(4096.0, false, 0.0, 0.0).0;
        let mut live = LiveDisk::new(device.clone(), "timeout:10s", 0.0, 0.0).unwrap();
        assert!(live.feed(&[1.0], &[4096.0], &[false], None).is_empty());
        assert!(live.advance(5.0).is_empty());
        let down = live.advance(50.0);
        assert!(!down.is_empty());
        assert!((down[0].time_s - (1.0 + service + 10.0)).abs() < 1e-9, "{down:?}");
        assert_eq!(down[0].from_mode, READY);
        assert!(live.advance(60.0).is_empty(), "each hop is reported once");
        let up = live.feed(&[100.0], &[4096.0], &[false], None);
        assert_eq!(up.last().map(|d| (d.to_mode, d.cause.clone())), Some((READY, Cause::Access)));
    }

    /// The live model is the simulation: the same requests give the same account.
    #[test]
    fn fed_the_same_requests_it_is_the_replay() {
        let device = disk();
        let times: Vec<f64> = (0..200).map(|i| (i as f64).powf(1.7)).collect();
        let sizes = vec![4096.0; times.len()];
        let writes: Vec<bool> = (0..times.len()).map(|i| i % 3 == 0).collect();
        for spec in ["timeout:2s", "stpm:knob=50", "experts", "randomized:seed=3", "hd-idle:30s", "predictive"] {
            let mut live = LiveDisk::new(device.clone(), spec, 0.0, 0.0).unwrap();
            for (i, &t) in times.iter().enumerate() {
                live.advance(t - 0.5);
                live.feed(&[t], &[sizes[i]], &[writes[i]], None);
            }
            let end = live.last_finish_s() + 1000.0;
            let ours = live.finish(end);
            let offsets = vec![0i64; times.len()];
            let sizes_i: Vec<i64> = sizes.iter().map(|&s| s as i64).collect();
            let ops: Vec<u8> = writes.iter().map(|&w| w as u8).collect();
            let trace = crate::trace::TraceView::new(&times, &offsets, &sizes_i, &ops).unwrap();
            let mut p = PolicySpec::parse(spec).unwrap().build(&device, &BuildContext::default()).unwrap();
            let opts = ReplayOptions { tail_s: 1000.0, ..ReplayOptions::default() };
            let theirs = crate::replay::replay(&trace, &device, p.as_mut(), &opts).unwrap();
            assert_eq!(ours.wakeups, theirs.wakeups, "{spec}");
            assert!((ours.energy_j - theirs.energy_j).abs() <= 1e-9 * theirs.energy_j, "{spec}: {} vs {}", ours.energy_j, theirs.energy_j);
        }
    }

    /// A hop whose command failed is undone: the model stays ready (its energy is the ready
    /// power's, no transition booked) and the move is planned again at the retry; undone for
    /// good, the model stays ready to the next request. By hand on the microdrive: ready
    /// 0.76 W, down to standby (0.32 s, 0.3 J) at 10 s idle.
    #[test]
    fn a_failed_spin_down_is_undone_and_retried() {
        let device = disk();
        let standby = device.modes.iter().position(|m| m.name == "standby").unwrap();
        let mut live = LiveDisk::new(device.clone(), "timeout:10s", 0.0, 0.0).unwrap();
        live.feed(&[0.0], &[4096.0], &[false], Some(&[0.5]));
        let down = live.advance(12.0);
        assert_eq!((down.len(), down[0].time_s, down[0].to_mode), (1, 10.5, standby));
        assert!(live.undo_hop(12.0, 10.5, standby, Some(40.0)));
        let s = live.status(30.0, 4096.0);
        assert_eq!(s.mode, READY);
        // 0.5 s serving at the read power, then ready from 0.5 s to 30 s.
        let serving = 0.5 * device.service.read_power_w;
        assert!((s.energy_j - (serving + 0.76 * 29.5)).abs() < 1e-9, "{}", s.energy_j);
        let retried = live.advance(41.0);
        assert_eq!((retried.len(), retried[0].time_s, retried[0].to_mode), (1, 40.0, standby));
        // Undone for good: ready until the next request, which then wakes nothing.
        assert!(live.undo_hop(41.0, 40.0, standby, None));
        assert!(live.advance(500.0).is_empty());
        assert!(live.feed(&[600.0], &[4096.0], &[false], Some(&[0.5])).is_empty());
        let result = live.finish(600.5);
        assert_eq!((result.wakeups, result.transition_energy_j), (0, 0.0));
        assert!((result.energy_j - (2.0 * serving + 0.76 * 599.5)).abs() < 1e-9, "{}", result.energy_j);
    }

    /// A probe finds the device elsewhere than the model: woken outside the manager (booked as
    /// a wake-up at the probe), or spun down by itself (booked as a move down at the probe).
    #[test]
    fn a_model_found_stale_is_corrected_at_the_probe() {
        let device = disk();
        let standby = device.modes.iter().position(|m| m.name == "standby").unwrap();
        let mut live = LiveDisk::new(device.clone(), "timeout:10s", 0.0, 0.0).unwrap();
        live.feed(&[0.0], &[4096.0], &[false], Some(&[0.0]));
        live.advance(20.0);
        let woken = live.correct(50.0, READY);
        assert_eq!(woken.iter().map(|d| (d.time_s, d.from_mode, d.to_mode, d.cause.clone())).collect::<Vec<_>>(), vec![(50.0, standby, READY, Cause::Outside)]);
        assert_eq!(live.status(51.0, 4096.0).mode, READY);
        // Ready again, the timer starts over from the wake-up: down again 10 s after it.
        let again = live.advance(70.0);
        assert_eq!(again.len(), 1);
        assert!((again[0].time_s - (50.0 + 0.82 + 10.0)).abs() < 1e-9, "{again:?}");
        // A model still ready finds the device in standby (its own timer, another tool).
        let mut live = LiveDisk::new(device.clone(), "timeout:1h", 0.0, 0.0).unwrap();
        live.feed(&[0.0], &[4096.0], &[false], Some(&[0.0]));
        let down = live.correct(100.0, standby);
        assert_eq!(down.iter().map(|d| (d.time_s, d.to_mode, d.cause.clone())).collect::<Vec<_>>(), vec![(100.0, standby, Cause::Outside)]);
        assert_eq!(live.status(101.0, 4096.0).mode, standby);
        assert!(live.correct(200.0, standby).is_empty(), "no correction where the model agrees");
        let result = live.finish(300.0);
        assert_eq!(result.transition_counts.len(), 1);
        assert!((result.time_by_mode_s[READY] - 100.0).abs() < 1e-9 && (result.time_by_mode_s[standby] - (200.0 - 0.32)).abs() < 1e-9, "{:?}", result.time_by_mode_s);
    }

    /// Fed the busy time the device reported, the model's idle period begins when the device's
    /// did, however slow the catalog model would serve the requests.
    #[test]
    fn observed_service_starts_the_idle_period_where_the_device_idled() {
        let device = disk();
        // 64 MiB reads: the catalog model takes seconds; the device said 0.25 s each.
        let mut live = LiveDisk::new(device.clone(), "timeout:2s", 0.0, 0.0).unwrap();
        live.feed(&[0.0, 0.5], &[64e6, 64e6], &[false, false], Some(&[0.25, 0.25]));
        assert_eq!(live.last_finish_s(), 0.75);
        let down = live.advance(3.0);
        assert_eq!(down.iter().map(|d| d.time_s).collect::<Vec<_>>(), vec![2.75]);
        let mut modelled = LiveDisk::new(device, "timeout:2s", 0.0, 0.0).unwrap();
        modelled.feed(&[0.0, 0.5], &[64e6, 64e6], &[false, false], None);
        assert!(modelled.last_finish_s() > 5.0, "the catalog model's own service: {}", modelled.last_finish_s());
    }

    #[test]
    fn the_oracle_cannot_run_live() {
        assert!(LiveDisk::new(disk(), "oracle", 0.0, 0.0).is_err());
    }
}
