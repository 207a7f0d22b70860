//! Hybrid disks (seed 003): a hybrid description, its policies, and runs fed batch by batch.

use super::*;

/// As `check_policy`, and the policy must suit a hybrid disk (online: no gap lengths read ahead).
#[pyfunction]
#[pyo3(signature = (spec, device, base_power_w=0.0))]
pub(crate) fn check_hybrid_policy(py: Python<'_>, spec: PolicyArg, device: &Device, base_power_w: f64) -> PyResult<()> {
    idlewise_core::hybrid::check_policy(build_policy(py, &spec, device, base_power_w)?.as_ref()).map_err(to_py_err)
}

/// Reads a hybrid disk description (TOML naming its disk and flash parts and sizes) into a dict.
#[pyfunction]
pub(crate) fn hybrid_description<'py>(py: Python<'py>, text: &str, origin: &str) -> PyResult<Bound<'py, PyDict>> {
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
pub(crate) struct HybridRuns {
    pub(crate) inner: Option<idlewise_core::hybrid::HybridRuns>,
    pub(crate) disk: String,
    pub(crate) flash: String,
    /// The disk's policy as given (a Python policy's failure is raised after the call).
    pub(crate) policy: [PolicyArg; 1],
}

#[pymethods]
impl HybridRuns {
    #[new]
    #[pyo3(signature = (disk, flash, policy, configs, options, final_flush=false))]
    fn new(
        py: Python<'_>,
        disk: &Device,
        flash: &Device,
        policy: PolicyArg,
        configs: Vec<(Option<u64>, u64, String, u32)>,
        options: &Options,
        final_flush: bool,
    ) -> PyResult<Self> {
        let spec = policy.spec(py)?;
        let opts = &options.inner;
        let ctx = idlewise_core::policy::BuildContext { base_power_w: opts.base_power_w };
        let configs = configs
            .into_iter()
            .map(|(nvcache_bytes, dram_bytes, when, algorithm)| {
                let when = FlushWhen::parse(&when).map_err(|m| IdlewiseError::new_err(format!("flush_when {m}")))?;
                let algorithm = FlushAlgorithm::from_number(algorithm).map_err(|m| IdlewiseError::new_err(format!("flush_algorithm {m}")))?;
                Ok(HybridConfig { nvcache_bytes, dram_bytes, when, algorithm, final_flush })
            })
            .collect::<PyResult<Vec<_>>>()?;
        let policy = [policy];
        let made = py.allow_threads(|| idlewise_core::hybrid::HybridRuns::new(&disk.inner, &flash.inner, &spec, &ctx, &configs, opts)).map_err(to_py_err);
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
