//! `randomized`: Karlin, Manasse, McGeoch & Owicki's randomized ski-rental timeout
//! (ALGORITHMS §2.1). At the start of every gap it draws `τ = B·ln(1 + U·(e − 1))`, `U ~ U(0,1)`,
//! with `B` the break-even time of the deepest mode, and moves there after `τ`. Its expected
//! energy on a two-state device is within e/(e−1) ≈ 1.58 of the offline optimum for every gap.
//! Deterministic for a given seed.

use rand::{Rng, SeedableRng};
use rand_pcg::Pcg64Mcg;

use super::{BuildContext, Family, GapStart, ParamDoc, Plan, Policy, PolicySpec};
use crate::device::Device;
use crate::error::Result;

pub(super) const FAMILY: Family = Family {
    name: "randomized",
    summary: "Karlin et al. randomized timeout to the deepest mode, density e^(t/B)/(B(e-1)) on [0, B] (e/(e-1)-competitive in expectation).",
    params: &[ParamDoc { name: "seed", default: "0", help: "seed of the PCG random stream (runs are deterministic per seed)" }],
    example: "randomized:seed=7",
    run_by_the_drive: false,
    build,
};

struct Randomized {
    name: String,
    mode: usize,
    break_even_s: f64,
    rng: Pcg64Mcg,
}

fn build(spec: &PolicySpec, device: &Device, _ctx: &BuildContext) -> Result<Box<dyn Policy>> {
    spec.expect_keys(&["seed"])?;
    let seed = spec.seed("seed", 0)?;
    let mode = super::require_low_power_mode(spec, device)?;
    Ok(Box::new(Randomized {
        name: format!("randomized:seed={seed}"),
        mode,
        break_even_s: device.break_even_s(mode),
        rng: Pcg64Mcg::seed_from_u64(seed),
    }))
}

impl Policy for Randomized {
    fn name(&self) -> &str {
        &self.name
    }
    fn plan_gap(&mut self, _gap: &GapStart, plan: &mut Plan) {
        if !self.break_even_s.is_finite() {
            return;
        }
        let u: f64 = self.rng.gen();
        plan.push(self.break_even_s * (1.0 + u * (std::f64::consts::E - 1.0)).ln(), self.mode);
    }
}
