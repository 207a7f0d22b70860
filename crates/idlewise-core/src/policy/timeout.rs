//! `timeout`: fixed timeouts. `timeout:2s` moves to the deepest mode after 2 s of idleness;
//! `timeout:low-power-idle=0.5s,standby=5s` is a cascade, each mode at its own idle time.

use super::{BuildContext, Family, ParamDoc, Policy, PolicySpec, Step};
use crate::device::{Device, READY};
use crate::error::Result;
use crate::units::format_duration_s;

pub(super) const FAMILY: Family = Family {
    name: "timeout",
    summary: "Fixed timeout(s): after the given idle time, move to the deepest mode, or to each named mode in turn.",
    params: &[
        ParamDoc { name: "<duration>", default: "required", help: "idle time before moving to the deepest mode, e.g. timeout:2s" },
        ParamDoc { name: "<mode>=<duration>", default: "", help: "cascade: idle time before moving to each named mode, e.g. timeout:low-power-idle=0.5s,standby=5s" },
    ],
    example: "timeout:2s",
    run_by_the_drive: false,
    build,
};


fn build(spec: &PolicySpec, device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    if spec.args.is_empty() {
        return Err(spec.error("needs a timeout, e.g. 'timeout:2s' or 'timeout:standby=5s'"));
    }
    let mut steps = Vec::new();
    for (key, value) in &spec.args {
        let at_s = spec.duration_s(value, "timeout")?;
        let mode = match key {
            None => super::require_low_power_mode(spec, device)?,
            Some(name) if device.mode_index(name) == Some(READY) => {
                return Err(spec.error(format!("'{name}' is the ready mode; a timeout moves to a low-power mode")));
            }
            Some(name) => super::named_low_power_mode(spec, device, name, "mode")?,
        };
        steps.push(Step::to(at_s, mode));
    }
    steps.sort_by(|a, b| a.at_s.total_cmp(&b.at_s));
    // A cascade goes deeper as idle time grows: an inverted one would spin a disk up in the
    // middle of an idle period (standby -> ready -> low-power idle).
    if let Some((a, b)) = super::first_out_of_order(device, &steps) {
        let (first, then) = (&device.modes[a.mode], &device.modes[b.mode]);
        if a.at_s == b.at_s {
            return Err(spec.error(format!("'{}' and '{}' are both entered after {}; give each mode its own idle time", first.name, then.name, format_duration_s(a.at_s))));
        }
        return Err(spec.error(format!(
            "the cascade goes shallower: '{}' ({} W) after {}, then '{}' ({} W) after {}; a cascade must move to lower-power modes as idle time grows",
            first.name, first.power_w, format_duration_s(a.at_s), then.name, then.power_w, format_duration_s(b.at_s)
        )));
    }
    let name = if spec.args.len() == 1 && spec.args[0].0.is_none() {
        format!("timeout:{}", format_duration_s(steps[0].at_s))
    } else {
        let parts: Vec<String> =
            steps.iter().map(|s| format!("{}={}", device.modes[s.mode].name, format_duration_s(s.at_s))).collect();
        format!("timeout:{}", parts.join(","))
    };
    Ok(Box::new(super::FixedCascade { name, steps }))
}

