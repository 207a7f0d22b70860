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
