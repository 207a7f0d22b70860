//! A run set as columns: what the engine reports for each run, one buffer of numbers (or a list)
//! per field, so that Python holds a sweep of 100,000 runs as a few dozen arrays, not 100,000
//! dicts. Numbers cross as bytes in native order (`memoryview(b).cast("d")`, `numpy.frombuffer`),
//! not NumPy arrays: a text trace's replay starts without loading NumPy (a tenth of a second).
//! `idlewise.runcolumns.RunColumns.from_engine` reads this layout; `run_result_dict` in
//! `conversions.rs` gives one run's account (a hybrid disk's, a live manager's) as a dict, from
//! the same list of figures.

use super::*;
use idlewise_core::metrics::RunResult;
use pyo3::types::PyBytes;

/// How Python reads a column (`idlewise.runcolumns`): every run has it (`F`, `I`; `S`, labels
/// coded as `coded` makes them), a null
/// where the engine has none (`F?`), absent from the rows where the engine has none (`F-`,
/// `O-`), or a per-name map (`MF`: floats; `MI`: counts, −1 where the run has no such entry).
/// Kept equal to the reader's letters, which a test checks on every kind of run.
const FLOATS: &str = "F";
const COUNTS: &str = "I";
const TEXT: &str = "S";
const FLOATS_OR_NULL: &str = "F?";
const FLOATS_WHERE_KNOWN: &str = "F-";
const OBJECTS_WHERE_KEPT: &str = "O-";
const MAP_FLOATS: &str = "MF";
const MAP_COUNTS: &str = "MI";

/// A run's figure that is one number, read off its account.
pub(crate) enum Figure {
    Float(fn(&RunResult) -> f64),
    Count(fn(&RunResult) -> u64),
    Maybe(fn(&RunResult) -> Option<f64>),
}

/// A run's one-number figures before its per-mode maps, and after them, in a run's dict's
/// order: the one list `run_result_dict` (one run) and `reports_columns` (a run set) both read.
pub(crate) const FIGURES_BEFORE_MODES: &[(&str, Figure)] = &[
    ("requests", Figure::Count(|r| r.requests)),
    ("first_arrival_s", Figure::Float(|r| r.first_arrival_s)),
    ("makespan_s", Figure::Float(|r| r.makespan_s)),
    // First issue to last completion: in closed-loop replay, how long the program ran.
    ("execution_time_s", Figure::Float(|r| r.makespan_s)),
    ("energy_j", Figure::Float(|r| r.energy_j)),
    ("system_energy_j", Figure::Float(|r| r.system_energy_j)),
    ("base_power_w", Figure::Float(|r| r.base_power_w)),
];
pub(crate) const FIGURES_AFTER_MODES: &[(&str, Figure)] = &[
    ("transition_time_s", Figure::Float(|r| r.transition_time_s)),
    ("transition_energy_j", Figure::Float(|r| r.transition_energy_j)),
    ("service_time_s", Figure::Float(|r| r.service_time_s)),
    ("service_energy_j", Figure::Float(|r| r.service_energy_j)),
    ("wakeups", Figure::Count(|r| r.wakeups)),
    ("cycle_wakeups", Figure::Count(|r| r.cycle_wakeups)),
    ("load_unload_wakeups", Figure::Count(|r| r.load_unload_wakeups)),
    ("mean_response_s", Figure::Float(|r| r.mean_response_s)),
    ("p50_response_s", Figure::Float(|r| r.p50_response_s)),
    ("p95_response_s", Figure::Float(|r| r.p95_response_s)),
    ("p99_response_s", Figure::Float(|r| r.p99_response_s)),
    ("max_response_s", Figure::Float(|r| r.max_response_s)),
    ("delayed_requests", Figure::Count(|r| r.delayed_requests)),
    ("rated_start_stop_cycles", Figure::Maybe(|r| r.rated_cycles)),
    ("rated_load_unload_cycles", Figure::Maybe(|r| r.rated_load_unload_cycles)),
];

impl Figure {
    /// The figure of one run, as a Python value (None where it has none).
    pub(crate) fn value(&self, py: Python<'_>, r: &RunResult) -> PyObject {
        match self {
            Figure::Float(get) => get(r).into_py(py),
            Figure::Count(get) => get(r).into_py(py),
            Figure::Maybe(get) => get(r).into_py(py),
        }
    }

    /// The figure of every run, as a column `(kind, payload)`.
    fn column<'r>(&self, py: Python<'_>, runs: impl Iterator<Item = &'r idlewise_core::Report>) -> (&'static str, PyObject) {
        match self {
            Figure::Float(get) => (FLOATS, float_bytes(py, runs.map(|r| get(&r.run)))),
            Figure::Count(get) => (COUNTS, count_bytes(py, runs.map(|r| get(&r.run)))),
            Figure::Maybe(get) => (FLOATS_OR_NULL, masked(py, runs.map(|r| get(&r.run)))),
        }
    }
}

/// The runs of several sets, walked as one.
#[derive(Clone, Copy)]
struct Runs<'s>(&'s [Vec<idlewise_core::Report>]);

impl<'s> Runs<'s> {
    fn iter(self) -> impl Iterator<Item = &'s idlewise_core::Report> {
        self.0.iter().flatten()
    }
}

/// Labels as (the distinct ones, in order of first use; each run's as an index into them,
/// 32-bit, `memoryview.cast("I")`): a million runs' labels are a few strings, not a million.
fn coded<'a>(py: Python<'_>, labels: impl Iterator<Item = &'a str>) -> PyObject {
    let mut distinct: Vec<&str> = Vec::new();
    let mut codes: Vec<u8> = Vec::new();
    for label in labels {
        let code = match distinct.iter().rposition(|d| *d == label) {
            Some(code) => code,
            None => {
                distinct.push(label);
                distinct.len() - 1
            }
        };
        codes.extend_from_slice(&(code as u32).to_ne_bytes());
    }
    (distinct, PyBytes::new_bound(py, &codes)).into_py(py)
}

/// Floats as bytes in native order (Python's `memoryview.cast("d")`).
fn float_bytes(py: Python<'_>, values: impl Iterator<Item = f64>) -> PyObject {
    let bytes: Vec<u8> = values.flat_map(f64::to_ne_bytes).collect();
    PyBytes::new_bound(py, &bytes).into_any().unbind()
}

/// Counts as 64-bit signed integers' bytes in native order (`memoryview.cast("q")`).
fn count_bytes(py: Python<'_>, values: impl Iterator<Item = u64>) -> PyObject {
    let bytes: Vec<u8> = values.flat_map(|v| (v as i64).to_ne_bytes()).collect();
    PyBytes::new_bound(py, &bytes).into_any().unbind()
}

/// Numbers with None among them as (values, missing): NaN where missing, a byte a run (1:
/// missing; `memoryview.cast("?")`).
fn masked(py: Python<'_>, values: impl Iterator<Item = Option<f64>>) -> PyObject {
    let (values, missing): (Vec<f64>, Vec<u8>) = values.map(|v| (v.unwrap_or(f64::NAN), u8::from(v.is_none()))).unzip();
    (float_bytes(py, values.into_iter()), PyBytes::new_bound(py, &missing)).into_py(py)
}

/// The runs as `[(key, kind, payload)]`, in the order of a run's dict (`run_result_dict`, then
/// the figures against the references).
/// `sets`: the runs in sets (a streamed file's volumes), read as one set in order, not gathered
/// into one vector first (a million devices' reports held twice).
pub(crate) fn reports_columns<'py>(py: Python<'py>, mut sets: Vec<Vec<idlewise_core::Report>>, device: &CoreDevice) -> PyResult<Bound<'py, PyList>> {
    let n: usize = sets.iter().map(Vec::len).sum();
    let reports = Runs(&sets);
    let out = PyList::empty_bound(py);
    let push = |key: &str, kind: &str, payload: PyObject| out.append((key, kind, payload));
    let floats = |get: &dyn Fn(&idlewise_core::Report) -> f64| float_bytes(py, reports.iter().map(get));
    let maybe = |get: &dyn Fn(&idlewise_core::Report) -> Option<f64>| masked(py, reports.iter().map(get));
    let figures = |list: &[(&str, Figure)]| -> PyResult<()> {
        for (key, figure) in list {
            let (kind, payload) = figure.column(py, reports.iter());
            push(key, kind, payload)?;
        }
        Ok(())
    };
    push("policy", TEXT, coded(py, reports.iter().map(|r| r.run.policy.as_str())))?;
    push("device", TEXT, coded(py, reports.iter().map(|r| r.run.device.as_str())))?;
    figures(FIGURES_BEFORE_MODES)?;
    // A run set is one device's: its modes name every run's columns.
    let modes = reports.iter().next().map(|r| r.run.mode_names.clone()).unwrap_or_default();
    if reports.iter().any(|r| r.run.mode_names != modes) {
        return Err(IdlewiseError::new_err("the runs of one set name different modes"));
    }
    // A map is (names, a matrix of runs × names as bytes, row by row).
    let by_mode = |get: &dyn Fn(&idlewise_core::Report) -> &[f64]| (modes.clone(), float_bytes(py, reports.iter().flat_map(|r| get(r).iter().copied()))).into_py(py);
    push("energy_by_mode_j", MAP_FLOATS, by_mode(&|r| &r.run.energy_by_mode_j))?;
    push("time_by_mode_s", MAP_FLOATS, by_mode(&|r| &r.run.time_by_mode_s))?;
    // Every transition of the device, in its order (each run lists those it took so), whether
    // any run took it or not: run sets of one device then name the same columns, and their
    // runs' maps keep that order when the sets are joined.
    let named = |t: &idlewise_core::device::Transition| (device.modes[t.from].name.clone(), device.modes[t.to].name.clone());
    let mut hops: Vec<(String, String)> = Vec::new();
    for hop in device.transitions.iter().map(named) {
        if !hops.contains(&hop) {
            hops.push(hop);
        }
    }
    if reports.iter().any(|r| r.run.transition_counts.iter().any(|(from, to, _)| !hops.iter().any(|(f, t)| f == from && t == to))) {
        return Err(IdlewiseError::new_err("a run took a transition its device does not have"));
    }
    let mut taken = vec![-1i64; n * hops.len()];
    for (i, r) in reports.iter().enumerate() {
        for (from, to, count) in &r.run.transition_counts {
            let h = hops.iter().position(|(f, t)| f == from && t == to).expect("listed above");
            taken[i * hops.len() + h] = *count as i64;
        }
    }
    let names: Vec<String> = hops.iter().map(|(from, to)| format!("{from}->{to}")).collect();
    let matrix: Vec<u8> = taken.into_iter().flat_map(i64::to_ne_bytes).collect();
    push("transitions", MAP_COUNTS, (names, PyBytes::new_bound(py, &matrix)).into_py(py))?;
    figures(FIGURES_AFTER_MODES)?;
    if reports.iter().any(|r| r.run.theoretical_min.is_some()) {
        push("theoretical_min_energy_j", FLOATS_WHERE_KNOWN, maybe(&|r| r.run.theoretical_min_energy_j()))?;
        push("theoretical_min_response_s", FLOATS_WHERE_KNOWN, maybe(&|r| r.run.theoretical_min_response_s()))?;
    }
    push("normalized_energy", FLOATS_OR_NULL, maybe(&|r| r.normalized_energy))?;
    push("normalized_system_energy", FLOATS_OR_NULL, maybe(&|r| r.normalized_system_energy))?;
    push("normalized_mean_response", FLOATS_OR_NULL, maybe(&|r| r.normalized_mean_response))?;
    push("energy_vs_oracle", FLOATS_OR_NULL, maybe(&|r| r.energy_vs_oracle))?;
    push("wakeups_per_day", FLOATS, floats(&|r| r.wakeups_per_day))?;
    push("cycle_wakeups_per_day", FLOATS, floats(&|r| r.cycle_wakeups_per_day))?;
    push("load_unload_wakeups_per_day", FLOATS, floats(&|r| r.load_unload_wakeups_per_day))?;
    push("years_to_rated_cycles", FLOATS_OR_NULL, maybe(&|r| r.years_to_rated_cycles))?;
    push("offered_load", FLOATS_OR_NULL, maybe(&|r| r.offered_load))?;
    // Per-request records and timelines, where kept: a run's arrays each, None where not.
    let kept: Vec<bool> = reports.iter().map(|r| r.run.per_request.is_some() || r.run.timeline.is_some()).collect();
    let (any_per_request, any_timeline) = (reports.iter().any(|r| r.run.per_request.is_some()), reports.iter().any(|r| r.run.timeline.is_some()));
    if any_per_request {
        let mut columns: [Vec<PyObject>; 4] = Default::default();
        for r in sets.iter_mut().flatten() {
            match r.run.per_request.take() {
                Some(all) => {
                    let codes: Vec<u32> = all.at_arrival.iter().map(|&a| activity_code(device, a)).collect();
                    columns[0].push(PyArray1::from_vec_bound(py, all.response_s).into_any().unbind());
                    columns[1].push(PyArray1::from_vec_bound(py, all.arrival_s).into_any().unbind());
                    columns[2].push(PyArray1::from_vec_bound(py, all.start_s).into_any().unbind());
                    columns[3].push(PyArray1::from_vec_bound(py, codes).into_any().unbind());
                }
                None => columns.iter_mut().for_each(|c| c.push(py.None())),
            }
        }
        for (key, column) in ["response_s", "arrival_s", "start_s", "at_arrival"].into_iter().zip(columns) {
            push(key, OBJECTS_WHERE_KEPT, column.into_py(py))?;
        }
    }
    if any_timeline {
        let mut column = Vec::with_capacity(n);
        for r in sets.iter_mut().flatten() {
            column.push(match r.run.timeline.take() {
                Some(timeline) => {
                    let starts: Vec<f64> = timeline.segments.iter().map(|s| s.0).collect();
                    let ends: Vec<f64> = timeline.segments.iter().map(|s| s.1).collect();
                    let codes: Vec<u32> = timeline.segments.iter().map(|s| activity_code(device, s.2)).collect();
                    (PyArray1::from_vec_bound(py, starts), PyArray1::from_vec_bound(py, ends), PyArray1::from_vec_bound(py, codes)).into_py(py)
                }
                None => py.None(),
            });
        }
        push("timeline", OBJECTS_WHERE_KEPT, column.into_py(py))?;
    }
    if kept.contains(&true) {
        let labels = activity_labels(device).into_py(py);
        let column: Vec<PyObject> = kept.iter().map(|&k| if k { labels.clone_ref(py) } else { py.None() }).collect();
        push("activity_labels", OBJECTS_WHERE_KEPT, column.into_py(py))?;
    }
    Ok(out)
}
