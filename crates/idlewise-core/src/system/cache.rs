//! The energy-aware cache manager of seed 000 (§4.3, Figure 6) and its ghost hints (§4.4).
//!
//! For a cached item it predicts the time and energy of reading it from the disk and from the
//! network, each device as it is now (queried through the power manager), and weighs them with
//! the knob: `cost = time·K + energy·(100 − K)` (equation 4). Energy is the system's: the device's
//! transition and transfer energy plus the platform base power over the time taken. The cheaper
//! source decides the status (present, or present-but-fetch-from-network).
//!
//! Ghost hints: the manager also prices the source it did not use as if that device were in its
//! ready mode; if that would have beaten the choice it made, it sends that device's manager a
//! hint carrying the weighted benefit.
//!
//! Writes (`PutData`, `PutMetadata`, `Rename`, `Delete`) are background work: while the disk is in
//! a low-power mode they wait in a write queue (capped at 4 MB by default; a write that would
//! overflow it flushes the queue at once), flushed when the disk next enters its ready mode.

use std::collections::HashMap;

use crate::device::READY;
use crate::device_sim::DeviceState;

use super::power_manager::{access_estimate, DeviceHandle, PowerManager};

/// What `CacheStatus` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheStatus {
    Absent,
    Present,
    /// Present, but fetching it from the network is cheaper now (advisory).
    PresentFetchFromNetwork,
}

pub use super::power_manager::Estimate;

/// One deferred background operation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum QueuedWrite {
    Data { object: u64, size_bytes: f64 },
    Metadata { object: u64 },
    Rename { object: u64 },
    Delete { object: u64 },
}

/// Bytes a metadata update, rename or delete writes to the disk.
pub const METADATA_BYTES: f64 = 512.0;

/// Reading a cached file from the disk is more than one disk request: opening it looks up its
/// directory entry and its inode, one file-system block each, before the data (a cold lookup in
/// ext2: Card, Ts'o & Tweedie, "Design and Implementation of the Second Extended Filesystem",
/// 1994, directories and inode tables in separate blocks). Seed 000's browser cache (wwoffle)
/// keeps one file per object.
pub const FILE_METADATA_READS: usize = 2;
/// An ext2 block (4 KiB, the default for file systems over 512 MB).
pub const FILE_BLOCK_BYTES: f64 = 4096.0;

/// The disk requests one cached read of `size_bytes` makes: the metadata blocks, then the data.
pub fn file_read_requests(size_bytes: f64) -> [f64; FILE_METADATA_READS + 1] {
    let mut parts = [FILE_BLOCK_BYTES; FILE_METADATA_READS + 1];
    parts[FILE_METADATA_READS] = size_bytes;
    parts
}

impl QueuedWrite {
    pub fn size_bytes(&self) -> f64 {
        match self {
            QueuedWrite::Data { size_bytes, .. } => *size_bytes,
            _ => METADATA_BYTES,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CacheCounters {
    pub storage_reads: u64,
    pub network_reads: u64,
    pub disk_hints: u64,
    pub network_hints: u64,
    pub writes_queued: u64,
    pub writes_flushed: u64,
    pub forced_flushes: u64,
}

pub struct CacheManager {
    pub knob: f64,
    pub base_power_w: f64,
    pub adaptive: bool,
    pub ghost_hints: bool,
    pub queue_cap_bytes: f64,
    /// Object -> size of the cached copy.
    items: HashMap<u64, f64>,
    metadata: HashMap<u64, ()>,
    queue: Vec<QueuedWrite>,
    queued_bytes: f64,
    pub counters: CacheCounters,
}

impl CacheManager {
    pub fn new(knob: f64, base_power_w: f64, adaptive: bool, ghost_hints: bool, queue_cap_bytes: f64) -> Self {
        CacheManager {
            knob,
            base_power_w,
            adaptive,
            ghost_hints,
            queue_cap_bytes,
            items: HashMap::new(),
            metadata: HashMap::new(),
            queue: Vec::new(),
            queued_bytes: 0.0,
            counters: CacheCounters::default(),
        }
    }

    /// Puts an item in the cache without simulating the write (the cache's state at the start).
    pub fn preload(&mut self, object: u64, size_bytes: f64) {
        self.items.insert(object, size_bytes);
    }

    pub fn cost(&self, e: Estimate) -> f64 {
        e.time_s * self.knob + e.energy_j * (100.0 - self.knob)
    }

    /// Reading an object from a device as it is at `t` (or, with `ideal`, as if it were in its
    /// ready mode and idle), as the device requests `requests` (bytes each, served in turn).
    pub fn estimate(&self, pm: &mut PowerManager, h: DeviceHandle, t: f64, requests: &[f64], ideal: bool) -> Estimate {
        let device = pm.device(h);
        let state = if ideal { DeviceState::Mode { mode: READY } } else { pm.query_current_mode(h, t) };
        access_estimate(&device, state, t, requests, self.base_power_w)
    }

    /// `CacheStatus`: whether the item is cached and, for the adaptive cache, which source is
    /// cheaper now. Issues ghost hints as a side effect (when enabled). Returns the status and
    /// the hints to deliver as `(device, weighted benefit)`.
    pub fn cache_status(
        &mut self,
        pm: &mut PowerManager,
        storage: DeviceHandle,
        network: Option<DeviceHandle>,
        t: f64,
        object: u64,
    ) -> (CacheStatus, Vec<(DeviceHandle, f64)>) {
        let Some(&size) = self.items.get(&object) else { return (CacheStatus::Absent, Vec::new()) };
        let Some(net) = network.filter(|_| self.adaptive) else { return (CacheStatus::Present, Vec::new()) };
        let from_disk = file_read_requests(size);
        let disk_now = self.cost(self.estimate(pm, storage, t, &from_disk, false));
        let net_now = self.cost(self.estimate(pm, net, t, &[size], false));
        let (status, chosen) = if net_now < disk_now {
            (CacheStatus::PresentFetchFromNetwork, net_now)
        } else {
            (CacheStatus::Present, disk_now)
        };
        let mut hints = Vec::new();
        if self.ghost_hints {
            let (other, other_ideal) = if status == CacheStatus::Present {
                (net, self.cost(self.estimate(pm, net, t, &[size], true)))
            } else {
                (storage, self.cost(self.estimate(pm, storage, t, &from_disk, true)))
            };
            if other_ideal < chosen {
                hints.push((other, chosen - other_ideal));
                if other == storage {
                    self.counters.disk_hints += 1;
                } else {
                    self.counters.network_hints += 1;
                }
            }
        }
        (status, hints)
    }

    pub fn size_of(&self, object: u64) -> Option<f64> {
        self.items.get(&object).copied()
    }

    /// `GetMetadata`: answered from the in-memory table, with no disk access.
    pub fn get_metadata(&self, object: u64) -> bool {
        self.metadata.contains_key(&object)
    }

    /// `PutData`, deferred; true when the queue must be written now (see [`CacheManager::enqueue`]).
    pub fn put_data(&mut self, object: u64, size_bytes: f64, disk_ready: bool) -> bool {
        self.enqueue(QueuedWrite::Data { object, size_bytes }, disk_ready)
    }

    /// `PutMetadata`, deferred.
    pub fn put_metadata(&mut self, object: u64, disk_ready: bool) -> bool {
        self.enqueue(QueuedWrite::Metadata { object }, disk_ready)
    }

    /// `Rename`, deferred.
    pub fn rename(&mut self, object: u64, disk_ready: bool) -> bool {
        self.enqueue(QueuedWrite::Rename { object }, disk_ready)
    }

    /// `Delete`, deferred (the item leaves the in-memory table at once).
    pub fn delete(&mut self, object: u64, disk_ready: bool) -> bool {
        self.enqueue(QueuedWrite::Delete { object }, disk_ready)
    }

    /// Queues a background write; returns true when the queue must be flushed now (it would
    /// overflow its cap, or the disk is ready and the write can go at once).
    pub fn enqueue(&mut self, write: QueuedWrite, disk_ready: bool) -> bool {
        match write {
            QueuedWrite::Data { object, size_bytes } => {
                self.items.insert(object, size_bytes);
            }
            QueuedWrite::Metadata { object } => {
                self.metadata.insert(object, ());
            }
            QueuedWrite::Delete { object } => {
                self.items.remove(&object);
                self.metadata.remove(&object);
            }
            QueuedWrite::Rename { .. } => {}
        }
        let overflow = self.queued_bytes + write.size_bytes() > self.queue_cap_bytes;
        self.queue.push(write);
        self.queued_bytes += write.size_bytes();
        self.counters.writes_queued += 1;
        if overflow && !disk_ready {
            self.counters.forced_flushes += 1;
        }
        overflow || disk_ready
    }

    /// Takes every queued write, to be written to the disk now.
    pub fn drain(&mut self) -> Vec<QueuedWrite> {
        self.counters.writes_flushed += self.queue.len() as u64;
        self.queued_bytes = 0.0;
        std::mem::take(&mut self.queue)
    }

    pub fn pending(&self) -> usize {
        self.queue.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deferred_operations_update_the_table_at_once_and_queue_their_writes() {
        let mut cache = CacheManager::new(50.0, 1.44, true, true, 10_000.0);
        assert!(!cache.put_data(7, 4096.0, false) && !cache.put_metadata(7, false));
        assert_eq!((cache.size_of(7), cache.get_metadata(7), cache.pending()), (Some(4096.0), true, 2));
        assert!(!cache.rename(7, false));
        assert!(!cache.delete(7, false));
        assert_eq!((cache.size_of(7), cache.get_metadata(7), cache.pending()), (None, false, 4));
        // A write that would overflow the 10 kB cap asks for a flush; with the disk ready every
        // write goes at once.
        assert!(cache.put_data(8, 9_000.0, false));
        assert_eq!(cache.counters.forced_flushes, 1);
        assert_eq!(cache.drain().len(), 5);
        assert!(cache.put_data(9, 1.0, true));
        assert_eq!(cache.counters.forced_flushes, 1);
    }
}
