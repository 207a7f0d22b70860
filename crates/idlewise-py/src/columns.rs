//! A run set as columns: what the engine reports for each run, one buffer of numbers (or a list)
//! per field, so that Python holds a sweep of 100,000 runs as a few dozen arrays, not 100,000
//! dicts. Numbers cross as bytes in native order (`memoryview(b).cast("d")`, `numpy.frombuffer`),
//! not NumPy arrays: a text trace's replay starts without loading NumPy (a tenth of a second).
//! `idlewise.runcolumns.RunColumns.from_engine` reads this layout; `run_result_dict` in
//! `conversions.rs` gives one run's account (a hybrid disk's, a live manager's) as a dict, from
//! the same list of figures.

use super::*;
use idlewise_core::metrics::RunResult;
pub(crate) use idlewise_core::run_table::{Figure, FIGURES_AFTER_MODES, FIGURES_BEFORE_MODES};
use idlewise_core::run_table::{Labels, RunTable, Values, FIGURES_AGAINST_REFERENCES, THEORETICAL_MINIMA};
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

/// A run's figure as a Python value (None where it has none): one run's account as a dict
/// (`run_result_dict`) reads the engine's lists of figures (`idlewise_core::run_table`).
pub(crate) fn figure_value(py: Python<'_>, figure: &Figure, r: &RunResult) -> PyObject {
    match figure {
        Figure::Float(get) => get(r).into_py(py),
        Figure::Count(get) => get(r).into_py(py),
        Figure::Maybe(get) => get(r).into_py(py),
    }
}

/// A column of the table as `(kind, payload)`; `maybe` is the kind of its figures with a
/// missing value (`F?`, or `F-` for those absent from a row).
fn values_column(py: Python<'_>, values: Values, maybe: &'static str) -> (&'static str, PyObject) {
    match values {
        Values::Floats(v) => (FLOATS, float_bytes(py, v.into_iter())),
        Values::Counts(v) => (COUNTS, count_bytes(py, v.into_iter())),
        Values::Maybe(v, missing) => {
            let missing: Vec<u8> = missing.into_iter().map(u8::from).collect();
            (maybe, (float_bytes(py, v.into_iter()), PyBytes::new_bound(py, &missing)).into_py(py))
        }
    }
}

/// Labels as (the distinct ones, in order of first use; each run's as an index into them,
/// 32-bit, `memoryview.cast("I")`): a million runs' labels are a few strings, not a million.
fn coded(py: Python<'_>, labels: Labels) -> PyObject {
    let codes: Vec<u8> = labels.codes.iter().flat_map(|c| c.to_ne_bytes()).collect();
    (labels.distinct, PyBytes::new_bound(py, &codes)).into_py(py)
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

/// The runs as `[(key, kind, payload)]`, in the order of a run's dict (`run_result_dict`, then
/// the figures against the references). The table is spent column by column: a million runs'
/// figures are not held twice.
pub(crate) fn table_columns<'py>(py: Python<'py>, table: RunTable, device: &CoreDevice) -> PyResult<Bound<'py, PyList>> {
    let RunTable {
        runs,
        policy,
        device: device_labels,
        before_modes,
        mode_names,
        energy_by_mode_j,
        time_by_mode_s,
        hops,
        transitions,
        after_modes,
        theoretical_minima,
        against_references,
        per_request,
        timeline,
    } = table;
    let out = PyList::empty_bound(py);
    let push = |key: &str, (kind, payload): (&str, PyObject)| out.append((key, kind, payload));
    push("policy", (TEXT, coded(py, policy)))?;
    push("device", (TEXT, coded(py, device_labels)))?;
    for ((key, _), values) in FIGURES_BEFORE_MODES.iter().zip(before_modes) {
        push(key, values_column(py, values, FLOATS_OR_NULL))?;
    }
    // A map is (names, a matrix of runs × names as bytes, row by row).
    push("energy_by_mode_j", (MAP_FLOATS, (mode_names.clone(), float_bytes(py, energy_by_mode_j.into_iter())).into_py(py)))?;
    push("time_by_mode_s", (MAP_FLOATS, (mode_names, float_bytes(py, time_by_mode_s.into_iter())).into_py(py)))?;
    let names: Vec<String> = hops.iter().map(|(from, to)| format!("{from}->{to}")).collect();
    let taken = transitions.into_iter().map(|count| count.map_or(-1, |c| c as i64) as u64);
    push("transitions", (MAP_COUNTS, (names, count_bytes(py, taken)).into_py(py)))?;
    for ((key, _), values) in FIGURES_AFTER_MODES.iter().zip(after_modes) {
        push(key, values_column(py, values, FLOATS_OR_NULL))?;
    }
    if theoretical_minima.iter().any(Values::any) {
        for ((key, _), values) in THEORETICAL_MINIMA.iter().zip(theoretical_minima) {
            push(key, values_column(py, values, FLOATS_WHERE_KNOWN))?;
        }
    }
    for ((key, _), values) in FIGURES_AGAINST_REFERENCES.iter().zip(against_references) {
        push(key, values_column(py, values, FLOATS_OR_NULL))?;
    }
    // Per-request records and timelines, where kept: a run's arrays each, None where not.
    let mut kept = vec![false; runs];
    if !per_request.is_empty() {
        // (arrival, start, response, codes), pushed in a run's dict's order.
        let mut columns: [Vec<PyObject>; 4] = std::array::from_fn(|_| (0..runs).map(|_| py.None()).collect());
        for (run, records) in per_request {
            kept[run] = true;
            for (column, array) in columns.iter_mut().zip(per_request_arrays(py, records, device)) {
                column[run] = array;
            }
        }
        let [arrival, start, response, at_arrival] = columns;
        for (key, column) in [("response_s", response), ("arrival_s", arrival), ("start_s", start), ("at_arrival", at_arrival)] {
            push(key, (OBJECTS_WHERE_KEPT, column.into_py(py)))?;
        }
    }
    if !timeline.is_empty() {
        let mut column: Vec<PyObject> = (0..runs).map(|_| py.None()).collect();
        for (run, timeline) in timeline {
            kept[run] = true;
            let starts: Vec<f64> = timeline.segments.iter().map(|s| s.0).collect();
            let ends: Vec<f64> = timeline.segments.iter().map(|s| s.1).collect();
            let codes: Vec<u32> = timeline.segments.iter().map(|s| activity_code(device, s.2)).collect();
            column[run] = (PyArray1::from_vec_bound(py, starts), PyArray1::from_vec_bound(py, ends), PyArray1::from_vec_bound(py, codes)).into_py(py);
        }
        push("timeline", (OBJECTS_WHERE_KEPT, column.into_py(py)))?;
    }
    if kept.contains(&true) {
        let labels = activity_labels(device).into_py(py);
        let column: Vec<PyObject> = kept.iter().map(|&k| if k { labels.clone_ref(py) } else { py.None() }).collect();
        push("activity_labels", (OBJECTS_WHERE_KEPT, column.into_py(py)))?;
    }
    Ok(out)
}

/// A run set's reports as columns ([`table_columns`]).
pub(crate) fn reports_columns<'py>(py: Python<'py>, reports: Vec<idlewise_core::Report>, device: &CoreDevice) -> PyResult<Bound<'py, PyList>> {
    let table = RunTable::of(device, reports).map_err(to_py_err)?;
    table_columns(py, table, device)
}
