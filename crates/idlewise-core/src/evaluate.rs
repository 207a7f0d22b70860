//! Runs a set of policies on one (trace, device) pair next to the two references every report
//! needs — always-on (no power management) and the oracle (offline optimum, no added delay) —
//! and expresses each result relative to them.

use std::sync::atomic::AtomicU64;

use crate::device::Device;
use crate::error::Result;
use crate::metrics::RunResult;
use crate::policy::{BuildContext, PolicySpec};
use crate::replay::{check_fits, check_options, replay_validated, ReplayOptions};
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
    trace.validate()?;
    check_options(device, opts)?;
    check_fits(trace, device, opts)?;
    let ctx = BuildContext { base_power_w: opts.base_power_w };
    let mut policies = Vec::with_capacity(specs.len());
    for spec in specs {
        policies.push(spec.build(device, &ctx)?);
    }
    let reference = |name: &str, theoretical_minimum: bool| -> Result<RunResult> {
        let mut p = PolicySpec::parse(name)?.build(device, &ctx)?;
        Ok(replay_validated(trace, device, p.as_mut(), &ReplayOptions { keep_per_request: false, theoretical_minimum, ..opts.clone() }, progress))
    };
    // The theoretical minima depend on the trace and the device only: computed once.
    let always_on = reference("always-on", device.service.mems.is_some())?;
    let oracle = reference("oracle", false)?;
    let mut reports = Vec::with_capacity(policies.len());
    for mut policy in policies {
        let mut run = replay_validated(trace, device, policy.as_mut(), opts, progress);
        run.theoretical_min = always_on.theoretical_min;
        // Device files are range-checked so this cannot happen; if it ever does, say so rather
        // than print null energies.
        if !(run.energy_j.is_finite() && run.system_energy_j.is_finite() && run.makespan_s.is_finite() && run.mean_response_s.is_finite()) {
            return Err(crate::error::Error::Option {
                option: "device".into(),
                message: format!("device '{}' under '{}' gives non-finite results (energy {} J, makespan {} s); check its values", device.name, run.policy, run.energy_j, run.makespan_s),
            });
        }
        reports.push(Report {
            normalized_energy: ratio(run.energy_j, always_on.energy_j),
            normalized_system_energy: ratio(run.system_energy_j, always_on.system_energy_j),
            normalized_mean_response: ratio(run.mean_response_s, always_on.mean_response_s),
            energy_vs_oracle: ratio(run.energy_j, oracle.energy_j),
            wakeups_per_day: run.wakeups_per_day(),
            cycle_wakeups_per_day: run.cycle_wakeups_per_day(),
            years_to_rated_cycles: run.years_to_rated_cycles(),
            run,
        });
    }
    Ok(reports)
}
