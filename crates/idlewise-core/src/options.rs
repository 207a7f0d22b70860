//! How a trace is replayed: options shared by every engine (the single-device replay, the
//! multi-device system), below both `replay.rs` and `device_sim.rs`.

/// When each request is issued.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ReplayMode {
    /// Requests arrive at their trace times whatever the device does (a server's clients).
    #[default]
    Open,
    /// Each request is issued its trace gap after the previous one *completes* (a program that
    /// faults on pages, a user who thinks between reads): the trace's gaps are think times, and
    /// power-management delays stretch the whole run.
    Closed,
    /// Seed 001's replay (§3): a request is issued at its trace time, or when the previous one
    /// completes if that is later ("issued as soon as possible, but delayed until its original
    /// issue time if the preceding request had already completed"): one outstanding request at
    /// a time, the trace's times kept wherever the device keeps up.
    Sync,
}

impl ReplayMode {
    pub fn parse(text: &str) -> Option<ReplayMode> {
        match text {
            "open" => Some(ReplayMode::Open),
            "closed" => Some(ReplayMode::Closed),
            "sync" => Some(ReplayMode::Sync),
            _ => None,
        }
    }

    /// The time request `i` is issued: its trace time (open), the previous request's
    /// completion plus the trace's gap between the two (closed; the first keeps its time), or the
    /// later of its trace time and the previous completion (sync).
    #[inline]
    pub fn issue_s(self, trace_s: f64, previous_trace_s: Option<f64>, previous_completion_s: f64) -> f64 {
        match (self, previous_trace_s) {
            (ReplayMode::Closed, Some(previous)) => previous_completion_s + (trace_s - previous),
            (ReplayMode::Sync, Some(_)) => trace_s.max(previous_completion_s),
            _ => trace_s,
        }
    }

    /// Whether each request waits for the one before (its completion is needed to issue the next).
    pub fn waits_for_completion(self) -> bool {
        matches!(self, ReplayMode::Closed | ReplayMode::Sync)
    }
}

/// What a request's response time is measured from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ResponseFrom {
    /// The time it is issued to the device (in the replayed, possibly transformed, workload).
    #[default]
    Issue,
    /// Its original arrival time, before a transform issued it early (seed 001's compression
    /// models successful read-ahead): `max(0, finish − original)`, so data fetched before the
    /// application wanted it waits 0. Transforms keep the original times in a trace column.
    Original,
}

impl ResponseFrom {
    pub fn parse(text: &str) -> Option<ResponseFrom> {
        match text {
            "issue" => Some(ResponseFrom::Issue),
            "original" => Some(ResponseFrom::Original),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct ReplayOptions {
    /// Platform base power (W) added over the makespan to give system energy.
    pub base_power_w: f64,
    /// Mode the device is in at the first arrival (index); 0 = the device's own starting mode
    /// (ready, unless its description says otherwise, as DiskSim's MEMS sled starts inactive).
    pub initial_mode: usize,
    /// Fold each request's block number onto the device (`block mod (capacity − size)`), as
    /// traces made for a larger device are run on a small one; otherwise a request beyond the
    /// capacity is an error.
    pub fold_offsets: bool,
    /// Keep every request's service start, response time and what it found on arrival.
    pub keep_per_request: bool,
    /// Keep what the device did between these two times (s): modes, transitions, service.
    pub timeline_s: Option<(f64, f64)>,
    /// Open or closed loop.
    pub mode: ReplayMode,
    /// Draw the time of every wake-up whose time varies (a transition with a spread) from this
    /// seed's stream; `None` takes their mean times. Every policy of a call gets the same seed,
    /// so their n-th wake-ups draw alike (common random numbers).
    pub transition_seed: Option<u64>,
    /// The run goes on this long after the last request completes, the device idling under its
    /// policy: a closed-loop program computes after its last fault; an open-loop recording goes
    /// on after its last request.
    pub tail_s: f64,
    /// The run begins this long before the first request, the device idling under its policy
    /// from its initial mode: a recording that began before its first request (a diskstats
    /// recording's first snapshot). The idle before the first request is counted as any other.
    pub lead_s: f64,
    /// Where a recording began and ended on the trace's time line (its first and last
    /// snapshot), for a trace replayed as it is read whose requests do not begin and end it:
    /// each run (each volume's) begins at the start (its lead the first arrival less the start,
    /// or `lead_s`, whichever is longer) and goes on after its last completion as long as the
    /// recording went on after its last request (or `tail_s`, whichever is longer), as a
    /// recording read whole gives each device's replay (`Trace.idle_lead_s`, `idle_tail_s`).
    /// The end is known once the recording is read (`Runs::set_recording_end_s`).
    pub recording_start_s: Option<f64>,
    pub recording_end_s: Option<f64>,
    /// What a response time is measured from.
    pub response_from: ResponseFrom,
    /// MEMS devices: compute seed 004's theoretical minima (`evaluate` does it once, in the
    /// always-on reference run, and gives them to every policy's result).
    pub theoretical_minimum: bool,
    /// A trace replayed as read keeps every device's runs until its end: beyond this many
    /// devices (the memory budget's worth) the replay stops with an error saying how to split
    /// it, rather than fail to allocate. `None`: no limit.
    pub max_volumes: Option<usize>,
    /// Replay the policies alone, without always-on and the oracle beside them (nor the
    /// theoretical minima): a call then costs its policies' replays only (a MEMS sled's oracle
    /// cannot ride along always-on's replay, so one MEMS policy costs three replays with them),
    /// and its reports have no normalisations.
    pub without_references: bool,
    /// Replay every policy on its own, even those that could share one replay (`family.rs`):
    /// the results are the same (to rounding); for tests and measurements.
    pub separate_runs: bool,
}

impl ReplayOptions {
    /// These options for a run whose first request arrives at `first_arrival_s`: a
    /// recording's span (`recording_s`) gives its lead.
    pub(crate) fn seen_from_first_arrival(&self, first_arrival_s: f64) -> ReplayOptions {
        match self.recording_start_s {
            Some(start_s) => ReplayOptions { lead_s: self.lead_s.max((first_arrival_s - start_s).max(0.0)), ..self.clone() },
            None => self.clone(),
        }
    }

    /// How long a run whose last request arrived at `last_arrival_s` goes on after its last
    /// completion: `tail_s`, or the rest of a recording, whichever is longer.
    pub(crate) fn tail_after(&self, last_arrival_s: f64) -> f64 {
        match self.recording_end_s {
            Some(end_s) => self.tail_s.max((end_s - last_arrival_s).max(0.0)),
            None => self.tail_s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_loop_issues_after_the_previous_completion_plus_the_gap() {
        assert_eq!(ReplayMode::Open.issue_s(5.0, Some(2.0), 4.0), 5.0);
        assert_eq!(ReplayMode::Closed.issue_s(5.0, Some(2.0), 4.0), 7.0);
        assert_eq!(ReplayMode::Closed.issue_s(5.0, None, 4.0), 5.0);
        assert_eq!(ReplayMode::parse("closed"), Some(ReplayMode::Closed));
        assert_eq!(ReplayMode::parse("x"), None);
    }
}
