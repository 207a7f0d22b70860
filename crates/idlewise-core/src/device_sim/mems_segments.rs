//! A MEMS replay's block cut into segments replayed side by side, with the result of one replay
//! bit for bit.
//!
//! A MEMS sled is replayed event by event (`mechanics::mems_events`), ~400 ns a request, and one
//! policy's replay is one chain of events: alone it keeps one core. But a policy that decides
//! each gap from the gap alone (a timeout, a cascade: [`Policy::replica`]) forgets
//! everything in a gap it sleeps through: the request that ends it finds the device at rest
//! (nothing queued, the bus free) and the sled stopped at its centre, as it would on a new
//! device. So a segment that begins after such a gap can be replayed on another thread on a new
//! device, by a replica of the policy, before the segment ahead of it is done.
//!
//! Nothing is taken on trust. The speculated segment records every call its events make to
//! their host (the ledger and power manager). When the segment ahead is done, the real run
//! checks that it found the device at rest, then makes those same calls itself, in order, and
//! checks that its power manager answers each request as the replica did (how the sled starts,
//! and when): the device's events depend on nothing else, so the same answers mean the same
//! events, and the ledger, which the real run fills from the calls, gets the same numbers in the
//! same order: the result is one replay's, bit for bit. Where the device was not at rest, or one
//! answer differs (a gap the policy did not sleep through, a shutdown it cut short), the real
//! run is put back as it was and replays the segment itself.
//!
//! (The oracle decides from the gap alone too, but it wakes the sled at the gap's start plus
//! its length, which rounds differently for every place the gap starts: its answers differ from
//! a replica's in their last bits, so it has no replica and is replayed whole.)

use std::sync::Arc;

use super::{DeviceSim, MemsLedger, MemsRun};
use crate::device::Device;
use crate::mechanics::mems::{Coord, SledStart};
use crate::mechanics::mems_events::{Incoming, MemsEvents, ServedRequest};
use crate::options::ReplayOptions;
use crate::policy::Policy;
use crate::trace::TraceView;

/// A segment shorter than this is not worth a thread (a thread starts in tens of µs; a
/// request's replay takes ~0.4 µs).
pub(crate) const LEAST_SEGMENT: usize = 4096;

/// One call of a device's events to their host.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Call {
    Noticed { incoming: Incoming, notice_ms: f64, idle: Option<(f64, Coord)>, answer: Option<(SledStart, f64)> },
    SledIdle { at_ms: f64 },
    Served(ServedRequest),
    Completed { slot: usize, measured_from_ms: f64, at_ms: f64 },
}

/// Who hears a MEMS ledger's calls besides the ledger: no one (`()`, every run's own ledger),
/// or a speculated segment's record.
pub(crate) trait CallLog {
    fn noticed(&mut self, incoming: &Incoming, notice_ms: f64, idle: Option<(f64, Coord)>, answer: Option<(SledStart, f64)>);
    fn sled_idle(&mut self, at_ms: f64);
    fn served(&mut self, served: &ServedRequest);
    fn completed(&mut self, slot: usize, measured_from_ms: f64, at_ms: f64);
}

impl CallLog for () {
    #[inline(always)]
    fn noticed(&mut self, _: &Incoming, _: f64, _: Option<(f64, Coord)>, _: Option<(SledStart, f64)>) {}
    #[inline(always)]
    fn sled_idle(&mut self, _: f64) {}
    #[inline(always)]
    fn served(&mut self, _: &ServedRequest) {}
    #[inline(always)]
    fn completed(&mut self, _: usize, _: f64, _: f64) {}
}

impl CallLog for &mut Vec<Call> {
    fn noticed(&mut self, incoming: &Incoming, notice_ms: f64, idle: Option<(f64, Coord)>, answer: Option<(SledStart, f64)>) {
        self.push(Call::Noticed { incoming: *incoming, notice_ms, idle, answer });
    }
    #[inline(always)]
    fn sled_idle(&mut self, at_ms: f64) {
        self.push(Call::SledIdle { at_ms });
    }
    #[inline(always)]
    fn served(&mut self, served: &ServedRequest) {
        self.push(Call::Served(*served));
    }
    #[inline(always)]
    fn completed(&mut self, slot: usize, measured_from_ms: f64, at_ms: f64) {
        self.push(Call::Completed { slot, measured_from_ms, at_ms });
    }
}

/// A segment replayed on a new device by a replica of the policy: its device's events at its
/// end (handled up to the next segment's first arrival), and every call they made (into a
/// buffer the run keeps from block to block: fresh, its pages cost as much as the calls).
struct Speculated {
    events: MemsEvents,
    calls: Vec<Call>,
}

/// Where to cut `arrival_s` into up to `segments` segments of at least `least` requests: near
/// each equal share, at the longest gap between arrivals within a sixteenth of a share of it
/// (the gap a policy most likely sleeps through). The first segment, replayed by the thread
/// that then checks the others, is a little shorter than the rest (checking a request costs
/// about a tenth of replaying it).
pub(crate) fn cuts(arrival_s: &[f64], segments: usize, least: usize) -> Vec<usize> {
    let n = arrival_s.len();
    let mut cuts = Vec::new();
    if segments < 2 || n < 2 * least.max(1) {
        return cuts;
    }
    let share = n / segments;
    let first = share - share * (segments - 1) / 20;
    let others = (n - first) / (segments - 1);
    let mut from = 0;
    for k in 1..segments {
        let target = first + (k - 1) * others;
        let lo = target.saturating_sub(share / 16).max(from + least).max(1);
        let hi = (target + share / 16).min(n - least.max(1));
        if lo > hi {
            continue;
        }
        let gap = |i: usize| arrival_s[i] - arrival_s[i - 1];
        let best = (lo..=hi).fold(lo, |best, i| if gap(i) > gap(best) { i } else { best });
        if gap(best) > 0.0 {
            cuts.push(best);
            from = best;
        }
    }
    cuts
}

impl<'p> DeviceSim<'p> {
    /// Whether this run's blocks can be cut into segments speculated on other threads: a MEMS
    /// sled, open loop, a policy that decides each gap from the gap alone, and nothing kept but
    /// the ledger's sums (no per-request records, timeline or minima; no wake-up times drawn).
    pub(crate) fn mems_segmentable(&self) -> bool {
        // A run whose speculations are mostly refused (a timeout longer than the gaps where
        // blocks are cut, a queue at every cut) replays on its own thread: a refused segment is
        // replayed again after its speculation, so the other thread's work was lost.
        let worth_it = |run: &MemsRun| run.segments_refused < 16 || run.segments_refused <= 4 * run.segments_taken;
        self.mems.as_ref().is_some_and(|run| run.minimum.is_none() && !run.complete_each && worth_it(run))
            && self.ledger.per_request.is_none()
            && self.ledger.timeline.is_none()
            && self.wake_draws.is_none()
            && self.policy.replica().is_some()
    }

    /// Replays a block of an open-loop MEMS run (`mems_segmentable`), cut into segments of at
    /// least `least` requests: the first here, the others speculated on up to `helpers` other
    /// threads, then checked and taken in order (see the module's comment).
    pub(crate) fn mems_requests_in_segments(&mut self, block: &TraceView, helpers: usize, least: usize) {
        let block = *block;
        let cuts = cuts(block.arrival_s, helpers + 1, least);
        let n = block.arrival_s.len();
        let bounds: Vec<(usize, usize)> = std::iter::once(0).chain(cuts.iter().copied()).zip(cuts.iter().copied().chain(std::iter::once(n))).collect();
        let device = Arc::clone(&self.device);
        let fold_offsets = self.mems.as_ref().is_some_and(|run| run.fold_offsets);
        let base_power_w = self.base_power_w;
        let replicas: Vec<Box<dyn Policy>> = bounds[1..].iter().filter_map(|_| self.policy.replica()).collect();
        let mut buffers = std::mem::take(&mut self.mems.as_mut().expect("MEMS run").call_buffers);
        buffers.resize_with(bounds.len() - 1, Vec::new);
        std::thread::scope(|scope| {
            let speculating: Vec<_> = bounds[1..]
                .iter()
                .zip(replicas)
                .zip(buffers.drain(..))
                .map(|((&(from, to), policy), calls)| {
                    let device = Arc::clone(&device);
                    let next_arrival_s = block.arrival_s.get(to).copied();
                    // The gap before the segment, from the arrival before it: at least as long
                    // as the gap the real run finds there.
                    let lead_s = block.arrival_s[from] - block.arrival_s[from - 1];
                    scope.spawn(move || speculate(device, policy, fold_offsets, base_power_w, block.slice(from, to), lead_s, next_arrival_s, calls))
                })
                .collect();
            let (from, to) = bounds[0];
            self.mems_requests(block.slice(from, to));
            for (handle, &(from, to)) in speculating.into_iter().zip(&bounds[1..]) {
                let Speculated { events, calls } = handle.join().expect("a speculated segment does not panic");
                if !self.take_speculated(events, &calls, block.arrival_s[from]) {
                    self.mems.as_mut().expect("MEMS run").segments_refused += 1;
                    self.mems_requests(block.slice(from, to));
                }
                buffers.push(calls);
            }
        });
        self.mems.as_mut().expect("MEMS run").call_buffers = buffers;
    }

    /// The requests replayed here, as any open-loop block is.
    fn mems_requests(&mut self, requests: TraceView) {
        self.requests_observed(requests.arrival_s, requests.size_bytes, requests.is_write, requests.offset_bytes, None, |_, _| {});
    }

    /// Takes a speculated segment whose first request arrives at `first_arrival_s` if it is
    /// this run's own: the device at rest when it arrives, and every answer of this run's power
    /// manager the replica's. Else this run is as it was, and false.
    fn take_speculated(&mut self, events: MemsEvents, calls: &[Call], first_arrival_s: f64) -> bool {
        let mut run = self.mems.take().expect("MEMS run");
        let service = run.device.service.mems.as_ref().expect("MEMS device");
        // The events before the segment's first request, as its arrival handles them.
        run.events.run_before_arrival(service, &mut MemsLedger { sim: self, service, minimum: None, log: () }, first_arrival_s);
        if !run.events.quiescent() {
            self.mems = Some(run);
            return false;
        }
        // The segment's first request must have reached the sled in the speculation, so that
        // its start is checked here: else the events taken would start it from where the new
        // device's sled was, not this one's.
        if !matches!(calls.first(), Some(Call::Noticed { .. })) {
            self.mems = Some(run);
            return false;
        }
        let idle = (run.events.idle_since_ms(), run.events.pos);
        let before = self.copy_with(self.policy.replica().expect("a replica"));
        let mut ledger = MemsLedger { sim: self, service, minimum: None, log: () };
        if !replay_calls(&mut ledger, calls, idle) {
            // Put back as it was, with the policy's replica (it has no history to lose).
            *self = before;
            self.mems = Some(run);
            return false;
        }
        run.events = events;
        run.segments_taken += 1;
        self.mems = Some(run);
        true
    }

    /// How many speculated segments this run has taken.
    pub(crate) fn segments_taken(&self) -> u64 {
        self.mems.as_ref().map_or(0, |run| run.segments_taken)
    }

    /// A copy of this run (its device's events too) with `policy` in place of its own.
    fn copy_with(&self, policy: Box<dyn Policy + 'p>) -> DeviceSim<'p> {
        let policy_observes = policy.observes_requests();
        DeviceSim {
            device: Arc::clone(&self.device),
            policy,
            ledger: self.ledger.clone(),
            plan: self.plan.clone(),
            gap: self.gap,
            free_at: self.free_at,
            woken_at: self.woken_at,
            low_power_wait: self.low_power_wait,
            head_bytes: self.head_bytes,
            first_arrival_s: self.first_arrival_s,
            base_power_w: self.base_power_w,
            serving_mode: self.serving_mode,
            low_power_serving: self.low_power_serving,
            observes: policy_observes,
            woke_from_low_power: self.woke_from_low_power,
            low_power_since: self.low_power_since,
            last_completion_s: self.last_completion_s,
            wake_draws: self.wake_draws.clone(),
            waking_hop: self.waking_hop,
            one_step: self.one_step,
            stays_ready_below_s: self.stays_ready_below_s,
            last_arrival_s: self.last_arrival_s,
            last_start_s: self.last_start_s,
            arrival_activity: self.arrival_activity,
            mems: self.mems.clone(),
            per_request_handed: self.per_request_handed,
        }
    }
}

/// Makes a speculated segment's calls to `ledger`, in order; false at the first answer that
/// differs from the replica's. The segment's first request finds the sled idle as the real run
/// left it (`idle`: since when, where), not as the new device was.
fn replay_calls(ledger: &mut MemsLedger<'_, '_>, calls: &[Call], idle: (f64, Coord)) -> bool {
    use crate::mechanics::mems_events::MemsHost;
    let (mut first_notice, mut first_service) = (true, true);
    for call in calls {
        match *call {
            Call::Noticed { incoming, notice_ms, idle: seen, answer } => {
                let idle = if std::mem::take(&mut first_notice) { Some(idle) } else { seen };
                if !same_answer(ledger.noticed(&incoming, notice_ms, idle), answer) {
                    return false;
                }
            }
            Call::SledIdle { at_ms } => ledger.sled_idle(at_ms),
            Call::Served(mut served) => {
                // How long the sled had been idle when it took the first request (only the
                // minima read it, and they are not kept here; kept true all the same).
                if std::mem::take(&mut first_service) {
                    served.idle_before_ms = (served.start_ms - idle.0).max(0.0);
                }
                ledger.served(&served);
            }
            Call::Completed { slot, measured_from_ms, at_ms } => ledger.completed(slot, measured_from_ms, at_ms),
        }
    }
    true
}

/// The same answer to the bit (a start at −0 ms and one at +0 ms are not the same).
fn same_answer(a: Option<(SledStart, f64)>, b: Option<(SledStart, f64)>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some((start_a, at_a)), Some((start_b, at_b))) => start_a == start_b && at_a.to_bits() == at_b.to_bits(),
        _ => false,
    }
}

/// Replays a segment on a new device by `policy`, idle for `lead_s` before its first request,
/// recording every call of its events; then handles the events that come before the next
/// segment's first request, if there is one.
#[allow(clippy::too_many_arguments)]
fn speculate(device: Arc<Device>, policy: Box<dyn Policy>, fold_offsets: bool, base_power_w: f64, segment: TraceView, lead_s: f64, next_arrival_s: Option<f64>, mut calls: Vec<Call>) -> Speculated {
    let opts = ReplayOptions { lead_s, fold_offsets, base_power_w, ..Default::default() };
    let mut sim = DeviceSim::new(device, policy, &opts, segment.arrival_s[0], 0);
    calls.clear();
    for i in 0..segment.arrival_s.len() {
        let arrival = segment.arrival_s[i];
        sim.mems_request_logged(arrival, arrival, segment.size_bytes[i] as f64, segment.is_write[i] != 0, segment.offset_bytes[i] as f64, &mut calls);
    }
    let mut run = sim.mems.take().expect("MEMS run");
    if let Some(next_s) = next_arrival_s {
        let service = run.device.service.mems.as_ref().expect("MEMS device");
        run.events.run_before_arrival(service, &mut MemsLedger { sim: &mut sim, service, minimum: None, log: &mut calls }, next_s);
    }
    Speculated { events: run.events, calls }
}
