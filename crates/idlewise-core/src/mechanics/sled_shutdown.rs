//! Bringing a MEMS sled to rest at the centre (seed 004 §4.2 and §6, Khatib & Hartel): the
//! shutdown policies as bang-bang control of a spring-suspended mass, one axis at a time.
//!
//! Each axis is a mass on a linear spring (`ẍ = −ω²x`) pushed by an actuator of acceleration
//! `±a`. In the phase plane `(x, ẋ/ω)` every phase is an arc of a circle around the phase's
//! equilibrium (`0` for the spring alone, `±A` with `A = a/ω²` when the actuator pushes), so each
//! switch point and time is the intersection of two circles:
//!
//! - **Performance-efficient (PE)**: the actuator accelerates towards the centre, then brakes:
//!   arcs around `−A` and `+A`; the switch is at `xs = (x0² + 2A·x0) / 4A`. This is the
//!   time-optimal rest-to-rest move, Hong's closed form with the end at the centre.
//! - **Energy-efficient (EE)**: the springs alone pull the sled towards the centre (an arc
//!   around 0, no power), then the actuator brakes: the switch is at `xs = x0² / 2A`.
//!
//! The braking arc ends at the centre at rest in both. Energy is the actuator's power while it
//! pushes; the springs' phase is free. The two axes move at once: the shutdown lasts as long as
//! the slower axis. A request arriving during a shutdown aborts it: the actuator brakes at once
//! (an arc around `+A` from the sled's current state) and the seek starts from where the sled
//! stops. Without springs (`ω = 0`) PE is `2·sqrt(x0/a)` and EE does not exist.

/// How a sled is brought to rest at the centre.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShutdownPolicy {
    /// Actuators accelerate towards the centre, then brake (fastest).
    PerformanceEfficient,
    /// Springs accelerate, actuators only brake (cheapest).
    EnergyEfficient,
}

impl ShutdownPolicy {
    pub fn parse(text: &str) -> Option<ShutdownPolicy> {
        match text {
            "pe" => Some(ShutdownPolicy::PerformanceEfficient),
            "ee" => Some(ShutdownPolicy::EnergyEfficient),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ShutdownPolicy::PerformanceEfficient => "pe",
            ShutdownPolicy::EnergyEfficient => "ee",
        }
    }
}

/// One axis of the sled: actuator acceleration and spring stiffness per unit mass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpringAxis {
    pub accel_m_s2: f64,
    /// `ω² = k/m` (1/s²); 0 without springs.
    pub omega2: f64,
}

/// One axis's shutdown: how long it takes and how long the actuator pushes.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AxisShutdown {
    pub time_s: f64,
    pub powered_s: f64,
    /// Duration of the first phase (actuator or springs towards the centre).
    pub first_phase_s: f64,
}

/// Where an axis is during a move: offset from the centre (m) and velocity (m/s).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AxisState {
    pub x_m: f64,
    pub v_m_s: f64,
}

/// A whole sled's shutdown (both axes at once).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct SledShutdown {
    pub time_s: f64,
    /// Actuator time summed over the axes (energy = power per axis × this).
    pub powered_s: f64,
}

impl SpringAxis {
    fn omega(&self) -> f64 {
        self.omega2.sqrt()
    }

    /// The actuator's equilibrium offset `A = a/ω²` (m): where it can just hold the sled.
    fn hold_m(&self) -> f64 {
        self.accel_m_s2 / self.omega2
    }

    /// Shutdown from rest at `x0` (m, either side) under `policy`.
    pub fn shutdown(&self, x0_m: f64, policy: ShutdownPolicy) -> AxisShutdown {
        let x0 = x0_m.abs();
        if x0 == 0.0 {
            return AxisShutdown::default();
        }
        if self.omega2 == 0.0 {
            // No springs: constant acceleration to halfway, constant braking after; EE is
            // refused when the device is built, so both mean PE here.
            let t = 2.0 * (x0 / self.accel_m_s2).sqrt();
            return AxisShutdown { time_s: t, powered_s: t, first_phase_s: t / 2.0 };
        }
        let w = self.omega();
        let a_eq = self.hold_m();
        let (xs, first) = match policy {
            ShutdownPolicy::PerformanceEfficient => {
                let xs = (x0 * x0 + 2.0 * a_eq * x0) / (4.0 * a_eq);
                (xs, ((xs + a_eq) / (x0 + a_eq)).clamp(-1.0, 1.0).acos() / w)
            }
            ShutdownPolicy::EnergyEfficient => {
                let xs = x0 * x0 / (2.0 * a_eq);
                (xs, (xs / x0).clamp(-1.0, 1.0).acos() / w)
            }
        };
        let brake = self.brake_arc_s(xs);
        let powered = match policy {
            ShutdownPolicy::PerformanceEfficient => first + brake,
            ShutdownPolicy::EnergyEfficient => brake,
        };
        AxisShutdown { time_s: first + brake, powered_s: powered, first_phase_s: first }
    }

    /// Time of the final braking arc from the switch point `xs` to the centre.
    fn brake_arc_s(&self, xs: f64) -> f64 {
        let a_eq = self.hold_m();
        ((a_eq - xs) / a_eq).clamp(-1.0, 1.0).acos() / self.omega()
    }

    /// The axis `t_s` into a shutdown from rest at `x0` (same sign as `x0`).
    pub fn state_at(&self, x0_m: f64, policy: ShutdownPolicy, t_s: f64) -> AxisState {
        let side = if x0_m < 0.0 { -1.0 } else { 1.0 };
        let x0 = x0_m.abs();
        let plan = self.shutdown(x0, policy);
        if t_s >= plan.time_s {
            return AxisState { x_m: 0.0, v_m_s: 0.0 };
        }
        let (x, v) = if self.omega2 == 0.0 {
            let a = self.accel_m_s2;
            if t_s < plan.first_phase_s {
                (x0 - a * t_s * t_s / 2.0, -a * t_s)
            } else {
                let r = plan.time_s - t_s;
                (a * r * r / 2.0, -a * r)
            }
        } else {
            let w = self.omega();
            let a_eq = self.hold_m();
            if t_s < plan.first_phase_s {
                // Arc around −A (actuator and spring) or 0 (spring alone).
                let centre = if policy == ShutdownPolicy::PerformanceEfficient { -a_eq } else { 0.0 };
                let r = x0 - centre;
                (centre + r * (w * t_s).cos(), -r * w * (w * t_s).sin())
            } else {
                // The braking arc around +A, ending at the centre at rest.
                let r = plan.time_s - t_s;
                (a_eq - a_eq * (w * r).cos(), -a_eq * w * (w * r).sin())
            }
        };
        AxisState { x_m: side * x, v_m_s: side * v }
    }

    /// Brakes an axis moving towards the centre at once: where it stops (m) and how long it takes.
    /// An axis at rest stays.
    pub fn brake(&self, state: AxisState) -> (f64, f64) {
        if state.v_m_s == 0.0 {
            return (state.x_m, 0.0);
        }
        // Mirror so the sled moves in −x; the actuator then pushes +x.
        let side = if state.v_m_s < 0.0 { 1.0 } else { -1.0 };
        let x = side * state.x_m;
        let u = side * state.v_m_s;
        if self.omega2 == 0.0 {
            let a = self.accel_m_s2;
            return (side * (x - u * u / (2.0 * a)), -u / a);
        }
        let w = self.omega();
        let a_eq = self.hold_m();
        // x − A = R cos(φ), ẋ/ω = −R sin(φ); the sled stops when the arc reaches φ = π.
        let radius = ((x - a_eq).powi(2) + (u / w).powi(2)).sqrt();
        let phase = (-u / w).atan2(x - a_eq);
        (side * (a_eq - radius), (std::f64::consts::PI - phase) / w)
    }
}

/// Shutdown of the sled from rest at `(x, y)` (m): both axes at once.
pub fn sled_shutdown(x_axis: &SpringAxis, y_axis: &SpringAxis, x_m: f64, y_m: f64, policy: ShutdownPolicy) -> SledShutdown {
    let x = x_axis.shutdown(x_m, policy);
    let y = y_axis.shutdown(y_m, policy);
    SledShutdown { time_s: x.time_s.max(y.time_s), powered_s: x.powered_s + y.powered_s }
}

/// A shutdown interrupted part-way: where the sled stops and what it cost.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Interrupted {
    /// Where the sled comes to rest `(x, y)` (m).
    pub stop_m: (f64, f64),
    /// How long braking takes after the interruption (the slower axis).
    pub braking_s: f64,
    /// Actuator time summed over the axes before the interruption, and while braking.
    pub powered_before_s: f64,
    pub powered_braking_s: f64,
}

/// A shutdown from rest at `(x, y)` (m) interrupted `t_s` after it began: the axes brake at
/// once (an axis already at the centre stays there).
pub fn interrupted_shutdown(x_axis: &SpringAxis, y_axis: &SpringAxis, x_m: f64, y_m: f64, policy: ShutdownPolicy, t_s: f64) -> Interrupted {
    let mut out = Interrupted::default();
    let mut stop = [0.0; 2];
    for (i, (axis, x0)) in [(x_axis, x_m), (y_axis, y_m)].into_iter().enumerate() {
        let plan = axis.shutdown(x0, policy);
        if t_s >= plan.time_s {
            out.powered_before_s += plan.powered_s;
            continue;
        }
        out.powered_before_s += match policy {
            ShutdownPolicy::PerformanceEfficient => t_s,
            ShutdownPolicy::EnergyEfficient => (t_s - plan.first_phase_s).max(0.0),
        };
        let (at, brake_s) = axis.brake(axis.state_at(x0, policy, t_s));
        stop[i] = at;
        out.braking_s = out.braking_s.max(brake_s);
        out.powered_braking_s += brake_s;
    }
    out.stop_m = (stop[0], stop[1]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mechanics::mems::hong_seek_x_s;

    /// The IBM sled of `ibm-mems-seed004`: 56 m/s², spring force equal to the actuator's at the
    /// edge of the ±50 µm field.
    fn ibm() -> SpringAxis {
        SpringAxis { accel_m_s2: 56.0, omega2: 56.0 / 50e-6 }
    }

    #[test]
    fn pe_is_hongs_rest_to_rest_seek_to_the_centre() {
        let axis = ibm();
        for x0 in [1e-6, 5e-6, 25e-6, 45e-6, 50e-6] {
            // DiskSim's Hong convention: k·l = K·F with l the full stroke; edge force = F is K = 2.
            let hong = hong_seek_x_s(x0 * 1e9, 0.0, 2.0, 56.0e9, 100_000.0);
            let pe = axis.shutdown(x0, ShutdownPolicy::PerformanceEfficient);
            assert!((pe.time_s - hong).abs() < 1e-12, "{x0}: {} vs {hong}", pe.time_s);
            assert_eq!(pe.powered_s, pe.time_s);
        }
    }

    #[test]
    fn constant_acceleration_without_springs() {
        let axis = SpringAxis { accel_m_s2: 50.0, omega2: 0.0 };
        // 2·sqrt(8e-6 / 50) = 0.8 ms.
        let pe = axis.shutdown(-8e-6, ShutdownPolicy::PerformanceEfficient);
        assert!((pe.time_s - 0.8e-3).abs() < 1e-15);
        let half = axis.state_at(-8e-6, ShutdownPolicy::PerformanceEfficient, 0.4e-3);
        assert!((half.x_m + 4e-6).abs() < 1e-15 && (half.v_m_s - 0.02).abs() < 1e-12);
        // Braking from 4 µm at 20 mm/s: 0.4 ms over 4 µm, stopping exactly at the centre.
        let (at, t) = axis.brake(half);
        assert!(at.abs() < 1e-15 && (t - 0.4e-3).abs() < 1e-15);
    }

    #[test]
    fn ee_is_a_quarter_period_near_the_centre_and_cheaper_everywhere() {
        let axis = ibm();
        let quarter = std::f64::consts::FRAC_PI_2 / axis.omega();
        // Near the centre: a quarter period plus x0/2A radians (the braking arc outlasts what
        // it saves of the springs' arc).
        let near = axis.shutdown(1e-9, ShutdownPolicy::EnergyEfficient);
        let expected = quarter + 1e-9 / (2.0 * axis.hold_m()) / axis.omega();
        assert!((near.time_s - expected).abs() < 1e-9 * quarter, "{} vs {expected}", near.time_s);
        for x0 in [1e-6, 5e-6, 20e-6, 45e-6, 50e-6] {
            let pe = axis.shutdown(x0, ShutdownPolicy::PerformanceEfficient);
            let ee = axis.shutdown(x0, ShutdownPolicy::EnergyEfficient);
            assert!(ee.time_s > pe.time_s && ee.powered_s < pe.powered_s);
            // Seed 004 §6.2.2: EE saves at least 40 % of the shutdown energy.
            assert!(ee.powered_s / pe.powered_s < 0.6, "{x0}: {}", ee.powered_s / pe.powered_s);
        }
    }

    #[test]
    fn trajectories_are_continuous_and_end_at_rest_at_the_centre() {
        let axis = ibm();
        for policy in [ShutdownPolicy::PerformanceEfficient, ShutdownPolicy::EnergyEfficient] {
            let x0 = 30e-6;
            let plan = axis.shutdown(x0, policy);
            let start = axis.state_at(x0, policy, 0.0);
            assert!((start.x_m - x0).abs() < 1e-15 && start.v_m_s.abs() < 1e-12);
            let before = axis.state_at(x0, policy, plan.first_phase_s * (1.0 - 1e-9));
            let after = axis.state_at(x0, policy, plan.first_phase_s * (1.0 + 1e-9));
            assert!((before.x_m - after.x_m).abs() < 1e-12 && (before.v_m_s - after.v_m_s).abs() < 1e-6);
            let end = axis.state_at(x0, policy, plan.time_s * (1.0 - 1e-12));
            assert!(end.x_m.abs() < 1e-12 && end.v_m_s.abs() < 1e-6);
            // Braking on the final arc is that arc: it stops at the centre when the plan does.
            let t = plan.first_phase_s + (plan.time_s - plan.first_phase_s) / 2.0;
            let (at, brake) = axis.brake(axis.state_at(x0, policy, t));
            assert!(at.abs() < 1e-12 && (t + brake - plan.time_s).abs() < 1e-12);
            // Energy of the springs' phase: the actuator only works while braking (EE).
            let at_switch = axis.state_at(x0, policy, plan.first_phase_s);
            let e = 0.5 * at_switch.v_m_s.powi(2) + 0.5 * axis.omega2 * at_switch.x_m.powi(2);
            let e0 = 0.5 * axis.omega2 * x0 * x0;
            if policy == ShutdownPolicy::EnergyEfficient {
                assert!((e - e0).abs() < 1e-9 * e0, "the springs alone conserve energy");
            } else {
                assert!(e < e0 + axis.accel_m_s2 * x0);
            }
        }
    }

    #[test]
    fn an_interrupted_shutdown_brakes_short_of_the_centre() {
        let axis = ibm();
        let ee = ShutdownPolicy::EnergyEfficient;
        let cut = interrupted_shutdown(&axis, &axis, 40e-6, -10e-6, ee, 0.3e-3);
        // Both still in the springs' phase: unpowered so far; they stop on their own sides.
        let (x, y) = cut.stop_m;
        assert!(x > 0.0 && x < 40e-6 && y < 0.0 && y > -10e-6);
        assert_eq!(cut.powered_before_s, 0.0);
        let brakes = [40e-6, -10e-6].map(|x0| axis.brake(axis.state_at(x0, ee, 0.3e-3)).1);
        assert!((cut.powered_braking_s - (brakes[0] + brakes[1])).abs() < 1e-15);
        assert_eq!(cut.braking_s, brakes[0].max(brakes[1]));
        let full = sled_shutdown(&axis, &axis, 40e-6, -10e-6, ee);
        let done = interrupted_shutdown(&axis, &axis, 40e-6, -10e-6, ee, full.time_s);
        assert_eq!((done.stop_m, done.braking_s, done.powered_braking_s), ((0.0, 0.0), 0.0, 0.0));
        assert!((done.powered_before_s - full.powered_s).abs() < 1e-15);
    }
}
