//! Runs a set of policies on one (trace, device) pair next to the two references every report
//! needs — always-on (no power management) and the oracle (offline optimum, no added delay) —
//! and expresses each result relative to them.
//!
//! Every run of a call replays the same cache-sized block of the trace before any moves to the
//! next, so the trace is read from memory once per call rather than once per run; the runs are
//! shared among threads, each taking whole runs.

use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crate::device::Device;
use crate::error::{Error, Result};
use crate::family::Family;
use crate::metrics::RunResult;
use crate::policy::{BuildContext, PolicySpec};
use crate::replay::{blocks, check_fits, check_options, replay_validated, AlwaysOnFeed, References, Replay, ReplayOptions};
use crate::trace::TraceView;

/// One policy's result with its normalisations (`None` when the references were not replayed,
/// `ReplayOptions::without_references`).
#[derive(Debug, Clone)]
pub struct Report {
    pub run: RunResult,
    /// Device energy / always-on device energy.
    pub normalized_energy: Option<f64>,
    /// System energy / always-on system energy.
    pub normalized_system_energy: Option<f64>,
    /// Mean response time / always-on mean response time.
    pub normalized_mean_response: Option<f64>,
    /// Device energy / oracle device energy (the empirical competitive ratio).
    pub energy_vs_oracle: Option<f64>,
    pub wakeups_per_day: f64,
    pub cycle_wakeups_per_day: f64,
    pub load_unload_wakeups_per_day: f64,
    pub years_to_rated_cycles: Option<f64>,
    /// The run's ready service time over the span of the trace's arrivals (first to last): at
    /// 1 or more the device cannot keep up with the trace whatever the policy, and its
    /// responses measure its queue. `None` where every request arrives at one instant.
    pub offered_load: Option<f64>,
}

/// The always-on and oracle results of one (trace, device, options): computed once and shared
/// by every policy of a call.
#[derive(Debug, Clone)]
pub struct ReferenceResults {
    pub always_on: RunResult,
    pub oracle: RunResult,
}

fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        if a == 0.0 { 1.0 } else { f64::INFINITY }
    } else {
        a / b
    }
}

/// Builds every policy first (so a bad spec fails before any long run), then replays each.
/// `progress`, when given, counts replayed requests across all runs, references included:
/// the total is `trace.len() × (specs.len() + 2)`.
pub fn evaluate(
    trace: &TraceView,
    device: &Device,
    specs: &[PolicySpec],
    opts: &ReplayOptions,
    progress: Option<&AtomicU64>,
) -> Result<Vec<Report>> {
    evaluate_on(trace, device, specs, opts, progress, 1)
}

/// [`evaluate`] on `threads` threads (at least one).
pub fn evaluate_on(
    trace: &TraceView,
    device: &Device,
    specs: &[PolicySpec],
    opts: &ReplayOptions,
    progress: Option<&AtomicU64>,
    threads: usize,
) -> Result<Vec<Report>> {
    let trace = trace.validated()?;
    check_options(device, opts)?;
    check_fits(&trace, device, opts)?;
    let mut runs = Runs::new(&Arc::new(device.clone()), specs, opts, trace.arrival_s[0], trace.len())?;
    runs.feed(&trace, threads, progress);
    runs.finish(device, Some(&trace))
}

/// Every run of one (trace, device, options): the policies' and the two references', fed the
/// trace together (all of it at once, or chunk after chunk as it is read).
pub struct Runs<'p> {
    /// Runs replayed on their own, with their specs' places.
    runs: Vec<(usize, Replay<'p>)>,
    /// Runs that share one replay where they agree (timeouts and their kin, `family.rs`): at
    /// most one family, carrying always-on (its shared run is always-on's replay).
    family: Option<Family<'p>>,
    specs: usize,
    /// Always-on and the oracle, unless the call asked for the policies alone.
    references: Option<References<'p>>,
    /// Places of specs that are the oracle reference itself, replayed once for both: the
    /// reference is the same replay (its shadow along always-on gives a plain replay's result
    /// bit for bit, `tests/blocks.rs`), and a sweep that lists the oracle paid for it twice.
    oracle_rows: Vec<usize>,
    opts: ReplayOptions,
    device: Arc<Device>,
    /// Where the last request fed left the head, for the shared ready-mode services.
    head_bytes: f64,
    /// The first and last arrival fed (the span the offered load is taken over).
    arrivals_s: Option<(f64, f64)>,
    /// The shared ready-mode services of the piece being fed (reused from piece to piece).
    services: Vec<(f64, f64)>,
}

/// What a request's replay costs on `device`, in replays of a disk's request: a MEMS sled's
/// runs DiskSim's events (0.43 µs a request on one core, `benchmarks/mems_replay.rs`, against
/// 18 ns for a disk's, `benchmarks/replay_throughput.rs`), so a text file's chunk of 18,000
/// MEMS requests is worth a thread where a disk's is not.
fn replay_weight(device: &Device) -> usize {
    if device.service.mems.is_some() { 16 } else { 1 }
}

/// Requests whose ready-mode service is computed at a time, once for every run
/// (`Device::ready_services`): 16 MiB, whatever the trace's length.
const SHARED_SERVICE_REQUESTS: usize = 1 << 20;

/// The piece's ready-mode services (`Device::ready_services`), computed in parts on up to
/// `threads` threads when it is large: each part starts from the head the request before it
/// left (its offset and size), so the services are those of one pass, bit for bit. (Computed
/// before the runs are dealt, they would otherwise hold every other thread back.)
fn shared_services(device: &Device, piece: &TraceView, head_bytes: &mut f64, out: &mut Vec<(f64, f64)>, threads: usize) {
    const WORTH_PARTS: usize = 1 << 16;
    let n = piece.len();
    if threads < 2 || n < WORTH_PARTS {
        device.ready_services(piece, head_bytes, out);
        return;
    }
    out.clear();
    out.resize(n, (0.0, 0.0));
    // Where the head is after request `i`: where it ended.
    let head_after = |i: usize| piece.offset_bytes[i] as f64 + piece.size_bytes[i] as f64;
    let per_thread = n.div_ceil(threads);
    let first_head = *head_bytes;
    std::thread::scope(|scope| {
        let mut parts = out.chunks_mut(per_thread).enumerate();
        let (_, first) = parts.next().expect("a piece of requests");
        for (k, slot) in parts {
            let from = k * per_thread;
            let part = piece.slice(from, from + slot.len());
            let mut head = head_after(from - 1);
            scope.spawn(move || device.ready_services_into(&part, &mut head, slot));
        }
        let mut head = first_head;
        device.ready_services_into(&piece.slice(0, first.len()), &mut head, first);
    });
    *head_bytes = head_after(n - 1);
}

impl<'p> Runs<'p> {
    /// Builds every policy (a bad spec fails before any run) and the references.
    pub fn new(device: &Arc<Device>, specs: &[PolicySpec], opts: &ReplayOptions, first_arrival_s: f64, expected_requests: usize) -> Result<Self> {
        let opts = &opts.seen_from_first_arrival(first_arrival_s);
        let mut references = if opts.without_references { None } else { Some(References::new(device, opts, first_arrival_s)?) };
        // (Not when runs keep what the references do not: per-request records, a timeline.)
        let shares_oracle = references.is_some() && !opts.keep_per_request && opts.timeline_s.is_none();
        let is_reference_oracle = |spec: &PolicySpec| shares_oracle && spec.family == "oracle" && spec.args.is_empty();
        let oracle_rows: Vec<usize> = (0..specs.len()).filter(|&i| is_reference_oracle(&specs[i])).collect();
        let ctx = BuildContext { base_power_w: opts.base_power_w };
        let mut runs = specs
            .iter()
            .enumerate()
            .filter(|(_, spec)| !is_reference_oracle(spec))
            .map(|(i, spec)| Ok((i, Replay::new(Arc::clone(device), spec.build(device, &ctx)?, opts, first_arrival_s, expected_requests))))
            .collect::<Result<Vec<_>>>()?;
        let mut family = None;
        // A lone timeout shares too, though it would replay as fast on its own: a run's row is
        // then the same, bit for bit, whatever other policies run beside it (a sweep's row is
        // `simulate`'s).
        if crate::family::shares(device, opts) && runs.iter().any(|(_, replay)| replay.first_step_s().is_some()) {
            let (members, own): (Vec<_>, Vec<_>) = runs.into_iter().partition(|(_, replay)| replay.first_step_s().is_some());
            runs = own;
            family = Some(Family::new(device, members, opts, first_arrival_s, references.as_mut().and_then(References::lend_always_on)));
        }
        Ok(Runs {
            runs,
            family,
            specs: specs.len(),
            references,
            oracle_rows,
            opts: opts.clone(),
            device: Arc::clone(device),
            head_bytes: 0.0,
            arrivals_s: None,
            services: Vec::new(),
        })
    }

    /// Where the recording these runs replay ended (known once it is read): each run goes on
    /// after its last completion as long as the recording did after its last request.
    pub fn set_recording_end_s(&mut self, end_s: f64) {
        self.opts.recording_end_s = Some(end_s);
    }

    /// How many runs share one replay (a family's members, always-on among them) at this point:
    /// 0 when none do, or their family disbanded. For tests and benchmarks of the sharing.
    #[doc(hidden)]
    pub fn runs_sharing_a_replay(&self) -> usize {
        self.family.as_ref().filter(|f| !f.disbanded()).map_or(0, Family::len)
    }

    /// Replays the next part of the trace (validated, in order after the last). Each thread
    /// takes whole runs and replays one cache-sized block before the next, so the part is read
    /// from memory once; this thread takes the references and its share of the policies.
    /// `progress` counts request replays.
    pub fn feed(&mut self, part: &TraceView, threads: usize, progress: Option<&AtomicU64>) {
        self.feed_counting(part, threads, progress, true);
    }

    /// [`Runs::feed`] for a caller that counts progress itself (records read, not replays):
    /// `stop` is only watched, so that a stop asked mid-part is seen at the next block.
    pub fn feed_until_stopped(&mut self, part: &TraceView, threads: usize, stop: Option<&AtomicU64>) {
        self.feed_counting(part, threads, stop, false);
    }

    /// Every run's service of a request in the ready mode is the same (the head follows the
    /// requests whatever the policy), so it is computed once per piece of the part and shared,
    /// instead of once per run; the runs then only walk their policies' gaps and queues.
    fn feed_counting(&mut self, part: &TraceView, threads: usize, progress: Option<&AtomicU64>, count: bool) {
        if let (Some(&first), Some(&last)) = (part.arrival_s.first(), part.arrival_s.last()) {
            self.arrivals_s = Some((self.arrivals_s.map_or(first, |(f, _)| f), last));
        }
        if !self.device.shares_ready_service() {
            self.feed_blocks(part, threads, progress, count);
            return;
        }
        let mut services = std::mem::take(&mut self.services);
        let mut from = 0;
        while from < part.len() {
            let to = (from + SHARED_SERVICE_REQUESTS).min(part.len());
            let piece = part.slice(from, to);
            shared_services(&self.device, &piece, &mut self.head_bytes, &mut services, threads);
            self.feed_blocks(&piece.with_ready_service(&services), threads, progress, count);
            if crate::progress::stopped(progress) {
                break; // each run has stopped at its next block
            }
            from = to;
        }
        self.services = services;
    }

    fn feed_blocks(&mut self, part: &TraceView, threads: usize, progress: Option<&AtomicU64>, count: bool) {
        // A small part (one volume's share of a chunk of a many-volume trace) costs less than
        // starting a thread: it is replayed here.
        const WORTH_A_THREAD: usize = 1 << 16;
        // A family is first judged after its first requests: they are fed apart, so that a
        // family that then disbands hands the rest of the part to every thread.
        let until_judged = self.family.as_ref().map_or(0, Family::requests_until_judged);
        if until_judged > 0 && until_judged < part.len() {
            self.feed_blocks(&part.slice(0, until_judged), threads, progress, count);
            if !crate::progress::stopped(progress) {
                self.feed_blocks(&part.slice(until_judged, part.len()), threads, progress, count);
            }
            return;
        }
        // Runs whose family disbanded are spread over the threads as any others (always-on back
        // with the references).
        if let Some(family) = self.family.as_mut() {
            family.disband_if_costly();
            // Its members that left it are dealt over the threads with the other runs.
            let left = family.take_left();
            if !left.is_empty() {
                self.runs.extend(left);
                self.runs.sort_by_key(|(spec, _)| *spec);
            }
        }
        if self.family.as_ref().is_some_and(Family::disbanded) {
            self.take_back_family();
        }
        let family_runs = self.family.as_ref().map_or(0, Family::len);
        // Always-on (with the oracle's shadow) is fed on this thread, unless the family carries
        // it; an oracle replayed on its own (a MEMS sled's, drawn wake-ups') is a run like the
        // policies', on any thread.
        let (references, shadowed) = (self.references.is_some(), self.references.as_ref().is_some_and(References::shadowed));
        let always_on_replayed = self.references.as_ref().is_some_and(References::replays_always_on);
        let (mut always_on, oracle) = match self.references.as_mut() {
            Some(references) => {
                let (always_on, oracle) = references.split_mut();
                (Some(always_on).filter(|feed| !feed.is_empty()), oracle)
            }
            None => (None, None),
        };
        let mut runs: Vec<&mut Replay<'p>> = self.runs.iter_mut().map(|(_, run)| run).chain(oracle).collect();
        let always_on_runs = usize::from(always_on.is_some());
        let replays_a_request = (runs.len() + family_runs + always_on_runs) * replay_weight(&self.device);
        let units = runs.len() + usize::from(self.family.is_some()) + always_on_runs;
        let small = part.len() * replays_a_request < WORTH_A_THREAD;
        // Threads beyond one a unit of work help the runs that can use them: a MEMS sled's
        // replay speculates segments of its blocks on them (`Replay::feed_helped`).
        let helpers = if small || self.family.is_some() { 0 } else { threads.saturating_sub(units) / units.max(1) };
        let threads = if small { 1 } else { threads.min(units).max(1) };
        let mut shares: Vec<Vec<&mut Replay<'p>>> = (0..threads).map(|_| Vec::new()).collect();
        // The family (one unit of work) takes the last thread for itself; the runs on their own
        // go to the thread with the fewest replays so far, counting always-on on the first.
        let family_thread = threads - 1;
        let mut replays = vec![0usize; threads];
        replays[0] = always_on_runs;
        if threads > 1 && self.family.is_some() {
            replays[family_thread] = usize::MAX;
        }
        for run in runs.drain(..) {
            let t = (0..threads).min_by_key(|&t| (replays[t], t == 0)).expect("a thread");
            replays[t] = replays[t].saturating_add(1);
            shares[t].push(run);
        }
        let mut family_shares: Vec<Option<&mut Family<'p>>> = (0..threads).map(|_| None).collect();
        family_shares[family_thread] = self.family.as_mut();
        let response_from = self.opts.response_from;
        // Progress counts every row's replays: always-on (a member of the family that carries
        // it), the oracle where it is a shadow, and the rows that take the oracle's result;
        // counted on the first thread.
        let reference_replays = if references { u64::from(always_on_replayed) + u64::from(shadowed) + self.oracle_rows.len() as u64 } else { 0 };
        let feed_share = |share: &mut Vec<&mut Replay<'p>>, mut always_on: Option<&mut AlwaysOnFeed<'_, 'p>>, mut family: Option<&mut Family<'p>>, references: u64| {
            let per_block = share.len() as u64 + references + family.as_ref().map_or(0, |f| f.len() as u64);
            for block in blocks(part) {
                if let Some(r) = always_on.as_deref_mut() {
                    r.feed(&block);
                }
                if let Some(f) = family.as_deref_mut() {
                    f.feed(&block, response_from);
                }
                for run in share.iter_mut() {
                    run.feed_helped(&block, helpers);
                }
                let go = if count { crate::progress::advance(progress, per_block * block.len() as u64) } else { !crate::progress::stopped(progress) };
                if !go {
                    break; // partial, and discarded by the one who asked
                }
            }
        };
        std::thread::scope(|scope| {
            let mut own = shares.remove(0);
            let own_family = family_shares.remove(0);
            for (mut share, family) in shares.into_iter().zip(family_shares) {
                scope.spawn(move || feed_share(&mut share, None, family, 0));
            }
            feed_share(&mut own, always_on.as_mut(), own_family, reference_replays);
        });
    }

    /// The family's runs back among those replayed on their own, and always-on back with the
    /// references if it carried it.
    fn take_back_family(&mut self) {
        let Some(family) = self.family.take() else { return };
        let (runs, always_on) = family.finish();
        self.runs.extend(runs);
        self.runs.sort_by_key(|(spec, _)| *spec);
        if let Some(always_on) = always_on {
            self.references.as_mut().expect("the family carried the references' always-on").give_back(always_on);
        }
    }

    /// Each policy run's per-request records kept since the last call, in spec order.
    pub fn take_per_request(&mut self) -> Vec<Option<crate::metrics::PerRequest>> {
        // A family's runs keep none (it is not formed when they are asked for).
        let mut out: Vec<Option<crate::metrics::PerRequest>> = (0..self.specs).map(|_| None).collect();
        for (i, run) in self.runs.iter_mut() {
            out[*i] = run.take_per_request();
        }
        out
    }

    /// The reports in the order the specs were given. `whole`, the trace when it is in memory,
    /// lets the oracle be replayed on its own should its shadow have been late (it cannot be,
    /// by construction); without it that is an error.
    pub fn finish(mut self, device: &Device, whole: Option<&TraceView>) -> Result<Vec<Report>> {
        self.take_back_family();
        // A recording's rest after the last request is known only now.
        if let (Some(_), Some((_, last))) = (self.opts.recording_end_s, self.arrivals_s) {
            let tail_s = self.opts.tail_after(last);
            self.opts.tail_s = tail_s;
            self.runs.iter_mut().for_each(|(_, run)| run.set_tail_s(tail_s));
            if let Some(references) = self.references.as_mut() {
                references.set_tail_s(tail_s);
            }
        }
        let mut results: Vec<(usize, RunResult)> = std::mem::take(&mut self.runs).into_iter().map(|(spec, run)| (spec, run.finish())).collect();
        let references = match self.references {
            None => None,
            Some(references) => {
                let (always_on, oracle) = references.finish();
                let oracle = match (oracle, whole) {
                    (Some(oracle), _) => oracle,
                    (None, Some(trace)) => {
                        let mut policy = PolicySpec::parse("oracle")?.build(device, &BuildContext { base_power_w: self.opts.base_power_w })?;
                        replay_validated(trace, device, policy.as_mut(), &ReplayOptions { keep_per_request: false, theoretical_minimum: false, ..self.opts }, None)
                    }
                    (None, None) => {
                        return Err(Error::Option { option: "oracle".into(), message: "the oracle's shadow would have delayed a request; replay this trace in memory".into() })
                    }
                };
                results.extend(self.oracle_rows.iter().map(|&spec| (spec, oracle.clone())));
                Some(ReferenceResults { always_on, oracle })
            }
        };
        results.sort_by_key(|(spec, _)| *spec);
        let span_s = self.arrivals_s.map(|(first, last)| last - first).filter(|&span| span > 0.0);
        let mut reports = Vec::with_capacity(results.len());
        for (_, run) in results {
            let report = match &references {
                Some(references) => report(run, device, references),
                None => report_alone(run, device),
            }?;
            reports.push(Report { offered_load: span_s.map(|span| report.run.service_time_s / span), ..report });
        }
        // Made at its size: a trace of a million devices holds a million of these at once.
        Ok(reports)
    }
}

/// One policy's run next to the references.
pub fn report(mut run: RunResult, device: &Device, references: &ReferenceResults) -> Result<Report> {
    let ReferenceResults { always_on, oracle } = references;
    run.theoretical_min = always_on.theoretical_min;
    let alone = report_alone(run, device)?;
    let run = &alone.run;
    Ok(Report {
        normalized_energy: Some(ratio(run.energy_j, always_on.energy_j)),
        normalized_system_energy: Some(ratio(run.system_energy_j, always_on.system_energy_j)),
        normalized_mean_response: Some(ratio(run.mean_response_s, always_on.mean_response_s)),
        energy_vs_oracle: Some(ratio(run.energy_j, oracle.energy_j)),
        ..alone
    })
}

/// One policy's run without references: no normalisations.
fn report_alone(run: RunResult, device: &Device) -> Result<Report> {
    // Device files and traces are range-checked so this should not happen; if it does, say so
    // rather than print null energies, without guessing which of the two is at fault.
    if !(run.energy_j.is_finite() && run.system_energy_j.is_finite() && run.makespan_s.is_finite() && run.mean_response_s.is_finite()) {
        return Err(Error::Option {
            option: "run".into(),
            message: format!(
                "'{}' on device '{}' gives non-finite results (energy {} J, makespan {} s): a value out of any physical range in the trace (a size, a time) or in the device's file",
                run.policy, device.name, run.energy_j, run.makespan_s
            ),
        });
    }
    Ok(Report {
        normalized_energy: None,
        normalized_system_energy: None,
        normalized_mean_response: None,
        energy_vs_oracle: None,
        wakeups_per_day: run.wakeups_per_day(),
        cycle_wakeups_per_day: run.cycle_wakeups_per_day(),
        load_unload_wakeups_per_day: run.load_unload_wakeups_per_day(),
        years_to_rated_cycles: run.years_to_rated_cycles(),
        offered_load: None,
        run,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A piece's services computed in parts on several threads are those of one pass, bit for
    /// bit, and leave the head where one pass does: 200,000 requests anywhere on the 5K320 (its
    /// seek curve makes every service depend on the request before).
    #[test]
    fn services_computed_in_parts_equal_one_pass() {
        let path = format!("{}/../../python/idlewise/catalog/hitachi-travelstar-5k320.toml", env!("CARGO_MANIFEST_DIR"));
        let device = Device::from_toml(&std::fs::read_to_string(&path).unwrap(), &path).unwrap();
        let n = 200_001;
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let (mut times, mut offsets, mut sizes, mut ops) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            times.push(i as f64 * 0.01);
            // A run of sequential requests now and then (no seek), else anywhere.
            offsets.push(if state % 4 == 0 && i > 0 { offsets[i - 1] + sizes[i - 1] } else { ((state >> 20) % (1 << 27)) as i64 * 512 });
            sizes.push(512 * (1 + (state >> 50) as i64 % 256));
            ops.push((state >> 63) as u8);
        }
        let trace = TraceView::new(&times, &offsets, &sizes, &ops).unwrap();
        let (mut one_head, mut one) = (12_345.0, Vec::new());
        device.ready_services(&trace, &mut one_head, &mut one);
        for threads in [2, 3, 7] {
            let (mut head, mut parts) = (12_345.0, Vec::new());
            shared_services(&device, &trace, &mut head, &mut parts, threads);
            assert!(parts.len() == one.len() && parts.iter().zip(&one).all(|(a, b)| a.0.to_bits() == b.0.to_bits() && a.1.to_bits() == b.1.to_bits()), "{threads} threads");
            assert_eq!(head.to_bits(), one_head.to_bits());
        }
    }
}
