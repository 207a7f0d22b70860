//! `hd-idle`: what the `hd-idle` daemon does (the Go port by A. del Olmo of C. Mueller's
//! hd-idle, `hdidle.go` and `main.go`). It reads `/proc/diskstats` every `interval` seconds; when
//! a disk's read and write counters have not moved since the poll that last saw them move, and
//! more than `idle` seconds have passed since that poll, it spins the disk down.
//!
//! So the spin-down comes later than a plain timeout would: the last I/O is seen only at the
//! next poll, and the disk stops at the first poll strictly more than `idle` after that one.
//! With `interval` = `idle`/10 (hd-idle's choice, see below) that is 10–20 % late:
//! `hd-idle:60s` polls every 6 s and stops the disk 66 to 72 s after its last I/O.
//!
//! hd-idle polls every min(`idle`, 600 s)/10 (its `poolInterval`, default idle 600 s); polls
//! fall at whole multiples of the interval from the start of the trace (`phase` shifts them).

use super::{BuildContext, Family, GapStart, ParamDoc, Plan, Policy, PolicySpec, Step};
use crate::device::Device;
use crate::error::Result;
use crate::units::format_duration_s;

pub(super) const FAMILY: Family = Family {
    name: "hd-idle",
    summary: "The hd-idle daemon: polls /proc/diskstats every interval and spins down after more than the idle time since the poll that last saw I/O.",
    params: &[
        ParamDoc { name: "<duration>", default: "required", help: "hd-idle's -i idle time, e.g. hd-idle:60s (hd-idle's own default is 600 s)" },
        ParamDoc { name: "interval", default: "min(idle, 600 s)/10", help: "time between polls of /proc/diskstats" },
        ParamDoc { name: "phase", default: "0s", help: "time of the first poll after the trace starts" },
    ],
    example: "hd-idle:60s",
    run_by_the_drive: false,
    build,
};

/// hd-idle's default idle time, which also caps its polling interval (`defaultIdleTime`).
const DEFAULT_IDLE_S: f64 = 600.0;

/// The polling interval hd-idle picks for an idle time (`poolInterval`: a tenth of the
/// smallest idle time, never more than a tenth of 600 s).
pub fn hd_idle_interval_s(idle_s: f64) -> f64 {
    idle_s.min(DEFAULT_IDLE_S) / 10.0
}

/// When hd-idle spins a disk down after a gap that began at `gap_start_s` (the last I/O
/// completed then), counted from the gap's start.
pub fn hd_idle_delay_s(gap_start_s: f64, idle_s: f64, interval_s: f64, phase_s: f64) -> f64 {
    // The first poll at or after the I/O sees the counters move.
    let seen = phase_s + ((gap_start_s - phase_s) / interval_s).ceil().max(0.0) * interval_s;
    // The first later poll strictly more than `idle` after it.
    let polls = (idle_s / interval_s).floor() + 1.0;
    seen + polls * interval_s - gap_start_s
}

struct HdIdle {
    name: String,
    idle_s: f64,
    interval_s: f64,
    phase_s: f64,
    mode: usize,
}

fn build(spec: &PolicySpec, device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    spec.expect_keys_with_bare(&["interval", "phase"])?;
    let Some(raw) = spec.args.iter().find(|(k, _)| k.is_none()).map(|(_, v)| v.as_str()) else {
        return Err(spec.error("needs hd-idle's idle time, e.g. 'hd-idle:60s' (hd-idle's default is 600s)"));
    };
    let idle_s = spec.duration_s(raw, "idle time")?;
    if idle_s <= 0.0 {
        return Err(spec.error("an idle time of 0 tells hd-idle never to spin the disk down; use 'always-on' for that"));
    }
    let interval_s = match spec.raw("interval") {
        Some(v) => spec.duration_s(v, "interval")?,
        None => hd_idle_interval_s(idle_s),
    };
    if interval_s <= 0.0 {
        return Err(spec.error("the polling interval must be positive"));
    }
    let phase_s = match spec.raw("phase") {
        Some(v) => spec.duration_s(v, "phase")?,
        None => 0.0,
    };
    let mode = super::require_low_power_mode(spec, device)?;
    let mut name = format!("hd-idle:{}", format_duration_s(idle_s));
    if spec.raw("interval").is_some() {
        name += &format!(",interval={}", format_duration_s(interval_s));
    }
    if phase_s != 0.0 {
        name += &format!(",phase={}", format_duration_s(phase_s));
    }
    Ok(Box::new(HdIdle { name, idle_s, interval_s, phase_s, mode }))
}

impl Policy for HdIdle {
    fn name(&self) -> &str {
        &self.name
    }
    fn plan_gap(&mut self, gap: &GapStart, plan: &mut Plan) {
        let at_s = hd_idle_delay_s(gap.time_s, self.idle_s, self.interval_s, self.phase_s);
        plan.steps.push(Step::to(at_s, self.mode));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::tests::two_state;

    #[test]
    fn the_spin_down_waits_for_the_poll_that_sees_the_io_and_then_more_than_the_idle_time() {
        // hd-idle -i 60: polls every 6 s. I/O ending at 100 s is seen at the 102 s poll; the
        // disk stops at the first poll more than 60 s later: 102 + 66 = 168 s, 68 s after the I/O.
        assert_eq!(hd_idle_interval_s(60.0), 6.0);
        assert_eq!(hd_idle_delay_s(100.0, 60.0, 6.0, 0.0), 68.0);
        // I/O ending exactly on a poll is seen by it: 66 s, the shortest delay.
        assert_eq!(hd_idle_delay_s(102.0, 60.0, 6.0, 0.0), 66.0);
        // Just after a poll: nearly 72 s, the longest.
        assert!((hd_idle_delay_s(102.001, 60.0, 6.0, 0.0) - 71.999).abs() < 1e-9);
        // An idle time that is not a multiple of the interval: -i 65 with 6 s polls stops at
        // the 11th poll after the one that saw the I/O (66 > 65).
        assert_eq!(hd_idle_delay_s(102.0, 65.0, 6.0, 0.0), 66.0);
        // Long idle times poll every 60 s at most (a tenth of hd-idle's 600 s default).
        assert_eq!(hd_idle_interval_s(1800.0), 60.0);
        assert_eq!(hd_idle_delay_s(30.0, 1800.0, 60.0, 0.0), 30.0 + 1860.0);
        // A phase moves the polls: at 1, 7, …, 97, 103 s; the 103 s poll sees the I/O.
        assert_eq!(hd_idle_delay_s(100.0, 60.0, 6.0, 1.0), 103.0 + 66.0 - 100.0);
    }

    #[test]
    fn the_spec_names_its_idle_time_and_refuses_zero() {
        let d = two_state();
        let ctx = BuildContext::default();
        let p = PolicySpec::parse("hd-idle:1min").unwrap().build(&d, &ctx).unwrap();
        assert_eq!(p.name(), "hd-idle:1min");
        let p = PolicySpec::parse("hd-idle:60s,interval=1s").unwrap().build(&d, &ctx).unwrap();
        assert_eq!(p.name(), "hd-idle:1min,interval=1s");
        let e = PolicySpec::parse("hd-idle:0s").unwrap().build(&d, &ctx).err().unwrap().to_string();
        assert!(e.contains("always-on"), "{e}");
        let e = PolicySpec::parse("hd-idle:interval=2s").unwrap().build(&d, &ctx).err().unwrap().to_string();
        assert!(e.contains("needs hd-idle's idle time"), "{e}");
    }
}
