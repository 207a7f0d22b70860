//! Runs a set of policies on one (trace, device) pair next to the two references every report
//! needs — always-on (no power management) and the oracle (offline optimum, no added delay) —
//! and expresses each result relative to them.
//!
//! Every run of a call replays the same cache-sized block of the trace before any moves to the
//! next, so the trace is read from memory once per call rather than once per run; the runs are
//! shared among threads, each taking whole runs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::device::Device;
use crate::error::{Error, Result};
use crate::metrics::RunResult;
use crate::policy::{BuildContext, PolicySpec};
use crate::replay::{blocks, check_fits, check_options, replay_validated, References, Replay, ReplayOptions};
use crate::trace::TraceView;

/// One policy's result with its normalisations.
#[derive(Debug, Clone)]
pub struct Report {
    pub run: RunResult,
    /// Device energy / always-on device energy.
    pub normalized_energy: f64,
    /// System energy / always-on system energy.
    pub normalized_system_energy: f64,
    /// Mean response time / always-on mean response time.
    pub normalized_mean_response: f64,
    /// Device energy / oracle device energy (the empirical competitive ratio).
    pub energy_vs_oracle: f64,
    pub wakeups_per_day: f64,
    pub cycle_wakeups_per_day: f64,
    pub years_to_rated_cycles: Option<f64>,
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
    let ctx = BuildContext { base_power_w: opts.base_power_w };
    let shared = Arc::new(device.clone());
    let first_arrival_s = trace.arrival_s[0];
    let mut runs = Vec::with_capacity(specs.len());
    for spec in specs {
        runs.push(Replay::new(Arc::clone(&shared), spec.build(device, &ctx)?, opts, first_arrival_s, trace.len()));
    }
    let references = References::new(&shared, opts, first_arrival_s)?;

    // Thread 0 takes the references; the policies are dealt out round the threads.
    let threads = threads.clamp(1, specs.len() + 1);
    let mut shares: Vec<Vec<(usize, Replay)>> = (0..threads).map(|_| Vec::new()).collect();
    for (i, run) in runs.into_iter().enumerate() {
        shares[(i + 1) % threads].push((i, run));
    }
    let feed_all = |share: &mut Vec<(usize, Replay)>, mut references: Option<&mut References>| {
        let per_block = share.len() as u64 + if references.is_some() { 2 } else { 0 };
        for block in blocks(&trace) {
            if let Some(r) = references.as_deref_mut() {
                r.feed(&block);
            }
            for (_, run) in share.iter_mut() {
                run.feed(&block);
            }
            if let Some(counter) = progress {
                counter.fetch_add(per_block * block.len() as u64, Ordering::Relaxed);
            }
        }
    };
    let mut references = Some(references);
    let mut finished: Vec<(usize, RunResult)> = Vec::with_capacity(specs.len());
    std::thread::scope(|scope| {
        let mut own = shares.remove(0);
        let handles: Vec<_> = shares
            .into_iter()
            .map(|mut share| {
                scope.spawn(move || {
                    feed_all(&mut share, None);
                    share.into_iter().map(|(i, run)| (i, run.finish())).collect::<Vec<_>>()
                })
            })
            .collect();
        feed_all(&mut own, references.as_mut());
        finished.extend(own.into_iter().map(|(i, run)| (i, run.finish())));
        for handle in handles {
            finished.extend(handle.join().expect("a replay thread does not panic"));
        }
    });
    let (always_on, oracle) = references.take().expect("references kept").finish();
    let oracle = match oracle {
        Some(oracle) => oracle,
        None => {
            let mut policy = PolicySpec::parse("oracle")?.build(device, &ctx)?;
            replay_validated(&trace, device, policy.as_mut(), &ReplayOptions { keep_per_request: false, theoretical_minimum: false, ..opts.clone() }, None)
        }
    };
    finished.sort_by_key(|(i, _)| *i);
    let references = ReferenceResults { always_on, oracle };
    finished.into_iter().map(|(_, run)| report(run, device, &references)).collect()
}

/// One policy's run next to the references.
pub fn report(mut run: RunResult, device: &Device, references: &ReferenceResults) -> Result<Report> {
    let ReferenceResults { always_on, oracle } = references;
    run.theoretical_min = always_on.theoretical_min;
    // Device files are range-checked so this cannot happen; if it ever does, say so rather
    // than print null energies.
    if !(run.energy_j.is_finite() && run.system_energy_j.is_finite() && run.makespan_s.is_finite() && run.mean_response_s.is_finite()) {
        return Err(Error::Option {
            option: "device".into(),
            message: format!("device '{}' under '{}' gives non-finite results (energy {} J, makespan {} s); check its values", device.name, run.policy, run.energy_j, run.makespan_s),
        });
    }
    Ok(Report {
        normalized_energy: ratio(run.energy_j, always_on.energy_j),
        normalized_system_energy: ratio(run.system_energy_j, always_on.system_energy_j),
        normalized_mean_response: ratio(run.mean_response_s, always_on.mean_response_s),
        energy_vs_oracle: ratio(run.energy_j, oracle.energy_j),
        wakeups_per_day: run.wakeups_per_day(),
        cycle_wakeups_per_day: run.cycle_wakeups_per_day(),
        years_to_rated_cycles: run.years_to_rated_cycles(),
        run,
    })
}
