//! Trace input: files opened once (`InputFile`), text parsed by the engine (`read_text`,
//! `TextBatches`), the formats' table, validation and idle gaps.

use super::*;

/// A trace file's bytes as the formats read them, decompressed where it is compressed (gzip,
/// zstd, bzip2, xz, by magic bytes): `read(n)` for Python's readers and format detection, so
/// one opener serves the engine and them alike (`idlewise.traces.inputs` wraps it as a file).
#[pyclass(module = "idlewise._core")]
pub(crate) struct InputFile {
    pub(crate) reader: Option<Box<dyn std::io::Read + Send>>,
    #[pyo3(get)]
    pub(crate) compression: &'static str,
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

/// `--format auto`: the format of a file whose first (up to 65,536, decompressed) bytes are
/// `head` (`idlewise_core::readers::detect`), or why none is (an error message naming `path`):
/// `(format, None)` or `(None, message)`.
#[pyfunction]
pub(crate) fn detect_trace_format(head: &[u8], path: &str) -> (Option<&'static str>, Option<String>) {
    match idlewise_core::readers::detect::format_of_head(head, path) {
        Ok(format) => (Some(format), None),
        Err(message) => (None, Some(message)),
    }
}

/// The trace formats' table (`idlewise_core::readers::table`): one dict per format, in the order
/// `idlewise trace formats` lists them.
#[pyfunction]
pub(crate) fn trace_formats(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
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

/// A Linux device's stream number, as the engine's readers key devices
/// (`idlewise_core::readers::makedev`); `None` for a part out of range.
#[pyfunction]
pub(crate) fn makedev(major: i64, minor: i64) -> Option<i64> {
    ((0..1 << 31).contains(&major) && (0..1 << 32).contains(&minor)).then(|| idlewise_core::readers::makedev(major, minor))
}

/// Reads a text trace file in a named format into columns (a dict of numpy arrays, `skipped` as
/// (reason, count) pairs, `records_read`). Raises IdlewiseError with the line and field; the
/// caller adds the file's name. The GIL is released while the file is parsed; `progress`
/// counts the bytes read.
#[pyfunction]
#[pyo3(signature = (path, format, progress=None))]
pub(crate) fn read_text<'py>(py: Python<'py>, path: std::path::PathBuf, format: &str, progress: Option<&Progress>) -> PyResult<Bound<'py, PyDict>> {
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
pub(crate) struct TextBatches {
    // In a mutex so that the receiving can happen with the GIL released (a receiver is Send, not Sync).
    pub(crate) chunks: Option<std::sync::Mutex<std::sync::mpsc::Receiver<idlewise_core::readers::Columns>>>,
    pub(crate) reader: Option<std::thread::JoinHandle<(Result<(), String>, idlewise_core::readers::Columns)>>,
    #[pyo3(get)]
    pub(crate) records_read: u64,
    #[pyo3(get)]
    pub(crate) skipped: Vec<(String, u64)>,
}

pub(crate) type Batch<'py> = (
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
pub(crate) fn validate_trace(
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
pub(crate) fn idle_gaps<'py>(
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

/// The idle gaps of an always-on device on a trace fed a part at a time (`idle_gaps` of a file
/// as it is read): `feed` gives the gaps that ended in the part, `finish` the rest.
#[pyclass(module = "idlewise._core")]
pub(crate) struct IdleGapStream {
    pub(crate) inner: idlewise_core::replay::IdleGapStream,
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
