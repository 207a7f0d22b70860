//! One simulated device: its modes over time, its FIFO server and its ledger, driven by a policy.
//!
//! The single-device replay feeds it a trace; the multi-device system engine feeds several of
//! them from one clock, asks them what mode they are in, and may wake them early (ghost hints).
//! Both go through the same code, so a device behaves identically in either.
//!
//! Idle gaps are evaluated lazily: the policy's plan for a gap is made when the gap is first
//! needed (the next request, a mode query, or a forced wake-up) and carried out up to that time.

use std::sync::Arc;

use crate::device::{Device, Route, RouteId, Transition, READY};
use crate::mechanics::mems::{Coord, MemsService, SledStart};
use crate::mechanics::mems_events::{Incoming, MemsEvents, MemsHost, ServedRequest};
use crate::metrics::{Activity, Ledger, RunResult, TheoreticalMinimum, Timeline};
use crate::policy::{GapStart, Plan, Policy};
use crate::options::ReplayOptions;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

mod mems;
mod mems_segments;
pub(crate) use mems_segments::LEAST_SEGMENT;
use mems::{MemsLedger, MemsMinimum, MemsRun};

/// Where a device is at a given instant.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum DeviceState {
    /// Serving requests (in the ready mode) until `until_s`.
    Busy { until_s: f64 },
    /// Resting in `mode`.
    Mode { mode: usize },
    /// Moving from `from` to `to`; the transition ends at `end_s`.
    Transition { from: usize, to: usize, end_s: f64 },
}

/// Receives the segments of a plan as it is walked: the ledger when a gap is carried out, nothing
/// when a mode is only queried.
trait Sink {
    fn residency(&mut self, mode: usize, duration_s: f64);
    /// One hop of a route, the transition at index `index` of the device, taking `time_s` and
    /// `energy_j` (its own, unless its time varies and was drawn).
    fn hop(&mut self, index: usize, hop: &Transition, time_s: f64, energy_j: f64);
}

/// Charges residencies and hops to the ledger, in the order they happen from `clock_s` (so a
/// timeline, when kept, can place them).
struct Charge<'l> {
    ledger: &'l mut Ledger,
    clock_s: f64,
}

impl<'l> Charge<'l> {
    fn from(ledger: &'l mut Ledger, clock_s: f64) -> Self {
        Charge { ledger, clock_s }
    }

    #[inline]
    fn log(&mut self, duration_s: f64, activity: Activity) {
        if let Some(timeline) = self.ledger.timeline.as_mut() {
            timeline.push(self.clock_s, self.clock_s + duration_s, activity);
        }
        self.clock_s += duration_s;
    }
}

impl Sink for Charge<'_> {
    #[inline]
    fn residency(&mut self, mode: usize, duration_s: f64) {
        self.ledger.time_by_mode_s[mode] += duration_s;
        self.log(duration_s, Activity::Mode(mode));
    }
    #[inline]
    fn hop(&mut self, index: usize, hop: &Transition, time_s: f64, energy_j: f64) {
        self.ledger.transition_time_s += time_s;
        self.ledger.transition_energy_j += energy_j;
        self.ledger.transition_counts[index] += 1;
        // Every spin-up counts, wherever it happens: also one in the middle of a chain.
        if hop.to == READY {
            self.ledger.wakeups_from[hop.from] += 1;
        }
        self.log(time_s, Activity::Transition(index));
    }
}

struct Observe;

impl Sink for Observe {
    #[inline]
    fn residency(&mut self, _mode: usize, _duration_s: f64) {}
    #[inline]
    fn hop(&mut self, _index: usize, _hop: &Transition, _time_s: f64, _energy_j: f64) {}
}

/// Records where a walk goes: each hop's start, and the energy spent (a live run's "so far").
struct Trail<'d> {
    device: &'d Device,
    clock_s: f64,
    hops: Vec<(f64, usize)>,
    energy_j: f64,
}

impl Sink for Trail<'_> {
    #[inline]
    fn residency(&mut self, mode: usize, duration_s: f64) {
        self.energy_j += self.device.modes[mode].power_w * duration_s;
        self.clock_s += duration_s;
    }
    #[inline]
    fn hop(&mut self, index: usize, _hop: &Transition, time_s: f64, energy_j: f64) {
        self.hops.push((self.clock_s, index));
        self.energy_j += energy_j;
        self.clock_s += time_s;
    }
}

/// Takes every hop of a wake-up route back to back from `begin`; returns when the last one
/// ends. A hop whose time varies takes a drawn time when the run draws (`draws`), its power
/// unchanged; otherwise its mean.
#[inline]
fn take_route<S: Sink>(device: &Device, route: &Route, begin: f64, sink: &mut S, draws: Option<&mut Pcg64Mcg>) -> f64 {
    let Some(rng) = draws else {
        for &h in &route.hops {
            let hop = &device.transitions[h];
            sink.hop(h, hop, hop.time_s, hop.energy_j);
        }
        return begin + route.time_s;
    };
    let mut end = begin;
    for &h in &route.hops {
        let hop = &device.transitions[h];
        let (time_s, energy_j) = match hop.spread {
            Some(spread) => {
                let drawn_s = spread.draw(hop.time_s, rng);
                (drawn_s, hop.energy_j * drawn_s / hop.time_s)
            }
            None => (hop.time_s, hop.energy_j),
        };
        sink.hop(h, hop, time_s, energy_j);
        end += time_s;
    }
    end
}

/// Carries out the plan's steps that begin before `horizon`, hop by hop: returns the mode
/// reached, the time its last hop ends (or the gap start), and the last hop taken (its index
/// in `device.transitions`). Each hop is
/// non-abortable, but the device stops between hops: a hop that would begin at or after the
/// horizon is not taken, so an arrival during a chain leaves the device in an intermediate mode.
#[inline]
fn walk_steps<S: Sink>(
    device: &Device,
    t0: f64,
    start_mode: usize,
    plan: &Plan,
    horizon: f64,
    sink: &mut S,
) -> (usize, f64, Option<usize>) {
    let mut t = t0;
    let mut mode = start_mode;
    let mut last = None;
    for step in &plan.steps {
        if step.mode == mode {
            continue;
        }
        let begin = (t0 + step.at_s).max(t);
        if begin >= horizon {
            break;
        }
        // The planned path if it starts here, else the policy route; two low-power modes with
        // no route between them: the step cannot be taken.
        let Some(route) = device.planned_route(step.route, mode).or_else(|| device.route(mode, step.mode)) else { continue };
        sink.residency(mode, begin - t);
        t = begin;
        for &h in &route.hops {
            if t >= horizon {
                return (mode, t, last); // stopped between hops
            }
            let hop = &device.transitions[h];
            sink.hop(h, hop, hop.time_s, hop.energy_j);
            last = Some(h);
            t += hop.time_s;
            mode = hop.to;
        }
        if t >= horizon {
            break; // the last hop is still under way at the horizon
        }
    }
    (mode, t, last)
}

/// A plan of one step, the same for every gap, resolved once: the step's time and mode, and the
/// routes down into the mode and back (a timeout's, as a sweep's runs take most of their gaps).
#[derive(Debug, Clone, Copy)]
pub(crate) struct OneStep {
    at_s: f64,
    mode: usize,
    down: RouteId,
    up: RouteId,
}

impl OneStep {
    /// Whether `other` goes down and up by the same routes (at another time, perhaps).
    pub(crate) fn same_routes(&self, other: &OneStep) -> bool {
        (self.mode, self.down, self.up) == (other.mode, other.down, other.up)
    }

    /// For a device idle and ready since `from_s`: when it begins to go down, and when its last
    /// hop down ends (the arithmetic of every gap it takes whole, `DeviceSim::sleep_through`).
    #[inline]
    pub(crate) fn descent(&self, device: &Device, from_s: f64) -> (f64, f64) {
        descend(from_s, self.at_s, self.down_hops_s(device))
    }

    /// Whether a device idle and ready since `from_s` is still ready at `to_s`: its step comes
    /// at or after it (`DeviceSim::take_one_step_gap`).
    #[inline]
    pub(crate) fn stays_ready(&self, from_s: f64, to_s: f64) -> bool {
        stays_ready(from_s, self.at_s, to_s)
    }

    /// When the step comes, counted from the gap's start.
    pub(crate) fn at_s(&self) -> f64 {
        self.at_s
    }

    /// The times of the hops down, in order.
    pub(crate) fn down_hops_s<'d>(&self, device: &'d Device) -> impl Iterator<Item = f64> + Clone + 'd {
        device.route_by_id(self.down).hops.iter().map(|&h| device.transitions[h].time_s)
    }

    /// When a device that went all the way down is ready again, woken by an arrival at `to_s`
    /// (the mean time of its route up: a run that shares a replay draws no times).
    #[inline]
    pub(crate) fn ready_after_wake(&self, device: &Device, to_s: f64) -> f64 {
        snapped_ready(to_s, to_s + device.route_by_id(self.up).time_s)
    }
}

/// A one-step plan's descent from a gap starting at `from_s`, its step `at_s` into the gap and its
/// hops down taking `hops_s`: when the first hop begins and when the last ends. (One home for
/// the arithmetic of a gap taken whole, here and in `family.rs`, which charges many at once.)
#[inline(always)]
pub(crate) fn descend(from_s: f64, at_s: f64, hops_s: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let begin = step_begins(from_s, at_s);
    let mut t = begin;
    for h in hops_s {
        t += h;
    }
    (begin, t)
}

/// Whether a device idle and ready since `from_s` under a one-step plan (its step `at_s` into
/// the gap) is still ready at `to_s`.
#[inline(always)]
pub(crate) fn stays_ready(from_s: f64, at_s: f64, to_s: f64) -> bool {
    step_begins(from_s, at_s) >= to_s
}

/// When a step `at_s` into a gap starting at `from_s` comes: `max(from_s + at_s, from_s)`,
/// written as a comparison. The same value (`from_s` where the sum is NaN, as `f64::max` gives
/// it; zeros of either sign charge alike), in one instruction where `f64::max`'s NaN rule takes
/// five: a sweep's family works it out for every member in every gap of a round-robin volume.
#[inline(always)]
fn step_begins(from_s: f64, at_s: f64) -> f64 {
    let stepped = from_s + at_s;
    if stepped >= from_s {
        stepped
    } else {
        from_s
    }
}

/// A wake-up planned to end exactly at the arrival `end_s` may end an ulp later by rounding
/// (`t0 + at_s + T_up`): that is no delay.
#[inline]
fn snapped_ready(end_s: f64, ready: f64) -> f64 {
    if ready - end_s <= 1e-12 * end_s.abs().max(1.0) { end_s } else { ready }
}

/// An idle gap whose plan has been made and that has not ended yet.
#[derive(Debug, Clone, Copy)]
struct OpenGap {
    start_s: f64,
    start_mode: usize,
}

pub struct DeviceSim<'p> {
    device: Arc<Device>,
    policy: Box<dyn Policy + 'p>,
    ledger: Ledger,
    plan: Plan,
    gap: Option<OpenGap>,
    /// The server is busy (or waking) until this time.
    free_at: f64,
    /// Requests arriving before this time found the device waking up.
    woken_at: f64,
    /// The request being served waited for power management to serve it in a low-power mode
    /// (a transition under way into it).
    low_power_wait: bool,
    head_bytes: f64,
    first_arrival_s: f64,
    base_power_w: f64,
    /// The mode the server is in: the ready mode, or a low-power mode that serves (PSM).
    serving_mode: usize,
    /// Checked once: whether any low-power mode can serve at all (skips work for disks).
    low_power_serving: bool,
    /// Checked once: the policy watches every request (`Policy::observe_request`).
    observes: bool,
    /// The last gap ended with a wake-up out of a low-power mode.
    woke_from_low_power: bool,
    /// The low-power mode the last gap reached, and when it got there (the start of a MEMS
    /// sled's shutdown: its idle→inactive transition is the sled model's).
    low_power_since: (usize, f64),
    /// When the last request completed (after its last byte reached the host; MEMS requests
    /// complete after the sled is free for the next one).
    last_completion_s: f64,
    /// Draws the times of wake-ups that vary, when the run asks for them (else their means).
    /// Only devices with such a wake-up get a stream.
    wake_draws: Option<Pcg64Mcg>,
    /// The last hop of the latest wake-up (what a request arriving during it finds).
    waking_hop: Option<usize>,
    /// The policy's plan, resolved once, when it is one fixed step and the run keeps no
    /// per-request records: a gap is then charged without planning it or looking up routes
    /// (`sleep_through`). A sweep's runs, and every timeout, take most of their gaps so.
    one_step: Option<OneStep>,
    /// Gaps shorter than this are spent ready without a plan (`Policy::stays_ready_below_s`).
    stays_ready_below_s: f64,
    /// The request being served: when it arrived, when its service began and what it found
    /// on arrival (kept for its per-request record).
    last_arrival_s: f64,
    last_start_s: f64,
    arrival_activity: Activity,
    /// MEMS devices: the sled between requests.
    /// Boxed: a request takes it out and puts it back, which then moves a pointer only.
    mems: Option<Box<MemsRun>>,
    /// Per-request records already handed over (`take_per_request`): a MEMS request's slot is
    /// its index among all the run's requests, its record's place in the ledger that less this.
    per_request_handed: usize,
}

impl<'p> DeviceSim<'p> {
    /// A device that is in `opts.initial_mode` at `start_s` (ready unless told otherwise).
    pub fn new(device: Arc<Device>, policy: Box<dyn Policy + 'p>, opts: &ReplayOptions, start_s: f64, expected_requests: usize) -> Self {
        // A recording that began before its first request: the run begins then (`lead_s`).
        let start_s = start_s - opts.lead_s;
        let mut plan = Plan::default();
        plan.steps.reserve(device.mode_count() * 2 + 2);
        let initial_mode = device.starting_mode(opts.initial_mode);
        let mems = device.service.mems.as_ref().map(|m| Box::new(MemsRun {
            device: Arc::clone(&device),
            events: MemsEvents::new(m.rest, start_s * 1e3),
            fold_offsets: opts.fold_offsets,
            complete_each: opts.mode.waits_for_completion(),
            minimum: opts.theoretical_minimum.then(|| MemsMinimum::new(m.rest, device.lowest_power_w())),
            segments_taken: 0,
            segments_refused: 0,
            call_buffers: Vec::new(),
        }));
        let varies = device.transitions.iter().any(|t| t.spread.is_some());
        let mut sim = DeviceSim {
            wake_draws: opts.transition_seed.filter(|_| varies).map(Pcg64Mcg::seed_from_u64),
            woke_from_low_power: false,
            low_power_since: (READY, start_s),
            last_completion_s: start_s,
            mems,
            per_request_handed: 0,
            ledger: Ledger {
                timeline: opts.timeline_s.map(|(from_s, to_s)| Timeline::new(from_s, to_s)),
                ..Ledger::new(&device, expected_requests, opts.keep_per_request)
            },
            waking_hop: None,
            last_arrival_s: f64::NAN,
            last_start_s: f64::NAN,
            arrival_activity: Activity::Mode(READY),
            low_power_serving: device.serves_in_low_power(),
            observes: policy.observes_requests(),
            device,
            policy,
            plan,
            // A device that starts in a low-power mode is in a gap with an empty plan: the first
            // request (or a forced wake-up) wakes it.
            gap: (initial_mode != READY).then_some(OpenGap { start_s, start_mode: initial_mode }),
            free_at: start_s,
            woken_at: f64::NEG_INFINITY,
            low_power_wait: false,
            head_bytes: 0.0,
            first_arrival_s: start_s,
            base_power_w: opts.base_power_w,
            serving_mode: READY,
            one_step: None,
            stays_ready_below_s: 0.0,
        };
        if sim.mems.is_none() && !sim.low_power_serving && sim.ledger.per_request.is_none() {
            sim.one_step = sim.resolve_one_step();
            sim.stays_ready_below_s = sim.policy.stays_ready_below_s(&sim.device);
        }
        sim
    }

    pub fn device(&self) -> &Arc<Device> {
        &self.device
    }

    /// Spin-ups so far (wake-ups into the ready mode).
    pub fn wakeups(&self) -> u64 {
        self.ledger.wakeups_from.iter().sum()
    }

    /// Time the server is free (the last request finishes, or the device is awake again).
    pub fn free_at(&self) -> f64 {
        self.free_at
    }

    /// Requests arriving before this found the device waking (delayed by power management).
    pub(crate) fn woken_at(&self) -> f64 {
        self.woken_at
    }

    /// Opens the gap that begins when the server falls idle, asking the policy for its plan.
    /// `gap_s` is the gap's length when known (trace replay), infinite otherwise.
    #[inline]
    fn open_gap(&mut self, gap_s: f64) {
        self.open_gap_ending(gap_s, false);
    }

    /// As [`DeviceSim::open_gap`]; `ends_run`: no request follows the gap.
    #[inline]
    fn open_gap_ending(&mut self, gap_s: f64, ends_run: bool) {
        self.plan.clear();
        self.policy.plan_gap(&GapStart { device: &self.device, time_s: self.free_at, gap_s, ends_run, held: None }, &mut self.plan);
        self.gap = Some(OpenGap { start_s: self.free_at, start_mode: self.serving_mode });
    }

    /// Ends the open gap at `end_s` (a request arrives, or the device is told to wake): carries out
    /// the plan up to then, wakes the device and returns when it is ready (>= `end_s`).
    #[inline]
    fn close_gap(&mut self, end_s: f64) -> f64 {
        let Some(gap) = self.gap.take() else { return self.free_at.max(end_s) };
        let device: &Device = &self.device;
        let mut sink = Charge::from(&mut self.ledger, gap.start_s);
        let (mode, mut t, _) = walk_steps(device, gap.start_s, gap.start_mode, &self.plan, end_s, &mut sink);
        self.woke_from_low_power = mode != READY;
        self.low_power_since = (mode, t);
        let ready = if mode == READY {
            if t < end_s {
                sink.residency(READY, end_s - t);
                end_s
            } else {
                t
            }
        } else {
            let up = device.planned_route(self.plan.prewake_route, mode).unwrap_or_else(|| device.up_route(mode));
            let prewake_begin = end_s - up.time_s;
            // The tolerance absorbs rounding in `t0 + T_down + (T − T_down − T_up)`.
            if self.plan.prewake && prewake_begin >= t - 1e-9 * end_s.abs().max(1.0) {
                sink.residency(mode, (prewake_begin - t).max(0.0));
                // Planned on the mean time: a drawn one ends early (the device waits, ready)
                // or late (the request waits).
                self.waking_hop = up.hops.last().copied();
                let woken = take_route(device, up, prewake_begin, &mut sink, self.wake_draws.as_mut());
                if woken < end_s {
                    sink.residency(READY, end_s - woken);
                }
                woken.max(end_s)
            } else {
                // A wake-up on demand takes the policy route, not the oracle's planned one.
                let up = device.up_route(mode);
                self.waking_hop = up.hops.last().copied();
                if t < end_s {
                    sink.residency(mode, end_s - t);
                    t = end_s;
                }
                take_route(device, up, t, &mut sink, self.wake_draws.as_mut())
            }
        };
        self.end_gap_ready(gap.start_s, end_s, ready)
    }

    /// Ends a gap from `start_s` at `end_s` with the device ready at `ready` (>= `end_s`): the
    /// policy learns the gap's length, and requests arriving before `ready` find it waking.
    /// Returns when it is ready.
    #[inline]
    fn end_gap_ready(&mut self, start_s: f64, end_s: f64, ready: f64) -> f64 {
        self.policy.end_gap(end_s - start_s);
        let ready = snapped_ready(end_s, ready);
        if ready > end_s {
            self.woken_at = ready;
        }
        self.free_at = ready;
        self.serving_mode = READY;
        ready
    }

    /// If the device rests at `arrival_s` in a low-power mode that serves, or is moving into one,
    /// and the policy wants to serve there, ends the gap without waking and returns true. A
    /// transition under way finishes first; the request is then served in the mode it reached.
    fn stay_to_serve(&mut self, arrival_s: f64) -> bool {
        let Some(gap) = self.gap else { return false };
        let (mode, _, _) = walk_steps(&self.device, gap.start_s, gap.start_mode, &self.plan, arrival_s, &mut Observe);
        if mode == READY || !self.device.modes[mode].serves || !self.policy.serve_in_mode(mode, arrival_s) {
            return false;
        }
        let mut sink = Charge::from(&mut self.ledger, gap.start_s);
        let (mode, t, _) = walk_steps(&self.device, gap.start_s, gap.start_mode, &self.plan, arrival_s, &mut sink);
        if t < arrival_s {
            sink.residency(mode, arrival_s - t);
        }
        self.policy.end_gap(arrival_s - gap.start_s);
        self.gap = None;
        self.free_at = arrival_s.max(t);
        self.low_power_wait = t > arrival_s;
        self.serving_mode = mode;
        true
    }

    /// Serves one request arriving at `arrival_s` (FIFO) and returns its finish time.
    #[inline]
    pub fn request(&mut self, arrival_s: f64, size_bytes: f64, is_write: bool, offset_bytes: f64) -> f64 {
        self.request_measured_from(arrival_s, arrival_s, size_bytes, is_write, offset_bytes, None)
    }

    /// Serves a block of requests at their trace times (open loop, responses from arrival), in
    /// order. Equivalent to calling [`DeviceSim::request`] on each, and bit-for-bit the same:
    /// requests that queue behind a busy, ready server with no gap open are served in a tight
    /// loop with the server's state in registers (the ledger's sums are added to in the same
    /// order); everything else goes through `request_measured_from`.
    /// `ready_service`, where the call computed it once for all its runs, is each request's
    /// service in the ready mode (`Device::ready_services`), used instead of computing it here.
    pub fn requests(&mut self, arrival_s: &[f64], size_bytes: &[i64], is_write: &[u8], offset_bytes: &[i64], ready_service: Option<&[(f64, f64)]>) {
        self.requests_observed(arrival_s, size_bytes, is_write, offset_bytes, ready_service, |_, _| {});
    }

    /// [`DeviceSim::requests`], telling `fell_idle(from_s, to_s)` of every idle gap: the server
    /// fell idle at `from_s` and the next request arrived at `to_s` (always-on's replay, which
    /// the oracle's shadow follows gap by gap).
    #[inline]
    pub(crate) fn requests_observed(
        &mut self,
        arrival_s: &[f64],
        size_bytes: &[i64],
        is_write: &[u8],
        offset_bytes: &[i64],
        ready_service: Option<&[(f64, f64)]>,
        mut fell_idle: impl FnMut(f64, f64),
    ) {
        let n = arrival_s.len();
        let (size_bytes, is_write, offset_bytes) = (&size_bytes[..n], &is_write[..n], &offset_bytes[..n]);
        let ready_service = ready_service.map(|s| &s[..n]);
        let queued_path = self.mems.is_none() && !self.low_power_serving && !self.observes && self.ledger.per_request.is_none() && self.ledger.timeline.is_none();
        let mut i = 0;
        while i < n {
            let arrival = arrival_s[i];
            if !queued_path || self.gap.is_some() || arrival > self.free_at || self.serving_mode != READY {
                let idle_from = self.free_at;
                self.request_measured_from(arrival, arrival, size_bytes[i] as f64, is_write[i] != 0, offset_bytes[i] as f64, ready_service.map(|s| s[i]));
                if arrival > idle_from {
                    fell_idle(idle_from, arrival);
                }
                i += 1;
                continue;
            }
            let device: &Device = &self.device;
            let ledger = &mut self.ledger;
            let (woken_at, mut free_at, mut head_bytes) = (self.woken_at, self.free_at, self.head_bytes);
            let (mut service_time_s, mut service_energy_j, mut delayed) = (ledger.service_time_s, ledger.service_energy_j, 0u64);
            while i < n && arrival_s[i] <= free_at {
                let (arrival, size, offset) = (arrival_s[i], size_bytes[i] as f64, offset_bytes[i] as f64);
                delayed += u64::from(arrival < woken_at);
                let (service_s, service_j) = match ready_service {
                    Some(given) => given[i],
                    None => device.service(size, is_write[i] != 0, offset, head_bytes),
                };
                head_bytes = offset + size;
                // The server is busy: service starts when it frees (`max(free_at, arrival)`).
                let finish = free_at.max(arrival) + service_s;
                service_time_s += service_s;
                service_energy_j += service_j;
                free_at = finish;
                ledger.responses.record((finish - arrival).max(0.0));
                i += 1;
            }
            (ledger.service_time_s, ledger.service_energy_j) = (service_time_s, service_energy_j);
            ledger.delayed_requests += delayed;
            (self.free_at, self.last_completion_s, self.head_bytes) = (free_at, free_at, head_bytes);
        }
    }

    /// For a run that mirrors another's busy periods (the oracle beside always-on): the server
    /// fell idle at `from_s` and the next request comes at `to_s`; the gap is planned, carried
    /// out and charged as a request at `to_s` would. False if the device would not be ready by
    /// `to_s` (it would have delayed the request, so the busy periods would differ).
    pub(crate) fn idle_between(&mut self, from_s: f64, to_s: f64) -> bool {
        self.free_at = from_s;
        self.last_completion_s = from_s;
        self.begin_gap(to_s);
        if self.gap.is_some() {
            self.close_gap(to_s);
        }
        self.free_at <= to_s
    }

    /// The policy's plan when it is one step, the same for every gap (its first step is its
    /// only one; no pre-wake): see [`DeviceSim::sleep_through`].
    fn resolve_one_step(&mut self) -> Option<OneStep> {
        self.policy.first_step_s()?;
        let mut plan = Plan::default();
        self.policy.plan_gap(&GapStart { device: &self.device, time_s: self.free_at, gap_s: f64::INFINITY, ends_run: false, held: None }, &mut plan);
        let [step] = plan.steps.as_slice() else { return None };
        if plan.prewake || plan.prewake_route.is_some() || step.mode == READY {
            return None;
        }
        let device: &Device = &self.device;
        let down = step.route.filter(|&id| device.planned_route(Some(id), READY).is_some()).or_else(|| device.route_id(READY, step.mode))?;
        let reached = device.transitions[*device.route_by_id(down).hops.last()?].to;
        Some(OneStep { at_s: step.at_s, mode: reached, down, up: device.route_id(reached, READY)? })
    }

    /// A gap from `from_s` to an arrival at `to_s` under a one-step plan (`step`), when the device
    /// gets all the way down before the arrival: charged with the same charges in the same order
    /// as `close_gap`'s walk (the ready time, each hop down, the rest, the route up), without
    /// planning the gap or looking up its routes; returns when the device is ready. `None`
    /// (nothing charged) when the device would stay ready or be caught on its way down.
    #[inline]
    fn sleep_through(&mut self, step: &OneStep, from_s: f64, to_s: f64) -> Option<f64> {
        let device: &Device = &self.device;
        // (Hops take no negative time: down by the arrival iff its last hop ends before it.)
        let (begin, t) = step.descent(device, from_s);
        if t >= to_s {
            return None;
        }
        let down = device.route_by_id(step.down);
        let mut sink = Charge::from(&mut self.ledger, from_s);
        sink.residency(READY, begin - from_s);
        for &h in &down.hops {
            let hop = &device.transitions[h];
            sink.hop(h, hop, hop.time_s, hop.energy_j);
        }
        sink.residency(step.mode, to_s - t);
        let up = device.route_by_id(step.up);
        self.waking_hop = up.hops.last().copied();
        let ready = take_route(device, up, to_s, &mut sink, self.wake_draws.as_mut());
        self.woke_from_low_power = true;
        self.low_power_since = (step.mode, t);
        Some(self.end_gap_ready(from_s, to_s, ready))
    }

    /// The gap from `free_at` to an arrival at `arrival_s`: under a one-step plan, taken at once
    /// (`take_one_step_gap`); else opened, its plan to be walked (`close_gap`).
    #[inline]
    fn begin_gap(&mut self, arrival_s: f64) {
        match self.one_step {
            Some(step) => self.take_one_step_gap(&step, arrival_s),
            None if arrival_s - self.free_at < self.stays_ready_below_s && self.serving_mode == READY => self.stay_ready_until(arrival_s),
            None => self.open_gap(arrival_s - self.free_at),
        }
    }

    /// A gap the device spends ready, to an arrival at `arrival_s`: charged as `close_gap`
    /// charges an empty plan's (the walk takes no step; the ready time; the policy told).
    #[inline]
    fn stay_ready_until(&mut self, arrival_s: f64) {
        let from_s = self.free_at;
        Charge::from(&mut self.ledger, from_s).residency(READY, arrival_s - from_s);
        self.woke_from_low_power = false;
        self.low_power_since = (READY, from_s);
        self.end_gap_ready(from_s, arrival_s, arrival_s);
    }

    /// A gap of a one-step plan ending at `arrival_s`, charged as `close_gap` would charge it:
    /// the device stays ready through it, or goes all the way down and wakes at the arrival
    /// (`sleep_through`); else (an arrival while it goes down) the gap is planned and walked.
    #[inline]
    fn take_one_step_gap(&mut self, step: &OneStep, arrival_s: f64) {
        let from_s = self.free_at;
        if step.stays_ready(from_s, arrival_s) {
            self.stay_ready_until(arrival_s);
        } else if self.sleep_through(step, from_s, arrival_s).is_none() {
            self.open_gap(arrival_s - from_s);
        }
    }

    /// Puts the device where a run that never left the ready mode is: idle and ready since
    /// `free_at`, the head at `head_bytes`, no gap open (a run of a shared replay taking its
    /// own course from there, `family.rs`).
    pub(crate) fn resume_ready_at(&mut self, free_at: f64, head_bytes: f64) {
        self.gap = None;
        self.plan.clear();
        self.free_at = free_at;
        self.last_completion_s = free_at;
        self.head_bytes = head_bytes;
        self.serving_mode = READY;
        self.low_power_wait = false;
    }

    /// [`DeviceSim::resume_ready_at`], for a run whose device woke at `woken_at` (requests
    /// arriving before it were delayed) in a gap it did not carry out itself (`family.rs`).
    pub(crate) fn resume_woken_at(&mut self, free_at: f64, head_bytes: f64, woken_at: f64) {
        self.resume_ready_at(free_at, head_bytes);
        self.woken_at = self.woken_at.max(woken_at);
    }

    /// Revises the open gap's plan for a live device that did not do what the plan said from
    /// `cut_s` on (a command failed; the drive moved by itself): the steps begun before `cut_s`
    /// stay, the later ones go, and `then` (moves at absolute times, in order) follow. False
    /// when no gap is open. (A step begun before `cut_s` stays whole, all its hops.)
    pub(crate) fn revise_open_plan(&mut self, cut_s: f64, then: &[(f64, usize)]) -> bool {
        let Some(gap) = self.gap else { return false };
        let device: &Device = &self.device;
        let (mut t, mut mode, mut kept) = (gap.start_s, gap.start_mode, 0);
        for step in &self.plan.steps {
            if step.mode != mode {
                let begin = (gap.start_s + step.at_s).max(t);
                if begin >= cut_s {
                    break;
                }
                if let Some(route) = device.planned_route(step.route, mode).or_else(|| device.route(mode, step.mode)) {
                    t = begin + route.time_s;
                    mode = route.hops.last().map_or(mode, |&h| device.transitions[h].to);
                }
            }
            kept += 1;
        }
        self.plan.steps.truncate(kept);
        self.plan.prewake = false;
        self.plan.prewake_route = None;
        for &(at_s, to) in then {
            self.plan.push((at_s - gap.start_s).max(0.0), to);
        }
        true
    }

    /// The policy's plan resolved once, when it is one fixed step (a timeout): its gaps can be
    /// taken whole by a caller that charges them with [`DeviceSim::charge_slept_gaps`].
    pub(crate) fn one_step(&self) -> Option<OneStep> {
        self.one_step
    }

    /// Charges `gaps` gaps taken whole under the one-step plan (all the way down, woken by the
    /// request that ends each), as `sleep_through` charges each: `ready_s` and `low_s` are the
    /// sums of their ready and low-power residencies, computed as it computes them
    /// ([`OneStep::descent`]); the hops down and up, `gaps` times each.
    pub(crate) fn charge_slept_gaps(&mut self, gaps: u64, ready_s: f64, low_s: f64) {
        let Some(step) = self.one_step.filter(|_| gaps > 0) else { return };
        let device: &Device = &self.device;
        let ledger = &mut self.ledger;
        ledger.time_by_mode_s[READY] += ready_s;
        ledger.time_by_mode_s[step.mode] += low_s;
        let n = gaps as f64;
        for &h in device.route_by_id(step.down).hops.iter().chain(&device.route_by_id(step.up).hops) {
            let hop = &device.transitions[h];
            ledger.transition_time_s += n * hop.time_s;
            ledger.transition_energy_j += n * hop.energy_j;
            ledger.transition_counts[h] += gaps;
            if hop.to == READY {
                ledger.wakeups_from[hop.from] += gaps;
            }
        }
    }

    pub(crate) fn ledger_mut(&mut self) -> &mut Ledger {
        &mut self.ledger
    }

    /// The policy's [`crate::policy::Policy::first_step_s`].
    pub(crate) fn policy_first_step_s(&self) -> Option<f64> {
        self.policy.first_step_s()
    }

    /// Takes the mirrored run's service, responses and end (see [`DeviceSim::idle_between`]).
    pub(crate) fn take_service_of(&mut self, served: &DeviceSim) {
        self.ledger.service_time_s = served.ledger.service_time_s;
        self.ledger.service_energy_j = served.ledger.service_energy_j;
        self.ledger.responses = served.ledger.responses.clone();
        self.free_at = served.free_at;
        self.last_completion_s = served.last_completion_s;
    }

    /// Serves one request arriving at `arrival_s` whose response is measured from
    /// `measured_from_s` (its original arrival, when a transform issued it early): the response
    /// is `max(0, finish − measured_from_s)`. `ready_service`: the request's ready-mode service
    /// where the call computed it for all its runs (`Device::ready_services`).
    #[inline]
    pub fn request_measured_from(&mut self, arrival_s: f64, measured_from_s: f64, size_bytes: f64, is_write: bool, offset_bytes: f64, ready_service: Option<(f64, f64)>) -> f64 {
        if self.mems.is_some() {
            return self.mems_request(arrival_s, measured_from_s, size_bytes, is_write, offset_bytes);
        }
        let (_, finish) = self.serve(arrival_s, size_bytes, is_write, offset_bytes, true, ready_service);
        self.record_response((finish - measured_from_s).max(0.0));
        finish
    }

    /// Serves an I/O whose response another engine accounts for (a hybrid disk's user requests
    /// and flush writes): the device, its policy and its ledger see it as any request, but no
    /// response is recorded and no delay counted. Returns (service start, finish). Not for MEMS
    /// devices, whose bus and sled need `request`.
    pub fn serve_unrecorded(&mut self, arrival_s: f64, size_bytes: f64, is_write: bool, offset_bytes: f64) -> (f64, f64) {
        debug_assert!(self.mems.is_none(), "MEMS devices are served through request()");
        self.serve(arrival_s, size_bytes, is_write, offset_bytes, false, None)
    }

    /// Keeps the device ready until `until_s` without an idle gap: the wait is charged at the ready
    /// mode's power and the policy never sees it. For an engine whose own work blocks the device
    /// between its I/Os (a hybrid disk's flush, the disk waiting for the next chunk from flash),
    /// so the policy cannot spin the disk down in the middle of it. A no-op unless the device is
    /// ready, with no gap open, and free before `until_s`.
    pub fn hold_ready(&mut self, until_s: f64) {
        if self.gap.is_none() && self.serving_mode == READY && until_s > self.free_at {
            Charge::from(&mut self.ledger, self.free_at).residency(READY, until_s - self.free_at);
            self.free_at = until_s;
        }
    }

    /// Serves a user request whose response the caller measures, because it completes elsewhere
    /// too (a hybrid disk's read gathering sectors from flash): counted as delayed when it waited
    /// for power management, like any request; record its response with `record_response`.
    /// Returns (service start, finish). Not for MEMS devices.
    pub fn serve_user(&mut self, arrival_s: f64, size_bytes: f64, is_write: bool, offset_bytes: f64) -> (f64, f64) {
        debug_assert!(self.mems.is_none(), "MEMS devices are served through request()");
        self.serve(arrival_s, size_bytes, is_write, offset_bytes, true, None)
    }

    /// The FIFO server: wakes the device if it must, serves the I/O, charges it. `user`: count
    /// a wait for power management as a delayed request.
    #[inline(always)]
    fn serve(&mut self, arrival_s: f64, size_bytes: f64, is_write: bool, offset_bytes: f64, user: bool, ready_service: Option<(f64, f64)>) -> (f64, f64) {
        if self.low_power_serving {
            self.policy.note_transfer(arrival_s);
        }
        if self.gap.is_none() && arrival_s > self.free_at {
            self.begin_gap(arrival_s);
        }
        if self.ledger.per_request.is_some() {
            self.arrival_activity = self.activity_at(arrival_s);
            self.last_arrival_s = arrival_s;
        }
        let gap_start_s = self.gap.map(|gap| gap.start_s);
        if self.gap.is_some() && !(self.low_power_serving && self.stay_to_serve(arrival_s)) {
            self.close_gap(arrival_s);
        }
        if self.observes {
            let woke = gap_start_s.is_some() && (self.woke_from_low_power || self.serving_mode != READY);
            let idle_s = gap_start_s.map_or(0.0, |start_s| arrival_s - start_s);
            self.policy.observe_request(&crate::policy::Arrival { time_s: arrival_s, size_bytes, is_write, idle_s, woke });
        }
        let start_s = self.free_at.max(arrival_s);
        let (service_s, service_j) = if self.serving_mode == READY {
            if user && arrival_s < self.woken_at {
                self.ledger.delayed_requests += 1;
            }
            ready_service.unwrap_or_else(|| self.device.service(size_bytes, is_write, offset_bytes, self.head_bytes))
        } else {
            // Served in a low-power mode: delayed by power management when it waited for the
            // transition into the mode or for a beacon.
            let served = self.device.service_in_mode(self.serving_mode, start_s, size_bytes, is_write);
            if (std::mem::take(&mut self.low_power_wait) || served.power_management_wait_s > 0.0) && user {
                self.ledger.delayed_requests += 1;
            }
            (served.time_s, served.energy_j)
        };
        self.head_bytes = offset_bytes + size_bytes;
        let finish = start_s + service_s;
        self.ledger.service_time_s += service_s;
        self.ledger.service_energy_j += service_j;
        self.free_at = finish;
        self.last_completion_s = finish;
        self.last_start_s = start_s;
        if let Some(timeline) = self.ledger.timeline.as_mut() {
            timeline.push(start_s, finish, Activity::Serving);
        }
        (start_s, finish)
    }

    /// What the device is doing at `t` (an arrival, with any idle gap before it opened and
    /// not yet carried out): resting in a mode, on a transition, or serving.
    fn activity_at(&self, t: f64) -> Activity {
        match self.gap {
            Some(gap) => {
                let (mode, end, last) = walk_steps(&self.device, gap.start_s, gap.start_mode, &self.plan, t, &mut Observe);
                match last {
                    Some(hop) if end > t => Activity::Transition(hop),
                    _ => Activity::Mode(mode),
                }
            }
            None if t < self.woken_at => self.waking_hop.map_or(Activity::Serving, Activity::Transition),
            None if t < self.free_at => Activity::Serving,
            None => Activity::Mode(self.serving_mode),
        }
    }

    /// The per-request records kept since the last call, in arrival order, when they are kept:
    /// a run fed a file as it is read hands them over a part at a time. A MEMS device's
    /// requests complete out of order and their records are filled in as they do, so it hands
    /// over those that arrived before its first request still outstanding; the rest follow.
    pub fn take_per_request(&mut self) -> Option<crate::metrics::PerRequest> {
        let all = self.ledger.per_request.as_mut()?;
        if self.mems.is_none() {
            return Some(std::mem::take(all));
        }
        let done = all.response_s.iter().position(|r| r.is_nan()).unwrap_or(all.response_s.len());
        self.per_request_handed += done;
        Some(crate::metrics::PerRequest {
            arrival_s: all.arrival_s.drain(..done).collect(),
            start_s: all.start_s.drain(..done).collect(),
            response_s: all.response_s.drain(..done).collect(),
            at_arrival: all.at_arrival.drain(..done).collect(),
        })
    }

    /// Records a response the caller measured (for a request served through `serve_user`).
    pub fn record_response(&mut self, response_s: f64) {
        self.ledger.responses.record(response_s);
        self.push_per_request(response_s);
    }

    /// The per-request record of the request just served, when they are kept.
    fn push_per_request(&mut self, response_s: f64) {
        if let Some(all) = self.ledger.per_request.as_mut() {
            all.arrival_s.push(self.last_arrival_s);
            all.start_s.push(self.last_start_s);
            all.response_s.push(response_s);
            all.at_arrival.push(self.arrival_activity);
        }
    }

    /// Where the device is at time `t` (not before the last event it was given). Opens the idle
    /// gap if the device has fallen idle, without knowing how long it will last.
    pub fn state_at(&mut self, t: f64) -> DeviceState {
        if self.gap.is_none() {
            if t < self.free_at {
                return DeviceState::Busy { until_s: self.free_at };
            }
            self.open_gap(f64::INFINITY);
        }
        let gap = self.gap.expect("gap opened above");
        let (mode, end, last) = walk_steps(&self.device, gap.start_s, gap.start_mode, &self.plan, t, &mut Observe);
        match last.map(|h| &self.device.transitions[h]) {
            Some(hop) if end > t => DeviceState::Transition { from: hop.from, to: hop.to, end_s: end },
            _ => DeviceState::Mode { mode },
        }
    }

    /// The open idle gap's hops that begin before `until` (opening the gap if the device has
    /// fallen idle by then): `(start time, transition index)` in order, as the plan carries them
    /// out if nothing arrives. Does not change the run. A live manager acts on these.
    pub fn planned_hops(&mut self, until: f64) -> Vec<(f64, usize)> {
        // A gap is opened only once time has passed the last completion, as a request opens it
        // (`serve`): one of length zero would ask the policy for a plan a replay never asks for.
        if (self.gap.is_some() || until > self.free_at) && !matches!(self.state_at(until), DeviceState::Busy { .. }) {
            if let Some(gap) = self.gap {
                let mut trail = Trail { device: &self.device, clock_s: gap.start_s, hops: Vec::new(), energy_j: 0.0 };
                walk_steps(&self.device, gap.start_s, gap.start_mode, &self.plan, until, &mut trail);
                return trail.hops;
            }
        }
        Vec::new()
    }

    /// When the open idle gap began (the server fell idle), if one is open.
    pub fn gap_start_s(&self) -> Option<f64> {
        self.gap.map(|g| g.start_s)
    }

    /// The device's energy from the run's start to `t` (not before the last event given): what
    /// the ledger holds, plus the open gap carried out up to `t`. Does not change the run.
    pub fn energy_to(&mut self, t: f64) -> f64 {
        let charged: f64 = self.ledger.time_by_mode_s.iter().zip(&self.device.modes).map(|(s, m)| s * m.power_w).sum::<f64>()
            + self.ledger.transition_energy_j
            + self.ledger.service_energy_j;
        if (self.gap.is_none() && t <= self.free_at) || matches!(self.state_at(t), DeviceState::Busy { .. }) {
            return charged;
        }
        let Some(gap) = self.gap else { return charged };
        let mut trail = Trail { device: &self.device, clock_s: gap.start_s, hops: Vec::new(), energy_j: 0.0 };
        let (mode, end, _) = walk_steps(&self.device, gap.start_s, gap.start_mode, &self.plan, t, &mut trail);
        charged + trail.energy_j + self.device.modes[mode].power_w * (t - end).max(0.0)
    }

    /// Wakes the device at `t` without a request (a proactive spin-up): any transition under way
    /// finishes first. Returns when the device is ready. A no-op if it is not in an idle gap.
    pub fn wake(&mut self, t: f64) -> f64 {
        if self.gap.is_none() && t >= self.free_at {
            self.open_gap(f64::INFINITY);
        }
        self.close_gap(t)
    }

    /// Hands a ghost hint to the device's policy; wakes the device if the policy asks. Returns the
    /// time the device will be ready if it was woken.
    pub fn ghost_hint(&mut self, now_s: f64, benefit: f64) -> Option<f64> {
        let mode = match self.state_at(now_s) {
            DeviceState::Mode { mode } => mode,
            DeviceState::Transition { to, .. } => to,
            DeviceState::Busy { .. } => READY,
        };
        self.policy.ghost_hint(now_s, mode, benefit).then(|| self.wake(now_s))
    }

    /// Ends the run at `end_s` (at least the last completion) and returns its account. An open
    /// gap is closed without a wake-up: the device stays where the plan had taken it.
    pub fn finish(mut self, end_s: f64) -> RunResult {
        self.settle();
        let mems = self.mems.take();
        let end_s = end_s.max(self.free_at).max(self.last_completion_s);
        if self.gap.is_none() && end_s > self.free_at {
            // The last gap's length is known (the run ends at `end_s`) and no request wakes the
            // device after it: the oracle plans it as such, online policies as any other gap.
            self.open_gap_ending(end_s - self.free_at, true);
        }
        if let Some(gap) = self.gap.take() {
            let mut sink = Charge::from(&mut self.ledger, gap.start_s);
            let (mode, t, _) = walk_steps(&self.device, gap.start_s, gap.start_mode, &self.plan, end_s, &mut sink);
            if t < end_s {
                sink.residency(mode, end_s - t);
            }
            self.free_at = end_s.max(t);
            // A MEMS sled stopped in the last gap: its shutdown, as far as the run goes.
            if let Some(run) = mems.as_ref().filter(|_| mode != READY) {
                let service = self.device.service.mems.as_ref().expect("MEMS device");
                let began_ms = t * 1e3;
                let from = service.sled.idle_sweep(run.events.pos, began_ms - run.events.idle_since_ms());
                if let Some(full) = service.shutdown_cost(from) {
                    let power_w = self.device.modes[mode].power_w;
                    let (time_s, energy_j) = if end_s - t >= full.time_s {
                        (full.time_s, full.energy_j)
                    } else {
                        let (_, before, _) = service.interrupt_shutdown(from, end_s - t).expect("a shutdown model");
                        (before.time_s, before.energy_j)
                    };
                    self.charge_shutdown(mode, time_s, energy_j + power_w * time_s);
                }
            }
        }
        let policy_name = self.policy.name().to_string();
        let lowest_power_w = self.device.lowest_power_w();
        let mut result = RunResult::from_ledger(self.ledger, &self.device, policy_name, self.first_arrival_s, self.free_at, self.base_power_w);
        if let Some(minimum) = mems.as_ref().and_then(|run| run.minimum.as_ref()) {
            let least = minimum.least();
            result.theoretical_min = Some(TheoreticalMinimum {
                service_energy_j: least.energy_j,
                service_time_s: least.media_ms / 1e3,
                mean_response_s: if result.requests == 0 { 0.0 } else { minimum.response_sum_ms / 1e3 / result.requests as f64 },
                lowest_power_w,
            });
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::tests::two_state;
    use crate::policy::{BuildContext, PolicySpec};

    // Two-state device: ready 1 W, sleep 0 W, down 1 s / 1 J, up 2 s / 3 J; 990 kB = 1 s service.
    const ONE_SECOND: f64 = 990_000.0;

    #[test]
    fn state_queries_follow_the_plan_without_charging_it() {
        let d = two_state();
        let p = PolicySpec::parse("timeout:2s").unwrap().build(&d, &BuildContext::default()).unwrap();
        let mut sim = DeviceSim::new(Arc::new(d), p, &ReplayOptions::default(), 0.0, 4);
        assert_eq!(sim.request(0.0, ONE_SECOND, false, 0.0), 1.0);
        assert_eq!(sim.state_at(0.5), DeviceState::Busy { until_s: 1.0 });
        assert_eq!(sim.state_at(2.0), DeviceState::Mode { mode: READY });
        assert_eq!(sim.state_at(3.5), DeviceState::Transition { from: READY, to: 1, end_s: 4.0 });
        assert_eq!(sim.state_at(7.0), DeviceState::Mode { mode: 1 });
        // Queries charged nothing: a request at 10 s sees the whole plan once.
        assert_eq!(sim.request(10.0, ONE_SECOND, false, 0.0), 13.0);
        let r = sim.finish(13.0);
        assert!((r.energy_j - (2.0 + 1.0 + 3.0 + 4.0)).abs() < 1e-12);
        assert!((r.accounted_time_s() - r.makespan_s).abs() < 1e-12);
    }

    #[test]
    fn forced_wake_finishes_a_down_transition_first() {
        let d = two_state();
        let p = PolicySpec::parse("timeout:2s").unwrap().build(&d, &BuildContext::default()).unwrap();
        let mut sim = DeviceSim::new(Arc::new(d), p, &ReplayOptions::default(), 0.0, 4);
        sim.request(0.0, ONE_SECOND, false, 0.0);
        // Idle from 1 s; down from 3 s to 4 s; woken at 3.5 s: ready at 4 + 2 = 6 s.
        assert_eq!(sim.wake(3.5), 6.0);
        assert_eq!(sim.state_at(6.5), DeviceState::Mode { mode: READY });
        // A request at 6.5 s is served at once and was not delayed by power management.
        assert_eq!(sim.request(6.5, ONE_SECOND, false, 0.0), 7.5);
        let r = sim.finish(7.5);
        assert_eq!((r.wakeups, r.delayed_requests), (1, 0));
        assert!((r.accounted_time_s() - r.makespan_s).abs() < 1e-12);
    }

    #[test]
    fn finishing_inside_a_gap_keeps_the_device_where_the_plan_took_it() {
        let d = two_state();
        let p = PolicySpec::parse("timeout:0s").unwrap().build(&d, &BuildContext::default()).unwrap();
        let mut sim = DeviceSim::new(Arc::new(d), p, &ReplayOptions::default(), 0.0, 1);
        sim.request(0.0, ONE_SECOND, false, 0.0);
        let r = sim.finish(11.0);
        // Down 1 s (1 J), then 9 s asleep at 0 W; no wake-up at the end.
        assert!((r.energy_j - (2.0 + 1.0)).abs() < 1e-12);
        assert_eq!(r.wakeups, 0);
        assert!((r.makespan_s - 11.0).abs() < 1e-12);
    }
}
