//! Between the engine's values and Python's: errors as exceptions, a run's account as a dict,
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

/// A run's per-request records as NumPy arrays: (`arrival_s`, `start_s`, `response_s`,
/// `at_arrival` as codes into [`activity_labels`]).
pub(crate) fn per_request_arrays(py: Python<'_>, records: idlewise_core::metrics::PerRequest, device: &CoreDevice) -> [PyObject; 4] {
    let codes: Vec<u32> = records.at_arrival.iter().map(|&a| activity_code(device, a)).collect();
    [
        PyArray1::from_vec_bound(py, records.arrival_s).into_any().unbind(),
        PyArray1::from_vec_bound(py, records.start_s).into_any().unbind(),
        PyArray1::from_vec_bound(py, records.response_s).into_any().unbind(),
        PyArray1::from_vec_bound(py, codes).into_any().unbind(),
    ]
}

pub(crate) fn activity_labels(device: &CoreDevice) -> Vec<String> {
    let all = (0..device.modes.len()).map(Activity::Mode).chain((0..device.transitions.len()).map(Activity::Transition));
    all.chain(std::iter::once(Activity::Serving)).map(|a| a.label(device)).collect()
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
    for (key, figure) in FIGURES_BEFORE_MODES {
        d.set_item(key, figure_value(py, figure, r))?;
    }
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
    for (key, figure) in FIGURES_AFTER_MODES {
        d.set_item(key, figure_value(py, figure, r))?;
    }
    if let (Some(energy_j), Some(response_s)) = (r.theoretical_min_energy_j(), r.theoretical_min_response_s()) {
        d.set_item("theoretical_min_energy_j", energy_j)?;
        d.set_item("theoretical_min_response_s", response_s)?;
    }
    Ok(d)
}
