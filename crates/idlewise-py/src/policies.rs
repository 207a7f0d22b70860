//! Policy specs as the engine reads them: a built-in's spec parsed once into a handle
//! ([`ParsedPolicy`]) that every run of it takes, what a run is given ([`PolicyArg`]: a handle, a
//! spec's text, or a policy written in Python), its check against a device, a row's policy
//! columns, a spec's ranges and the families' help. The reading itself is the engine's
//! (`idlewise_core::policy`); nothing here knows a family.

use super::*;
use crate::python_policy::PythonPolicy;

/// A built-in policy's spec, parsed once: runs given it take the parsed spec, not its text again.
/// Made from the spec's text as written (`timeout:2s`; a range is expanded before, by
/// `expand_policy_range`); pickled as that text (another process parses it again).
#[pyclass(module = "idlewise._core", frozen)]
pub(crate) struct ParsedPolicy {
    spec: PolicySpec,
    /// The text as given: the rows' `spec`, and what the policy pickles as.
    #[pyo3(get)]
    name: String,
}

#[pymethods]
impl ParsedPolicy {
    #[new]
    fn new(spec: &str) -> PyResult<Self> {
        Ok(ParsedPolicy { spec: PolicySpec::parse(spec).map_err(to_py_err)?, name: spec.to_string() })
    }

    /// The policy's family (`timeout`, `stpm`, ...).
    #[getter]
    fn family(&self) -> &str {
        &self.spec.family
    }

    /// Builds the policy for `device` (every parameter checked, as a run builds it) and returns
    /// its canonical label, the rows' `policy` (`timeout:1min`; `stpm`'s names the base power).
    #[pyo3(signature = (device, base_power_w=0.0))]
    fn check(&self, device: &Device, base_power_w: f64) -> PyResult<String> {
        let built = self.spec.build(&device.inner, &idlewise_core::policy::BuildContext { base_power_w }).map_err(to_py_err)?;
        Ok(built.name().to_string())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, pyo3::types::PyType>, (String,))> {
        Ok((slf.get_type(), (slf.get().name.clone(),)))
    }

    fn __repr__(&self) -> String {
        format!("<policy {}>", self.name)
    }
}

/// A policy given to the engine: a built-in's spec (parsed, or its text, parsed where it is
/// taken), or one written in Python.
#[derive(FromPyObject)]
pub enum PolicyArg {
    Parsed(Py<ParsedPolicy>),
    Python(Py<PythonPolicy>),
    Text(String),
}

impl PolicyArg {
    /// The engine's spec of this policy.
    pub fn spec(&self, py: Python<'_>) -> PyResult<PolicySpec> {
        match self {
            PolicyArg::Parsed(p) => Ok(p.get().spec.clone()),
            PolicyArg::Text(text) => PolicySpec::parse(text).map_err(to_py_err),
            PolicyArg::Python(p) => p.get().spec(py),
        }
    }
}

/// Every policy's spec.
pub fn specs(py: Python<'_>, policies: &[PolicyArg]) -> PyResult<Vec<PolicySpec>> {
    policies.iter().map(|p| p.spec(py)).collect()
}

/// `(family, timeout_s, knob, params)`, as [`policy_columns`] gives them.
type RowPolicyColumns = (String, Option<f64>, Option<PyObject>, Vec<(String, PyObject)>);

/// A result row's policy columns from its canonical label: `(family, timeout_s, knob, params)`,
/// `params` a list of `(name, value)`, each value a float where it reads as a number, else its
/// text (`idlewise_core::policy::PolicyColumns`, the one home of this reading).
#[pyfunction]
pub(crate) fn policy_columns(py: Python<'_>, label: &str) -> RowPolicyColumns {
    use idlewise_core::policy::{ParamValue, PolicyColumns};
    let value = |v: ParamValue| match v {
        ParamValue::Number(x) => x.into_py(py),
        ParamValue::Text(s) => s.into_py(py),
    };
    let columns = PolicyColumns::of_label(label);
    let params = columns.params.into_iter().map(|(name, v)| (name, value(v))).collect();
    (columns.family, columns.timeout_s, columns.knob.map(value), params)
}

/// Every spec a policy spec stands for: itself, or one for each value of its range
/// (`START..STOP/STEP`, `idlewise_core::policy::expand_range`, the one home of the syntax).
#[pyfunction]
pub(crate) fn expand_policy_range(spec: &str) -> PyResult<Vec<String>> {
    idlewise_core::policy::expand_range(spec).map_err(to_py_err)
}

/// Parses a policy spec and builds it for a device, to fail fast on bad specs.
#[pyfunction]
#[pyo3(signature = (spec, device, base_power_w=0.0))]
pub(crate) fn check_policy(py: Python<'_>, spec: PolicyArg, device: &Device, base_power_w: f64) -> PyResult<()> {
    build_policy(py, &spec, device, base_power_w).map(|_| ())
}

pub(crate) fn build_policy(py: Python<'_>, spec: &PolicyArg, device: &Device, base_power_w: f64) -> PyResult<Box<dyn idlewise_core::Policy>> {
    let parsed = spec.spec(py)?;
    // Made with the GIL released, as a run makes it: a Python policy's factory takes it back.
    let built = py.allow_threads(|| parsed.build(&device.inner, &idlewise_core::policy::BuildContext { base_power_w })).map_err(to_py_err);
    raise_failures(py, std::slice::from_ref(spec), built)
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
///     One per family: ``name``, ``help``, ``example``, ``run_by_the_drive`` (the drive runs
///     it itself once set up: EPC, APST) and ``params`` (each ``name``, ``default``, ``help``),
///     as ``idlewise policies`` prints them.
#[pyfunction]
pub(crate) fn policy_families(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty_bound(py);
    for f in families() {
        let d = PyDict::new_bound(py);
        d.set_item("name", f.name)?;
        d.set_item("summary", f.summary)?;
        d.set_item("example", f.example)?;
        d.set_item("run_by_the_drive", f.run_by_the_drive)?;
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
