//! PyO3 bindings for idlewise-core: conversions between numpy/Python values and engine types,
//! and nothing else. All simulation logic lives in `idlewise-core`.
//!
//! Errors become Python exceptions (`IdlewiseError`, a `ValueError`; `TraceRecordError` carries
//! the offending record index and field so the Python reader can name the file and line). The
//! GIL is released while a replay runs, so a Python thread can draw progress from a `Progress`.
//!
//! One module per domain, as polars splits its binding: `devices` (a device model), `inputs`
//! (trace files and text parsing), `policies` (specs, parsed once), `runs` (replays, and the
//! `ReplayOptions` each takes whole), `hybrid`, `system`, `live` (the manager's disk),
//! `python_policy` (policies written in Python) and `conversions` (errors, result dicts,
//! activity codes, progress).

// PyO3 0.22's #[pymethods] wraps every `PyResult` return in a conversion to the same error type,
// which today's clippy flags at each method's signature (36 times): the macro's code, not ours.
#![allow(clippy::useless_conversion)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod columns;
mod conversions;
mod devices;
mod hybrid;
mod inputs;
mod live;
mod policies;
mod python_policy;
mod runs;
mod system;
use columns::*;
use conversions::*;
use devices::*;
use hybrid::*;
use inputs::*;
use live::*;
use policies::*;
use python_policy::raise_failures;
use runs::*;
use system::*;

use idlewise_core::device::{Device as CoreDevice, Provenance};
use idlewise_core::error::Error;
use idlewise_core::metrics::Activity;
use idlewise_core::policy::{families, PolicySpec};
use idlewise_core::hybrid::{FlushAlgorithm, FlushWhen, HybridConfig, HybridDescription};
use idlewise_core::{ReplayOptions, TraceView};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

create_exception!(_core, IdlewiseError, PyValueError, "Invalid input to idlewise: a device, policy, trace or option.");
create_exception!(_core, TraceRecordError, IdlewiseError, "An invalid trace record; args are (message, record_index, field).");

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    // The bytes of a file `--format auto` reads (its rules cut a last line at that length).
    m.add("TRACE_HEAD_BYTES", idlewise_core::readers::detect::HEAD_BYTES)?;
    m.add("MAX_LINE_BYTES", idlewise_core::readers::MAX_LINE_BYTES)?;
    m.add_class::<Device>()?;
    m.add_class::<InputFile>()?;
    m.add_class::<Progress>()?;
    m.add_class::<System>()?;
    m.add_class::<StreamedRuns>()?;
    m.add_class::<Options>()?;
    m.add_class::<HybridRuns>()?;
    m.add_class::<TextBatches>()?;
    m.add_class::<IdleGapStream>()?;
    m.add_class::<LiveDisk>()?;
    m.add_class::<ParsedPolicy>()?;
    m.add_class::<python_policy::PythonPolicy>()?;
    m.add_class::<python_policy::Request>()?;
    m.add("PolicyError", m.py().get_type_bound::<python_policy::PolicyError>())?;
    m.add("SEED000_IO_CPU_POWER_W", idlewise_core::system::SEED000_IO_CPU_POWER_W)?;
    m.add_function(wrap_pyfunction!(validate_trace, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration_s, m)?)?;
    m.add_function(wrap_pyfunction!(policy_columns, m)?)?;
    m.add_function(wrap_pyfunction!(expand_policy_range, m)?)?;
    m.add_function(wrap_pyfunction!(trace_formats, m)?)?;
    m.add_function(wrap_pyfunction!(detect_trace_format, m)?)?;
    m.add_function(wrap_pyfunction!(parse_power_w, m)?)?;
    m.add_function(wrap_pyfunction!(makedev, m)?)?;
    m.add_function(wrap_pyfunction!(read_text, m)?)?;
    m.add_function(wrap_pyfunction!(check_policy, m)?)?;
    m.add_function(wrap_pyfunction!(policy_families, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(evaluate_file, m)?)?;
    m.add_function(wrap_pyfunction!(did_you_mean, m)?)?;
    m.add_function(wrap_pyfunction!(idle_gaps, m)?)?;
    m.add_function(wrap_pyfunction!(run_system, m)?)?;
    m.add_function(wrap_pyfunction!(parse_size_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(hybrid_description, m)?)?;
    m.add_function(wrap_pyfunction!(check_hybrid_policy, m)?)?;
    m.add("IdlewiseError", m.py().get_type_bound::<IdlewiseError>())?;
    m.add("TraceRecordError", m.py().get_type_bound::<TraceRecordError>())?;
    Ok(())
}
