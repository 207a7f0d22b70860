//! Single-device trace replay: the hot loop.
//!
//! Semantics (pinned by tests, stated in `docs/semantics.md`):
//! - The run spans the first arrival to the last completion; the device starts in
//!   `initial_mode` (the ready mode unless asked otherwise) at the first arrival.
//! - Open-loop arrivals, one FIFO server: `start = max(arrival, previous finish, device ready)`,
//!   `response = finish − arrival`. Service time and energy come from the device's service model.
//! - When the queue empties an idle gap begins; the policy plans its mode changes; the next
//!   arrival wakes the device. A transition under way when a request arrives is finished first
//!   (transitions are not aborted), then the wake-up starts.
//! - Residency costs `power × time`; a transition costs its energy and takes its time.
//!
//! The per-device state machine lives in `device_sim.rs` (shared with the multi-device engine);
//! this loop only feeds it columns: no allocation per request (unless per-request response times
//! are asked for) and one policy call per idle gap.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crate::device::Device;
use crate::device_sim::DeviceSim;
use crate::error::{Error, Result};
use crate::metrics::RunResult;
pub use crate::options::ReplayOptions;
use crate::options::{ReplayMode, ResponseFrom};
use crate::device::READY;
use crate::policy::{BuildContext, GapStart, Plan, Policy, PolicySpec};
use crate::trace::TraceView;

/// Replays a trace on a device under one policy. Validates the trace first.
pub fn replay(trace: &TraceView, device: &Device, policy: &mut dyn Policy, opts: &ReplayOptions) -> Result<RunResult> {
    trace.validate()?;
    check_options(device, opts)?;
    check_fits(trace, device, opts)?;
    Ok(replay_validated(trace, device, policy, opts, None))
}

/// The idle gaps an always-on device sees: from each completion that empties the queue to the
/// next arrival, in order. Computed by the same replay loop as every run, under a policy that
/// never moves and only records gap lengths.
pub fn idle_gaps(trace: &TraceView, device: &Device, opts: &ReplayOptions) -> Result<Vec<f64>> {
    let mut stream = IdleGapStream::new(device, opts);
    let mut gaps = stream.feed(trace)?;
    gaps.extend(stream.finish());
    Ok(gaps)
}

/// [`idle_gaps`] of a trace fed a part at a time in time order (a file as it is read): each
/// part gives the gaps that ended in it, `finish` any left. Memory is the replay's.
pub struct IdleGapStream {
    device: Arc<Device>,
    opts: ReplayOptions,
    run: Option<Replay<'static>>,
    gaps: Arc<std::sync::Mutex<Vec<f64>>>,
    last_arrival_s: f64,
}

/// A policy that never moves and only records the gaps it is told of.
struct GapRecorder(Arc<std::sync::Mutex<Vec<f64>>>);

impl Policy for GapRecorder {
    fn name(&self) -> &str {
        "always-on"
    }
    fn plan_gap(&mut self, _gap: &GapStart, _plan: &mut Plan) {}
    fn end_gap(&mut self, idle_s: f64) {
        self.0.lock().expect("one recorder").push(idle_s);
    }
}

impl IdleGapStream {
    pub fn new(device: &Device, opts: &ReplayOptions) -> Self {
        IdleGapStream { device: Arc::new(device.clone()), opts: opts.clone(), run: None, gaps: Arc::default(), last_arrival_s: f64::NEG_INFINITY }
    }

    /// The gaps that ended within `part` (validated here, and after the parts before it).
    pub fn feed(&mut self, part: &TraceView) -> Result<Vec<f64>> {
        if part.is_empty() {
            return Ok(Vec::new());
        }
        part.validate()?;
        check_fits(part, &self.device, &self.opts)?;
        check_follows(part, self.last_arrival_s)?;
        self.last_arrival_s = part.arrival_s[part.len() - 1];
        let (device, opts, gaps) = (&self.device, &self.opts, &self.gaps);
        let run = self.run.get_or_insert_with(|| Replay::new(Arc::clone(device), Box::new(GapRecorder(Arc::clone(gaps))), opts, part.arrival_s[0], 0));
        for block in blocks(part) {
            run.feed(&block);
        }
        Ok(std::mem::take(&mut *self.gaps.lock().expect("one recorder")))
    }

    /// The gaps the end of the run closes, if any.
    pub fn finish(&mut self) -> Vec<f64> {
        if let Some(run) = self.run.take() {
            run.finish();
        }
        std::mem::take(&mut *self.gaps.lock().expect("one recorder"))
    }
}

/// A part fed after others must not start before the last of them ended (`last_arrival_s`).
pub(crate) fn check_follows(part: &TraceView, last_arrival_s: f64) -> Result<()> {
    if part.arrival_s[0] < last_arrival_s {
        return Err(Error::TraceRecord { index: 0, field: "time_s", message: format!("time {} is earlier than the part before's last, {last_arrival_s}", part.arrival_s[0]) });
    }
    Ok(())
}

pub(crate) fn check_options(device: &Device, opts: &ReplayOptions) -> Result<()> {
    for (name, value) in [("recording_start_s", opts.recording_start_s), ("recording_end_s", opts.recording_end_s)] {
        if value.is_some_and(|v| !v.is_finite()) {
            return Err(Error::Option { option: name.into(), message: format!("must be a finite time, got {}", value.unwrap_or_default()) });
        }
    }
    if !(opts.tail_s.is_finite() && opts.tail_s >= 0.0) {
        return Err(Error::Option { option: "tail_s".into(), message: format!("must be a non-negative number of seconds, got {}", opts.tail_s) });
    }
    if !(opts.lead_s.is_finite() && opts.lead_s >= 0.0) {
        return Err(Error::Option { option: "lead_s".into(), message: format!("must be a non-negative number of seconds, got {}", opts.lead_s) });
    }
    if opts.response_from == ResponseFrom::Original && opts.mode != ReplayMode::Open {
        return Err(Error::Option {
            option: "response_from".into(),
            message: "'original' measures responses from the trace's original times, which a closed-loop or sync replay does not keep; use open-loop replay".into(),
        });
    }
    if !(opts.base_power_w.is_finite() && opts.base_power_w >= 0.0) {
        return Err(Error::Option { option: "base_power_w".into(), message: format!("must be a non-negative number of watts, got {}", opts.base_power_w) });
    }
    if opts.initial_mode >= device.mode_count() {
        return Err(Error::Option {
            option: "initial_mode".into(),
            message: format!("device '{}' has {} modes, got index {}", device.name, device.mode_count(), opts.initial_mode),
        });
    }
    Ok(())
}

/// A device with a layout (MEMS), or a disk whose file gives its cylinders, has a capacity: a
/// request beyond it is an error naming the record, unless the run folds offsets onto the device
/// (`fold_offsets`), as traces made for a larger device are run on a small one. A seek curve
/// extrapolated past full stroke would be a silent wrong answer. A device whose file states only
/// its `[capacity]` refuses a request larger than itself.
pub(crate) fn check_fits(trace: &TraceView, device: &Device, opts: &ReplayOptions) -> Result<()> {
    if trace.observed_service_s.is_some() && !device.shares_ready_service() {
        return Err(Error::Option {
            option: "service".into(),
            message: format!("observed service times replace a service that is a time at a power; device '{}' is a MEMS sled, whose service is its own", device.name),
        });
    }
    if let Some(mems) = device.service.mems.as_ref() {
        let capacity = mems.sled.blocks();
        for i in 0..trace.len() {
            let (first, blocks) = mems.block_range(trace.offset_bytes[i] as f64, trace.size_bytes[i] as f64, false);
            if opts.fold_offsets {
                if blocks >= capacity {
                    return Err(Error::TraceRecord {
                        index: i,
                        field: "size_bytes",
                        message: format!("{blocks} blocks do not fit on device '{}' ({capacity} blocks of 512 bytes)", device.name),
                    });
                }
            } else if first + blocks > capacity {
                return Err(beyond(i, &format!("blocks {first}..{}", first + blocks - 1), &device.name, &format!("{capacity} blocks of 512 bytes")));
            }
        }
    } else if let Some(capacity) = device.service.seek.as_ref().and_then(|k| k.capacity_bytes) {
        check_offsets_fit(trace, &device.name, capacity, opts.fold_offsets)?;
    } else if let Some(capacity) = device.capacity_bytes() {
        // Where no seek curve or layout places a request, its offset does not enter the service
        // (traces of other disks are replayed as they are, seed 001's way); its size does.
        check_offsets_fit(trace, &device.name, capacity, true)?;
    }
    Ok(())
}

/// Every request within `capacity` bytes: its whole extent, or, where offsets are folded onto
/// the device, its size (folding moves a request, never shrinks it: one larger than the whole
/// device fits nowhere).
fn check_offsets_fit(trace: &TraceView, device: &str, capacity: f64, fold_offsets: bool) -> Result<()> {
    for i in 0..trace.len() {
        if fold_offsets {
            if trace.size_bytes[i] as f64 > capacity {
                return Err(Error::TraceRecord {
                    index: i,
                    field: "size_bytes",
                    message: format!("{} bytes do not fit on device '{device}' ({capacity:.0} bytes)", trace.size_bytes[i]),
                });
            }
            continue;
        }
        let end = trace.offset_bytes[i] as f64 + trace.size_bytes[i] as f64;
        if end > capacity {
            let what = format!("bytes {}..{}", trace.offset_bytes[i], end as i64 - 1);
            return Err(beyond(i, &what, device, &format!("{capacity:.0} bytes")));
        }
    }
    Ok(())
}

fn beyond(index: usize, what: &str, device: &str, capacity: &str) -> Error {
    Error::TraceRecord {
        index,
        field: "offset_bytes",
        message: format!("{what} lie beyond device '{device}', which has {capacity}; fold offsets onto the device with --fold-offsets (fold_offsets=True)"),
    }
}

/// One policy's replay in progress: its device and the replay loop's own state, fed the trace
/// block by block (a whole in-memory trace, cache-sized blocks of it, or chunks streamed from a
/// file); the result does not depend on where the blocks are cut.
pub struct Replay<'p> {
    sim: DeviceSim<'p>,
    mode: ReplayMode,
    response_from: ResponseFrom,
    /// The previous request's trace time and completion (closed loop).
    previous_trace_s: Option<f64>,
    completion_s: f64,
    tail_s: f64,
}

impl<'p> Replay<'p> {
    /// A replay whose first request arrives at `first_arrival_s`; `expected_requests` sizes the
    /// per-request responses when they are kept.
    pub fn new(device: Arc<Device>, policy: Box<dyn Policy + 'p>, opts: &ReplayOptions, first_arrival_s: f64, expected_requests: usize) -> Self {
        Replay {
            sim: DeviceSim::new(device, policy, opts, first_arrival_s, expected_requests),
            mode: opts.mode,
            response_from: opts.response_from,
            previous_trace_s: None,
            completion_s: first_arrival_s,
            tail_s: opts.tail_s,
        }
    }

    /// As [`Replay::feed`], telling `fell_idle(from_s, to_s)` of every idle gap: the server fell
    /// idle at `from_s` and the next request was issued at `to_s`.
    #[inline]
    fn feed_observed(&mut self, block: &TraceView, mut fell_idle: impl FnMut(f64, f64)) {
        let n = block.len();
        let sim = &mut self.sim;
        let original = block.original_s.filter(|_| self.response_from == ResponseFrom::Original);
        // Separate loops, so the open-loop hot path carries no closed-loop or original-time
        // bookkeeping.
        let mut serve = |issue_s: f64, measured_from_s: f64, i: usize| {
            let idle_from_s = sim.free_at();
            let finish = sim.request_measured_from(issue_s, measured_from_s, block.size_bytes[i] as f64, block.is_write[i] != 0, block.offset_bytes[i] as f64, block.ready_service.map(|s| s[i]));
            if issue_s > idle_from_s {
                fell_idle(idle_from_s, issue_s);
            }
            finish
        };
        match (self.mode, original) {
            (ReplayMode::Open, None) => {
                // Requests that queue go through the tight loop of `requests`, as `feed`'s do.
                sim.requests_observed(block.arrival_s, block.size_bytes, block.is_write, block.offset_bytes, block.ready_service, fell_idle);
            }
            (ReplayMode::Open, Some(original)) => {
                for (i, &wanted_s) in original.iter().enumerate() {
                    serve(block.arrival_s[i], wanted_s, i);
                }
            }
            (ReplayMode::Closed | ReplayMode::Sync, _) => {
                for i in 0..n {
                    let issue = self.mode.issue_s(block.arrival_s[i], self.previous_trace_s, self.completion_s);
                    self.completion_s = serve(issue, issue, i);
                    self.previous_trace_s = Some(block.arrival_s[i]);
                }
            }
        }
    }

    /// Replays the next block of the trace (validated, and in order after the previous block).
    /// The open-loop, responses-from-arrival case goes through `DeviceSim::requests`.
    pub fn feed(&mut self, block: &TraceView) {
        self.feed_observed(block, |_, _| {});
    }

    /// [`Replay::feed`], with up to `helpers` more threads: a MEMS sled's open-loop replay
    /// under a policy that decides each gap from the gap alone is cut into segments speculated
    /// side by side (`device_sim::mems_segments`), with the same result bit for bit; any other
    /// replay is fed here.
    pub fn feed_helped(&mut self, block: &TraceView, helpers: usize) {
        self.feed_in_segments(block, helpers, crate::device_sim::LEAST_SEGMENT);
    }

    /// [`Replay::feed_helped`] with segments of at least `least` requests (tests cut small
    /// blocks).
    #[doc(hidden)]
    pub fn feed_in_segments(&mut self, block: &TraceView, helpers: usize, least: usize) {
        let original = block.original_s.is_some() && self.response_from == ResponseFrom::Original;
        if helpers == 0 || self.mode != ReplayMode::Open || original || !self.sim.mems_segmentable() {
            self.feed(block);
            return;
        }
        self.sim.mems_requests_in_segments(block, helpers, least);
    }

    /// How many segments speculated on other threads this run has taken (`feed_helped`).
    #[doc(hidden)]
    pub fn segments_taken(&self) -> u64 {
        self.sim.segments_taken()
    }

    pub(crate) fn sim_mut(&mut self) -> &mut DeviceSim<'p> {
        &mut self.sim
    }

    /// The policy's [`crate::policy::Policy::first_step_s`].
    pub(crate) fn first_step_s(&self) -> Option<f64> {
        self.sim.policy_first_step_s()
    }

    /// The per-request records kept since the last call (see [`DeviceSim::take_per_request`]).
    pub fn take_per_request(&mut self) -> Option<crate::metrics::PerRequest> {
        self.sim.take_per_request()
    }

    /// The run goes on this long after its last completion (a recording's rest, known at its end).
    pub(crate) fn set_tail_s(&mut self, tail_s: f64) {
        self.tail_s = tail_s;
    }

    /// Ends the run `tail_s` after the last completion.
    pub fn finish(mut self) -> RunResult {
        self.sim.settle();
        let end = self.sim.free_at();
        self.sim.finish(end + self.tail_s)
    }
}

/// How many requests a block holds: every run of a call replays one block before the next, so
/// the block's columns (25 bytes a request) stay in the core's cache across the runs.
pub const BLOCK_REQUESTS: usize = 1 << 15;

/// The replay loop proper. `progress`, when given, is advanced after every block so another
/// thread can draw a progress bar.
pub(crate) fn replay_validated(
    trace: &TraceView,
    device: &Device,
    policy: &mut dyn Policy,
    opts: &ReplayOptions,
    progress: Option<&AtomicU64>,
) -> RunResult {
    let mut run = Replay::new(Arc::new(device.clone()), Box::new(policy), opts, trace.arrival_s[0], trace.len());
    // Observed service times are the device's ready service, given: every run takes them.
    let observed: Vec<(f64, f64)>;
    let given;
    let trace = if trace.observed_service_s.is_some() && trace.ready_service.is_none() {
        observed = device.observed_services(trace);
        given = trace.with_ready_service(&observed);
        &given
    } else {
        trace
    };
    for block in blocks(trace) {
        run.feed(&block);
        if !crate::progress::advance(progress, block.len() as u64) {
            break; // partial, and discarded by the one who asked
        }
    }
    run.finish()
}

/// The trace cut into blocks of [`BLOCK_REQUESTS`].
pub fn blocks<'a>(trace: &TraceView<'a>) -> impl Iterator<Item = TraceView<'a>> + 'a {
    let trace = *trace;
    (0..trace.len()).step_by(BLOCK_REQUESTS).map(move |from| trace.slice(from, (from + BLOCK_REQUESTS).min(trace.len())))
}

/// The two references of every report, replayed together: always-on, and the oracle. Where the
/// oracle cannot delay a request (no wake-up time drawn at random, no mode that serves, no MEMS
/// sled, the device ready at the start) its busy periods are always-on's, so it is carried along
/// always-on's replay as a shadow that spends only the idle gaps (its plan, walked into its own
/// ledger), and takes always-on's service and responses at the end: the same result as its own
/// replay, bit for bit, for the price of its gaps. Where a family of timeouts shares a replay,
/// that replay is always-on's: the family carries always-on (`family.rs`), and the shadow is
/// told of the gaps from the shared ready services on a thread of its own.
pub struct References<'p> {
    /// Always-on's replay; `None` while a family carries it (`family.rs`: its shared run is
    /// always-on's replay, so always-on is a member that never leaves it).
    always_on: Option<Replay<'p>>,
    oracle: OracleRun<'p>,
    /// Where always-on's device frees, followed from the shared ready services while a family
    /// carries always-on, so that the shadow is told of always-on's gaps on a thread of its own.
    walked_free_at: f64,
}

/// The oracle as always-on's shadow, or replayed on its own where it cannot be one.
enum OracleRun<'p> {
    Shadow(Shadow<'p>),
    Replayed(Replay<'p>),
}

/// The oracle as a shadow of always-on: told of every gap of always-on's replay.
struct Shadow<'p> {
    sim: DeviceSim<'p>,
    /// Whether it would have been late somewhere (it cannot be, by construction).
    late: bool,
}

impl Shadow<'_> {
    /// Always-on fell idle at `from_s` and the next request came at `to_s`.
    #[inline]
    fn fell_idle(&mut self, from_s: f64, to_s: f64) {
        self.late |= !self.sim.idle_between(from_s, to_s);
    }
}

/// Always-on and the oracle's shadow, as fed on one thread (see [`References::split_mut`]).
pub struct AlwaysOnFeed<'r, 'p> {
    always_on: Option<&'r mut Replay<'p>>,
    shadow: Option<&'r mut Shadow<'p>>,
    walked_free_at: &'r mut f64,
}

impl AlwaysOnFeed<'_, '_> {
    /// Whether there is anything to feed: always-on's replay, or the shadow along a family's.
    pub fn is_empty(&self) -> bool {
        self.always_on.is_none() && self.shadow.is_none()
    }

    pub fn feed(&mut self, block: &TraceView) {
        match (self.always_on.as_deref_mut(), self.shadow.as_deref_mut()) {
            (Some(always_on), Some(shadow)) => always_on.feed_observed(block, |from_s, to_s| shadow.fell_idle(from_s, to_s)),
            (Some(always_on), None) => always_on.feed(block),
            (None, Some(shadow)) => {
                // Always-on's device frees as the family's shared run's does (the same
                // operations on the same services), and falls idle where it does.
                let services = block.ready_service.expect("a family's device shares its ready service");
                let mut free_at = *self.walked_free_at;
                for (&arrival, &(service_s, _)) in block.arrival_s.iter().zip(services) {
                    if arrival > free_at {
                        shadow.fell_idle(free_at, arrival);
                    }
                    free_at = free_at.max(arrival) + service_s;
                }
                *self.walked_free_at = free_at;
            }
            (None, None) => {}
        }
    }
}

impl<'p> References<'p> {
    pub fn new(device: &Arc<Device>, opts: &ReplayOptions, first_arrival_s: f64) -> Result<Self> {
        let ctx = BuildContext { base_power_w: opts.base_power_w };
        let reference = |name: &str| PolicySpec::parse(name).and_then(|spec| spec.build(device, &ctx));
        // The theoretical minima depend on the trace and the device only: computed once, here.
        let always_on_opts = ReplayOptions { keep_per_request: false, theoretical_minimum: device.service.mems.is_some(), ..opts.clone() };
        let oracle_opts = ReplayOptions { keep_per_request: false, theoretical_minimum: false, ..opts.clone() };
        let always_on = Replay::new(Arc::clone(device), reference("always-on")?, &always_on_opts, first_arrival_s, 0);
        let draws = opts.transition_seed.is_some() && device.transitions.iter().any(|t| t.spread.is_some());
        let shadowed = !draws && device.starting_mode(opts.initial_mode) == READY && !device.serves_in_low_power() && device.service.mems.is_none();
        let oracle = if shadowed {
            OracleRun::Shadow(Shadow { sim: DeviceSim::new(Arc::clone(device), reference("oracle")?, &oracle_opts, first_arrival_s, 0), late: false })
        } else {
            OracleRun::Replayed(Replay::new(Arc::clone(device), reference("oracle")?, &oracle_opts, first_arrival_s, 0))
        };
        Ok(References { always_on: Some(always_on), oracle, walked_free_at: first_arrival_s - opts.lead_s })
    }

    pub fn feed(&mut self, block: &TraceView) {
        let (mut always_on, oracle) = self.split_mut();
        always_on.feed(block);
        if let Some(oracle) = oracle {
            oracle.feed(block);
        }
    }

    /// The references as two runs to feed apart (on two threads): always-on with the oracle's
    /// shadow (only the shadow, told of the gaps, while a family carries always-on), and the
    /// oracle where it is replayed on its own (`None` where it is the shadow).
    pub fn split_mut(&mut self) -> (AlwaysOnFeed<'_, 'p>, Option<&mut Replay<'p>>) {
        let (shadow, oracle) = match &mut self.oracle {
            OracleRun::Shadow(shadow) => (Some(shadow), None),
            OracleRun::Replayed(oracle) => (None, Some(oracle)),
        };
        (AlwaysOnFeed { always_on: self.always_on.as_mut(), shadow, walked_free_at: &mut self.walked_free_at }, oracle)
    }

    /// Whether the oracle rides along always-on as a shadow.
    pub fn shadowed(&self) -> bool {
        matches!(self.oracle, OracleRun::Shadow(_))
    }

    /// Whether always-on is replayed here (not carried by a family).
    pub fn replays_always_on(&self) -> bool {
        self.always_on.is_some()
    }

    /// Always-on's replay, handed to a family before the first request (its shared run is
    /// always-on's replay); `None` if it is lent already.
    pub(crate) fn lend_always_on(&mut self) -> Option<Replay<'p>> {
        self.always_on.take()
    }

    /// Always-on's replay back from a family (that disbanded, or finished), between parts.
    pub(crate) fn give_back(&mut self, always_on: Replay<'p>) {
        debug_assert!(self.always_on.is_none(), "always-on was lent");
        self.always_on = Some(always_on);
    }

    /// Both runs go on this long after their last completions (a recording's rest).
    pub(crate) fn set_tail_s(&mut self, tail_s: f64) {
        if let Some(always_on) = self.always_on.as_mut() {
            always_on.set_tail_s(tail_s);
        }
        if let OracleRun::Replayed(oracle) = &mut self.oracle {
            oracle.set_tail_s(tail_s);
        }
    }

    /// The two results, or `None` for the oracle if its shadow would have been late somewhere
    /// (it cannot be, by construction; the caller then replays the oracle on its own).
    pub fn finish(self) -> (RunResult, Option<RunResult>) {
        let References { always_on, oracle, .. } = self;
        let always_on = always_on.expect("always-on is given back before the end");
        match oracle {
            OracleRun::Replayed(oracle) => (always_on.finish(), Some(oracle.finish())),
            OracleRun::Shadow(Shadow { sim, late }) => {
                let tail_s = always_on.tail_s;
                let mut shadow = sim;
                shadow.take_service_of(&always_on.sim);
                let end = shadow.free_at();
                let oracle = shadow.finish(end + tail_s);
                (always_on.finish(), (!late).then_some(oracle))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::tests::two_state;
    use crate::policy::{BuildContext, PolicySpec};
    use crate::metrics::Activity;

    fn run(spec: &str, times: &[f64], sizes: &[i64], opts: &ReplayOptions) -> RunResult {
        let d = two_state();
        let offsets = vec![0i64; times.len()];
        let ops = vec![0u8; times.len()];
        let trace = TraceView::new(times, &offsets, sizes, &ops).unwrap();
        let mut p = PolicySpec::parse(spec).unwrap().build(&d, &BuildContext { base_power_w: opts.base_power_w }).unwrap();
        replay(&trace, &d, p.as_mut(), opts).unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9 * b.abs().max(1.0)
    }

    // Two-state device: ready 1 W, sleep 0 W, down 1 s/1 J, up 2 s/3 J; service = 10 ms +
    // size/1 MB/s at 2 W. Requests of 990 kB take exactly 1 s (2 J).
    const ONE_SECOND: i64 = 990_000;

    /// A recording that began 100 s before its one request (issue 39: the idle before the first
    /// request was not simulated). Always-on: 100 s ready (100 J) + the request (2 J).
    /// timeout:10s: 10 s ready, down (1 s, 1 J), asleep until 100 s, up (2 s, 3 J), served:
    /// 10 + 1 + 0 + 3 + 2 = 16 J, one wake-up, the request delayed 2 s. The oracle, knowing the
    /// gap: down at once, up to be ready at 100 s: 1 + 3 + 2 = 6 J, no delay.
    #[test]
    fn idle_before_the_first_request_is_a_gap_like_any_other() {
        let opts = ReplayOptions { lead_s: 100.0, ..ReplayOptions::default() };
        let always_on = run("always-on", &[100.0], &[ONE_SECOND], &opts);
        assert!(close(always_on.energy_j, 102.0) && close(always_on.makespan_s, 101.0), "{always_on:?}");
        let timeout = run("timeout:10s", &[100.0], &[ONE_SECOND], &opts);
        assert!(close(timeout.energy_j, 16.0), "{}", timeout.energy_j);
        assert_eq!((timeout.wakeups, timeout.delayed_requests), (1, 1));
        let oracle = run("oracle", &[100.0], &[ONE_SECOND], &opts);
        assert!(close(oracle.energy_j, 6.0) && oracle.delayed_requests == 0, "{oracle:?}");
        // Without the lead, the run begins at the request: only its service.
        assert!(close(run("timeout:10s", &[100.0], &[ONE_SECOND], &ReplayOptions::default()).energy_j, 2.0));
    }

    /// A device whose file states only its capacity (no seek curve) replays other disks'
    /// offsets as they are, but refuses a request larger than the whole device: a 2^62-byte
    /// request on a 1 GB microdrive is not a transfer of 107 years.
    #[test]
    fn stated_capacity_refuses_a_request_larger_than_the_device() {
        let d = Device::from_toml(
            &format!("name='tiny'\nkind='flash'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n{}[capacity]\nbytes=4096\n", crate::device::tests::SERVICE),
            "tiny.toml",
        )
        .unwrap();
        assert_eq!(d.capacity_bytes(), Some(4096.0));
        let times = [0.0, 1.0];
        let ops = [0u8, 0];
        let run = |offsets: &[i64], sizes: &[i64]| {
            let trace = TraceView::new(&times, offsets, sizes, &ops).unwrap();
            let mut p = PolicySpec::parse("always-on").unwrap().build(&d, &BuildContext::default()).unwrap();
            replay(&trace, &d, p.as_mut(), &ReplayOptions::default()).map(|_| ())
        };
        assert!(run(&[0, 1 << 40], &[512, 4096]).is_ok(), "an offset beyond a placement-free device is replayed as it is");
        match run(&[0, 0], &[512, 1 << 62]) {
            Err(Error::TraceRecord { index: 1, field: "size_bytes", message }) => assert!(message.contains("do not fit on device 'tiny' (4096 bytes)"), "{message}"),
            other => panic!("expected a refusal of record 1's size, got {other:?}"),
        }
        let bad = Device::from_toml(&format!("name='t'\nkind='flash'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n{}[capacity]\nbytes=100.5\n", crate::device::tests::SERVICE), "t.toml");
        assert!(matches!(bad, Err(Error::Device { .. })), "{bad:?}");
    }

    /// A disk of 10 cylinders of 1,000 bytes (10 kB): 100 cylinders' worth of seek curve would
    /// be extrapolated past full stroke, so a request beyond 10 kB is refused unless folded, and
    /// folded it seeks as its offset modulo the capacity does.
    #[test]
    fn disk_capacity_refuses_or_folds_offsets_beyond_it() {
        let d = Device::from_toml(
            &format!(
                "name='small'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n{}\
                 [service.seek]\nbytes_per_cylinder=1000\ncylinders=10\nboundary_cylinders=300\nsqrt_intercept_s=0.001\nsqrt_coeff_s=0.001\n\
                 linear_intercept_s=0.002\nlinear_coeff_s=0.0001\n",
                crate::device::tests::SERVICE
            ),
            "small.toml",
        )
        .unwrap();
        let times = [0.0, 1.0];
        let sizes = [512i64, 512];
        let ops = [0u8, 0];
        let run = |offsets: &[i64], fold: bool| {
            let trace = TraceView::new(&times, offsets, &sizes, &ops).unwrap();
            let mut p = PolicySpec::parse("always-on").unwrap().build(&d, &BuildContext::default()).unwrap();
            replay(&trace, &d, p.as_mut(), &ReplayOptions { fold_offsets: fold, ..ReplayOptions::default() })
        };
        // The last byte of the disk is within it; one more is not.
        assert!(run(&[0, 10_000 - 512], false).is_ok());
        match run(&[0, 10_000 - 511], false) {
            Err(Error::TraceRecord { index: 1, field: "offset_bytes", message }) => {
                assert!(message.contains("bytes 9489..10000 lie beyond device 'small', which has 10000 bytes"), "{message}");
                assert!(message.contains("--fold-offsets"), "{message}");
            }
            other => panic!("expected a refusal of record 1, got {other:?}"),
        }
        // Folded, a request larger than the whole disk still does not fit.
        match run(&[0, 0], true).map(|_| ()).and_then(|_| {
            let big = [512i64, 10_001];
            let trace = TraceView::new(&times, &[0, 0], &big, &ops).unwrap();
            let mut p = PolicySpec::parse("always-on").unwrap().build(&d, &BuildContext::default()).unwrap();
            replay(&trace, &d, p.as_mut(), &ReplayOptions { fold_offsets: true, ..ReplayOptions::default() }).map(|_| ())
        }) {
            Err(Error::TraceRecord { index: 1, field: "size_bytes", message }) => assert!(message.contains("10001 bytes do not fit"), "{message}"),
            other => panic!("expected a refusal of record 1's size, got {other:?}"),
        }
        // Folded: offset 46,000 seeks as 6,000 does (6 cylinders from the head at 512).
        let folded = run(&[0, 46_000], true).unwrap();
        let within = run(&[0, 6_000], false).unwrap();
        assert_eq!(folded.service_time_s, within.service_time_s);
        assert_eq!(folded.energy_j, within.energy_j);
        let seek_s = 0.001 + 0.001 * 5f64.sqrt();
        let one_request_s = run(&[0, 512], false).unwrap().service_time_s / 2.0;
        assert!(close(within.service_time_s, 2.0 * one_request_s + seek_s), "{} vs {}", within.service_time_s, 2.0 * one_request_s + seek_s);
    }

    #[test]
    fn always_on_two_requests() {
        let r = run("always-on", &[0.0, 10.0], &[ONE_SECOND, ONE_SECOND], &ReplayOptions::default());
        assert!(close(r.makespan_s, 11.0));
        assert!(close(r.time_by_mode_s[0], 9.0));
        assert!(close(r.service_time_s, 2.0));
        assert!(close(r.energy_j, 9.0 + 4.0));
        assert_eq!(r.wakeups, 0);
        assert!(close(r.mean_response_s, 1.0));
        assert_eq!(r.delayed_requests, 0);
    }

    #[test]
    fn timeout_sleeps_and_wake_delays_the_next_request() {
        // Gap of 9 s; timeout 2 s: ready 2 s (2 J), down 1 s (1 J), sleep 6 s (0 J), wake 2 s (3 J).
        let r = run("timeout:2s", &[0.0, 10.0], &[ONE_SECOND, ONE_SECOND], &ReplayOptions { base_power_w: 0.5, ..Default::default() });
        assert!(close(r.time_by_mode_s[0], 2.0));
        assert!(close(r.time_by_mode_s[1], 6.0));
        assert!(close(r.transition_time_s, 3.0));
        assert!(close(r.energy_j, 2.0 + 1.0 + 3.0 + 4.0));
        assert!(close(r.makespan_s, 13.0));
        assert!(close(r.system_energy_j, 10.0 + 0.5 * 13.0));
        assert!(close(r.max_response_s, 3.0));
        assert!(close(r.mean_response_s, 2.0));
        assert_eq!((r.wakeups, r.delayed_requests), (1, 1));
        assert!(close(r.accounted_time_s(), r.makespan_s));
    }

    #[test]
    fn arrival_during_down_transition_waits_for_it_then_wakes() {
        // Gap 2.5 s, timeout 2 s: down starts at gap+2 s, ends at gap+3 s, then 2 s wake.
        let r = run("timeout:2s", &[0.0, 3.5], &[ONE_SECOND, ONE_SECOND], &ReplayOptions::default());
        assert!(close(r.time_by_mode_s[0], 2.0));
        assert!(close(r.time_by_mode_s[1], 0.0));
        assert!(close(r.transition_time_s, 3.0));
        // Request 2 arrives at 3.5, device ready at 1 + 2 + 1 + 2 = 6, finishes at 7.
        assert!(close(r.max_response_s, 3.5));
        assert!(close(r.energy_j, 2.0 + 4.0 + 4.0));
    }

    #[test]
    fn oracle_prewakes_and_adds_no_delay() {
        let r = run("oracle", &[0.0, 20.0, 23.0], &[ONE_SECOND; 3], &ReplayOptions::default());
        // Gap 19 s: sleep (1 + 3 + 0) = 4 J < 19 J. Gap 2 s: too short, stay ready (2 J).
        assert!(close(r.energy_j, 4.0 + 2.0 + 6.0));
        assert!(close(r.mean_response_s, 1.0));
        assert_eq!((r.wakeups, r.delayed_requests), (1, 0));
        assert!(close(r.makespan_s, 24.0));
        assert!(close(r.accounted_time_s(), r.makespan_s));
    }

    #[test]
    fn queued_requests_are_fifo_and_busy_periods_have_no_gap() {
        let r = run("timeout:0s", &[0.0, 0.5, 0.6], &[ONE_SECOND; 3], &ReplayOptions::default());
        // Finishes at 1, 2, 3: responses 1, 1.5, 2.4; no gap, no wake-up.
        assert!(close(r.mean_response_s, (1.0 + 1.5 + 2.4) / 3.0));
        assert_eq!(r.wakeups, 0);
        assert!(close(r.makespan_s, 3.0));
    }

    #[test]
    fn initial_mode_starts_asleep() {
        let r = run("always-on", &[0.0], &[ONE_SECOND], &ReplayOptions { initial_mode: 1, ..Default::default() });
        assert!(close(r.makespan_s, 3.0));
        assert!(close(r.energy_j, 3.0 + 2.0));
        assert_eq!((r.wakeups, r.delayed_requests), (1, 1));
    }

    fn device(toml_modes: &str) -> Device {
        Device::from_toml(
            &format!("name='t'\nkind='disk'\n{toml_modes}\n[service]\noverhead_s=0\nread_bandwidth_bytes_per_s=1e6\nwrite_bandwidth_bytes_per_s=1e6\nactive_power_w=2\n"),
            "t.toml",
        )
        .unwrap()
    }

    #[test]
    fn delay_can_buy_energy_below_the_no_delay_oracle() {
        // Sleep is free and instant to enter; waking is free but takes 2 s. A 1 s gap is too
        // short for the oracle's round trip (it stays ready: 1 J), but `timeout:0s` sleeps
        // through it for 0 J and makes the next request wait 2 s. Documented in semantics.md.
        let d = device("[[modes]]\nname='on'\npower_w=1\nserves=true\n[[modes]]\nname='off'\npower_w=0\n[[transitions]]\nfrom='on'\nto='off'\ntime_s=0\nenergy_j=0\n[[transitions]]\nfrom='off'\nto='on'\ntime_s=2\nenergy_j=0");
        let (t, o, s, w) = ([0.0, 2.0], [0i64; 2], [1_000_000i64; 2], [0u8; 2]);
        let trace = TraceView::new(&t, &o, &s, &w).unwrap();
        let specs = [PolicySpec::parse("timeout:0s").unwrap()];
        let r = &crate::evaluate(&trace, &d, &specs, &ReplayOptions::default(), None).unwrap()[0];
        assert!(close(r.run.energy_j, 4.0));
        assert!(close(r.energy_vs_oracle.unwrap(), 4.0 / 5.0));
        assert!(close(r.run.mean_response_s, 2.0));
        assert_eq!(r.run.delayed_requests, 1);
    }

    #[test]
    fn randomized_timeout_is_e_over_e_minus_1_competitive_in_expectation() {
        // Instant transitions, b = 1 J, r = 1 W: B = 1 s. On gaps of exactly B the expected cost
        // is e/(e-1)·b against OPT = b (ALGORITHMS 2.1), independent of the gap length.
        let d = device("[[modes]]\nname='on'\npower_w=1\nserves=true\n[[modes]]\nname='off'\npower_w=0\n[[transitions]]\nfrom='on'\nto='off'\ntime_s=0\nenergy_j=0\n[[transitions]]\nfrom='off'\nto='on'\ntime_s=0\nenergy_j=1");
        for gap in [0.3, 1.0, 2.0] {
            let n = 40_000;
            let t: Vec<f64> = (0..n).map(|i| i as f64 * gap).collect();
            let (o, s, w) = (vec![0i64; n], vec![0i64; n], vec![0u8; n]);
            let trace = TraceView::new(&t, &o, &s, &w).unwrap();
            let specs = [PolicySpec::parse("randomized:seed=11").unwrap()];
            let r = &crate::evaluate(&trace, &d, &specs, &ReplayOptions::default(), None).unwrap()[0];
            let expected = std::f64::consts::E / (std::f64::consts::E - 1.0);
            let ratio = r.energy_vs_oracle.unwrap();
            assert!((ratio - expected).abs() < 0.01, "gap {gap}: ratio {ratio}");
        }
    }

    #[test]
    fn randomized_is_deterministic_per_seed() {
        let d = two_state();
        let t: Vec<f64> = (0..200).map(|i| i as f64 * 3.7).collect();
        let (o, s, w) = (vec![0i64; 200], vec![1000i64; 200], vec![0u8; 200]);
        let trace = TraceView::new(&t, &o, &s, &w).unwrap();
        let go = |seed: u64| {
            let mut p = PolicySpec::parse(&format!("randomized:seed={seed}")).unwrap().build(&d, &BuildContext::default()).unwrap();
            replay(&trace, &d, p.as_mut(), &ReplayOptions::default()).unwrap().energy_j
        };
        assert_eq!(go(5), go(5));
        assert_ne!(go(5), go(6));
    }

    #[test]
    fn closed_loop_a_fault_during_a_wake_up_stretches_execution_by_the_wake_up() {
        // Trace gaps 10 s and 1 s become think times. Always-on: 0-1, issue 11 -> 12, issue 13
        // -> 14. timeout:2s: 0-1, asleep from 4 s; issued at 11, woken 11-13, served 13-14;
        // issued at 15 (1 s of thinking: no timeout), 15-16. The 2 s wake-up stretches the run
        // from 14 s to 16 s. Open loop the same trace ends at 14 s whatever the policy.
        let closed = ReplayOptions { mode: ReplayMode::Closed, ..Default::default() };
        let (times, sizes) = ([0.0, 10.0, 11.0], [ONE_SECOND; 3]);
        let on = run("always-on", &times, &sizes, &closed);
        let sleepy = run("timeout:2s", &times, &sizes, &closed);
        assert!(close(on.makespan_s, 14.0) && close(sleepy.makespan_s, 16.0), "{} {}", on.makespan_s, sleepy.makespan_s);
        assert!(close(sleepy.mean_response_s, (1.0 + 3.0 + 1.0) / 3.0));
        assert_eq!((sleepy.wakeups, sleepy.delayed_requests), (1, 1));
        assert!(close(sleepy.accounted_time_s(), sleepy.makespan_s));
        let open = run("timeout:2s", &times, &sizes, &ReplayOptions::default());
        assert!(close(open.makespan_s, 14.0));
        // The whole trace gap is thinking after each completion: 1 s requests 1 s apart in the
        // trace take 0-1, 2-3, 4-5 closed loop (open loop: 0-1, 1-2, 2-3).
        let thinking = run("always-on", &[0.0, 1.0, 2.0], &sizes, &closed);
        assert!(close(thinking.makespan_s, 5.0));
    }

    #[test]
    fn open_loop_fifo_serves_as_seed_001_issues_but_counts_the_queueing() {
        // Requests at 0, 0.5 and 5 s, 1 s each: the second starts when the first completes
        // (1 s), the third at its own time (5 s) — the schedule of seed 001's replay rule (`sync`).
        // Open loop counts the second's response from its trace time (1.5 s), sync from its issue.
        let r = run("always-on", &[0.0, 0.5, 5.0], &[ONE_SECOND; 3], &ReplayOptions { keep_per_request: true, ..Default::default() });
        let responses = r.per_request.unwrap().response_s;
        assert!(close(responses[0], 1.0) && close(responses[1], 1.5) && close(responses[2], 1.0), "{responses:?}");
        assert!(close(r.makespan_s, 6.0));
    }

    #[test]
    fn per_request_records_and_timeline_follow_the_device_by_hand() {
        // timeout:2s, 1 s requests at 0, 10, 10.5 and 13.5 s. By hand: served 0-1; idle 1-3;
        // spinning down 3-4; asleep 4-10; the request at 10 wakes it, 10-12, and is served
        // 12-13; the one at 10.5 arrives during the wake-up and is served 13-14; the one at
        // 13.5 queues behind it (14-15). Transition 0 is idle→sleep, 1 is sleep→idle.
        let opts = ReplayOptions { keep_per_request: true, timeline_s: Some((0.5, 20.0)), ..Default::default() };
        let r = run("timeout:2s", &[0.0, 10.0, 10.5, 13.5], &[ONE_SECOND; 4], &opts);
        let log = r.per_request.unwrap();
        let expect_start = [0.0, 12.0, 13.0, 14.0];
        let expect_response = [1.0, 3.0, 3.5, 1.5];
        assert_eq!(log.arrival_s, vec![0.0, 10.0, 10.5, 13.5]);
        for i in 0..4 {
            assert!(close(log.start_s[i], expect_start[i]) && close(log.response_s[i], expect_response[i]), "{log:?}");
        }
        assert_eq!(log.at_arrival, vec![Activity::Mode(0), Activity::Mode(1), Activity::Transition(1), Activity::Serving]);
        // The window starts at 0.5 s: the first service is clipped; the last three merge; the
        // run ends at the last completion (15 s), before the window does.
        let timeline = r.timeline.unwrap();
        let expect = [
            (0.5, 1.0, Activity::Serving),
            (1.0, 3.0, Activity::Mode(0)),
            (3.0, 4.0, Activity::Transition(0)),
            (4.0, 10.0, Activity::Mode(1)),
            (10.0, 12.0, Activity::Transition(1)),
            (12.0, 15.0, Activity::Serving),
        ];
        assert_eq!(timeline.segments.len(), expect.len(), "{:?}", timeline.segments);
        for (got, want) in timeline.segments.iter().zip(expect) {
            assert!(close(got.0, want.0) && close(got.1, want.1) && got.2 == want.2, "{got:?} vs {want:?}");
        }
        // The timeline covers the window up to the end of the run, without overlaps.
        let covered: f64 = timeline.segments.iter().map(|s| s.1 - s.0).sum();
        assert!(close(covered, 15.0 - 0.5));
        assert_eq!(timeline.segments[0].2.label(&two_state()), "serving");
        assert_eq!(timeline.segments[2].2.label(&two_state()), "idle→sleep");
    }

    /// The last gap, followed by no request: the oracle goes down at once if that is cheaper
    /// than staying, and pays no wake-up (the run ends where the plan took the device).
    #[test]
    fn oracle_spends_the_idle_after_the_last_request_at_its_cheapest() {
        let at = |tail_s: f64, spec: &str| run(spec, &[0.0], &[ONE_SECOND], &ReplayOptions { tail_s, ..Default::default() }).energy_j;
        // 1 s of service (2 J), then 10 s idle: down 1 s / 1 J, asleep 9 s at 0 W.
        assert!(close(at(10.0, "oracle"), 2.0 + 1.0), "{}", at(10.0, "oracle"));
        assert!(close(at(10.0, "timeout:2s"), 2.0 + 2.0 + 1.0));
        assert!(close(at(10.0, "always-on"), 2.0 + 10.0));
        // 0.5 s idle: the way down alone (1 J) costs more than staying ready (0.5 J).
        assert!(close(at(0.5, "oracle"), 2.0 + 0.5));
        // 1.5 s idle: down (1 J) and 0.5 s asleep beats 1.5 J ready.
        assert!(close(at(1.5, "oracle"), 2.0 + 1.0));
        let r = run("oracle", &[0.0], &[ONE_SECOND], &ReplayOptions { tail_s: 10.0, ..Default::default() });
        assert_eq!((r.wakeups, r.delayed_requests), (0, 0));
        assert!(close(r.makespan_s, 11.0));
    }

    #[test]
    fn idle_gaps_start_at_completion() {
        let d = two_state();
        let (t, o, s, w) = ([0.0, 0.5, 5.0, 9.0], [0i64; 4], [ONE_SECOND; 4], [0u8; 4]);
        let trace = TraceView::new(&t, &o, &s, &w).unwrap();
        // Completions at 1, 2 (queued), 6, 10: gaps 5.0 - 2 = 3 and 9 - 6 = 3.
        let gaps = idle_gaps(&trace, &d, &ReplayOptions::default()).unwrap();
        assert_eq!(gaps.len(), 2);
        assert!(close(gaps[0], 3.0) && close(gaps[1], 3.0));
    }

    #[test]
    fn rejects_bad_options() {
        let d = two_state();
        let trace = TraceView::new(&[0.0], &[0], &[1], &[0]).unwrap();
        let mut p = PolicySpec::parse("always-on").unwrap().build(&d, &BuildContext::default()).unwrap();
        assert!(replay(&trace, &d, p.as_mut(), &ReplayOptions { initial_mode: 5, ..Default::default() }).is_err());
        assert!(replay(&trace, &d, p.as_mut(), &ReplayOptions { base_power_w: -1.0, ..Default::default() }).is_err());
    }
}
