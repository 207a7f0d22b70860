//! A run set as columns: each run's figures are written into one vector a figure as the run
//! finishes, and its report is dropped. A million devices' runs are then a few dozen vectors of
//! numbers (some 400 bytes a run), not a million reports of ~1.3 KB each with their strings;
//! the Python binding hands these vectors over as they are (`idlewise-py/src/columns.rs`).
//!
//! The lists of figures here are the one home of what a run reports and in which order: the
//! table's columns and one run's account as a dict (a hybrid disk's, a live manager's) read them.

use crate::device::Device;
use crate::error::{Error, Result};
use crate::evaluate::Report;
use crate::metrics::{PerRequest, RunResult, Timeline};

/// A run's figure that is one number, read off its account (or, for the figures against the
/// references, off its report).
pub enum Figure<Of = RunResult> {
    Float(fn(&Of) -> f64),
    Count(fn(&Of) -> u64),
    Maybe(fn(&Of) -> Option<f64>),
}

/// A run's one-number figures before its per-mode maps, and after them, in a run's dict's order.
pub const FIGURES_BEFORE_MODES: &[(&str, Figure)] = &[
    ("requests", Figure::Count(|r| r.requests)),
    ("first_arrival_s", Figure::Float(|r| r.first_arrival_s)),
    ("makespan_s", Figure::Float(|r| r.makespan_s)),
    // First issue to last completion: in closed-loop replay, how long the program ran.
    ("execution_time_s", Figure::Float(|r| r.makespan_s)),
    ("energy_j", Figure::Float(|r| r.energy_j)),
    ("system_energy_j", Figure::Float(|r| r.system_energy_j)),
    ("base_power_w", Figure::Float(|r| r.base_power_w)),
];
pub const FIGURES_AFTER_MODES: &[(&str, Figure)] = &[
    ("transition_time_s", Figure::Float(|r| r.transition_time_s)),
    ("transition_energy_j", Figure::Float(|r| r.transition_energy_j)),
    ("service_time_s", Figure::Float(|r| r.service_time_s)),
    ("service_energy_j", Figure::Float(|r| r.service_energy_j)),
    ("wakeups", Figure::Count(|r| r.wakeups)),
    ("cycle_wakeups", Figure::Count(|r| r.cycle_wakeups)),
    ("load_unload_wakeups", Figure::Count(|r| r.load_unload_wakeups)),
    ("mean_response_s", Figure::Float(|r| r.mean_response_s)),
    ("p50_response_s", Figure::Float(|r| r.p50_response_s)),
    ("p95_response_s", Figure::Float(|r| r.p95_response_s)),
    ("p99_response_s", Figure::Float(|r| r.p99_response_s)),
    ("max_response_s", Figure::Float(|r| r.max_response_s)),
    ("delayed_requests", Figure::Count(|r| r.delayed_requests)),
    ("rated_start_stop_cycles", Figure::Maybe(|r| r.rated_cycles)),
    ("rated_load_unload_cycles", Figure::Maybe(|r| r.rated_load_unload_cycles)),
];
/// Seed 004's theoretical minima: a MEMS run's, absent from the others' rows.
pub const THEORETICAL_MINIMA: &[(&str, Figure)] = &[
    ("theoretical_min_energy_j", Figure::Maybe(|r| r.theoretical_min_energy_j())),
    ("theoretical_min_response_s", Figure::Maybe(|r| r.theoretical_min_response_s())),
];

/// The figures against the references, after a run's own, in a run's dict's order.
pub const FIGURES_AGAINST_REFERENCES: &[(&str, Figure<Report>)] = &[
    ("normalized_energy", Figure::Maybe(|r| r.normalized_energy)),
    ("normalized_system_energy", Figure::Maybe(|r| r.normalized_system_energy)),
    ("normalized_mean_response", Figure::Maybe(|r| r.normalized_mean_response)),
    ("energy_vs_oracle", Figure::Maybe(|r| r.energy_vs_oracle)),
    ("wakeups_per_day", Figure::Float(|r| r.wakeups_per_day)),
    ("cycle_wakeups_per_day", Figure::Float(|r| r.cycle_wakeups_per_day)),
    ("load_unload_wakeups_per_day", Figure::Float(|r| r.load_unload_wakeups_per_day)),
    ("years_to_rated_cycles", Figure::Maybe(|r| r.years_to_rated_cycles)),
    ("offered_load", Figure::Maybe(|r| r.offered_load)),
];

/// One figure of every run.
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    Floats(Vec<f64>),
    Counts(Vec<u64>),
    /// NaN where a run has none, and which runs have none.
    Maybe(Vec<f64>, Vec<bool>),
}

impl Values {
    fn of<Of>(figure: &Figure<Of>) -> Values {
        match figure {
            Figure::Float(_) => Values::Floats(Vec::new()),
            Figure::Count(_) => Values::Counts(Vec::new()),
            Figure::Maybe(_) => Values::Maybe(Vec::new(), Vec::new()),
        }
    }

    fn push<Of>(&mut self, figure: &Figure<Of>, of: &Of) {
        match (self, figure) {
            (Values::Floats(v), Figure::Float(get)) => v.push(get(of)),
            (Values::Counts(v), Figure::Count(get)) => v.push(get(of)),
            (Values::Maybe(v, missing), Figure::Maybe(get)) => {
                let value = get(of);
                v.push(value.unwrap_or(f64::NAN));
                missing.push(value.is_none());
            }
            _ => unreachable!("a column takes the kind its figure gives"),
        }
    }

    /// Whether any run has the figure.
    pub fn any(&self) -> bool {
        match self {
            Values::Maybe(_, missing) => missing.iter().any(|m| !m),
            _ => true,
        }
    }

    fn take(&self, order: &[usize]) -> Values {
        match self {
            Values::Floats(v) => Values::Floats(gather(v, order, 1)),
            Values::Counts(v) => Values::Counts(gather(v, order, 1)),
            Values::Maybe(v, missing) => Values::Maybe(gather(v, order, 1), gather(missing, order, 1)),
        }
    }

    fn append(&mut self, other: Values) {
        match (self, other) {
            (Values::Floats(a), Values::Floats(b)) => a.extend(b),
            (Values::Counts(a), Values::Counts(b)) => a.extend(b),
            (Values::Maybe(a, ma), Values::Maybe(b, mb)) => {
                a.extend(b);
                ma.extend(mb);
            }
            _ => unreachable!("tables of one layout"),
        }
    }
}

/// Rows of `width` values, in the order given.
fn gather<T: Copy>(values: &[T], order: &[usize], width: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(order.len() * width);
    for &i in order {
        out.extend_from_slice(&values[i * width..(i + 1) * width]);
    }
    out
}

/// Labels as the distinct ones (in order of first use) and each run's index into them: a
/// million runs' labels are a few strings, not a million.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Labels {
    pub distinct: Vec<String>,
    pub codes: Vec<u32>,
}

impl Labels {
    fn push(&mut self, label: &str) {
        let code = match self.distinct.iter().rposition(|d| d == label) {
            Some(code) => code,
            None => {
                self.distinct.push(label.to_string());
                self.distinct.len() - 1
            }
        };
        self.codes.push(code as u32);
    }

    fn append(&mut self, other: Labels) {
        for code in other.codes {
            self.push(&other.distinct[code as usize]);
        }
    }
}

/// The runs of one device, a column a figure.
#[derive(Debug, Clone)]
pub struct RunTable {
    pub runs: usize,
    pub policy: Labels,
    pub device: Labels,
    /// Parallel to [`FIGURES_BEFORE_MODES`].
    pub before_modes: Vec<Values>,
    /// The device's modes, naming the per-mode matrices' columns.
    pub mode_names: Vec<String>,
    /// Runs × modes, row by row.
    pub energy_by_mode_j: Vec<f64>,
    pub time_by_mode_s: Vec<f64>,
    /// Every direct transition of the device, in its order, whether a run took it or not (so
    /// that tables of one device name the same columns, and joined keep a run's order).
    pub hops: Vec<(String, String)>,
    /// Runs × hops: how often a run took each, `None` where it never did.
    pub transitions: Vec<Option<u64>>,
    /// Parallel to [`FIGURES_AFTER_MODES`], [`THEORETICAL_MINIMA`], [`FIGURES_AGAINST_REFERENCES`].
    pub after_modes: Vec<Values>,
    pub theoretical_minima: Vec<Values>,
    pub against_references: Vec<Values>,
    /// The runs that kept their requests' records or a timeline: (run, what it kept).
    pub per_request: Vec<(usize, PerRequest)>,
    pub timeline: Vec<(usize, Timeline)>,
}

impl RunTable {
    /// An empty table of `device`'s runs.
    pub fn new(device: &Device) -> Self {
        let mut hops: Vec<(String, String)> = Vec::new();
        for i in 0..device.transitions.len() {
            let hop = device.transition_names(i);
            if !hops.contains(&hop) {
                hops.push(hop);
            }
        }
        RunTable {
            runs: 0,
            policy: Labels::default(),
            device: Labels::default(),
            before_modes: FIGURES_BEFORE_MODES.iter().map(|(_, f)| Values::of(f)).collect(),
            mode_names: device.modes.iter().map(|m| m.name.clone()).collect(),
            energy_by_mode_j: Vec::new(),
            time_by_mode_s: Vec::new(),
            hops,
            transitions: Vec::new(),
            after_modes: FIGURES_AFTER_MODES.iter().map(|(_, f)| Values::of(f)).collect(),
            theoretical_minima: THEORETICAL_MINIMA.iter().map(|(_, f)| Values::of(f)).collect(),
            against_references: FIGURES_AGAINST_REFERENCES.iter().map(|(_, f)| Values::of(f)).collect(),
            per_request: Vec::new(),
            timeline: Vec::new(),
        }
    }

    /// A table of `reports`, in their order.
    pub fn of(device: &Device, reports: Vec<Report>) -> Result<Self> {
        let mut table = RunTable::new(device);
        for report in reports {
            table.push(report)?;
        }
        Ok(table)
    }

    /// Adds a run (its report is spent: its kept records move into the table).
    pub fn push(&mut self, report: Report) -> Result<()> {
        let run = &report.run;
        if run.mode_names != self.mode_names {
            return Err(Error::Option { option: "runs".into(), message: "the runs of one set name different modes".into() });
        }
        let first = self.transitions.len();
        self.transitions.resize(first + self.hops.len(), None);
        for (from, to, count) in &run.transition_counts {
            let hop = self.hops.iter().position(|(f, t)| f == from && t == to).ok_or_else(|| Error::Option {
                option: "runs".into(),
                message: format!("a run took a transition its device does not have ({from}->{to})"),
            })?;
            self.transitions[first + hop] = Some(*count);
        }
        self.policy.push(&run.policy);
        self.device.push(&run.device);
        for ((_, figure), column) in FIGURES_BEFORE_MODES.iter().zip(&mut self.before_modes) {
            column.push(figure, run);
        }
        self.energy_by_mode_j.extend_from_slice(&run.energy_by_mode_j);
        self.time_by_mode_s.extend_from_slice(&run.time_by_mode_s);
        for ((_, figure), column) in FIGURES_AFTER_MODES.iter().zip(&mut self.after_modes) {
            column.push(figure, run);
        }
        for ((_, figure), column) in THEORETICAL_MINIMA.iter().zip(&mut self.theoretical_minima) {
            column.push(figure, run);
        }
        for ((_, figure), column) in FIGURES_AGAINST_REFERENCES.iter().zip(&mut self.against_references) {
            column.push(figure, &report);
        }
        let RunResult { per_request, timeline, .. } = report.run;
        if let Some(records) = per_request {
            self.per_request.push((self.runs, records));
        }
        if let Some(timeline) = timeline {
            self.timeline.push((self.runs, timeline));
        }
        self.runs += 1;
        Ok(())
    }

    /// The runs of `other` (a table of the same device) after these.
    pub fn append(&mut self, other: RunTable) {
        debug_assert_eq!((&self.mode_names, &self.hops), (&other.mode_names, &other.hops), "tables of one device");
        let offset = self.runs;
        self.runs += other.runs;
        self.policy.append(other.policy);
        self.device.append(other.device);
        let columns = |a: &mut Vec<Values>, b: Vec<Values>| a.iter_mut().zip(b).for_each(|(a, b)| a.append(b));
        columns(&mut self.before_modes, other.before_modes);
        columns(&mut self.after_modes, other.after_modes);
        columns(&mut self.theoretical_minima, other.theoretical_minima);
        columns(&mut self.against_references, other.against_references);
        self.energy_by_mode_j.extend(other.energy_by_mode_j);
        self.time_by_mode_s.extend(other.time_by_mode_s);
        self.transitions.extend(other.transitions);
        self.per_request.extend(other.per_request.into_iter().map(|(run, r)| (run + offset, r)));
        self.timeline.extend(other.timeline.into_iter().map(|(run, t)| (run + offset, t)));
    }

    /// The runs in `order` (each run index once).
    pub fn reordered(self, order: &[usize]) -> RunTable {
        debug_assert_eq!(order.len(), self.runs);
        if order.iter().enumerate().all(|(k, &i)| k == i) {
            return self;
        }
        let mut at = vec![0usize; self.runs];
        for (k, &i) in order.iter().enumerate() {
            at[i] = k;
        }
        let (modes, hops) = (self.mode_names.len(), self.hops.len());
        // Coded anew, in order of first use in the new order (as a table pushed in it is).
        let labels = |l: &Labels| {
            let mut out = Labels::default();
            order.iter().for_each(|&i| out.push(&l.distinct[l.codes[i] as usize]));
            out
        };
        let columns = |c: &[Values]| c.iter().map(|v| v.take(order)).collect();
        let mut per_request: Vec<(usize, PerRequest)> = self.per_request.into_iter().map(|(run, r)| (at[run], r)).collect();
        per_request.sort_by_key(|(run, _)| *run);
        let mut timeline: Vec<(usize, Timeline)> = self.timeline.into_iter().map(|(run, t)| (at[run], t)).collect();
        timeline.sort_by_key(|(run, _)| *run);
        RunTable {
            runs: self.runs,
            policy: labels(&self.policy),
            device: labels(&self.device),
            before_modes: columns(&self.before_modes),
            energy_by_mode_j: gather(&self.energy_by_mode_j, order, modes),
            time_by_mode_s: gather(&self.time_by_mode_s, order, modes),
            transitions: gather(&self.transitions, order, hops),
            after_modes: columns(&self.after_modes),
            theoretical_minima: columns(&self.theoretical_minima),
            against_references: columns(&self.against_references),
            mode_names: self.mode_names,
            hops: self.hops,
            per_request,
            timeline,
        }
    }

    /// A column by its key (a one-number figure), for tests and tools.
    pub fn column(&self, key: &str) -> Option<&Values> {
        fn find<'t, F>(key: &str, list: &[(&str, F)], columns: &'t [Values]) -> Option<&'t Values> {
            list.iter().position(|(k, _)| *k == key).map(|i| &columns[i])
        }
        find(key, FIGURES_BEFORE_MODES, &self.before_modes)
            .or_else(|| find(key, FIGURES_AFTER_MODES, &self.after_modes))
            .or_else(|| find(key, THEORETICAL_MINIMA, &self.theoretical_minima))
            .or_else(|| find(key, FIGURES_AGAINST_REFERENCES, &self.against_references))
    }
}
