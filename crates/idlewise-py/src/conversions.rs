//! Between the engine's values and Python's: errors as exceptions, a run's result as a dict,
//! activities as codes, trace columns as views, and the progress counter a replay updates.

use super::*;

pub(crate) fn to_py_err(e: Error) -> PyErr {
    match &e {
        Error::TraceRecord { index, field, message } => TraceRecordError::new_err((message.clone(), *index, field.to_string())),
        _ => IdlewiseError::new_err(e.to_string()),
    }
}

/// A counter of replayed requests that another Python thread can read while a run is going.
#[pyclass(module = "idlewise._core", frozen)]
pub(crate) struct Progress {
    pub(crate) done: Arc<AtomicU64>,
}

#[pymethods]
impl Progress {
    #[new]
    fn new() -> Self {
        Progress { done: Arc::new(AtomicU64::new(0)) }
    }
    #[getter]
    fn done(&self) -> u64 {
        self.done.load(Ordering::Relaxed) & !idlewise_core::progress::STOP
    }
    /// Asks the run counting on this to stop at its next block (what it returns is then partial).
    fn stop(&self) {
        self.done.fetch_or(idlewise_core::progress::STOP, Ordering::Relaxed);
    }
    #[getter]
    fn stopped(&self) -> bool {
        idlewise_core::progress::stopped(Some(&self.done))
    }
}

/// Borrows numpy columns as an engine trace view (no copy).
pub(crate) fn trace_view<'a>(
    time_s: &'a PyReadonlyArray1<'_, f64>,
    offset_bytes: &'a PyReadonlyArray1<'_, i64>,
    size_bytes: &'a PyReadonlyArray1<'_, i64>,
    is_write: &'a PyReadonlyArray1<'_, u8>,
) -> PyResult<TraceView<'a>> {
    TraceView::new(time_s.as_slice()?, offset_bytes.as_slice()?, size_bytes.as_slice()?, is_write.as_slice()?).map_err(to_py_err)
}

/// A mode's index by its name, or an error naming the device's modes.
pub(crate) fn mode_index(device: &CoreDevice, name: &str) -> PyResult<usize> {
    device.modes.iter().position(|m| m.name == name).ok_or_else(|| {
        PyValueError::new_err(format!("device '{}' has no mode '{name}'; its modes: {}", device.name, device.modes.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")))
    })
}

/// A duration as a person reads it in a log: "10 s", "1.5 ms", "2 min 5 s".
pub(crate) fn seconds_text(s: f64) -> String {
    if s >= 60.0 {
        let whole = s.round() as u64;
        format!("{} min {} s", whole / 60, whole % 60)
    } else if s >= 1.0 {
        format!("{} s", format!("{s:.3}").trim_end_matches('0').trim_end_matches('.'))
    } else {
        format!("{} ms", format!("{:.3}", s * 1e3).trim_end_matches('0').trim_end_matches('.'))
    }
}

/// What a device does, as a code for per-request records and timelines: its modes, then its
/// transitions, then serving; `activity_labels` names them in that order.
pub(crate) fn activity_code(device: &CoreDevice, activity: Activity) -> u32 {
    (match activity {
        Activity::Mode(m) => m,
        Activity::Transition(i) => device.modes.len() + i,
        Activity::Serving => device.modes.len() + device.transitions.len(),
    }) as u32
}

pub(crate) fn activity_labels(device: &CoreDevice) -> Vec<String> {
    let all = (0..device.modes.len()).map(Activity::Mode).chain((0..device.transitions.len()).map(Activity::Transition));
    all.chain(std::iter::once(Activity::Serving)).map(|a| a.label(device)).collect()
}

/// One dict per report: the run's fields and its normalisations; with per-request records,
/// `arrival_s`, `start_s`, `response_s` and `at_arrival` (codes into `activity_labels`); with a timeline,
/// `timeline` = (start_s, end_s, codes).
pub(crate) fn reports_list<'py>(py: Python<'py>, reports: Vec<idlewise_core::Report>, device: &CoreDevice) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty_bound(py);
    for mut report in reports {
        let d = run_result_dict(py, &report.run)?;
        d.set_item("normalized_energy", report.normalized_energy)?;
        d.set_item("normalized_system_energy", report.normalized_system_energy)?;
        d.set_item("normalized_mean_response", report.normalized_mean_response)?;
        d.set_item("energy_vs_oracle", report.energy_vs_oracle)?;
        d.set_item("wakeups_per_day", report.wakeups_per_day)?;
        d.set_item("cycle_wakeups_per_day", report.cycle_wakeups_per_day)?;
        d.set_item("load_unload_wakeups_per_day", report.load_unload_wakeups_per_day)?;
        d.set_item("years_to_rated_cycles", report.years_to_rated_cycles)?;
        d.set_item("offered_load", report.offered_load)?;
        if let Some(all) = report.run.per_request.take() {
            d.set_item("response_s", PyArray1::from_vec_bound(py, all.response_s))?;
            d.set_item("arrival_s", PyArray1::from_vec_bound(py, all.arrival_s))?;
            d.set_item("start_s", PyArray1::from_vec_bound(py, all.start_s))?;
            let codes: Vec<u32> = all.at_arrival.iter().map(|&a| activity_code(device, a)).collect();
            d.set_item("at_arrival", PyArray1::from_vec_bound(py, codes))?;
        }
        if let Some(timeline) = report.run.timeline.take() {
            let starts: Vec<f64> = timeline.segments.iter().map(|s| s.0).collect();
            let ends: Vec<f64> = timeline.segments.iter().map(|s| s.1).collect();
            let codes: Vec<u32> = timeline.segments.iter().map(|s| activity_code(device, s.2)).collect();
            d.set_item("timeline", (PyArray1::from_vec_bound(py, starts), PyArray1::from_vec_bound(py, ends), PyArray1::from_vec_bound(py, codes)))?;
        }
        if d.contains("response_s")? || d.contains("timeline")? {
            d.set_item("activity_labels", activity_labels(device))?;
        }
        out.append(d)?;
    }
    Ok(out)
}

pub(crate) fn trace_with_original<'a>(trace: TraceView<'a>, original_time_s: Option<&'a PyReadonlyArray1<'_, f64>>) -> PyResult<TraceView<'a>> {
    match original_time_s {
        Some(original) => trace.with_original_s(original.as_slice()?).map_err(to_py_err),
        None => Ok(trace),
    }
}

/// One run's account as a dict (the keys of `simulate --json` that do not need references).
pub(crate) fn run_result_dict<'py>(py: Python<'py>, r: &idlewise_core::metrics::RunResult) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    d.set_item("policy", &r.policy)?;
    d.set_item("device", &r.device)?;
    d.set_item("requests", r.requests)?;
    d.set_item("first_arrival_s", r.first_arrival_s)?;
    d.set_item("makespan_s", r.makespan_s)?;
    // First issue to last completion: in closed-loop replay, how long the program ran.
    d.set_item("execution_time_s", r.makespan_s)?;
    d.set_item("energy_j", r.energy_j)?;
    d.set_item("system_energy_j", r.system_energy_j)?;
    d.set_item("base_power_w", r.base_power_w)?;
    let by_mode_e = PyDict::new_bound(py);
    let by_mode_t = PyDict::new_bound(py);
    for (i, name) in r.mode_names.iter().enumerate() {
        by_mode_e.set_item(name, r.energy_by_mode_j[i])?;
        by_mode_t.set_item(name, r.time_by_mode_s[i])?;
    }
    d.set_item("energy_by_mode_j", by_mode_e)?;
    d.set_item("time_by_mode_s", by_mode_t)?;
    let transitions = PyDict::new_bound(py);
    for (from, to, count) in &r.transition_counts {
        transitions.set_item(format!("{from}->{to}"), *count)?;
    }
    d.set_item("transitions", transitions)?;
    d.set_item("transition_time_s", r.transition_time_s)?;
    d.set_item("transition_energy_j", r.transition_energy_j)?;
    d.set_item("service_time_s", r.service_time_s)?;
    d.set_item("service_energy_j", r.service_energy_j)?;
    d.set_item("wakeups", r.wakeups)?;
    d.set_item("cycle_wakeups", r.cycle_wakeups)?;
    d.set_item("load_unload_wakeups", r.load_unload_wakeups)?;
    d.set_item("mean_response_s", r.mean_response_s)?;
    d.set_item("p50_response_s", r.p50_response_s)?;
    d.set_item("p95_response_s", r.p95_response_s)?;
    d.set_item("p99_response_s", r.p99_response_s)?;
    d.set_item("max_response_s", r.max_response_s)?;
    d.set_item("delayed_requests", r.delayed_requests)?;
    d.set_item("rated_start_stop_cycles", r.rated_cycles)?;
    d.set_item("rated_load_unload_cycles", r.rated_load_unload_cycles)?;
    if let (Some(energy_j), Some(response_s)) = (r.theoretical_min_energy_j(), r.theoretical_min_response_s()) {
        d.set_item("theoretical_min_energy_j", energy_j)?;
        d.set_item("theoretical_min_response_s", response_s)?;
    }
    Ok(d)
}
