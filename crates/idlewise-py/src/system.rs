//! Several devices on one clock (seed 000): the power manager, the cache and ghost hints.

use super::*;

/// Several devices on one clock behind seed 000's OS power manager, for application models
/// written in Python: register devices with their policies, query modes and costs, send requests
/// and ghost hints, register callbacks. Devices are named by the caller.
#[pyclass(module = "idlewise._core")]
pub(crate) struct System {
    pub(crate) pm: idlewise_core::system::power_manager::PowerManager<'static>,
    pub(crate) handles: std::collections::HashMap<String, idlewise_core::system::power_manager::DeviceHandle>,
    pub(crate) base_power_w: f64,
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
pub(crate) fn run_system<'py>(
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
