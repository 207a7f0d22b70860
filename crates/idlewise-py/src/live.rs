//! The live manager's model of a disk (`LiveDisk`): the same `DeviceSim` a replay runs, fed the
//! drive's own I/O counters.

use super::*;

/// One device managed live (`idlewise manage`): the replay's own device model and policy, fed
/// observed I/O, asked what the policy has decided by now (`idlewise_core::live`). Decisions are
/// dicts: `time_s` (when the model makes the change), `from_mode`, `to_mode` (mode names),
/// `cause` (`plan`, `access`, `hint` or `outside`) and `reason` (for a person).
#[pyclass(module = "idlewise._core", unsendable)]
pub(crate) struct LiveDisk {
    pub(crate) inner: Option<idlewise_core::live::LiveDisk>,
    pub(crate) policy: String,
    /// The policy as given (a Python policy's failure is raised after the call it happened in).
    pub(crate) given: [PolicyArg; 1],
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
        // (`!(later >= earlier)`, not `later < earlier`: a NaN fails it.)
        #[allow(clippy::neg_cmp_op_on_partial_ord)]
        let out_of_order = a.windows(2).any(|p| !(p[1] >= p[0]));
        if out_of_order || a.iter().any(|t| !t.is_finite()) || s.iter().any(|x| !(x.is_finite() && *x >= 0.0))
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
        if !((0.0..=100.0).contains(&knob) && size_bytes.is_finite() && size_bytes >= 0.0) {
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
