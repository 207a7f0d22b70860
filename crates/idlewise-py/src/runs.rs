//! Replays: a trace in memory (`evaluate`), a file read by the engine (`evaluate_file`) and
//! batches fed from Python (`StreamedRuns`).

use super::*;

/// Replays the trace under each policy (plus the always-on and oracle references) and returns
/// the runs as columns (`reports_columns`), one run per policy.
#[pyfunction]
#[pyo3(signature = (time_s, offset_bytes, size_bytes, is_write, device, policies, options, progress=None, original_time_s=None, service_s=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate<'py>(
    py: Python<'py>,
    time_s: PyReadonlyArray1<'py, f64>,
    offset_bytes: PyReadonlyArray1<'py, i64>,
    size_bytes: PyReadonlyArray1<'py, i64>,
    is_write: PyReadonlyArray1<'py, u8>,
    device: &Device,
    policies: Vec<PolicyArg>,
    options: &Options,
    progress: Option<&Progress>,
    original_time_s: Option<PyReadonlyArray1<'py, f64>>,
    service_s: Option<PyReadonlyArray1<'py, f64>>,
) -> PyResult<Bound<'py, PyList>> {
    let specs = policies::specs(py, &policies)?;
    let trace = trace_with_original(trace_view(&time_s, &offset_bytes, &size_bytes, &is_write)?, original_time_s.as_ref())?;
    let trace = match service_s.as_ref() {
        Some(observed) => trace.with_observed_service_s(observed.as_slice()?).map_err(to_py_err)?,
        None => trace,
    };
    let (opts, threads) = (options.inner.clone(), options.threads);
    let counter = progress.map(|p| Arc::clone(&p.done));
    let core_device = &device.inner;
    let reports = py.allow_threads(|| idlewise_core::evaluate_on(&trace, core_device, &specs, &opts, counter.as_deref(), threads)).map_err(to_py_err);
    let reports = raise_failures(py, &policies, reports)?;
    reports_columns(py, reports, core_device)
}

/// " (did you mean 'X'?)" for the known name closest to a mistyped one, or "" (one home for
/// every face's suggestions: policies, parameters and modes in the engine, devices in Python).
#[pyfunction]
pub(crate) fn did_you_mean(word: &str, known: Vec<String>) -> String {
    idlewise_core::error::did_you_mean(word, known.iter().map(|k| k.as_str()))
}

/// Replays a text trace file read in chunks (memory bounded by a chunk's, whatever the trace's
/// length), every volume through its own runs. Returns what `streamed_list` makes.
#[pyfunction]
#[pyo3(signature = (path, format, device, policies, options, progress=None, volume=None, volume_part=None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn evaluate_file<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
    format: &str,
    device: &Device,
    policies: Vec<PolicyArg>,
    options: &Options,
    progress: Option<&Progress>,
    volume: Option<i64>,
    volume_part: Option<(u32, u32)>,
) -> PyResult<Streamed<'py>> {
    let specs = policies::specs(py, &policies)?;
    let (opts, threads) = (options.inner.clone(), options.threads);
    let counter = progress.map(|p| Arc::clone(&p.done));
    let core_device = &device.inner;
    let done = py
        .allow_threads(|| idlewise_core::stream::evaluate_file(&path, format, core_device, &specs, &opts, volume, volume_part, threads, counter.as_deref()))
        .map_err(to_py_err);
    let done = raise_failures(py, &policies, done)?;
    streamed_list(py, done, core_device)
}

/// A streamed evaluation as Python sees it: [(volume, records, runs)], the runs of every volume
/// one after another as columns (`reports_columns`), records read, skipped, and what the kept
/// records were. (One set of columns for all the volumes: a trace of 100,000 devices made as
/// many sets, each of some fifty arrays.)
pub(crate) type Streamed<'py> = (Bound<'py, PyList>, Bound<'py, PyList>, u64, Vec<(String, u64)>, Bound<'py, PyDict>);

pub(crate) fn streamed_list<'py>(py: Python<'py>, done: idlewise_core::stream::StreamedEvaluation, device: &CoreDevice) -> PyResult<Streamed<'py>> {
    let volumes = PyList::empty_bound(py);
    for (id, records, runs) in done.volumes {
        volumes.append((id, records, runs))?;
    }
    let columns = table_columns(py, done.runs, device)?;
    let kept = PyDict::new_bound(py);
    let k = done.summary;
    kept.set_item("records", k.records)?;
    kept.set_item("writes", k.writes)?;
    kept.set_item("zero_size", k.zero_size)?;
    kept.set_item("first_time_s", k.first_time_s)?;
    kept.set_item("last_time_s", k.last_time_s)?;
    Ok((volumes, columns, done.records_read, done.skipped, kept))
}

/// Runs fed a trace's record batches in time order (a Parquet file read batch by batch), one
/// set per volume: `evaluate_file` for sources the engine does not read itself.
#[pyclass(module = "idlewise._core")]
pub(crate) struct StreamedRuns {
    pub(crate) inner: Option<idlewise_core::stream::StreamedRuns>,
    pub(crate) device: CoreDevice,
    /// Records fed (the next is numbered one on: a binary file's records are named by index).
    pub(crate) records: u64,
    /// The batch being fed, copied into the same memory batch after batch.
    pub(crate) batch: idlewise_core::readers::Columns,
    /// The policies as given (a Python policy's failure is raised after the batch it came in).
    pub(crate) policies: Vec<PolicyArg>,
}

#[pymethods]
impl StreamedRuns {
    #[new]
    #[pyo3(signature = (device, policies, options, volume=None, volume_part=None, positions="records"))]
    fn new(
        py: Python<'_>,
        device: &Device,
        policies: Vec<PolicyArg>,
        options: &Options,
        volume: Option<i64>,
        volume_part: Option<(u32, u32)>,
        positions: &str,
    ) -> PyResult<Self> {
        let positions = match positions {
            "records" => idlewise_core::stream::Positions::Records,
            "lines" => idlewise_core::stream::Positions::Lines,
            other => return Err(PyValueError::new_err(format!("positions must be 'records' or 'lines', got '{other}'"))),
        };
        let specs = policies::specs(py, &policies)?;
        let (opts, threads) = (&options.inner, options.threads);
        // A binary file's records are named by their index, a text file's by their lines (fed
        // with each batch).
        let mut inner = idlewise_core::stream::StreamedRuns::new(&device.inner, &specs, opts, volume, threads, positions)
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
            for (key, array) in ["arrival_s", "start_s", "response_s", "at_arrival"].into_iter().zip(per_request_arrays(py, records, &self.device)) {
                d.set_item(key, array)?;
            }
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
/// A replay's options as one object: built once from keywords (Python builds it in
/// `idlewise.options.ReplayOptions.engine`) and handed whole to `evaluate`, `evaluate_file` and
/// `StreamedRuns`, so that a new option is a field here and a keyword there, not five signatures.
#[pyclass(module = "idlewise._core", name = "ReplayOptions", frozen)]
#[derive(Clone)]
pub(crate) struct Options {
    pub(crate) inner: ReplayOptions,
    /// Threads the replay may use.
    pub(crate) threads: usize,
}

#[pymethods]
impl Options {
    #[new]
    #[pyo3(signature = (*, base_power_w=0.0, initial_mode=0, replay="open", response_from="issue", tail_s=0.0, lead_s=0.0, transition_seed=None, fold_offsets=false, keep_per_request=false, timeline_s=None, references=true, max_volumes=None, recording_start_s=None, threads=1))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        base_power_w: f64,
        initial_mode: usize,
        replay: &str,
        response_from: &str,
        tail_s: f64,
        lead_s: f64,
        transition_seed: Option<u64>,
        fold_offsets: bool,
        keep_per_request: bool,
        timeline_s: Option<(f64, f64)>,
        references: bool,
        max_volumes: Option<usize>,
        recording_start_s: Option<f64>,
        threads: usize,
    ) -> PyResult<Self> {
        let mode = idlewise_core::ReplayMode::parse(replay)
            .ok_or_else(|| IdlewiseError::new_err(format!("replay must be 'open', 'closed' or 'sync', got '{replay}'")))?;
        let response_from = idlewise_core::ResponseFrom::parse(response_from)
            .ok_or_else(|| IdlewiseError::new_err(format!("response_from must be 'issue' or 'original', got '{response_from}'")))?;
        let inner = ReplayOptions {
            base_power_w,
            initial_mode,
            mode,
            response_from,
            tail_s,
            lead_s,
            transition_seed,
            fold_offsets,
            keep_per_request,
            timeline_s,
            without_references: !references,
            max_volumes,
            recording_start_s,
            ..Default::default()
        };
        Ok(Options { inner, threads })
    }

    fn __repr__(&self) -> String {
        format!("ReplayOptions({:?}, threads={})", self.inner, self.threads)
    }
}
