//! What makes a device's service depend on its state and its surroundings: each model is a set
//! of small named functions traceable to an equation, carried by an ordinary device.
//!
//! - `mems`: the sled of MEMS probe storage (CMU model as DiskSim 4.0 computes it).
//! - `sled_shutdown`: bringing a MEMS sled to rest at the centre, seed 004's two shutdown
//!   policies (bang-bang control with springs).
//! - `network`: a transfer over TCP on an emulated link (connection set-up, slow start,
//!   802.11 PSM beacons), seed 000 §2.2 and §5.1.

pub mod mems;
pub mod mems_events;
pub mod network;
pub mod sled_shutdown;

/// `x.floor()`, to the bit. Of a positive number below 2^52 the floor is its truncation, which
/// the processor does in one instruction; `floor` is a library call on baseline x86-64, and these
/// run once or twice a request (a sled's layout and idle sweep, a disk's seek distance in
/// cylinders). (Zero keeps its sign through the library's.)
#[inline(always)]
pub(crate) fn floor(x: f64) -> f64 {
    if (f64::MIN_POSITIVE..4.5e15).contains(&x) { (x as i64) as f64 } else { x.floor() }
}

/// `x.ceil()`, to the bit, as `floor`.
#[inline(always)]
pub(crate) fn ceil(x: f64) -> f64 {
    if (f64::MIN_POSITIVE..4.5e15).contains(&x) {
        let whole = (x as i64) as f64;
        if whole < x { whole + 1.0 } else { whole }
    } else {
        x.ceil()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_and_ceil_are_the_library_s_to_the_bit() {
        let mut values = vec![0.0, -0.0, 0.5, 1.0, 1.5, -1.5, 511.0 / 512.0, 4.5e15 - 0.5, 4.5e15, 2f64.powi(52) + 1.0, 1e300, -1e300];
        values.extend([f64::MIN_POSITIVE, f64::MIN_POSITIVE / 2.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, f64::EPSILON]);
        let mut x = 0.37_f64;
        for _ in 0..10_000 {
            // Quotients such as offsets in blocks and idle times in sweep periods, near and at wholes.
            x = (x * 7919.0 + 0.123) % 1e7;
            values.extend([x, x.floor(), x.floor() + f64::EPSILON * x, -x]);
        }
        for v in values {
            assert_eq!(floor(v).to_bits(), v.floor().to_bits(), "floor({v})");
            assert_eq!(ceil(v).to_bits(), v.ceil().to_bits(), "ceil({v})");
        }
    }
}
