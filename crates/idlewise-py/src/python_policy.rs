//! Policies written in Python (`idlewise.Policy`): the engine's [`Policy`] over a Python object,
//! made fresh for every run by a factory the Python face hands over, and called only for the
//! hooks the object defines (a policy that defines only `plan` costs one call an idle period).
//!
//! The engine runs with the GIL released; each call takes it back. A call that raises records
//! the first failure of the policy (its exception, with the policy's own traceback, and where the
//! run was) and leaves the run to finish as always-on, unobserved; the binding then raises it in
//! place of the results ([`raise_failures`]), so nothing is returned half-made.

use std::sync::{Arc, Mutex};

use idlewise_core::device::{Device as CoreDevice, READY};
use idlewise_core::error::{Error, Result};
use idlewise_core::policy::{Arrival, BuildContext, GapStart, Plan, Policy, PolicyMaker, PolicySpec};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PySequence, PyString};

use crate::policies::PolicyArg;
use crate::IdlewiseError;

pyo3::create_exception!(_core, PolicyError, IdlewiseError, "A policy written in Python failed: the cause is its own exception.");

/// One policy written in Python, as the Python face hands it to the engine: a factory of fresh
/// policy objects (each run, each device, its own), its name and family, and its hooks.
#[pyclass(module = "idlewise._core", frozen)]
pub struct PythonPolicy {
    factory: Py<PyAny>,
    #[pyo3(get)]
    name: String,
    #[pyo3(get)]
    family: String,
    hooks: Hooks,
    failure: Arc<Mutex<Option<Failure>>>,
}

/// Which of the optional hooks the policy's class defines.
#[derive(Debug, Clone, Copy, Default)]
struct Hooks {
    observe: bool,
    idle_ended: bool,
    hint: bool,
    offline: bool,
}

/// The first failure of a policy: its exception and where the run was.
struct Failure {
    error: PyErr,
    context: String,
}

#[pymethods]
impl PythonPolicy {
    /// `factory()` makes a fresh policy object; `observe`, `idle_ended`, `hint`: the object
    /// defines those hooks; `offline`: its `plan(now_s, gap_s)` is told each idle period's length.
    #[new]
    #[pyo3(signature = (factory, name, family, observe=false, idle_ended=false, hint=false, offline=false))]
    fn new(factory: Py<PyAny>, name: String, family: String, observe: bool, idle_ended: bool, hint: bool, offline: bool) -> PyResult<Self> {
        // The engine's own checks of a name, here so a bad one fails where it is given.
        PolicySpec::external(&name, &family, Arc::new(NeverMade)).map_err(crate::to_py_err)?;
        Ok(PythonPolicy { factory, name, family, hooks: Hooks { observe, idle_ended, hint, offline }, failure: Arc::default() })
    }

    fn __repr__(&self) -> String {
        format!("<python policy {}>", self.name)
    }
}

impl PythonPolicy {
    /// The engine's spec of this policy: its maker, which makes each run's policy object.
    pub(crate) fn spec(&self, py: Python<'_>) -> PyResult<PolicySpec> {
        let maker = Maker { factory: self.factory.clone_ref(py), name: self.name.clone(), hooks: self.hooks, failure: Arc::clone(&self.failure) };
        PolicySpec::external(&self.name, &self.family, Arc::new(maker)).map_err(crate::to_py_err)
    }
}

/// Stands in for a maker where only the name is checked.
struct NeverMade;

impl PolicyMaker for NeverMade {
    fn make(&self, _device: &CoreDevice, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
        unreachable!("only the spec's name is checked")
    }
}

/// Makes each run's policy object.
struct Maker {
    factory: Py<PyAny>,
    name: String,
    hooks: Hooks,
    failure: Arc<Mutex<Option<Failure>>>,
}

impl PolicyMaker for Maker {
    fn make(&self, device: &CoreDevice, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
        let object = Python::with_gil(|py| self.factory.call0(py)).map_err(|e| {
            let message = Python::with_gil(|py| error_text(py, &e));
            Error::PolicySpec { spec: self.name.clone(), message: format!("making the policy failed: {message}") }
        })?;
        Ok(Box::new(PythonRun {
            object,
            name: self.name.clone(),
            hooks: self.hooks,
            modes: device.modes.iter().map(|m| m.name.clone()).collect(),
            failure: Arc::clone(&self.failure),
            failed: false,
            requests: 0,
            seen_modes: Vec::new(),
        }))
    }
}

/// `Type: message` of a Python exception.
fn error_text(py: Python<'_>, e: &PyErr) -> String {
    let kind = e.get_type_bound(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "Exception".into());
    format!("{kind}: {}", e.value_bound(py))
}

/// The outcome of a run of `policies`, or the first failure of a Python policy among them: a
/// `PolicyError` naming the policy and where the run was, caused by the policy's own exception.
pub fn raise_failures<T>(py: Python<'_>, policies: &[PolicyArg], outcome: PyResult<T>) -> PyResult<T> {
    for policy in policies {
        if let PolicyArg::Python(p) = policy {
            let p = p.get();
            if let Some(failure) = p.failure.lock().expect("a policy's failure slot").take() {
                let error = PolicyError::new_err(format!("policy '{}' failed {}: {}", p.name, failure.context, error_text(py, &failure.error)));
                error.set_cause(py, Some(failure.error));
                return Err(error);
            }
        }
    }
    outcome
}

/// One run's policy object.
struct PythonRun {
    object: Py<PyAny>,
    name: String,
    hooks: Hooks,
    modes: Vec<String>,
    failure: Arc<Mutex<Option<Failure>>>,
    /// Once the policy failed, the run goes on as always-on, unobserved, to end.
    failed: bool,
    /// Requests seen so far: the index of the next.
    requests: u64,
    /// Mode names a plan gave, by identity, with their indices.
    seen_modes: Vec<(Py<PyString>, usize)>,
}

impl PythonRun {
    fn fail(&mut self, error: PyErr, context: String) {
        self.failed = true;
        let mut slot = self.failure.lock().expect("a policy's failure slot");
        if slot.is_none() {
            *slot = Some(Failure { error, context });
        }
    }

    /// A mode's index by the name a plan gives. A policy hands back the same string objects gap
    /// after gap (its literals, the device's names), so each is looked up once and then known by
    /// identity (kept alive here, so its address stays its own).
    fn mode_index(&mut self, mode: &Bound<'_, PyString>, step: usize) -> PyResult<usize> {
        if let Some((_, index)) = self.seen_modes.iter().find(|(s, _)| s.as_ptr() == mode.as_ptr()) {
            return Ok(*index);
        }
        let name = mode.to_cow()?;
        let index = self.modes.iter().position(|m| *m == name).ok_or_else(|| {
            PyValueError::new_err(format!("plan() step {step}: the device has no mode '{name}'; its modes: {}", self.modes.join(", ")))
        })?;
        if self.seen_modes.len() < 64 {
            self.seen_modes.push((mode.clone().unbind(), index));
        }
        Ok(index)
    }

    /// The plan a Python call returned: `(idle_s, mode)` steps, in order, into known modes.
    fn fill_plan(&mut self, returned: &Bound<'_, PyAny>, plan: &mut Plan) -> PyResult<()> {
        if returned.is_none() {
            return Ok(());
        }
        let steps = returned.downcast::<PySequence>().map_err(|_| {
            PyValueError::new_err(format!("plan() must return a sequence of (idle_s, mode) steps, got {}", type_name(returned)))
        })?;
        let mut last = 0.0f64;
        for (i, step) in steps.iter()?.enumerate() {
            let step = step?;
            let (idle_s, mode): (Bound<'_, PyAny>, Bound<'_, PyAny>) = step
                .extract()
                .map_err(|_| PyValueError::new_err(format!("plan() step {i} must be (idle_s, mode), got {}", step.repr().map(|r| r.to_string()).unwrap_or_default())))?;
            let idle_s: f64 = idle_s.extract().map_err(|_| PyValueError::new_err(format!("plan() step {i}: idle_s must be a number of seconds, got {}", type_name(&idle_s))))?;
            if !(idle_s.is_finite() && idle_s >= 0.0) {
                return Err(PyValueError::new_err(format!("plan() step {i}: idle_s must be a non-negative number of seconds, got {idle_s}")));
            }
            if idle_s < last {
                return Err(PyValueError::new_err(format!("plan() step {i}: idle_s {idle_s} comes before the step before it ({last}); steps are in order of idle time")));
            }
            last = idle_s;
            let mode = mode.downcast::<PyString>().map_err(|_| PyValueError::new_err(format!("plan() step {i}: mode must be a mode's name, got {}", type_name(&mode))))?;
            plan.push(idle_s, self.mode_index(mode, i)?);
        }
        Ok(())
    }
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

/// A time as a failure's context gives it.
fn at(time_s: f64) -> String {
    format!("{time_s:.6} s").replace(".000000 s", " s")
}

impl Policy for PythonRun {
    fn name(&self) -> &str {
        &self.name
    }

    fn plan_gap(&mut self, gap: &GapStart, plan: &mut Plan) {
        if self.failed {
            return;
        }
        let outcome = Python::with_gil(|py| -> PyResult<()> {
            let object = self.object.clone_ref(py).into_bound(py);
            let returned = if self.hooks.offline { object.call_method1("plan", (gap.time_s, gap.gap_s))? } else { object.call_method1("plan", (gap.time_s,))? };
            self.fill_plan(&returned, plan)
        });
        if let Err(e) = outcome {
            plan.clear();
            let before = if gap.ends_run { "after the last request".to_string() } else { format!("before request {}", self.requests) };
            self.fail(e, format!("in plan() for the idle period from {}, {before}", at(gap.time_s)));
        }
        // A step into the ready mode is staying ready: the engine needs no such step.
        plan.steps.retain(|s| s.mode != READY);
    }

    fn end_gap(&mut self, idle_s: f64) {
        if self.failed || !self.hooks.idle_ended {
            return;
        }
        if let Err(e) = Python::with_gil(|py| self.object.bind(py).call_method1("idle_ended", (idle_s,)).map(|_| ())) {
            self.fail(e, format!("in idle_ended() after an idle period of {}, before request {}", at(idle_s), self.requests));
        }
    }

    fn reads_gap_lengths(&self) -> bool {
        self.hooks.offline
    }

    fn ghost_hint(&mut self, now_s: f64, mode: usize, benefit: f64) -> bool {
        if self.failed || !self.hooks.hint {
            return false;
        }
        let outcome = Python::with_gil(|py| self.object.bind(py).call_method1("hint", (now_s, self.modes[mode].as_str(), benefit))?.is_truthy());
        outcome.unwrap_or_else(|e| {
            self.fail(e, format!("in hint() at {}", at(now_s)));
            false
        })
    }

    // Every request is counted (an error names the request it came at); only a policy that
    // observes them is called.
    fn observes_requests(&self) -> bool {
        true
    }

    fn observe_request(&mut self, request: &Arrival) {
        let index = self.requests;
        self.requests += 1;
        if self.failed || !self.hooks.observe {
            return;
        }
        let seen = Request { index, time_s: request.time_s, size_bytes: request.size_bytes, is_write: request.is_write, idle_s: request.idle_s, woke: request.woke };
        if let Err(e) = Python::with_gil(|py| self.object.bind(py).call_method1("observe", (seen,)).map(|_| ())) {
            self.fail(e, format!("in observe() at request {index} ({})", at(request.time_s)));
        }
    }
}

/// A request as a policy's `observe` sees it, once the device is ready to serve it.
#[pyclass(module = "idlewise._core", frozen, get_all)]
pub struct Request {
    /// Its place in the run's requests, from 0.
    index: u64,
    time_s: f64,
    size_bytes: f64,
    is_write: bool,
    /// The idle period it ended (0 if it queued behind another).
    idle_s: f64,
    /// It found the device in a low-power mode and woke it.
    woke: bool,
}

#[pymethods]
impl Request {
    fn __repr__(&self) -> String {
        format!(
            "Request(index={}, time_s={}, size_bytes={}, is_write={}, idle_s={}, woke={})",
            self.index,
            self.time_s,
            self.size_bytes,
            if self.is_write { "True" } else { "False" },
            self.idle_s,
            if self.woke { "True" } else { "False" }
        )
    }
}
