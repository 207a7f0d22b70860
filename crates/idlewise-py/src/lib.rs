//! PyO3 bindings for idlewise-core: conversions between numpy/Python values and engine types,
//! and nothing else. All simulation logic lives in `idlewise-core`.
//!
//! Errors become Python exceptions (`IdlewiseError`, a `ValueError`; `TraceRecordError` carries
//! the offending record index and field so the Python reader can name the file and line). The
//! GIL is released while a replay runs, so a Python thread can draw progress from a `Progress`.

// PyO3 0.22's #[pymethods] wraps every `PyResult` return in a conversion to the same error type,
// which today's clippy flags at each method's signature (36 times): the macro's code, not ours.
#![allow(clippy::useless_conversion)]

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

mod python_policy;
use python_policy::{raise_failures, PolicyArg};

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

fn to_py_err(e: Error) -> PyErr {
    match &e {
        Error::TraceRecord { index, field, message } => TraceRecordError::new_err((message.clone(), *index, field.to_string())),
        _ => IdlewiseError::new_err(e.to_string()),
    }
}

/// A validated device model.
#[pyclass(module = "idlewise._core", frozen)]
struct Device {
    inner: CoreDevice,
}

fn provenance<'py>(py: Python<'py>, dict: &Bound<'py, PyDict>, p: &Provenance) -> PyResult<()> {
    let _ = py;
    if !p.source.is_empty() {
        dict.set_item("source", &p.source)?;
    }
    if !p.assumed.is_empty() {
        dict.set_item("assumed", &p.assumed)?;
    }
    Ok(())
}

#[pymethods]
impl Device {
    /// Parses and validates a TOML description; `origin` names it in error messages.
    #[staticmethod]
    fn from_toml(text: &str, origin: &str) -> PyResult<Device> {
        CoreDevice::from_toml(text, origin).map(|inner| Device { inner }).map_err(to_py_err)
    }

    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }
    #[getter]
    fn kind(&self) -> &str {
        self.inner.kind.as_str()
    }
    /// How the host attaches it (`"nvme"`, `"ata"`, ...), or None where the description says not.
    #[getter]
    fn interface(&self) -> Option<&str> {
        self.inner.interface.map(|i| i.as_str())
    }
    #[getter]
    fn description(&self) -> &str {
        &self.inner.description
    }
    #[getter]
    fn source(&self) -> &str {
        &self.inner.source
    }
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.inner.warnings.clone()
    }

    #[getter]
    fn assumptions(&self) -> Vec<String> {
        self.inner.assumptions.clone()
    }

    /// Modes in order (the first is the ready mode), each with its break-even time.
    #[getter]
    fn modes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty_bound(py);
        for (i, m) in self.inner.modes.iter().enumerate() {
            let d = PyDict::new_bound(py);
            d.set_item("name", &m.name)?;
            d.set_item("power_w", m.power_w)?;
            d.set_item("serves", m.serves)?;
            d.set_item("break_even_s", self.inner.break_even_s(i))?;
            // A wake-up out of it uses a rated start/stop cycle: the spindle is stopped there.
            d.set_item("stops_spindle", i != 0 && self.inner.limits.cycle_mode.get(i).copied().unwrap_or(false))?;
            if let Some(timer) = m.epc_timer_s {
                d.set_item("epc_timer_s", timer)?;
            }
            provenance(py, &d, &m.provenance)?;
            list.append(d)?;
        }
        Ok(list)
    }

    #[getter]
    fn transitions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty_bound(py);
        for t in &self.inner.transitions {
            let d = PyDict::new_bound(py);
            d.set_item("from", &self.inner.modes[t.from].name)?;
            d.set_item("to", &self.inner.modes[t.to].name)?;
            d.set_item("time_s", t.time_s)?;
            d.set_item("energy_j", t.energy_j)?;
            if let Some(spread) = t.spread {
                d.set_item("time_std_s", spread.std_s)?;
                d.set_item("time_distribution", spread.shape.as_str())?;
            }
            provenance(py, &d, &t.provenance)?;
            list.append(d)?;
        }
        Ok(list)
    }

    #[getter]
    fn service<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let s = &self.inner.service;
        let d = PyDict::new_bound(py);
        d.set_item("overhead_s", s.overhead_s)?;
        d.set_item("read_bandwidth_bytes_per_s", s.read_bandwidth_bytes_per_s)?;
        d.set_item("write_bandwidth_bytes_per_s", s.write_bandwidth_bytes_per_s)?;
        d.set_item("read_power_w", s.read_power_w)?;
        d.set_item("write_power_w", s.write_power_w)?;
        d.set_item("has_seek_model", s.seek.is_some())?;
        if let Some(k) = &s.seek {
            let seek = PyDict::new_bound(py);
            seek.set_item("bytes_per_cylinder", k.bytes_per_cylinder)?;
            seek.set_item("boundary_cylinders", k.boundary_cylinders)?;
            seek.set_item("sqrt_intercept_s", k.sqrt_intercept_s)?;
            seek.set_item("sqrt_coeff_s", k.sqrt_coeff_s)?;
            seek.set_item("linear_intercept_s", k.linear_intercept_s)?;
            seek.set_item("linear_coeff_s", k.linear_coeff_s)?;
            seek.set_item("single_cylinder_s", k.single_cylinder_s)?;
            seek.set_item("capacity_bytes", k.capacity_bytes)?;
            seek.set_item("half_rotation_s", k.half_rotation_s)?;
            seek.set_item("seek_power_w", k.seek_power_w)?;
            // The curve itself, at distances a reader can check against a datasheet.
            let points = PyList::empty_bound(py);
            for cylinders in [1.0, 10.0, 100.0, k.boundary_cylinders, 3.0 * k.boundary_cylinders] {
                points.append((cylinders, k.seek_time_s(cylinders)))?;
            }
            seek.set_item("curve_s", points)?;
            provenance(py, &seek, &k.provenance)?;
            d.set_item("seek", seek)?;
        }
        provenance(py, &d, &s.provenance)?;
        Ok(d)
    }

    /// The `[capacity]` a device file states: `{"bytes", "source", "assumed"}`, or None.
    #[getter]
    fn stated_capacity<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some((bytes, source)) = &self.inner.capacity else { return Ok(None) };
        let d = PyDict::new_bound(py);
        d.set_item("bytes", *bytes)?;
        provenance(py, &d, source)?;
        Ok(Some(d))
    }

    #[getter]
    fn start_stop_cycles(&self) -> Option<f64> {
        self.inner.limits.start_stop_cycles
    }

    #[getter]
    fn load_unload_cycles(&self) -> Option<f64> {
        self.inner.limits.load_unload_cycles
    }

    /// This MEMS device with the other shutdown policy: "pe" (performance-efficient) or "ee".
    fn with_mems_shutdown(&self, policy: &str) -> PyResult<Device> {
        self.inner.with_mems_shutdown(policy).map(|inner| Device { inner }).map_err(to_py_err)
    }

    /// This MEMS device charging its probes "per-tip" (the tips each pass uses) or "all-tips"
    /// (every active tip whenever data move: seed 004's 1 W).
    fn with_probe_power(&self, convention: &str) -> PyResult<Device> {
        self.inner.with_probe_power(convention).map(|inner| Device { inner }).map_err(to_py_err)
    }

    /// How a MEMS device charges its probes ("per-tip" or "all-tips"), or None for other devices.
    #[getter]
    fn probe_power(&self) -> Option<&'static str> {
        self.inner.service.mems.as_ref().map(|m| if m.probes_charged.is_some() { "all-tips" } else { "per-tip" })
    }

    /// The whole device in bytes (a MEMS layout, a seek curve's cylinders or the file's
    /// `[capacity]`), or None where the device file states none (network cards).
    #[getter]
    fn capacity_bytes(&self) -> Option<f64> {
        self.inner.capacity_bytes()
    }

    /// A MEMS device's capacity in 512-byte blocks (its sled's layout), or None for other devices.
    #[getter]
    fn mems_blocks(&self) -> Option<i64> {
        self.inner.service.mems.as_ref().map(|m| m.sled.blocks())
    }

    /// The MEMS shutdown policy ("pe" or "ee"), or None for a device without a sled shutdown.
    #[getter]
    fn mems_shutdown(&self) -> Option<&'static str> {
        self.inner.service.mems.as_ref()?.shutdown.as_ref().map(|s| s.policy.name())
    }

    /// Shutdown of the MEMS sled from rest at offsets `(x_m, y_m)` from the centre, under the
    /// device's shutdown policy: (time_s, actuator energy_j). Seed 004 §6.2, Figure 7.
    fn mems_shutdown_cost(&self, x_m: f64, y_m: f64) -> PyResult<(f64, f64)> {
        let mems = self.inner.service.mems.as_ref().filter(|m| m.shutdown.is_some()).ok_or_else(|| {
            to_py_err(Error::Option { option: "mems_shutdown_cost".into(), message: format!("device {} has no sled shutdown model", self.inner.name) })
        })?;
        let cost = mems.shutdown_cost_m(x_m, y_m).expect("a shutdown model");
        Ok((cost.time_s, cost.energy_j))
    }

    /// Time and energy to serve one request of `size_bytes` in the ready mode (no seek).
    fn service_cost(&self, size_bytes: f64, is_write: bool) -> (f64, f64) {
        self.inner.service(size_bytes, is_write, 0.0, 0.0)
    }

    /// Route (time_s, energy_j) between two modes by name, or None if there is none.
    fn route(&self, from_mode: &str, to_mode: &str) -> PyResult<Option<(f64, f64)>> {
        let index = |name: &str| {
            self.inner.mode_index(name).ok_or_else(|| IdlewiseError::new_err(format!("device '{}' has no mode '{name}'", self.inner.name)))
        };
        let (a, b) = (index(from_mode)?, index(to_mode)?);
        if a == b {
            return Ok(Some((0.0, 0.0)));
        }
        Ok(self.inner.route(a, b).map(|r| (r.time_s, r.energy_j)))
    }

    /// The ready mode's name (where requests are served).
    #[getter]
    fn ready_mode(&self) -> &str {
        &self.inner.modes[idlewise_core::device::READY].name
    }

    /// The lowest-power mode's name (where `timeout:T` goes), or None for a device with one mode.
    #[getter]
    fn deepest_mode(&self) -> Option<&str> {
        self.inner.deepest_mode().map(|m| self.inner.modes[m].name.as_str())
    }

    /// The idle time (s) from which a round trip to `mode` (by the policy routes) uses less
    /// energy than staying ready, and no less than the round trip's own time; inf where the
    /// mode saves no power.
    fn break_even_s(&self, mode: &str) -> PyResult<f64> {
        Ok(self.inner.break_even_s(self.mode_index(mode)?))
    }

    /// The mode in which an idle period of `gap_s` known in advance costs least (down at its
    /// start, ready again exactly at its end, by the cheapest routes), and that energy (J).
    fn best_mode_for_gap(&self, gap_s: f64) -> PyResult<(String, f64)> {
        if !(gap_s.is_finite() && gap_s >= 0.0) {
            return Err(IdlewiseError::new_err(format!("gap_s must be a non-negative number of seconds, got {gap_s}")));
        }
        let choice = self.inner.best_choice_for_gap(gap_s);
        Ok((self.inner.modes[choice.mode].name.clone(), choice.energy_j))
    }

    fn mode_index(&self, name: &str) -> PyResult<usize> {
        self.inner.mode_index(name).ok_or_else(|| {
            let known: Vec<&str> = self.inner.modes.iter().map(|m| m.name.as_str()).collect();
            let hint = idlewise_core::error::did_you_mean(name, known.iter().copied());
            IdlewiseError::new_err(format!("device '{}' has no mode '{name}'{hint}; its modes are: {}", self.inner.name, known.join(", ")))
        })
    }

    fn __repr__(&self) -> String {
        format!("Device({})", self.inner.summary())
    }
}

/// A counter of replayed requests that another Python thread can read while a run is going.
#[pyclass(module = "idlewise._core", frozen)]
struct Progress {
    done: Arc<AtomicU64>,
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
fn trace_view<'a>(
    time_s: &'a PyReadonlyArray1<'_, f64>,
    offset_bytes: &'a PyReadonlyArray1<'_, i64>,
    size_bytes: &'a PyReadonlyArray1<'_, i64>,
    is_write: &'a PyReadonlyArray1<'_, u8>,
) -> PyResult<TraceView<'a>> {
    TraceView::new(time_s.as_slice()?, offset_bytes.as_slice()?, size_bytes.as_slice()?, is_write.as_slice()?).map_err(to_py_err)
}

/// Parses a duration with its unit (`500ms`, `2s`, `1.5min`) into seconds: the engine's parser,
/// so policy specs, transforms and sweep ranges read durations the same way.
#[pyfunction]
fn parse_duration_s(text: &str) -> PyResult<f64> {
    idlewise_core::units::parse_duration_s(text).map_err(IdlewiseError::new_err)
}

/// A trace file's bytes as the formats read them, decompressed where it is compressed (gzip,
/// zstd, bzip2, xz, by magic bytes): `read(n)` for Python's readers and format detection, so
/// one opener serves the engine and them alike (`idlewise.traces.inputs` wraps it as a file).
#[pyclass(module = "idlewise._core")]
struct InputFile {
    reader: Option<Box<dyn std::io::Read + Send>>,
    #[pyo3(get)]
    compression: &'static str,
}

#[pymethods]
impl InputFile {
    #[new]
    fn new(path: std::path::PathBuf) -> PyResult<Self> {
        let input = idlewise_core::readers::input::open(&path, None).map_err(|e| IdlewiseError::new_err(format!("cannot read: {e}")))?;
        Ok(InputFile { reader: Some(input.reader), compression: input.compression.name() })
    }

    /// Up to `n` bytes (fewer only at the end); empty at the end.
    fn read<'py>(&mut self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, pyo3::types::PyBytes>> {
        let Some(reader) = self.reader.as_mut() else { return Err(IdlewiseError::new_err("cannot read: the input is closed")) };
        let mut buffer = vec![0u8; n];
        let mut filled = 0;
        let result = py.allow_threads(|| {
            while filled < n {
                match reader.read(&mut buffer[filled..]) {
                    Ok(0) => break,
                    Ok(got) => filled += got,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                }
            }
            Ok(())
        });
        result.map_err(|e| IdlewiseError::new_err(format!("cannot read: {e}")))?;
        Ok(pyo3::types::PyBytes::new_bound(py, &buffer[..filled]))
    }

    fn close(&mut self) {
        self.reader = None;
    }
}

/// A Linux device's stream number, as the engine's readers key devices
/// (`idlewise_core::readers::makedev`); `None` for a part out of range.
/// The trace formats' table (`idlewise_core::readers::table`): one dict per format, in the order
/// `idlewise trace formats` lists them.
#[pyfunction]
fn trace_formats(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty_bound(py);
    for f in idlewise_core::readers::TRACE_FORMATS.iter() {
        let d = PyDict::new_bound(py);
        d.set_item("name", f.name)?;
        d.set_item("description", f.description)?;
        d.set_item("fields", f.fields.to_vec())?;
        d.set_item("magic", f.magic.map(|m| pyo3::types::PyBytes::new_bound(py, m)))?;
        d.set_item("recognised_by", f.recognised_by)?;
        d.set_item("time_field", f.time_field.map(|t| (t.field, t.separator.to_string(), t.header_lines)))?;
        d.set_item("reading", f.reading.as_str())?;
        d.set_item("whole_read_bytes_per_record", f.whole_read_bytes_per_record)?;
        list.append(d)?;
    }
    Ok(list)
}

/// A result row's policy columns from its canonical label: `(family, timeout_s, knob, params)`,
/// `params` a list of `(name, value)`, each value a float where it reads as a number, else its
/// text (`idlewise_core::policy::PolicyColumns`, the one home of this reading).
#[pyfunction]
fn policy_columns(py: Python<'_>, label: &str) -> (String, Option<f64>, Option<PyObject>, Vec<(String, PyObject)>) {
    use idlewise_core::policy::{ParamValue, PolicyColumns};
    let value = |v: ParamValue| match v {
        ParamValue::Number(x) => x.into_py(py),
        ParamValue::Text(s) => s.into_py(py),
    };
    let columns = PolicyColumns::of_label(label);
    let params = columns.params.into_iter().map(|(name, v)| (name, value(v))).collect();
    (columns.family, columns.timeout_s, columns.knob.map(value), params)
}

#[pyfunction]
fn makedev(major: i64, minor: i64) -> Option<i64> {
    ((0..1 << 31).contains(&major) && (0..1 << 32).contains(&minor)).then(|| idlewise_core::readers::makedev(major, minor))
}

#[pyfunction]
fn parse_power_w(text: &str) -> PyResult<f64> {
    idlewise_core::units::parse_power_w(text).map_err(IdlewiseError::new_err)
}

/// Reads a text trace file in a named format into columns (a dict of numpy arrays, `skipped` as
/// (reason, count) pairs, `records_read`). Raises IdlewiseError with the line and field; the
/// caller adds the file's name. The GIL is released while the file is parsed; `progress`
/// counts the bytes read.
#[pyfunction]
#[pyo3(signature = (path, format, progress=None))]
fn read_text<'py>(py: Python<'py>, path: std::path::PathBuf, format: &str, progress: Option<&Progress>) -> PyResult<Bound<'py, PyDict>> {
    let counter = progress.map(|p| Arc::clone(&p.done));
    let columns = py
        .allow_threads(|| {
            idlewise_core::readers::read_file_counted(format, &path, counter).map_err(|e| e.to_string())
        })
        .map_err(IdlewiseError::new_err)?;
    let d = PyDict::new_bound(py);
    d.set_item("time_s", PyArray1::from_vec_bound(py, columns.time_s))?;
    d.set_item("offset_bytes", PyArray1::from_vec_bound(py, columns.offset_bytes))?;
    d.set_item("size_bytes", PyArray1::from_vec_bound(py, columns.size_bytes))?;
    d.set_item("is_write", PyArray1::from_vec_bound(py, columns.is_write))?;
    d.set_item("stream", if columns.stream.is_empty() { None } else { Some(PyArray1::from_vec_bound(py, columns.stream)) })?;
    let (base, steps, long_steps) = columns.line.into_parts();
    d.set_item("line_base", base)?;
    d.set_item("line_steps", PyArray1::from_vec_bound(py, steps))?;
    d.set_item("line_long_steps", long_steps)?;
    d.set_item("skipped", columns.skipped)?;
    d.set_item("records_read", columns.records_read)?;
    Ok(d)
}

/// A text trace's records a chunk at a time, for Python code that works on them as they are
/// read (a transform applied as the trace streams): each item is (time_s, offset_bytes,
/// size_bytes, is_write, stream or None, lines). Parsed on the reader's threads while the
/// previous chunk is used; two chunks wait at most. `records_read` and `skipped` are known once
/// the iterator is exhausted; a bad line raises there, naming it.
#[pyclass(module = "idlewise._core")]
struct TextBatches {
    // In a mutex so that the receiving can happen with the GIL released (a receiver is Send, not Sync).
    chunks: Option<std::sync::Mutex<std::sync::mpsc::Receiver<idlewise_core::readers::Columns>>>,
    reader: Option<std::thread::JoinHandle<(Result<(), String>, idlewise_core::readers::Columns)>>,
    #[pyo3(get)]
    records_read: u64,
    #[pyo3(get)]
    skipped: Vec<(String, u64)>,
}

type Batch<'py> = (
    Bound<'py, PyArray1<f64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<u8>>,
    Option<Bound<'py, PyArray1<i64>>>,
    Bound<'py, PyArray1<u64>>,
);

#[pymethods]
impl TextBatches {
    #[new]
    fn new(path: std::path::PathBuf, format: &str) -> PyResult<Self> {
        let input = idlewise_core::readers::input::open(&path, None).map_err(|e| IdlewiseError::new_err(format!("cannot read: {e}")))?;
        let (file, size) = (input.reader, input.size_hint);
        let format = format.to_string();
        let (sender, chunks) = std::sync::mpsc::sync_channel::<idlewise_core::readers::Columns>(2);
        let reader = std::thread::spawn(move || {
            let mut out = idlewise_core::readers::Columns::default();
            let read = idlewise_core::readers::read_chunks(&format, file, size, true, idlewise_core::readers::parse_threads(), &mut out, |chunk| {
                if chunk.time_s.is_empty() {
                    return Ok(());
                }
                // A closed channel: the caller stopped early; the read ends quietly.
                sender.send(chunk.take_records()).map_err(|_| idlewise_core::readers::ReadError { line: 0, field: None, message: String::new() })
            });
            (read.map_err(|e| e.to_string()), out)
        });
        Ok(TextBatches { chunks: Some(std::sync::Mutex::new(chunks)), reader: Some(reader), records_read: 0, skipped: Vec::new() })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Batch<'py>>> {
        let Some(chunks) = self.chunks.as_ref() else { return Ok(None) };
        if let Ok(c) = py.allow_threads(|| chunks.lock().expect("one receiver").recv()) {
            let lines: Vec<u64> = c.line.iter().collect();
            return Ok(Some((
                PyArray1::from_vec_bound(py, c.time_s),
                PyArray1::from_vec_bound(py, c.offset_bytes),
                PyArray1::from_vec_bound(py, c.size_bytes),
                PyArray1::from_vec_bound(py, c.is_write),
                (!c.stream.is_empty()).then(|| PyArray1::from_vec_bound(py, c.stream)),
                PyArray1::from_vec_bound(py, lines),
            )));
        }
        self.chunks = None;
        let (read, out) = py.allow_threads(|| self.reader.take().expect("a reader until the end").join().expect("the reader thread does not panic"));
        read.map_err(IdlewiseError::new_err)?;
        self.records_read = out.records_read;
        self.skipped = out.skipped;
        Ok(None)
    }

    /// Stops reading (the reader thread ends at its next chunk).
    fn close(&mut self, py: Python<'_>) {
        self.chunks = None;
        if let Some(reader) = self.reader.take() {
            let _ = py.allow_threads(|| reader.join());
        }
    }
}

/// Checks trace columns; raises TraceRecordError naming the first bad record.
#[pyfunction]
fn validate_trace(
    time_s: PyReadonlyArray1<f64>,
    offset_bytes: PyReadonlyArray1<i64>,
    size_bytes: PyReadonlyArray1<i64>,
    is_write: PyReadonlyArray1<u8>,
) -> PyResult<()> {
    trace_view(&time_s, &offset_bytes, &size_bytes, &is_write)?.validate().map_err(to_py_err)
}

/// Idle gaps (s) an always-on device sees, completion to next arrival, in order.
#[pyfunction]
#[pyo3(signature = (time_s, offset_bytes, size_bytes, is_write, device, fold_offsets=false))]
fn idle_gaps<'py>(
    py: Python<'py>,
    time_s: PyReadonlyArray1<'py, f64>,
    offset_bytes: PyReadonlyArray1<'py, i64>,
    size_bytes: PyReadonlyArray1<'py, i64>,
    is_write: PyReadonlyArray1<'py, u8>,
    device: &Device,
    fold_offsets: bool,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let trace = trace_view(&time_s, &offset_bytes, &size_bytes, &is_write)?;
    let core_device = &device.inner;
    let opts = ReplayOptions { fold_offsets, ..Default::default() };
    let gaps = py.allow_threads(|| idlewise_core::idle_gaps(&trace, core_device, &opts)).map_err(to_py_err)?;
    Ok(PyArray1::from_vec_bound(py, gaps))
}

/// One device managed live (`idlewise manage`): the replay's own device model and policy, fed
/// observed I/O, asked what the policy has decided by now (`idlewise_core::live`). Decisions are
/// dicts: `time_s` (when the model makes the change), `from_mode`, `to_mode` (mode names),
/// `cause` (`plan`, `access`, `hint` or `outside`) and `reason` (for a person).
#[pyclass(module = "idlewise._core", unsendable)]
struct LiveDisk {
    inner: Option<idlewise_core::live::LiveDisk>,
    policy: String,
    /// The policy as given (a Python policy's failure is raised after the call it happened in).
    given: [PolicyArg; 1],
}

impl LiveDisk {
    fn live(&mut self) -> PyResult<&mut idlewise_core::live::LiveDisk> {
        self.inner.as_mut().ok_or_else(|| PyValueError::new_err("this live run has finished"))
    }

    fn decisions<'py>(&self, py: Python<'py>, device: &CoreDevice, list: Vec<idlewise_core::live::Decision>) -> PyResult<Bound<'py, PyList>> {
        use idlewise_core::live::Cause;
        let out = PyList::empty_bound(py);
        for d in list {
            let item = PyDict::new_bound(py);
            item.set_item("time_s", d.time_s)?;
            item.set_item("from_mode", &device.modes[d.from_mode].name)?;
            item.set_item("to_mode", &device.modes[d.to_mode].name)?;
            let (cause, reason) = match d.cause {
                Cause::Plan { idle_s } => ("plan", format!("{}: idle {}", self.policy, seconds_text(idle_s))),
                Cause::Access => ("access", "I/O arrived: the device wakes to serve it".to_string()),
                Cause::Hint => ("hint", format!("{}: a ghost hint (an application would have used the device)", self.policy)),
                Cause::Outside => ("outside", "found so by a state probe: moved by something other than the manager".to_string()),
            };
            item.set_item("cause", cause)?;
            item.set_item("reason", reason)?;
            out.append(item)?;
        }
        Ok(out)
    }
}

/// A mode's index by its name, or an error naming the device's modes.
fn mode_index(device: &CoreDevice, name: &str) -> PyResult<usize> {
    device.modes.iter().position(|m| m.name == name).ok_or_else(|| {
        PyValueError::new_err(format!("device '{}' has no mode '{name}'; its modes: {}", device.name, device.modes.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")))
    })
}

/// A duration as a person reads it in a log: "10 s", "1.5 ms", "2 min 5 s".
fn seconds_text(s: f64) -> String {
    if s >= 60.0 {
        let whole = s.round() as u64;
        format!("{} min {} s", whole / 60, whole % 60)
    } else if s >= 1.0 {
        format!("{} s", format!("{s:.3}").trim_end_matches('0').trim_end_matches('.'))
    } else {
        format!("{} ms", format!("{:.3}", s * 1e3).trim_end_matches('0').trim_end_matches('.'))
    }
}

#[pymethods]
impl LiveDisk {
    #[new]
    #[pyo3(signature = (device, policy, base_power_w=0.0, start_s=0.0))]
    fn new(py: Python<'_>, device: &Device, policy: PolicyArg, base_power_w: f64, start_s: f64) -> PyResult<Self> {
        let spec = policy.spec(py)?;
        let made = idlewise_core::live::LiveDisk::with_spec(Arc::new(device.inner.clone()), &spec, base_power_w, start_s).map_err(to_py_err);
        let given = [policy];
        let inner = raise_failures(py, &given, made)?;
        Ok(LiveDisk { inner: Some(inner), policy: spec.text, given })
    }

    /// The policy's name (its rows' `policy`).
    #[getter]
    fn policy_name(&self) -> &str {
        &self.policy
    }

    /// The policy's mode changes by `now` since the last call.
    fn advance<'py>(&mut self, py: Python<'py>, now: f64) -> PyResult<Bound<'py, PyList>> {
        let live = self.live()?;
        let list = py.allow_threads(|| live.advance(now));
        let device = live.device().clone();
        let made = self.decisions(py, &device, list);
        raise_failures(py, &self.given, made)
    }

    /// Requests observed (arrival times in order, sizes, writes; and how long each kept the
    /// device busy, where it says): the plan's changes before each, and the wake-ups they cause.
    #[pyo3(signature = (arrival_s, size_bytes, is_write, service_s=None))]
    fn feed<'py>(&mut self, py: Python<'py>, arrival_s: PyReadonlyArray1<'py, f64>, size_bytes: PyReadonlyArray1<'py, f64>,
                 is_write: PyReadonlyArray1<'py, bool>, service_s: Option<PyReadonlyArray1<'py, f64>>) -> PyResult<Bound<'py, PyList>> {
        let (a, s, w) = (arrival_s.as_slice()?, size_bytes.as_slice()?, is_write.as_slice()?);
        let busy = service_s.as_ref().map(|b| b.as_slice()).transpose()?;
        if a.len() != s.len() || a.len() != w.len() || busy.is_some_and(|b| b.len() != a.len()) {
            return Err(PyValueError::new_err("arrival_s, size_bytes, is_write and service_s must have the same length"));
        }
        if a.windows(2).any(|p| !(p[1] >= p[0])) || a.iter().any(|t| !t.is_finite()) || s.iter().any(|x| !(x.is_finite() && *x >= 0.0))
            || busy.is_some_and(|b| b.iter().any(|x| !(x.is_finite() && *x >= 0.0)))
        {
            return Err(PyValueError::new_err("arrival_s must be finite and in time order, size_bytes and service_s finite and non-negative"));
        }
        let live = self.live()?;
        let list = py.allow_threads(|| live.feed(a, s, w, busy));
        let device = live.device().clone();
        let made = self.decisions(py, &device, list);
        raise_failures(py, &self.given, made)
    }

    /// The hop planned at `planned_s` into `to_mode` did not happen (its command failed, or was
    /// held back): the model stays where the device is; the move is planned again at `retry_s`
    /// (None: not in this idle period). False when the model holds no idle period to revise.
    #[pyo3(signature = (now, planned_s, to_mode, retry_s=None))]
    fn undo_hop(&mut self, now: f64, planned_s: f64, to_mode: &str, retry_s: Option<f64>) -> PyResult<bool> {
        let live = self.live()?;
        let to = mode_index(live.device(), to_mode)?;
        Ok(live.undo_hop(now, planned_s, to, retry_s))
    }

    /// The device was found in `mode` at `now` by a probe that does not wake it: the model is
    /// corrected where it says otherwise. Returns the correction (cause `outside`), if any.
    fn correct<'py>(&mut self, py: Python<'py>, now: f64, mode: &str) -> PyResult<Bound<'py, PyList>> {
        let live = self.live()?;
        let actual = mode_index(live.device(), mode)?;
        let list = live.correct(now, actual);
        let device = live.device().clone();
        self.decisions(py, &device, list)
    }

    /// A ghost hint at `now` for an access of `size_bytes`, weighed with `knob`: the wake-up it
    /// causes, if the policy takes it.
    #[pyo3(signature = (now, size_bytes=4096.0, knob=50.0))]
    fn hint<'py>(&mut self, py: Python<'py>, now: f64, size_bytes: f64, knob: f64) -> PyResult<Bound<'py, PyList>> {
        if !(0.0..=100.0).contains(&knob) || !(size_bytes.is_finite() && size_bytes >= 0.0) {
            return Err(PyValueError::new_err("knob must be from 0 to 100 and size_bytes finite and non-negative"));
        }
        let live = self.live()?;
        let list = py.allow_threads(|| live.hint(now, size_bytes, knob));
        let device = live.device().clone();
        let made = self.decisions(py, &device, list);
        raise_failures(py, &self.given, made)
    }

    /// The device's mode now, since when, the energy so far and what an access would cost.
    #[pyo3(signature = (now, size_bytes=4096.0))]
    fn status<'py>(&mut self, py: Python<'py>, now: f64, size_bytes: f64) -> PyResult<Bound<'py, PyDict>> {
        let live = self.live()?;
        let s = live.status(now, size_bytes);
        let device = live.device().clone();
        let d = PyDict::new_bound(py);
        d.set_item("mode", &device.modes[s.mode].name)?;
        d.set_item("moving", s.moving)?;
        d.set_item("since_s", s.since_s)?;
        d.set_item("energy_j", s.energy_j)?;
        d.set_item("access_bytes", size_bytes)?;
        d.set_item("access_time_s", s.access.time_s)?;
        d.set_item("access_energy_j", s.access.energy_j)?;
        Ok(d)
    }

    /// When the last request fed completes, in the model.
    fn last_finish_s(&mut self) -> PyResult<f64> {
        Ok(self.live()?.last_finish_s())
    }

    /// Ends the run at `end_s`: the account `simulate` gives for the same requests.
    fn finish<'py>(&mut self, py: Python<'py>, end_s: f64) -> PyResult<Bound<'py, PyDict>> {
        let live = self.inner.take().ok_or_else(|| PyValueError::new_err("this live run has finished"))?;
        let result = py.allow_threads(|| live.finish(end_s));
        let made = run_result_dict(py, &result);
        raise_failures(py, &self.given, made)
    }
}

/// The idle gaps of an always-on device on a trace fed a part at a time (`idle_gaps` of a file
/// as it is read): `feed` gives the gaps that ended in the part, `finish` the rest.
#[pyclass(module = "idlewise._core")]
struct IdleGapStream {
    inner: idlewise_core::replay::IdleGapStream,
}

#[pymethods]
impl IdleGapStream {
    #[new]
    #[pyo3(signature = (device, fold_offsets=false))]
    fn new(device: &Device, fold_offsets: bool) -> Self {
        IdleGapStream { inner: idlewise_core::replay::IdleGapStream::new(&device.inner, &ReplayOptions { fold_offsets, ..Default::default() }) }
    }

    fn feed<'py>(
        &mut self,
        py: Python<'py>,
        time_s: PyReadonlyArray1<'py, f64>,
        offset_bytes: PyReadonlyArray1<'py, i64>,
        size_bytes: PyReadonlyArray1<'py, i64>,
        is_write: PyReadonlyArray1<'py, u8>,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let trace = trace_view(&time_s, &offset_bytes, &size_bytes, &is_write)?;
        let inner = &mut self.inner;
        let gaps = py.allow_threads(|| inner.feed(&trace)).map_err(to_py_err)?;
        Ok(PyArray1::from_vec_bound(py, gaps))
    }

    fn finish<'py>(&mut self, py: Python<'py>) -> Bound<'py, PyArray1<f64>> {
        PyArray1::from_vec_bound(py, self.inner.finish())
    }
}

/// Parses a policy spec and builds it for a device, to fail fast on bad specs.
#[pyfunction]
#[pyo3(signature = (spec, device, base_power_w=0.0))]
fn check_policy(py: Python<'_>, spec: PolicyArg, device: &Device, base_power_w: f64) -> PyResult<()> {
    build_policy(py, &spec, device, base_power_w).map(|_| ())
}

fn build_policy(py: Python<'_>, spec: &PolicyArg, device: &Device, base_power_w: f64) -> PyResult<Box<dyn idlewise_core::Policy>> {
    let parsed = spec.spec(py)?;
    // Made with the GIL released, as a run makes it: a Python policy's factory takes it back.
    let built = py.allow_threads(|| parsed.build(&device.inner, &idlewise_core::policy::BuildContext { base_power_w })).map_err(to_py_err);
    raise_failures(py, std::slice::from_ref(spec), built)
}

/// As `check_policy`, and the policy must suit a hybrid disk (online: no gap lengths read ahead).
#[pyfunction]
#[pyo3(signature = (spec, device, base_power_w=0.0))]
fn check_hybrid_policy(py: Python<'_>, spec: PolicyArg, device: &Device, base_power_w: f64) -> PyResult<()> {
    idlewise_core::hybrid::check_policy(build_policy(py, &spec, device, base_power_w)?.as_ref()).map_err(to_py_err)
}

/// The policy families with their parameters.
///
/// Parameters
/// ----------
/// (none)
///
/// Returns
/// -------
/// list of dict
///     One per family: ``name``, ``help``, ``example`` and ``params`` (each ``name``,
///     ``default``, ``help``), as ``idlewise policies`` prints them.
#[pyfunction]
fn policy_families(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty_bound(py);
    for f in families() {
        let d = PyDict::new_bound(py);
        d.set_item("name", f.name)?;
        d.set_item("summary", f.summary)?;
        d.set_item("example", f.example)?;
        let params = PyList::empty_bound(py);
        for p in f.params {
            let pd = PyDict::new_bound(py);
            pd.set_item("name", p.name)?;
            pd.set_item("default", p.default)?;
            pd.set_item("help", p.help)?;
            params.append(pd)?;
        }
        d.set_item("params", params)?;
        list.append(d)?;
    }
    Ok(list)
}

/// Replays the trace under each policy (plus the always-on and oracle references) and returns
/// one dict per policy.
#[pyfunction]
#[pyo3(signature = (time_s, offset_bytes, size_bytes, is_write, device, policies, base_power_w=0.0, initial_mode=0, keep_per_request=false, progress=None, replay="open", fold_offsets=false, original_time_s=None, response_from="issue", tail_s=0.0, lead_s=0.0, transition_seed=None, threads=1, timeline_s=None, references=true, service_s=None))]
#[allow(clippy::too_many_arguments)]
fn evaluate<'py>(
    py: Python<'py>,
    time_s: PyReadonlyArray1<'py, f64>,
    offset_bytes: PyReadonlyArray1<'py, i64>,
    size_bytes: PyReadonlyArray1<'py, i64>,
    is_write: PyReadonlyArray1<'py, u8>,
    device: &Device,
    policies: Vec<PolicyArg>,
    base_power_w: f64,
    initial_mode: usize,
    keep_per_request: bool,
    progress: Option<&Progress>,
    replay: &str,
    fold_offsets: bool,
    original_time_s: Option<PyReadonlyArray1<'py, f64>>,
    response_from: &str,
    tail_s: f64,
    lead_s: f64,
    transition_seed: Option<u64>,
    threads: usize,
    timeline_s: Option<(f64, f64)>,
    references: bool,
    service_s: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyList>> {
    let specs = python_policy::specs(py, &policies)?;
    let trace = trace_with_original(trace_view(&time_s, &offset_bytes, &size_bytes, &is_write)?, original_time_s.as_ref())?;
    let trace = match service_s.as_ref() {
        Some(observed) => trace.with_observed_service_s(observed.as_slice()?).map_err(to_py_err)?,
        None => trace,
    };
    let opts = ReplayOptions {
        keep_per_request,
        fold_offsets,
        timeline_s,
        without_references: !references,
        ..replay_options(base_power_w, initial_mode, replay, response_from, tail_s, lead_s, transition_seed)?
    };
    let counter = progress.map(|p| Arc::clone(&p.done));
    let core_device = &device.inner;
    let reports = py.allow_threads(|| idlewise_core::evaluate_on(&trace, core_device, &specs, &opts, counter.as_deref(), threads)).map_err(to_py_err);
    let reports = raise_failures(py, &policies, reports)?;
    reports_list(py, reports, core_device)
}

/// What a device does, as a code for per-request records and timelines: its modes, then its
/// transitions, then serving; `activity_labels` names them in that order.
fn activity_code(device: &CoreDevice, activity: Activity) -> u32 {
    (match activity {
        Activity::Mode(m) => m,
        Activity::Transition(i) => device.modes.len() + i,
        Activity::Serving => device.modes.len() + device.transitions.len(),
    }) as u32
}

fn activity_labels(device: &CoreDevice) -> Vec<String> {
    let all = (0..device.modes.len()).map(Activity::Mode).chain((0..device.transitions.len()).map(Activity::Transition));
    all.chain(std::iter::once(Activity::Serving)).map(|a| a.label(device)).collect()
}

/// One dict per report: the run's fields and its normalisations; with per-request records,
/// `arrival_s`, `start_s`, `response_s` and `at_arrival` (codes into `activity_labels`); with a timeline,
/// `timeline` = (start_s, end_s, codes).
fn reports_list<'py>(py: Python<'py>, reports: Vec<idlewise_core::Report>, device: &CoreDevice) -> PyResult<Bound<'py, PyList>> {
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

/// " (did you mean 'X'?)" for the known name closest to a mistyped one, or "" (one home for
/// every face's suggestions: policies, parameters and modes in the engine, devices in Python).
#[pyfunction]
fn did_you_mean(word: &str, known: Vec<String>) -> String {
    idlewise_core::error::did_you_mean(word, known.iter().map(|k| k.as_str()))
}

/// Replays a text trace file read in chunks (memory bounded by a chunk's, whatever the trace's
/// length), every volume through its own runs. Returns (volumes, records_read, skipped, kept),
/// each volume (device number or None, records kept, report dicts), `kept` a dict describing the
/// records kept (records, writes, zero_size, first_time_s, last_time_s).
#[pyfunction]
#[pyo3(signature = (path, format, device, policies, base_power_w=0.0, initial_mode=0, progress=None, replay="open", fold_offsets=false, response_from="issue", tail_s=0.0, lead_s=0.0, transition_seed=None, volume=None, threads=1, volume_part=None, timeline_s=None, max_volumes=None, references=true))]
#[allow(clippy::too_many_arguments)]
fn evaluate_file<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    format: &str,
    device: &Device,
    policies: Vec<PolicyArg>,
    base_power_w: f64,
    initial_mode: usize,
    progress: Option<&Progress>,
    replay: &str,
    fold_offsets: bool,
    response_from: &str,
    tail_s: f64,
    lead_s: f64,
    transition_seed: Option<u64>,
    volume: Option<i64>,
    threads: usize,
    volume_part: Option<(u32, u32)>,
    timeline_s: Option<(f64, f64)>,
    max_volumes: Option<usize>,
    references: bool,
) -> PyResult<Streamed<'py>> {
    let (specs, opts) = streamed_setup(py, &policies, fold_offsets, ReplayOptions { timeline_s, max_volumes, without_references: !references, ..replay_options(base_power_w, initial_mode, replay, response_from, tail_s, lead_s, transition_seed)? })?;
    let counter = progress.map(|p| Arc::clone(&p.done));
    let core_device = &device.inner;
    let done = py
        .allow_threads(|| idlewise_core::stream::evaluate_file(&path, format, core_device, &specs, &opts, volume, volume_part, threads, counter.as_deref()))
        .map_err(to_py_err);
    let done = raise_failures(py, &policies, done)?;
    streamed_list(py, done, core_device)
}

/// The specs and options of a streamed replay (a file read in chunks, or batches fed).
fn streamed_setup(py: Python<'_>, policies: &[PolicyArg], fold_offsets: bool, opts: ReplayOptions) -> PyResult<(Vec<PolicySpec>, ReplayOptions)> {
    let specs = python_policy::specs(py, policies)?;
    Ok((specs, ReplayOptions { fold_offsets, ..opts }))
}

/// A streamed evaluation as Python sees it: [(volume, records, reports)], records read, skipped,
/// and what the kept records were.
type Streamed<'py> = (Bound<'py, PyList>, u64, Vec<(String, u64)>, Bound<'py, PyDict>);

fn streamed_list<'py>(py: Python<'py>, done: idlewise_core::stream::StreamedEvaluation, device: &CoreDevice) -> PyResult<Streamed<'py>> {
    let volumes = PyList::empty_bound(py);
    for (id, records, reports) in done.volumes {
        volumes.append((id, records, reports_list(py, reports, device)?))?;
    }
    let kept = PyDict::new_bound(py);
    let k = done.summary;
    kept.set_item("records", k.records)?;
    kept.set_item("writes", k.writes)?;
    kept.set_item("zero_size", k.zero_size)?;
    kept.set_item("first_time_s", k.first_time_s)?;
    kept.set_item("last_time_s", k.last_time_s)?;
    Ok((volumes, done.records_read, done.skipped, kept))
}

/// Runs fed a trace's record batches in time order (a Parquet file read batch by batch), one
/// set per volume: `evaluate_file` for sources the engine does not read itself.
#[pyclass(module = "idlewise._core")]
struct StreamedRuns {
    inner: Option<idlewise_core::stream::StreamedRuns>,
    device: CoreDevice,
    /// Records fed (the next is numbered one on: a binary file's records are named by index).
    records: u64,
    /// The batch being fed, copied into the same memory batch after batch.
    batch: idlewise_core::readers::Columns,
    /// The policies as given (a Python policy's failure is raised after the batch it came in).
    policies: Vec<PolicyArg>,
}

#[pymethods]
impl StreamedRuns {
    #[new]
    #[pyo3(signature = (device, policies, base_power_w=0.0, initial_mode=0, replay="open", fold_offsets=false, response_from="issue", tail_s=0.0, lead_s=0.0, transition_seed=None, volume=None, threads=1, volume_part=None, timeline_s=None, keep_per_request=false, max_volumes=None, references=true, recording_start_s=None, positions="records"))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        device: &Device,
        policies: Vec<PolicyArg>,
        base_power_w: f64,
        initial_mode: usize,
        replay: &str,
        fold_offsets: bool,
        response_from: &str,
        tail_s: f64,
        lead_s: f64,
        transition_seed: Option<u64>,
        volume: Option<i64>,
        threads: usize,
        volume_part: Option<(u32, u32)>,
        timeline_s: Option<(f64, f64)>,
        keep_per_request: bool,
        max_volumes: Option<usize>,
        references: bool,
        recording_start_s: Option<f64>,
        positions: &str,
    ) -> PyResult<Self> {
        let positions = match positions {
            "records" => idlewise_core::stream::Positions::Records,
            "lines" => idlewise_core::stream::Positions::Lines,
            other => return Err(PyValueError::new_err(format!("positions must be 'records' or 'lines', got '{other}'"))),
        };
        let (specs, opts) = streamed_setup(
            py,
            &policies,
            fold_offsets,
            ReplayOptions { timeline_s, keep_per_request, max_volumes, without_references: !references, recording_start_s, ..replay_options(base_power_w, initial_mode, replay, response_from, tail_s, lead_s, transition_seed)? },
        )?;
        // A binary file's records are named by their index, a text file's by their lines (fed
        // with each batch).
        let mut inner = idlewise_core::stream::StreamedRuns::new(&device.inner, &specs, &opts, volume, threads, positions)
            .map_err(to_py_err)?;
        if let Some((index, of)) = volume_part {
            inner = inner.with_part(index, of).map_err(to_py_err)?;
        }
        Ok(StreamedRuns { inner: Some(inner), device: device.inner.clone(), records: 0, batch: Default::default(), policies })
    }

    /// Replays the next records (after every record fed before, in time order); `stream` is
    /// None for a single-device trace. Records are numbered on from the last batch's; `progress`
    /// counts them.
    #[pyo3(signature = (time_s, offset_bytes, size_bytes, is_write, stream=None, progress=None, original_time_s=None, service_s=None, lines=None))]
    #[allow(clippy::too_many_arguments)]
    fn feed(
        &mut self,
        py: Python<'_>,
        time_s: PyReadonlyArray1<'_, f64>,
        offset_bytes: PyReadonlyArray1<'_, i64>,
        size_bytes: PyReadonlyArray1<'_, i64>,
        is_write: PyReadonlyArray1<'_, u8>,
        stream: Option<PyReadonlyArray1<'_, i64>>,
        progress: Option<&Progress>,
        original_time_s: Option<PyReadonlyArray1<'_, f64>>,
        service_s: Option<PyReadonlyArray1<'_, f64>>,
        lines: Option<PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<()> {
        let runs = self.inner.as_mut().ok_or_else(|| IdlewiseError::new_err("these runs are finished"))?;
        let (t, o, s, w) = (time_s.as_slice()?, offset_bytes.as_slice()?, size_bytes.as_slice()?, is_write.as_slice()?);
        let v = match &stream {
            Some(v) => v.as_slice()?,
            None => &[],
        };
        if o.len() != t.len() || s.len() != t.len() || w.len() != t.len() || (stream.is_some() && v.len() != t.len()) {
            return Err(IdlewiseError::new_err("the columns of a batch must have the same length"));
        }
        let columns = &mut self.batch;
        columns.refill_from_records(t, o, s, w, v, self.records + 1);
        if let Some(original) = &original_time_s {
            let original = original.as_slice()?;
            if original.len() != t.len() {
                return Err(IdlewiseError::new_err("the columns of a batch must have the same length"));
            }
            columns.original_s.extend_from_slice(original);
        }
        if let Some(service) = &service_s {
            let service = service.as_slice()?;
            if service.len() != t.len() {
                return Err(IdlewiseError::new_err("the columns of a batch must have the same length"));
            }
            columns.service_s.extend_from_slice(service);
        }
        if let Some(lines) = &lines {
            let lines = lines.as_slice()?;
            if lines.len() != t.len() {
                return Err(IdlewiseError::new_err("the columns of a batch must have the same length"));
            }
            columns.positions.extend(lines.iter().map(|&l| l.max(0) as u64));
        }
        self.records += t.len() as u64;
        let stop = progress.map(|p| Arc::clone(&p.done));
        let fed = py.allow_threads(|| runs.feed(columns, stop.as_deref())).map_err(to_py_err);
        raise_failures(py, &self.policies, fed)?;
        if !idlewise_core::progress::advance(progress.map(|p| &*p.done), t.len() as u64) {
            return Err(to_py_err(Error::Stopped));
        }
        Ok(())
    }

    /// The per-request records kept since the last call (with `keep_per_request`): a list of
    /// (volume, run index in spec order, dict of `arrival_s`, `start_s`, `response_s` and
    /// `at_arrival` codes into `activity_labels`).
    fn take_per_request<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let runs = self.inner.as_mut().ok_or_else(|| IdlewiseError::new_err("these runs are finished"))?;
        let out = PyList::empty_bound(py);
        for (volume, run, records) in runs.take_per_request() {
            let d = PyDict::new_bound(py);
            d.set_item("arrival_s", PyArray1::from_vec_bound(py, records.arrival_s))?;
            d.set_item("start_s", PyArray1::from_vec_bound(py, records.start_s))?;
            d.set_item("response_s", PyArray1::from_vec_bound(py, records.response_s))?;
            let codes: Vec<u32> = records.at_arrival.iter().map(|&a| activity_code(&self.device, a)).collect();
            d.set_item("at_arrival", PyArray1::from_vec_bound(py, codes))?;
            d.set_item("activity_labels", activity_labels(&self.device))?;
            out.append((volume, run, d))?;
        }
        Ok(out)
    }

    /// Every volume's reports, as `evaluate_file` gives them; `skipped` adds what the caller
    /// skipped, (why, count).
    /// `recording_end_s`: where a recording whose runs began at `recording_start_s` ended.
    #[pyo3(signature = (skipped=Vec::new(), recording_end_s=None))]
    fn finish<'py>(&mut self, py: Python<'py>, skipped: Vec<(String, u64)>, recording_end_s: Option<f64>) -> PyResult<Streamed<'py>> {
        let mut runs = self.inner.take().ok_or_else(|| IdlewiseError::new_err("these runs are finished"))?;
        if let Some(end_s) = recording_end_s {
            runs.set_recording_end_s(end_s).map_err(to_py_err)?;
        }
        let done = py.allow_threads(|| runs.finish("records", self.records, skipped)).map_err(to_py_err);
        let done = raise_failures(py, &self.policies, done)?;
        streamed_list(py, done, &self.device)
    }
}

/// The replay options every engine takes, from their Python spellings.
fn replay_options(base_power_w: f64, initial_mode: usize, replay: &str, response_from: &str, tail_s: f64, lead_s: f64, transition_seed: Option<u64>) -> PyResult<ReplayOptions> {
    let mode = idlewise_core::ReplayMode::parse(replay)
        .ok_or_else(|| IdlewiseError::new_err(format!("replay must be 'open', 'closed' or 'sync', got '{replay}'")))?;
    let response_from = idlewise_core::ResponseFrom::parse(response_from)
        .ok_or_else(|| IdlewiseError::new_err(format!("response_from must be 'issue' or 'original', got '{response_from}'")))?;
    Ok(ReplayOptions { base_power_w, initial_mode, mode, response_from, tail_s, lead_s, transition_seed, ..Default::default() })
}

fn trace_with_original<'a>(trace: TraceView<'a>, original_time_s: Option<&'a PyReadonlyArray1<'_, f64>>) -> PyResult<TraceView<'a>> {
    match original_time_s {
        Some(original) => trace.with_original_s(original.as_slice()?).map_err(to_py_err),
        None => Ok(trace),
    }
}

/// Parses a size (`64MiB`, `100KB`, `4096`) into bytes; `inf` is None.
#[pyfunction]
fn parse_size_bytes(text: &str) -> PyResult<Option<u64>> {
    idlewise_core::units::parse_size_bytes(text).map_err(IdlewiseError::new_err)
}

/// Reads a hybrid disk description (TOML naming its disk and flash parts and sizes) into a dict.
#[pyfunction]
fn hybrid_description<'py>(py: Python<'py>, text: &str, origin: &str) -> PyResult<Bound<'py, PyDict>> {
    let h = HybridDescription::from_toml(text, origin).map_err(to_py_err)?;
    let d = PyDict::new_bound(py);
    d.set_item("name", &h.name)?;
    d.set_item("description", &h.description)?;
    d.set_item("source", &h.source)?;
    d.set_item("assumptions", &h.assumptions)?;
    d.set_item("disk", &h.disk)?;
    d.set_item("flash", &h.flash)?;
    d.set_item("nvcache_bytes", h.nvcache_bytes)?;
    d.set_item("dram_bytes", h.dram_bytes)?;
    d.set_item("flush_when", h.flush_when.map(FlushWhen::as_str))?;
    d.set_item("flush_algorithm", h.flush_algorithm.map(|a| a as u32))?;
    d.set_item("policy", &h.policy)?;
    Ok(d)
}

/// A hybrid disk fed a trace a part at a time in time order, once per configuration
/// `(nvcache_bytes or None, dram_bytes, flush_when, flush_algorithm)`, and the plain disk under
/// the same policy beside them: `idlewise hybrid` as a file is read, or a trace in memory fed
/// once. `finish` gives one dict per configuration, with the plain disk's figures.
#[pyclass(module = "idlewise._core")]
struct HybridRuns {
    inner: Option<idlewise_core::hybrid::HybridRuns>,
    disk: String,
    flash: String,
    /// The disk's policy as given (a Python policy's failure is raised after the call).
    policy: [PolicyArg; 1],
}

#[pymethods]
impl HybridRuns {
    #[new]
    #[pyo3(signature = (disk, flash, policy, configs, base_power_w=0.0, initial_mode=0, replay="open", response_from="issue", tail_s=0.0, lead_s=0.0, transition_seed=None, final_flush=false, recording_start_s=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        disk: &Device,
        flash: &Device,
        policy: PolicyArg,
        configs: Vec<(Option<u64>, u64, String, u32)>,
        base_power_w: f64,
        initial_mode: usize,
        replay: &str,
        response_from: &str,
        tail_s: f64,
        lead_s: f64,
        transition_seed: Option<u64>,
        final_flush: bool,
        recording_start_s: Option<f64>,
    ) -> PyResult<Self> {
        let spec = policy.spec(py)?;
        let ctx = idlewise_core::policy::BuildContext { base_power_w };
        let configs = configs
            .into_iter()
            .map(|(nvcache_bytes, dram_bytes, when, algorithm)| {
                let when = FlushWhen::parse(&when).map_err(|m| IdlewiseError::new_err(format!("flush_when {m}")))?;
                let algorithm = FlushAlgorithm::from_number(algorithm).map_err(|m| IdlewiseError::new_err(format!("flush_algorithm {m}")))?;
                Ok(HybridConfig { nvcache_bytes, dram_bytes, when, algorithm, final_flush })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let opts = ReplayOptions { recording_start_s, ..replay_options(base_power_w, initial_mode, replay, response_from, tail_s, lead_s, transition_seed)? };
        let policy = [policy];
        let made = py.allow_threads(|| idlewise_core::hybrid::HybridRuns::new(&disk.inner, &flash.inner, &spec, &ctx, &configs, &opts)).map_err(to_py_err);
        let inner = raise_failures(py, &policy, made)?;
        Ok(HybridRuns { inner: Some(inner), disk: disk.inner.name.clone(), flash: flash.inner.name.clone(), policy })
    }

    /// The next requests, after every one fed before; a bad record raises TraceRecordError with
    /// its index in this part.
    #[pyo3(signature = (time_s, offset_bytes, size_bytes, is_write, original_time_s=None))]
    fn feed(
        &mut self,
        py: Python<'_>,
        time_s: PyReadonlyArray1<'_, f64>,
        offset_bytes: PyReadonlyArray1<'_, i64>,
        size_bytes: PyReadonlyArray1<'_, i64>,
        is_write: PyReadonlyArray1<'_, u8>,
        original_time_s: Option<PyReadonlyArray1<'_, f64>>,
    ) -> PyResult<()> {
        let runs = self.inner.as_mut().ok_or_else(|| IdlewiseError::new_err("these runs are finished"))?;
        let part = trace_with_original(trace_view(&time_s, &offset_bytes, &size_bytes, &is_write)?, original_time_s.as_ref())?;
        let fed = py.allow_threads(|| runs.feed(&part)).map_err(to_py_err);
        raise_failures(py, &self.policy, fed)
    }

    /// One dict per configuration, in the order given. `recording_end_s`: where a recording whose
    /// runs began at `recording_start_s` ended.
    #[pyo3(signature = (recording_end_s=None))]
    fn finish<'py>(&mut self, py: Python<'py>, recording_end_s: Option<f64>) -> PyResult<Bound<'py, PyList>> {
        let mut runs = self.inner.take().ok_or_else(|| IdlewiseError::new_err("these runs are finished"))?;
        if let Some(end_s) = recording_end_s {
            runs.set_recording_end_s(end_s);
        }
        let finished = py.allow_threads(|| runs.finish()).map_err(to_py_err);
        let (plain, runs) = raise_failures(py, &self.policy, finished)?;
        let out = PyList::empty_bound(py);
        for (config, r) in &runs {
            let d = run_result_dict(py, &r.disk)?;
            d.set_item("disk", &self.disk)?;
            d.set_item("flash", &self.flash)?;
            d.set_item("nvcache_bytes", config.nvcache_bytes)?;
            d.set_item("dram_bytes", config.dram_bytes)?;
            d.set_item("flush_when", config.when.as_str())?;
            d.set_item("flush_algorithm", config.algorithm as u32)?;
            d.set_item("final_flush", config.final_flush)?;
            d.set_item("disk_energy_j", r.disk.energy_j)?;
            d.set_item("flash_energy_j", r.flash_energy_j)?;
            d.set_item("flash_busy_s", r.flash_busy_s)?;
            d.set_item("energy_j", r.energy_j)?;
            d.set_item("system_energy_j", r.disk.system_energy_j + r.flash_energy_j)?;
            d.set_item("spinups", r.disk.wakeups)?;
            d.set_item("writes_redirected", r.writes_redirected)?;
            d.set_item("bytes_redirected", r.bytes_redirected)?;
            d.set_item("bytes_superseded", r.bytes_superseded)?;
            d.set_item("bytes_written_to_disk", r.bytes_written_to_disk)?;
            d.set_item("reads_from_nvcache", r.reads_from_nvcache)?;
            d.set_item("reads_spinning_up", r.reads_spinning_up)?;
            d.set_item("flushes", r.flushes)?;
            d.set_item("flush_time_s", r.flush.time_s)?;
            d.set_item("flush_nvcache_time_s", r.flush.nvcache_time_s)?;
            d.set_item("flush_disk_time_s", r.flush.disk_time_s)?;
            d.set_item("flush_disk_ios", r.flush.disk_ios)?;
            d.set_item("flush_nvcache_reads", r.flush.nvcache_reads)?;
            d.set_item("merges", r.flush.merges)?;
            d.set_item("bytes_flushed", r.flush.bytes_flushed)?;
            d.set_item("flush_disk_bytes_written", r.flush.disk_bytes_written)?;
            d.set_item("flush_bytes_read", r.flush.bytes_read)?;
            d.set_item("bytes_unflushed", r.bytes_unflushed)?;
            d.set_item("max_bytes_cached_per_spindown", r.max_bytes_cached_per_spindown())?;
            d.set_item("bytes_cached_per_spindown", PyArray1::from_slice_bound(py, &r.bytes_cached_per_spindown))?;
            d.set_item("spindown_ends_s", PyArray1::from_slice_bound(py, &r.spindown_ends_s))?;
            d.set_item("flash_bytes_written", r.flash_bytes_written)?;
            d.set_item("plain_disk_energy_j", plain.energy_j)?;
            d.set_item("plain_disk_spinups", plain.wakeups)?;
            d.set_item("plain_disk_mean_response_s", plain.mean_response_s)?;
            d.set_item("energy_saved_j", plain.energy_j - r.energy_j)?;
            d.set_item("spinups_saved", plain.wakeups as i64 - r.disk.wakeups as i64)?;
            out.append(d)?;
        }
        Ok(out)
    }
}

/// One run's account as a dict (the keys of `simulate --json` that do not need references).
fn run_result_dict<'py>(py: Python<'py>, r: &idlewise_core::metrics::RunResult) -> PyResult<Bound<'py, PyDict>> {
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

/// Several devices on one clock behind seed 000's OS power manager, for application models
/// written in Python: register devices with their policies, query modes and costs, send requests
/// and ghost hints, register callbacks. Devices are named by the caller.
#[pyclass(module = "idlewise._core")]
struct System {
    pm: idlewise_core::system::power_manager::PowerManager<'static>,
    handles: std::collections::HashMap<String, idlewise_core::system::power_manager::DeviceHandle>,
    base_power_w: f64,
}

impl System {
    fn handle(&self, name: &str) -> PyResult<idlewise_core::system::power_manager::DeviceHandle> {
        self.handles.get(name).copied().filter(|h| self.pm.is_registered(*h)).ok_or_else(|| {
            let known: Vec<&String> = self.handles.keys().collect();
            IdlewiseError::new_err(format!("no registered device named '{name}'; registered: {known:?}"))
        })
    }

    fn mode(&self, name: &str, mode: &str) -> PyResult<usize> {
        let h = self.handle(name)?;
        self.pm.device(h).mode_index(mode).ok_or_else(|| IdlewiseError::new_err(format!("device '{name}' has no mode '{mode}'")))
    }
}

#[pymethods]
impl System {
    #[new]
    #[pyo3(signature = (base_power_w=0.0))]
    fn new(base_power_w: f64) -> PyResult<Self> {
        if !(base_power_w.is_finite() && base_power_w >= 0.0) {
            return Err(IdlewiseError::new_err(format!("base_power_w must be non-negative, got {base_power_w}")));
        }
        Ok(System { pm: Default::default(), handles: Default::default(), base_power_w })
    }

    /// `RegisterDevice`: adds a device under `name`, managed by `policy`, in `initial_mode`
    /// (default: its ready mode) from `start_s`.
    #[pyo3(signature = (name, device, policy, start_s=0.0, initial_mode=None))]
    fn register_device(&mut self, py: Python<'_>, name: &str, device: &Device, policy: PolicyArg, start_s: f64, initial_mode: Option<&str>) -> PyResult<()> {
        if self.handles.get(name).is_some_and(|h| self.pm.is_registered(*h)) {
            return Err(IdlewiseError::new_err(format!("a device named '{name}' is already registered")));
        }
        let built = build_policy(py, &policy, device, self.base_power_w)?;
        let initial = match initial_mode {
            None => 0,
            Some(m) => device.inner.mode_index(m).ok_or_else(|| IdlewiseError::new_err(format!("device '{}' has no mode '{m}'", device.inner.name)))?,
        };
        let opts = ReplayOptions { initial_mode: initial, ..Default::default() };
        let sim = idlewise_core::device_sim::DeviceSim::new(std::sync::Arc::new(device.inner.clone()), built, &opts, start_s, 0);
        let h = self.pm.register_device(sim);
        self.handles.insert(name.to_string(), h);
        Ok(())
    }

    /// `DeregisterDevice`: removes the device and returns its account up to `end_s`.
    fn deregister_device<'py>(&mut self, py: Python<'py>, name: &str, end_s: f64) -> PyResult<Bound<'py, PyDict>> {
        let h = self.handle(name)?;
        let run = self.pm.deregister_device(h, end_s).expect("registered");
        run_result_dict(py, &run)
    }

    /// `QueryNumModes`.
    fn query_num_modes(&self, name: &str) -> PyResult<usize> {
        Ok(self.pm.query_num_modes(self.handle(name)?))
    }

    /// `QueryModeInfo`: name, power and whether the mode serves requests.
    fn query_mode_info<'py>(&self, py: Python<'py>, name: &str, mode: usize) -> PyResult<Bound<'py, PyDict>> {
        let h = self.handle(name)?;
        if mode >= self.pm.query_num_modes(h) {
            return Err(IdlewiseError::new_err(format!("device '{name}' has no mode {mode}")));
        }
        let info = self.pm.query_mode_info(h, mode);
        let d = PyDict::new_bound(py);
        d.set_item("name", info.name)?;
        d.set_item("power_w", info.power_w)?;
        d.set_item("serves", info.serves)?;
        Ok(d)
    }

    /// `QueryTransitionCost`: (time_s, energy_j) between two modes by name, or None.
    fn query_transition_cost(&self, name: &str, from_mode: &str, to_mode: &str) -> PyResult<Option<(f64, f64)>> {
        let h = self.handle(name)?;
        let (a, b) = (self.mode(name, from_mode)?, self.mode(name, to_mode)?);
        Ok(self.pm.query_transition_cost(h, a, b).map(|c| (c.time_s, c.energy_j)))
    }

    /// `QueryCurrentMode` at time `t`: a dict with `state` ("busy", "mode" or "transition") and
    /// the mode names involved.
    fn query_current_mode<'py>(&mut self, py: Python<'py>, name: &str, t: f64) -> PyResult<Bound<'py, PyDict>> {
        use idlewise_core::device_sim::DeviceState;
        let h = self.handle(name)?;
        let device = self.pm.device(h);
        let d = PyDict::new_bound(py);
        match self.pm.query_current_mode(h, t) {
            DeviceState::Busy { until_s } => {
                d.set_item("state", "busy")?;
                d.set_item("mode", &device.modes[0].name)?;
                d.set_item("until_s", until_s)?;
            }
            DeviceState::Mode { mode } => {
                d.set_item("state", "mode")?;
                d.set_item("mode", &device.modes[mode].name)?;
            }
            DeviceState::Transition { from, to, end_s } => {
                d.set_item("state", "transition")?;
                d.set_item("mode", &device.modes[to].name)?;
                d.set_item("from", &device.modes[from].name)?;
                d.set_item("until_s", end_s)?;
            }
        }
        Ok(d)
    }

    /// `RegisterCallback`: be told (by `notify`) when the device next enters `mode`.
    fn register_callback(&mut self, name: &str, mode: &str) -> PyResult<()> {
        let (h, m) = (self.handle(name)?, self.mode(name, mode)?);
        self.pm.register_callback(h, m);
        Ok(())
    }

    /// `Notify`: the device entered `mode`; returns whether a callback was waiting for it.
    fn notify(&mut self, name: &str, mode: &str) -> PyResult<bool> {
        let (h, m) = (self.handle(name)?, self.mode(name, mode)?);
        Ok(self.pm.notify(h, m))
    }

    /// Serves one request on the device (FIFO) and returns its finish time.
    #[pyo3(signature = (name, t, size_bytes, write=false, offset_bytes=0.0))]
    fn request(&mut self, name: &str, t: f64, size_bytes: f64, write: bool, offset_bytes: f64) -> PyResult<f64> {
        if !(t.is_finite() && size_bytes.is_finite() && size_bytes >= 0.0) {
            return Err(IdlewiseError::new_err(format!("request needs a finite time and a non-negative size, got t={t}, size={size_bytes}")));
        }
        let h = self.handle(name)?;
        Ok(self.pm.sim(h).request(t, size_bytes, write, offset_bytes))
    }

    /// Wakes the device at `t` without a request; returns when it is ready.
    fn wake(&mut self, name: &str, t: f64) -> PyResult<f64> {
        let h = self.handle(name)?;
        Ok(self.pm.sim(h).wake(t))
    }

    /// Sends a ghost hint with a knob-weighted `benefit`; returns the ready time if the device's
    /// policy woke it, else None.
    fn ghost_hint(&mut self, name: &str, t: f64, benefit: f64) -> PyResult<Option<f64>> {
        let h = self.handle(name)?;
        Ok(self.pm.sim(h).ghost_hint(t, benefit))
    }

    /// Time the device's server is free.
    fn free_at(&mut self, name: &str) -> PyResult<f64> {
        let h = self.handle(name)?;
        Ok(self.pm.sim(h).free_at())
    }
}

/// Runs an application trace on a storage device and an optional network device (seed 000).
#[pyfunction]
#[pyo3(signature = (time_s, object, size_bytes, op, cached, storage, storage_policy, network=None, network_policy=None,
                    knob=50.0, base_power_w=1.44, io_cpu_power_w=idlewise_core::system::SEED000_IO_CPU_POWER_W, adaptive=true,
                    ghost_hints=true, write_queue_cap_bytes=4194304.0, closed_loop=true, storage_initial_mode=0,
                    network_initial_mode=0))]
#[allow(clippy::too_many_arguments)]
fn run_system<'py>(
    py: Python<'py>,
    time_s: PyReadonlyArray1<'py, f64>,
    object: PyReadonlyArray1<'py, u64>,
    size_bytes: PyReadonlyArray1<'py, f64>,
    op: PyReadonlyArray1<'py, u8>,
    cached: PyReadonlyArray1<'py, u8>,
    storage: &Device,
    storage_policy: &str,
    network: Option<&Device>,
    network_policy: Option<&str>,
    knob: f64,
    base_power_w: f64,
    io_cpu_power_w: f64,
    adaptive: bool,
    ghost_hints: bool,
    write_queue_cap_bytes: f64,
    closed_loop: bool,
    storage_initial_mode: usize,
    network_initial_mode: usize,
) -> PyResult<Bound<'py, PyDict>> {
    use idlewise_core::system::{self, AppEvent, AppOp, SystemConfig};
    let (t, o, s, w, c) = (time_s.as_slice()?, object.as_slice()?, size_bytes.as_slice()?, op.as_slice()?, cached.as_slice()?);
    let n = t.len();
    if [o.len(), s.len(), w.len(), c.len()].iter().any(|&len| len != n) {
        return Err(IdlewiseError::new_err("application trace columns have different lengths"));
    }
    let events: Vec<AppEvent> = (0..n)
        .map(|i| {
            let op = match w[i] {
                0 => AppOp::Read,
                1 => AppOp::Write,
                2 => AppOp::Delete,
                3 => AppOp::Rename,
                other => return Err(TraceRecordError::new_err((format!("unknown operation code {other}"), i, "op".to_string()))),
            };
            Ok(AppEvent { time_s: t[i], object: o[i], size_bytes: s[i], op, cached: c[i] != 0 })
        })
        .collect::<PyResult<_>>()?;
    let storage_spec = PolicySpec::parse(storage_policy).map_err(to_py_err)?;
    let network_spec = match (network, network_policy) {
        (Some(_), Some(p)) => Some(PolicySpec::parse(p).map_err(to_py_err)?),
        (Some(_), None) => return Err(IdlewiseError::new_err("a network device needs a network policy")),
        _ => None,
    };
    let cfg = SystemConfig { knob, base_power_w, io_cpu_power_w, adaptive, ghost_hints, write_queue_cap_bytes, closed_loop, storage_initial_mode, network_initial_mode };
    let storage_device = &storage.inner;
    let network_pair = network.map(|d| &d.inner).zip(network_spec.as_ref());
    let r = py
        .allow_threads(|| system::run_system(&events, (storage_device, &storage_spec), network_pair, &cfg))
        .map_err(to_py_err)?;
    let d = PyDict::new_bound(py);
    for (key, value) in [
        ("requests", r.requests as f64),
        ("makespan_s", r.makespan_s),
        ("execution_time_s", r.makespan_s),
        ("mean_response_s", r.mean_response_s),
        ("p95_response_s", r.p95_response_s),
        ("max_response_s", r.max_response_s),
        ("energy_j", r.energy_j),
        ("storage_energy_j", r.storage_energy_j),
        ("network_energy_j", r.network_energy_j),
        ("base_energy_j", r.base_energy_j),
        ("io_cpu_energy_j", r.io_cpu_energy_j),
        ("energy_lower_bound_j", r.energy_lower_bound_j),
    ] {
        d.set_item(key, value)?;
    }
    d.set_item("requests", r.requests)?;
    for (key, value) in [
        ("storage_reads", r.counters.storage_reads),
        ("network_reads", r.counters.network_reads),
        ("uploads", r.uploads),
        ("ghost_hints", r.ghost_hints),
        ("disk_ghost_hints", r.counters.disk_hints),
        ("network_ghost_hints", r.counters.network_hints),
        ("spin_ups", r.spin_ups),
        ("hint_spin_ups", r.hint_spin_ups),
        ("writes_queued", r.counters.writes_queued),
        ("writes_flushed", r.counters.writes_flushed),
        ("forced_flushes", r.counters.forced_flushes),
        ("writes_pending_at_end", r.writes_pending_at_end),
    ] {
        d.set_item(key, value)?;
    }
    let modes = |run: &idlewise_core::metrics::RunResult| -> PyResult<Bound<'py, PyDict>> {
        let m = PyDict::new_bound(py);
        for (i, name) in run.mode_names.iter().enumerate() {
            m.set_item(name, run.time_by_mode_s[i])?;
        }
        Ok(m)
    };
    d.set_item("storage_policy", &r.storage.policy)?;
    d.set_item("storage_time_by_mode_s", modes(&r.storage)?)?;
    if let Some(net) = &r.network {
        d.set_item("network_policy", &net.policy)?;
        d.set_item("network_time_by_mode_s", modes(net)?)?;
        d.set_item("network_transitions", net.transition_counts.iter().map(|(a, b, c)| (format!("{a}->{b}"), *c)).collect::<Vec<_>>())?;
    }
    Ok(d)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("MAX_LINE_BYTES", idlewise_core::readers::MAX_LINE_BYTES)?;
    m.add_class::<Device>()?;
    m.add_class::<InputFile>()?;
    m.add_class::<Progress>()?;
    m.add_class::<System>()?;
    m.add_class::<StreamedRuns>()?;
    m.add_class::<HybridRuns>()?;
    m.add_class::<TextBatches>()?;
    m.add_class::<IdleGapStream>()?;
    m.add_class::<LiveDisk>()?;
    m.add_class::<python_policy::PythonPolicy>()?;
    m.add_class::<python_policy::Request>()?;
    m.add("PolicyError", m.py().get_type_bound::<python_policy::PolicyError>())?;
    m.add("SEED000_IO_CPU_POWER_W", idlewise_core::system::SEED000_IO_CPU_POWER_W)?;
    m.add_function(wrap_pyfunction!(validate_trace, m)?)?;
    m.add_function(wrap_pyfunction!(parse_duration_s, m)?)?;
    m.add_function(wrap_pyfunction!(policy_columns, m)?)?;
    m.add_function(wrap_pyfunction!(trace_formats, m)?)?;
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
