//! A device model as Python sees it (`Device`), and the units a device file's values are read in.

use super::*;

/// A validated device model.
#[pyclass(module = "idlewise._core", frozen)]
pub(crate) struct Device {
    pub(crate) inner: CoreDevice,
}

pub(crate) fn provenance<'py>(py: Python<'py>, dict: &Bound<'py, PyDict>, p: &Provenance) -> PyResult<()> {
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

/// Parses a duration with its unit (`500ms`, `2s`, `1.5min`) into seconds: the engine's parser,
/// so policy specs, transforms and sweep ranges read durations the same way.
#[pyfunction]
pub(crate) fn parse_duration_s(text: &str) -> PyResult<f64> {
    idlewise_core::units::parse_duration_s(text).map_err(IdlewiseError::new_err)
}

#[pyfunction]
pub(crate) fn parse_power_w(text: &str) -> PyResult<f64> {
    idlewise_core::units::parse_power_w(text).map_err(IdlewiseError::new_err)
}

/// Parses a size (`64MiB`, `100KB`, `4096`) into bytes; `inf` is None.
#[pyfunction]
pub(crate) fn parse_size_bytes(text: &str) -> PyResult<Option<u64>> {
    idlewise_core::units::parse_size_bytes(text).map_err(IdlewiseError::new_err)
}
