//! `apst`: NVMe Autonomous Power State Transitions as the Linux NVMe driver programs them
//! (`nvme_configure_apst` in `drivers/nvme/host/core.c`). The drive moves itself to a
//! non-operational power state after the table's idle time in its current state; the driver
//! writes that table from the drive's power-state descriptors (entry and exit latency).
//!
//! The driver walks the states from the deepest up. A state is usable when it is
//! non-operational and its exit latency is at most `ps_max_latency_us` (the module parameter
//! `nvme_core.default_ps_max_latency_us`, 100000 since Linux 5.x; 0 turns APST off). Then:
//!
//! - **Timeouts and tolerances** (Linux ≥ 5.13, the default): the deepest usable state whose
//!   total latency (entry + exit) is at most `apst_secondary_latency_tol_us` (100 ms) is entered
//!   after `apst_secondary_timeout_ms` (2000 ms) in the state above it, but only if it is the
//!   deepest usable state of all; the deepest usable state within `apst_primary_latency_tol_us`
//!   (15 ms) is entered after `apst_primary_timeout_ms` (100 ms). At most two states.
//! - **The original heuristic** (`primary_timeout_ms=0`): every usable state is entered after
//!   `(entry + exit + 19) / 20` ms in the state above it, about 2 % of the time spent
//!   transitioning (50 × the state's total latency).
//!
//! In this engine a device's non-ready modes are its non-operational states; a mode's entry and
//! exit latencies are its transitions from and to the ready mode. The operational states
//! (PS1, PS2) are not modelled: Linux's APST never enters them. The idle time counts in the
//! state the drive is in, so a deeper state's timer starts once the shallower state is reached.

use super::{BuildContext, Family, ParamDoc, Policy, PolicySpec, Step};
use crate::device::{Device, READY};
use crate::error::Result;

pub(super) const FAMILY: Family = Family {
    name: "apst",
    summary: "NVMe APST as the Linux driver programs it from the drive's power states (nvme_core defaults, or given).",
    params: &[
        ParamDoc { name: "ps_max_latency_us", default: "100000", help: "nvme_core.default_ps_max_latency_us: the longest exit latency allowed (0: APST off)" },
        ParamDoc { name: "primary_timeout_ms", default: "100", help: "apst_primary_timeout_ms (0: the original 50 × latency heuristic)" },
        ParamDoc { name: "primary_tol_us", default: "15000", help: "apst_primary_latency_tol_us" },
        ParamDoc { name: "secondary_timeout_ms", default: "2000", help: "apst_secondary_timeout_ms (0: no secondary state)" },
        ParamDoc { name: "secondary_tol_us", default: "100000", help: "apst_secondary_latency_tol_us" },
    ],
    example: "apst",
    run_by_the_drive: true,
    build,
};

/// The driver's parameters (`nvme_core` module parameters).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ApstParams {
    pub ps_max_latency_us: u64,
    pub primary_timeout_ms: u64,
    pub primary_tol_us: u64,
    pub secondary_timeout_ms: u64,
    pub secondary_tol_us: u64,
}

impl Default for ApstParams {
    fn default() -> Self {
        ApstParams { ps_max_latency_us: 100_000, primary_timeout_ms: 100, primary_tol_us: 15_000, secondary_timeout_ms: 2000, secondary_tol_us: 100_000 }
    }
}

/// One power state as the driver reads it from Identify Controller.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PowerState {
    pub non_operational: bool,
    pub entry_latency_us: u64,
    pub exit_latency_us: u64,
}

/// The APST table the driver writes: for each state, the state it moves to and after how many
/// ms of idle time in it (None: it stays). `states[0]` is PS0, deeper states follow.
pub fn apst_table(states: &[PowerState], p: &ApstParams) -> Vec<Option<(usize, u64)>> {
    let mut table = vec![None; states.len()];
    if p.ps_max_latency_us == 0 {
        return table; // APST off
    }
    let mut target: Option<(usize, u64)> = None;
    let mut last_tolerance = u32::MAX; // which tolerance class the last chosen state used
    for state in (0..states.len()).rev() {
        table[state] = target;
        let s = states[state];
        if !s.non_operational || s.exit_latency_us > p.ps_max_latency_us {
            continue;
        }
        let total_us = s.exit_latency_us + s.entry_latency_us;
        let transition_ms = if p.primary_timeout_ms != 0 && p.primary_tol_us != 0 {
            if total_us <= p.primary_tol_us {
                if last_tolerance == 1 {
                    continue;
                }
                last_tolerance = 1;
                p.primary_timeout_ms
            } else if p.secondary_timeout_ms != 0 && total_us <= p.secondary_tol_us {
                if last_tolerance <= 2 {
                    continue;
                }
                last_tolerance = 2;
                p.secondary_timeout_ms
            } else {
                continue;
            }
        } else {
            // The driver rounds up: (total + 19) / 20 ms, capped at the field's 24 bits.
            total_us.div_ceil(20).min((1 << 24) - 1)
        };
        target = Some((state, transition_ms));
    }
    table
}


fn build(spec: &PolicySpec, device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    spec.expect_keys(&["ps_max_latency_us", "primary_timeout_ms", "primary_tol_us", "secondary_timeout_ms", "secondary_tol_us"])?;
    // APST is an NVMe feature: on another drive it would run its table over modes no driver
    // programs, and a sweep would rank a policy the device cannot have.
    if device.interface != Some(crate::device::Interface::Nvme) {
        return Err(spec.error(format!(
            "APST is NVMe's: device '{}' is {}, not an NVMe drive; its own timers are 'timeout:...'{}",
            device.name,
            device.interface.map_or_else(|| format!("a {} whose description names no interface = \"nvme\"", device.kind.as_str()), |i| format!("an {} {}", i.label(), device.kind.as_str())),
            if device.modes.iter().any(|m| m.epc_timer_s.is_some()) { " or 'epc'" } else { "" }
        )));
    }
    let d = ApstParams::default();
    let params = ApstParams {
        ps_max_latency_us: spec.whole_number("ps_max_latency_us", d.ps_max_latency_us)?,
        primary_timeout_ms: spec.whole_number("primary_timeout_ms", d.primary_timeout_ms)?,
        primary_tol_us: spec.whole_number("primary_tol_us", d.primary_tol_us)?,
        secondary_timeout_ms: spec.whole_number("secondary_timeout_ms", d.secondary_timeout_ms)?,
        secondary_tol_us: spec.whole_number("secondary_tol_us", d.secondary_tol_us)?,
    };
    // Power states in the driver's order, PS0 (the ready mode) first, then by decreasing power.
    let mut order: Vec<usize> = (1..device.mode_count()).collect();
    order.sort_by(|&a, &b| device.modes[b].power_w.total_cmp(&device.modes[a].power_w));
    order.insert(0, READY);
    let latency_us = |from: usize, to: usize| -> Result<u64> {
        let route = device.route(from, to).ok_or_else(|| {
            spec.error(format!("device '{}' has no route from '{}' to '{}'", device.name, device.modes[from].name, device.modes[to].name))
        })?;
        Ok((route.time_s * 1e6).round() as u64)
    };
    let mut states = vec![PowerState { non_operational: false, entry_latency_us: 0, exit_latency_us: 0 }];
    for &m in &order[1..] {
        states.push(PowerState { non_operational: true, entry_latency_us: latency_us(READY, m)?, exit_latency_us: latency_us(m, READY)? });
    }
    let table = apst_table(&states, &params);
    // Follow the table from PS0: each hop's idle time counts once the state before is reached.
    let mut steps = Vec::new();
    let (mut state, mut at_s) = (0usize, 0.0f64);
    while let Some((next, idle_ms)) = table[state] {
        at_s += idle_ms as f64 * 1e-3;
        steps.push(Step::to(at_s, order[next]));
        at_s += device.route(order[state], order[next]).map_or(0.0, |r| r.time_s);
        state = next;
    }
    let name = if spec.args.is_empty() { "apst".to_string() } else { spec.text.clone() };
    Ok(Box::new(super::FixedCascade { name, steps }))
}


#[cfg(test)]
mod tests {
    use super::*;

    fn ps(non_operational: bool, entry_latency_us: u64, exit_latency_us: u64) -> PowerState {
        PowerState { non_operational, entry_latency_us, exit_latency_us }
    }

    /// Samsung PM981 (as smartctl prints its Identify data): PS0–PS2 operational, PS3 210/1200 µs,
    /// PS4 2000/8000 µs.
    fn pm981() -> Vec<PowerState> {
        vec![ps(false, 0, 0), ps(false, 0, 0), ps(false, 0, 0), ps(true, 210, 1200), ps(true, 2000, 8000)]
    }

    /// Kingston NV2 2 TB: PS3 5000/5000 µs, PS4 20000/70000 µs.
    fn nv2() -> Vec<PowerState> {
        vec![ps(false, 0, 0), ps(false, 0, 200), ps(false, 0, 1000), ps(true, 5000, 5000), ps(true, 20000, 70000)]
    }

    /// Samsung 950 PRO (nvme-cli pull request 52): PS0–PS2 operational with small latencies,
    /// PS3 500/5000 µs, PS4 2000/22000 µs.
    fn sm950() -> Vec<PowerState> {
        vec![ps(false, 5, 5), ps(false, 30, 30), ps(false, 100, 100), ps(true, 500, 5000), ps(true, 2000, 22000)]
    }

    #[test]
    fn the_950_pro_as_the_drivers_author_reported_it() {
        // The patch that brought APST to Linux (Lutomirski, 2017): "On my Samsung 950, this means
        // we enter state 3 ... after 275ms and state 4 ... after 1200ms. I have the default max
        // latency set to 25ms." That was the original heuristic: (500 + 5000) / 20 = 275 ms and
        // (2000 + 22000) / 20 = 1200 ms.
        let then = ApstParams { ps_max_latency_us: 25_000, primary_timeout_ms: 0, ..ApstParams::default() };
        assert_eq!(apst_table(&sm950(), &then), vec![Some((3, 275)), Some((3, 275)), Some((3, 275)), Some((4, 1200)), None]);
        // Today's defaults: PS3 (5.5 ms) is the primary state after 100 ms, PS4 (24 ms, within
        // the 100 ms secondary tolerance) follows 2000 ms later.
        assert_eq!(apst_table(&sm950(), &ApstParams::default()), vec![Some((3, 100)), Some((3, 100)), Some((3, 100)), Some((4, 2000)), None]);
        // A 20 ms limit excludes PS4 (exit 22 ms).
        let tight = ApstParams { ps_max_latency_us: 20_000, ..ApstParams::default() };
        assert_eq!(apst_table(&sm950(), &tight), vec![Some((3, 100)), Some((3, 100)), Some((3, 100)), None, None]);
    }

    #[test]
    fn tables_by_hand_for_the_catalog_drives() {
        let defaults = ApstParams::default();
        // PM981: PS4's 10 ms round trip is within the primary 15 ms tolerance, so every state
        // goes to PS4 after 100 ms; PS3 is passed over (the primary class is taken).
        assert_eq!(apst_table(&pm981(), &defaults), vec![Some((4, 100)); 4].into_iter().chain([None]).collect::<Vec<_>>());
        // NV2: PS4 (90 ms) is the secondary state, 2000 ms after PS3 (10 ms, primary, 100 ms).
        assert_eq!(apst_table(&nv2(), &defaults), vec![Some((3, 100)), Some((3, 100)), Some((3, 100)), Some((4, 2000)), None]);
        // A 50 ms latency limit excludes NV2's PS4 (exit 70 ms): PS3 only.
        let tight = ApstParams { ps_max_latency_us: 50_000, ..defaults };
        assert_eq!(apst_table(&nv2(), &tight), vec![Some((3, 100)), Some((3, 100)), Some((3, 100)), None, None]);
        // The original heuristic: (entry + exit + 19) / 20 ms, every usable state in a chain.
        let legacy = ApstParams { primary_timeout_ms: 0, ..defaults };
        assert_eq!(apst_table(&pm981(), &legacy), vec![Some((3, 71)), Some((3, 71)), Some((3, 71)), Some((4, 500)), None]);
        assert_eq!(apst_table(&nv2(), &legacy), vec![Some((3, 500)), Some((3, 500)), Some((3, 500)), Some((4, 4500)), None]);
        // Off.
        assert_eq!(apst_table(&pm981(), &ApstParams { ps_max_latency_us: 0, ..defaults }), vec![None; 5]);
        // The pre-5.x default limit (25 ms) with the heuristic keeps PM981's PS4 (exit 8 ms).
        let old = ApstParams { ps_max_latency_us: 25_000, primary_timeout_ms: 0, ..defaults };
        assert_eq!(apst_table(&pm981(), &old)[0], Some((3, 71)));
    }
}
