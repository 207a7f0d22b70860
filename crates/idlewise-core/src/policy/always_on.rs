//! `always-on`: never leave the ready mode. The reference every other policy is normalised to.

use super::{BuildContext, Family, GapStart, Plan, Policy, PolicySpec};
use crate::device::Device;
use crate::error::Result;

pub(super) const FAMILY: Family = Family {
    name: "always-on",
    summary: "Never leave the ready mode (no power management); the normalisation reference.",
    params: &[],
    example: "always-on",
    run_by_the_drive: false,
    build,
};

struct AlwaysOn;

fn build(spec: &PolicySpec, _device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    spec.expect_keys(&[])?;
    Ok(Box::new(AlwaysOn))
}

impl Policy for AlwaysOn {
    fn name(&self) -> &str {
        "always-on"
    }
    fn plan_gap(&mut self, _gap: &GapStart, _plan: &mut Plan) {}
}
