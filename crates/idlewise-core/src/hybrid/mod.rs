//! Hybrid disks (seed 003, Bisson & Brandt, *Flushing Policies for NVCache Enabled Hard Disks*):
//! a disk with a flash NVCache that absorbs writes while the platters are spun down, and the
//! algorithms that flush it back.
//!
//! - [`nvcache`]: the NVCache as a log of redirected writes (log order, a metadata sector each)
//!   and the set of sectors it holds;
//! - [`flush`]: the four flushing algorithms of seed 003 Figure 2, as schedules of flash reads
//!   and disk writes over a DRAM buffer;
//! - [`engine`]: a trace on the disk's `DeviceSim` and its policy, the flash and the NVCache;
//! - [`description`]: a hybrid disk described in TOML by its parts and sizes.

pub mod description;
pub mod engine;
pub mod flush;
pub mod nvcache;

pub use description::HybridDescription;
pub use engine::{check_policy, replay_hybrid, FlushWhen, HybridConfig, HybridReplay, HybridResult, HybridRuns};
pub use flush::FlushAlgorithm;
