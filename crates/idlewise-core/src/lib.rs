//! idlewise-core: the engine behind idlewise.
//!
//! A pure-Rust simulator that replays I/O traces against power-managed devices under
//! power-management policies and keeps an exact ledger of energy, time and wear.
//! Nothing here knows about Python; the binding crate converts at the boundary.
//!
//! Module map:
//! - [`device`]: power modes, transitions (with cheapest multi-hop routes), service model;
//! - [`trace`]: column views of a request stream and their validation;
//! - [`policy`]: power-management policies, one file per family, built from spec strings;
//! - [`device_sim`]: one device's modes, server and ledger over time, driven by its policy;
//! - [`replay`]: the single-device replay loop (the hot path);
//! - [`random_time`]: transition times drawn per use (a spin-up of 4.5 s ± 1.98 s);
//! - [`metrics`]: the energy/time ledger and response-time statistics;
//! - [`evaluate`]: runs policies next to always-on and the oracle (computed once per call, the
//!   oracle as a shadow of always-on where it cannot delay) and normalises results;
//! - [`stream`]: a trace file read in chunks and replayed as it is read (larger than memory);
//! - [`system`]: several devices on one clock: power manager, energy-aware cache, ghost hints;
//! - `testing`: the case counts and seed of every property test (hidden).

pub mod device;
pub mod device_sim;
pub mod error;
pub mod evaluate;
mod family;
pub mod hybrid;
pub mod live;
pub mod mechanics;
pub mod metrics;
pub mod options;
pub mod policy;
pub mod progress;
pub mod random_time;
pub mod readers;
pub mod replay;
pub mod run_table;
pub mod stream;
pub mod system;
#[doc(hidden)]
pub mod testing;
pub mod trace;
pub mod units;

pub use device::Device;
pub use error::{Error, Result};
pub use evaluate::{evaluate, evaluate_on, Report};
pub use policy::{Policy, PolicySpec};
pub use options::{ReplayMode, ReplayOptions, ResponseFrom};
pub use replay::{idle_gaps, replay};
pub use trace::TraceView;
