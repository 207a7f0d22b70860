//! `breakeven`: the lower-envelope algorithm (Irani, Shukla & Gupta; ALGORITHMS §2.2/§2.4).
//!
//! Each mode `i` is a line `γ_i + P_i·T` (energy of a gap of length `T` spent there, with
//! `γ_i = E_down + E_up − P_i·(T_down + T_up)`). At every elapsed idle time the policy is in the
//! mode whose line is lowest at that time; the crossing points are its timeouts. On a two-state
//! device this is the classic break-even timeout and is 2-competitive. Each threshold is also
//! held at or above its mode's round-trip time `T_down + T_up`, the shortest gap in which the mode
//! can pay off at all; this keeps the 2-competitive bound when transitions are slow but cheap.

use super::{monotone_cascade, BuildContext, Family, Policy, PolicySpec, Step};
use crate::device::{Device, READY};
use crate::error::Result;

pub(super) const FAMILY: Family = Family {
    name: "breakeven",
    summary: "Lower-envelope algorithm: move to each mode at the time its energy line crosses below the current one (2-competitive).",
    params: &[],
    example: "breakeven",
    run_by_the_drive: false,
    build,
};


/// The lower-envelope thresholds for a device, as cascade steps.
pub(crate) fn envelope_steps(device: &Device) -> Vec<Step> {
    let p0 = device.modes[READY].power_w;
    // Lines (mode, slope, intercept, round trip) for modes that save power.
    let mut lines: Vec<(usize, f64, f64, f64)> = (1..device.mode_count())
        .filter(|&m| device.modes[m].power_w < p0)
        .map(|m| {
            let down = device.down_route(m);
            let up = device.up_route(m);
            let trip = down.time_s + up.time_s;
            (m, device.modes[m].power_w, down.energy_j + up.energy_j - device.modes[m].power_w * trip, trip)
        })
        .collect();
    lines.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.total_cmp(&b.2)));
    // Convex-hull trick over lines sorted by decreasing slope, starting from the ready line.
    let mut hull: Vec<(usize, f64, f64, f64)> = vec![(READY, p0, 0.0, 0.0)];
    let cross = |a: &(usize, f64, f64, f64), b: &(usize, f64, f64, f64)| (b.2 - a.2) / (a.1 - b.1);
    for line in lines {
        if let Some(last) = hull.last() {
            if last.1 == line.1 {
                continue; // equal slope: the earlier one has the smaller intercept
            }
        }
        while hull.len() >= 2 {
            let n = hull.len();
            if cross(&hull[n - 2], &line) <= cross(&hull[n - 2], &hull[n - 1]) {
                hull.pop();
            } else {
                break;
            }
        }
        hull.push(line);
    }
    let steps = hull
        .windows(2)
        .map(|w| Step::to(cross(&w[0], &w[1]).max(w[1].3).max(0.0), w[1].0))
        .collect();
    monotone_cascade(device, steps)
}

fn build(spec: &PolicySpec, device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    spec.expect_keys(&[])?;
    super::require_low_power_mode(spec, device)?;
    Ok(Box::new(super::FixedCascade { name: "breakeven".to_string(), steps: envelope_steps(device) }))
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::tests::two_state;

    #[test]
    fn two_state_threshold_is_break_even_time() {
        let d = two_state();
        assert_eq!(envelope_steps(&d), vec![Step::to(4.0, 1)]);
    }

    #[test]
    fn normalised_four_state_example_matches_reference() {
        // ALGORITHMS §1.3(f): powers [1, .47, .105, 0], wake-up costs [0, .12, .33, 1], free and
        // instantaneous transitions: thresholds 0.2264, 0.5753, 6.381.
        let toml = r#"
            name = "four"
            kind = "disk"
            [[modes]]
            name = "s0"
            power_w = 1.0
            serves = true
            [[modes]]
            name = "s1"
            power_w = 0.47
            [[modes]]
            name = "s2"
            power_w = 0.105
            [[modes]]
            name = "s3"
            power_w = 0.0
            [[transitions]]
            from = "s0"
            to = "s1"
            time_s = 0
            energy_j = 0
            [[transitions]]
            from = "s0"
            to = "s2"
            time_s = 0
            energy_j = 0
            [[transitions]]
            from = "s0"
            to = "s3"
            time_s = 0
            energy_j = 0
            [[transitions]]
            from = "s1"
            to = "s0"
            time_s = 0
            energy_j = 0.12
            [[transitions]]
            from = "s2"
            to = "s0"
            time_s = 0
            energy_j = 0.33
            [[transitions]]
            from = "s3"
            to = "s0"
            time_s = 0
            energy_j = 1.0
            [service]
            overhead_s = 0
            read_bandwidth_bytes_per_s = 1
            write_bandwidth_bytes_per_s = 1
            active_power_w = 1
        "#;
        let d = Device::from_toml(toml, "four.toml").unwrap();
        let steps = envelope_steps(&d);
        let expected = [(1, 0.2264), (2, 0.5753), (3, 6.381)];
        assert_eq!(steps.len(), 3);
        for (s, (m, t)) in steps.iter().zip(expected) {
            assert_eq!(s.mode, m);
            assert!((s.at_s - t).abs() < 1e-3, "{} vs {t}", s.at_s);
        }
    }
}
