//! The MEMS sled's paths of a [`DeviceSim`]: a request goes to the device's events on DiskSim's
//! millisecond clock (`mechanics::mems_events`), which report its service and completion to the
//! ledger; the sled's shutdowns are charged as the sled model says; and the theoretical minima
//! (seed 004) are gathered beside the run. Every other device is served in `device_sim.rs`.

use super::*;

/// A MEMS device on DiskSim's millisecond clock (see `mechanics::mems` for why the arithmetic
/// follows DiskSim's): the device and its host path, event by event (`mechanics::mems_events`).
#[derive(Debug, Clone)]
pub(super) struct MemsRun {
    /// The device again, so that its service is borrowed from the run taken out of the
    /// simulator rather than through an `Arc` counted up and down on every request.
    pub(super) device: Arc<Device>,
    pub(super) events: MemsEvents,
    pub(super) fold_offsets: bool,
    /// Closed loop: each request's completion is needed before the next is issued, so its
    /// events are handled to the end at once (nothing can arrive before it completes).
    pub(super) complete_each: bool,
    /// The theoretical minima (seed 004 §5.2.1), when asked for: every request served from
    /// where the previous one left the sled, with no idle sweep, shutdown or queueing.
    pub(super) minimum: Option<MemsMinimum>,
    /// Segments speculated on other threads and taken, and refused (`mems_segments`): a run
    /// whose speculations are mostly refused stops speculating.
    pub(super) segments_taken: u64,
    pub(super) segments_refused: u64,
    /// The calls of speculated segments, recorded into buffers kept from block to block.
    pub(super) call_buffers: Vec<Vec<mems_segments::Call>>,
}

/// The sled as if power management never moved it: the seeks requests cause and their media
/// time and energy.
#[derive(Debug, Clone, Default)]
pub(super) struct MemsMinimum {
    /// Where the direct seeks left the sled (the least response).
    pub(super) pos: Coord,
    pub(super) response_sum_ms: f64,
    /// The device's lowest power, which the least energy charges for every moment no way's
    /// media time takes (`TheoreticalMinimum::energy_j`).
    pub(super) lowest_power_w: f64,
    /// Each place the requests so far can have left the sled, by some choice of ways, with the
    /// least (energy, media time) of the choices that leave it there. (Places are whole bits
    /// and a direction: a request's ways end at one or two of them.)
    pub(super) ends: Vec<(Coord, WayCost)>,
    /// The next request's `ends`, being made (kept for its room).
    pub(super) next_ends: Vec<(Coord, WayCost)>,
}

/// Energy (J) and media time (ms) of a choice of ways.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct WayCost {
    pub(super) energy_j: f64,
    pub(super) media_ms: f64,
}

impl MemsMinimum {
    pub(super) fn new(rest: Coord, lowest_power_w: f64) -> Self {
        MemsMinimum { pos: rest, lowest_power_w, ends: vec![(rest, WayCost::default())], ..Default::default() }
    }

    /// What a choice is worth to the least energy: its energy less the lowest power over its
    /// media time, which the least energy would otherwise charge at that power.
    fn worth(&self, cost: WayCost) -> f64 {
        cost.energy_j - self.lowest_power_w * cost.media_ms / 1e3
    }

    /// Adds a request served from where the previous one left the sled (the seek the request
    /// causes): the least response takes the direct seek from where the direct seeks left it.
    /// Stopping at the centre can make the way cheaper now and then (springs that return the
    /// sled for free; a sled at rest that need not turn around near an edge), and so can a
    /// shutdown cut short: `idle_s` is how long the sled was idle before the request in the
    /// run (a shutdown it interrupted may have gone part of the way for free). The least energy
    /// takes, over every choice of ways for every request so far, the one worth least.
    ///
    /// (A shutdown's energy is its axes' alone, on top of the lowest power, as a run charges
    /// it. Once, the least energy took for each request the way of least energy, charged the
    /// direct seek's time, and went on from where the direct seek ended: a run whose seek from
    /// the centre took longer, or that went on from where that seek ended, used less than the
    /// "least" energy — found by `tests/mems.rs` on random traces of one to three requests.)
    fn add(&mut self, service: &MemsService, lbn: i64, blocks: i64, idle_s: f64) {
        let serve_from = |start: Coord| {
            let mut pos = start;
            let served = service.serve(&mut pos, SledStart::Queued, lbn, blocks);
            (WayCost { energy_j: served.energy_j, media_ms: served.media_ms }, pos)
        };
        let direct_from = self.pos;
        let (direct, end) = serve_from(direct_from);
        self.pos = end;
        self.response_sum_ms += service.command_overhead_ms + direct.media_ms;

        let mut next = std::mem::take(&mut self.next_ends);
        next.clear();
        let reach = |next: &mut Vec<(Coord, WayCost)>, so_far: WayCost, way: WayCost, end: Coord| {
            let cost = WayCost { energy_j: so_far.energy_j + way.energy_j, media_ms: so_far.media_ms + way.media_ms };
            match next.iter_mut().find(|(at, _)| *at == end) {
                Some((_, best)) if self.worth(cost) < self.worth(*best) => *best = cost,
                Some(_) => {}
                None => next.push((end, cost)),
            }
        };
        // (From the centre, the same seek whatever the place before.)
        let mut via_rest = None;
        for &(from, so_far) in &self.ends {
            let (way, end) = if from == direct_from { (direct, end) } else { serve_from(from) };
            reach(&mut next, so_far, way, end);
            let Some(shutdown) = service.shutdown_cost(from) else { continue };
            let (via, via_end) = *via_rest.get_or_insert_with(|| serve_from(service.rest));
            reach(&mut next, so_far, WayCost { energy_j: shutdown.energy_j + via.energy_j, ..via }, via_end);
            if idle_s > 0.0 && idle_s < shutdown.time_s {
                let (stop, before, braking) = service.interrupt_shutdown(from, idle_s).expect("a shutdown model");
                let (rest, rest_end) = serve_from(stop);
                reach(&mut next, so_far, WayCost { energy_j: before.energy_j + braking.energy_j + rest.energy_j, ..rest }, rest_end);
            }
        }
        self.next_ends = std::mem::replace(&mut self.ends, next);
    }

    /// The least energy's service energy and media time.
    pub(super) fn least(&self) -> WayCost {
        self.ends.iter().map(|&(_, cost)| cost).min_by(|a, b| self.worth(*a).total_cmp(&self.worth(*b))).unwrap_or_default()
    }
}

/// The account a MEMS device's events are charged to: the device's ledger and power management,
/// and the minima; `log` hears every call as well (`()`: no one, as in any run but a segment
/// speculated on another thread, `mems_segments`).
pub(super) struct MemsLedger<'s, 'p, L: mems_segments::CallLog = ()> {
    pub(super) sim: &'s mut DeviceSim<'p>,
    pub(super) service: &'s MemsService,
    pub(super) minimum: Option<&'s mut MemsMinimum>,
    pub(super) log: L,
}

impl<L: mems_segments::CallLog> MemsHost for MemsLedger<'_, '_, L> {
    #[inline(always)]
    fn noticed(&mut self, incoming: &Incoming, notice_ms: f64, idle: Option<(f64, Coord)>) -> Option<(SledStart, f64)> {
        let answer = self.notice(incoming, notice_ms, idle);
        self.log.noticed(incoming, notice_ms, idle, answer);
        answer
    }

    // The small callbacks are inlined into the event loop that calls them (a request's
    // completion is one of its ~42 steps); `noticed`, with the power manager behind it, is not.
    #[inline(always)]
    fn sled_idle(&mut self, at_ms: f64) {
        self.log.sled_idle(at_ms);
        self.sim.free_at = at_ms / 1e3;
    }

    #[inline(always)]
    fn served(&mut self, served: &ServedRequest) {
        self.log.served(served);
        let sim = &mut *self.sim;
        let (start_s, end_s) = (served.start_ms / 1e3, served.end_ms / 1e3);
        sim.ledger.service_time_s += (served.end_ms - served.start_ms) / 1e3;
        sim.ledger.service_energy_j += served.energy_j;
        sim.free_at = end_s;
        if let Some(timeline) = sim.ledger.timeline.as_mut() {
            timeline.push(start_s, end_s, Activity::Serving);
        }
        if let Some(all) = sim.ledger.per_request.as_mut() {
            all.start_s[served.slot - sim.per_request_handed] = start_s;
        }
        if let Some(minimum) = self.minimum.as_deref_mut() {
            minimum.add(self.service, served.lbn, served.blocks, served.idle_before_ms / 1e3);
        }
    }

    #[inline(always)]
    fn completed(&mut self, slot: usize, measured_from_ms: f64, at_ms: f64) {
        self.log.completed(slot, measured_from_ms, at_ms);
        let sim = &mut *self.sim;
        let response_s = ((at_ms - measured_from_ms) / 1e3).max(0.0);
        sim.ledger.responses.record(response_s);
        if let Some(all) = sim.ledger.per_request.as_mut() {
            all.response_s[slot - sim.per_request_handed] = response_s;
        }
        sim.last_completion_s = sim.last_completion_s.max(at_ms / 1e3);
    }
}

impl<L: mems_segments::CallLog> MemsLedger<'_, '_, L> {
    /// A request's command overhead ended: the power manager says how the sled starts. Not
    /// inlined into the event loop: inlined, it was slower.
    #[inline(never)]
    fn notice(&mut self, incoming: &Incoming, notice_ms: f64, idle: Option<(f64, Coord)>) -> Option<(SledStart, f64)> {
        let sim = &mut *self.sim;
        let notice_s = notice_ms / 1e3;
        if idle.is_some() && sim.gap.is_none() && notice_s > sim.free_at {
            sim.open_gap(notice_s - sim.free_at);
        }
        let activity = sim.ledger.per_request.is_some().then(|| sim.activity_at(notice_s));
        if let (Some(activity), Some(all)) = (activity, sim.ledger.per_request.as_mut()) {
            all.at_arrival[incoming.slot - sim.per_request_handed] = activity;
        }
        let gap_start_s = sim.gap.map(|gap| gap.start_s).filter(|_| idle.is_some());
        let start = idle.map(|(since_ms, pos)| {
            // A gap the policy may have spent in a low-power mode; none when the request came at
            // the very instant the sled fell idle.
            let ready_s = sim.gap.is_some().then(|| sim.close_gap(notice_s));
            match ready_s {
                Some(_) if sim.woke_from_low_power && self.service.shutdown.is_some() => sim.end_mems_shutdown(self.service, pos, since_ms, notice_ms),
                Some(ready_s) if sim.woke_from_low_power => (SledStart::Stopped, notice_ms + (ready_s - notice_s) * 1e3),
                _ => (SledStart::Idle { elapsed_ms: notice_ms - since_ms }, notice_ms),
            }
        });
        if incoming.arrival_s < sim.woken_at {
            sim.ledger.delayed_requests += 1;
        }
        if sim.observes {
            // The request as the sled sees it: its blocks of 512 bytes, noticed after the command.
            let (woke, idle_s) = (gap_start_s.is_some() && sim.woke_from_low_power, gap_start_s.map_or(0.0, |s| notice_s - s));
            let size_bytes = incoming.blocks as f64 * 512.0;
            sim.policy.observe_request(&crate::policy::Arrival { time_s: incoming.arrival_s, size_bytes, is_write: incoming.is_write, idle_s, woke });
        }
        start
    }
}

impl<'p> DeviceSim<'p> {
    /// A request to a MEMS device: it goes to the device's events (`mechanics::mems_events`),
    /// which take it across the bus, through its command overhead and onto the sled, and report
    /// its service and completion to the ledger as they happen. The idle gap, and the policy's
    /// timer, start when the sled leaves the media, as DiskSim's "time before sled inactive"
    /// does. Returns the completion in a closed loop; in an open loop it is not known yet (NaN).
    pub(super) fn mems_request(&mut self, arrival_s: f64, measured_from_s: f64, size_bytes: f64, is_write: bool, offset_bytes: f64) -> f64 {
        self.mems_request_logged(arrival_s, measured_from_s, size_bytes, is_write, offset_bytes, ())
    }

    /// [`DeviceSim::mems_request`], with every call of the device's events to the ledger told to
    /// `log` too.
    #[inline(always)]
    pub(super) fn mems_request_logged<L: mems_segments::CallLog>(&mut self, arrival_s: f64, measured_from_s: f64, size_bytes: f64, is_write: bool, offset_bytes: f64, log: L) -> f64 {
        let mut run = self.mems.take().expect("MEMS run");
        let MemsRun { device, events, complete_each, minimum, fold_offsets, .. } = &mut *run;
        let service = device.service.mems.as_ref().expect("MEMS device");
        let (lbn, blocks) = service.block_range(offset_bytes, size_bytes, *fold_offsets);
        let slot = match self.ledger.per_request.as_mut() {
            Some(all) => {
                all.arrival_s.push(arrival_s);
                all.start_s.push(f64::NAN);
                all.response_s.push(f64::NAN);
                all.at_arrival.push(Activity::Serving);
                self.per_request_handed + all.arrival_s.len() - 1
            }
            None => 0,
        };
        let incoming = Incoming { slot, arrival_s, measured_from_ms: measured_from_s * 1e3, lbn, blocks, is_write };
        let mut ledger = MemsLedger { sim: self, service, minimum: minimum.as_mut(), log };
        events.arrive(service, &mut ledger, incoming);
        let completion_ms = if *complete_each { events.complete_last(service, &mut ledger) } else { f64::NAN };
        self.mems = Some(run);
        completion_ms / 1e3
    }

    /// Handles a MEMS device's events still pending: every request completes (the end of a run).
    pub fn settle(&mut self) {
        let Some(mut run) = self.mems.take() else { return };
        let MemsRun { device, events, minimum, .. } = &mut *run;
        let service = device.service.mems.as_ref().expect("MEMS device");
        events.drain(service, &mut MemsLedger { sim: self, service, minimum: minimum.as_mut(), log: () });
        self.mems = Some(run);
    }

    /// A request ends a MEMS sled's shutdown, or finds it over: the sled started for the centre
    /// when the low-power mode was reached, from where its idle sweep had carried it. The
    /// shutdown's time moves from the low-power mode to transitions, with the actuators' energy.
    /// Interrupted, the sled brakes at once and the request's seek starts where it stops.
    pub(super) fn end_mems_shutdown(&mut self, service: &MemsService, idle_pos: Coord, idle_since_ms: f64, notice_ms: f64) -> (SledStart, f64) {
        let (mode, since_s) = self.low_power_since;
        let began_ms = since_s * 1e3;
        let from = service.sled.idle_sweep(idle_pos, began_ms - idle_since_ms);
        let full = service.shutdown_cost(from).expect("a shutdown model");
        let elapsed_s = (notice_ms - began_ms) / 1e3;
        let mode_power_w = self.device.modes[mode].power_w;
        if elapsed_s >= full.time_s {
            self.charge_shutdown(mode, full.time_s, full.energy_j + mode_power_w * full.time_s);
            return (SledStart::Stopped, notice_ms);
        }
        let (stop, before, braking) = service.interrupt_shutdown(from, elapsed_s).expect("a shutdown model");
        self.charge_shutdown(mode, before.time_s, before.energy_j + mode_power_w * before.time_s);
        // Braking delays the seek: it is the first part of this request's positioning.
        self.ledger.transition_time_s += braking.time_s;
        self.ledger.transition_energy_j += braking.energy_j + mode_power_w * braking.time_s;
        (SledStart::At(stop), notice_ms + braking.time_s * 1e3)
    }

    /// Moves `time_s` of residency in `mode` to transition time costing `energy_j`.
    pub(super) fn charge_shutdown(&mut self, mode: usize, time_s: f64, energy_j: f64) {
        self.ledger.time_by_mode_s[mode] -= time_s;
        self.ledger.transition_time_s += time_s;
        self.ledger.transition_energy_j += energy_j;
    }
}
