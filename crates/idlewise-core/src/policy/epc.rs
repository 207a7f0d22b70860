//! `epc`: ATA Extended Power Conditions (ACS-3 §4.9). A drive with EPC moves itself through
//! idle_a, idle_b, idle_c, standby_y and standby_z, each entered when its timer (idle time since
//! the last command) expires; an enabled deeper state's timer must be longer. The drive's
//! defaults come from the catalog (`epc_timer_s` on each mode, from its product manual);
//! `epc:idle_b=10min,standby_z=off` changes or disables timers, as `hdparm --set-epc`-style
//! tools (openSeaChest_PowerControl `--EPCfeature`, `--idle_b`, `--standby_z`) do.

use super::{BuildContext, Family, ParamDoc, Policy, PolicySpec, Step};
use crate::device::Device;
use crate::error::Result;
use crate::units::format_duration_s;

pub(super) const FAMILY: Family = Family {
    name: "epc",
    summary: "ATA Extended Power Conditions: the drive enters each EPC state when its timer expires (the drive's defaults, or given).",
    params: &[ParamDoc {
        name: "<mode>=<duration>|off",
        default: "the drive's timers",
        help: "change a state's timer or disable it, e.g. epc:idle_b=10min,standby_z=off",
    }],
    example: "epc",
    run_by_the_drive: true,
    build,
};


fn build(spec: &PolicySpec, device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    let mut timers: Vec<Option<f64>> = device.modes.iter().map(|m| m.epc_timer_s).collect();
    // A drive has EPC when its description gives its states' timers (from its manual); timers
    // given here change a drive's, they do not give a drive without EPC the feature.
    if timers.iter().all(Option::is_none) {
        return Err(spec.error(format!(
            "device '{}' has no EPC timers in its description: it does not implement ATA Extended Power Conditions; a host's timer to the same mode is 'timeout:{}=2min'",
            device.name,
            device.deepest_mode().map_or("standby", |m| device.modes[m].name.as_str())
        )));
    }
    for (key, value) in &spec.args {
        let Some(name) = key else {
            return Err(spec.error(format!("unexpected value '{value}'; write timers as <mode>=<duration> or <mode>=off")));
        };
        let m = super::named_low_power_mode(spec, device, name, "EPC state")?;
        timers[m] = if value == "off" { None } else { Some(spec.duration_s(value, name)?) };
    }
    let mut steps: Vec<Step> = timers.iter().enumerate().filter_map(|(m, t)| t.map(|t| Step::to(t, m))).collect();
    steps.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
    if let Some((a, b)) = super::first_out_of_order(device, &steps) {
        let (first, then) = (&device.modes[a.mode], &device.modes[b.mode]);
        return Err(spec.error(format!(
            "EPC timers must grow with depth: '{}' ({} W) at {} and '{}' ({} W) at {}",
            first.name, first.power_w, format_duration_s(a.at_s), then.name, then.power_w, format_duration_s(b.at_s)
        )));
    }
    let name = if spec.args.is_empty() {
        "epc".to_string()
    } else {
        let parts: Vec<String> = steps.iter().map(|s| format!("{}={}", device.modes[s.mode].name, format_duration_s(s.at_s))).collect();
        format!("epc:{}", if parts.is_empty() { "off".to_string() } else { parts.join(",") })
    };
    Ok(Box::new(super::FixedCascade { name, steps }))
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{GapStart, Plan};

    fn epc_drive() -> Device {
        Device::from_toml(
            r#"
            name = "epc-drive"
            kind = "disk"
            [[modes]]
            name = "idle"
            power_w = 5.0
            serves = true
            [[modes]]
            name = "idle_a"
            power_w = 4.5
            epc_timer_s = 0.1
            [[modes]]
            name = "idle_b"
            power_w = 3.0
            epc_timer_s = 120
            [[modes]]
            name = "standby_z"
            power_w = 0.8
            epc_timer_s = 900
            [[transitions]]
            from = "idle"
            to = "idle_a"
            time_s = 0.0
            energy_j = 0.0
            [[transitions]]
            from = "idle"
            to = "idle_b"
            time_s = 0.5
            energy_j = 2.5
            [[transitions]]
            from = "idle"
            to = "standby_z"
            time_s = 5.0
            energy_j = 25.0
            [[transitions]]
            from = "idle_a"
            to = "idle"
            time_s = 0.001
            energy_j = 0.005
            [[transitions]]
            from = "idle_b"
            to = "idle"
            time_s = 0.5
            energy_j = 3.0
            [[transitions]]
            from = "standby_z"
            to = "idle"
            time_s = 20.0
            energy_j = 200.0
            [service]
            overhead_s = 0.01
            read_bandwidth_bytes_per_s = 1e8
            write_bandwidth_bytes_per_s = 1e8
            active_power_w = 7.0
            "#,
            "epc-drive.toml",
        )
        .unwrap()
    }

    fn plan(spec: &str) -> (String, Vec<(String, f64)>) {
        let d = epc_drive();
        let mut p = PolicySpec::parse(spec).unwrap().build(&d, &BuildContext::default()).unwrap();
        let mut plan = Plan::default();
        p.plan_gap(&GapStart { device: &d, time_s: 0.0, gap_s: 1e9, ends_run: false, held: None }, &mut plan);
        (p.name().to_string(), plan.steps.iter().map(|s| (d.modes[s.mode].name.clone(), s.at_s)).collect())
    }

    #[test]
    fn the_drives_timers_make_the_cascade_and_can_be_changed_or_disabled() {
        let named = |v: &[(&str, f64)]| v.iter().map(|(n, t)| (n.to_string(), *t)).collect::<Vec<_>>();
        assert_eq!(plan("epc"), ("epc".to_string(), named(&[("idle_a", 0.1), ("idle_b", 120.0), ("standby_z", 900.0)])));
        assert_eq!(plan("epc:standby_z=off").1, named(&[("idle_a", 0.1), ("idle_b", 120.0)]));
        assert_eq!(plan("epc:idle_b=10min,standby_z=1h").0, "epc:idle_a=100ms,idle_b=10min,standby_z=60min");
        let d = epc_drive();
        let e = PolicySpec::parse("epc:idle_b=2h").unwrap().build(&d, &BuildContext::default()).err().unwrap().to_string();
        assert!(e.contains("must grow with depth"), "{e}");
        let e = PolicySpec::parse("epc:idle_q=1s").unwrap().build(&d, &BuildContext::default()).err().unwrap().to_string();
        assert!(e.contains("unknown EPC state 'idle_q'"), "{e}");
        let plain = crate::device::tests::two_state();
        let e = PolicySpec::parse("epc").unwrap().build(&plain, &BuildContext::default()).err().unwrap().to_string();
        assert!(e.contains("no EPC timers"), "{e}");
    }
}
