//! `psm`: the 802.11 card's static power-saving mode. Between transfers the card dozes in its
//! low-power serving mode (PSM) at once, and it serves there, downloads waiting for the next
//! beacon; it never switches to CAM. The default configuration of seed 000's static strategy.

use super::{BuildContext, Family, GapStart, Plan, Policy, PolicySpec};
use crate::device::Device;
use crate::error::Result;

pub(super) const FAMILY: Family = Family {
    name: "psm",
    summary: "802.11 static PSM: doze in the low-power serving mode at once and serve there (downloads wait for beacons).",
    params: &[],
    example: "psm",
    run_by_the_drive: false,
    build,
};

struct Psm {
    mode: usize,
}

/// The low-power mode that still serves (PSM), or an error naming the device.
pub(crate) fn serving_low_power_mode(spec: &PolicySpec, device: &Device) -> Result<usize> {
    (1..device.mode_count()).find(|&m| device.modes[m].serves).ok_or_else(|| {
        spec.error(format!("device '{}' has no low-power mode that serves (such as 802.11 PSM)", device.name))
    })
}

fn build(spec: &PolicySpec, device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    spec.expect_keys(&[])?;
    Ok(Box::new(Psm { mode: serving_low_power_mode(spec, device)? }))
}

impl Policy for Psm {
    fn name(&self) -> &str {
        "psm"
    }
    fn plan_gap(&mut self, _gap: &GapStart, plan: &mut Plan) {
        plan.push(0.0, self.mode);
    }
    fn serve_in_mode(&mut self, mode: usize, _arrival_s: f64) -> bool {
        mode == self.mode
    }
}
