//! Several devices on one clock (seed 000): a storage device and a network device, each driven by
//! its own power-management policy, serving an application whose reads an energy-aware cache
//! routes to one or the other.
//!
//! The application trace is a list of events `(time, object, size, op, cached)`: a read fetches
//! an object (from the disk cache if the cache manager says so, else from the network; a miss is
//! then stored in the cache in the background, data and metadata, as seed 000's browser stores
//! HTTP headers with `PutMetadata`), a write sends an object over the network (an upload, like
//! sending mail), and delete and rename change the cache (deferred like writes; the application
//! does not wait for them). Seed 000 replays "preserving the interactive think-time between
//! each event": in the default closed-loop mode each event is issued when the previous one has
//! completed plus the gap the trace had between them; open-loop issues each at its trace time.
//!
//! Devices are [`DeviceSim`]s, the same state machines as the single-device replay, registered
//! with the [`PowerManager`]; the cache manager sees them only through it.

pub mod cache;
pub mod power_manager;

use std::sync::Arc;

use crate::device::{Device, READY};
use crate::device_sim::{DeviceSim, DeviceState};
use crate::error::{Error, Result};
use crate::metrics::{ResponseStats, RunResult};
use crate::policy::{BuildContext, PolicySpec};
use crate::options::{ReplayMode, ReplayOptions};

use cache::{CacheCounters, CacheManager, CacheStatus, QueuedWrite};
use power_manager::{DeviceHandle, PowerManager};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppOp {
    /// `GetData`: read an object, from the disk cache or the network.
    Read,
    /// Send an object over the network (an upload).
    Write,
    /// `Delete` a cached object (deferred in the write queue).
    Delete,
    /// `Rename` a cached object (deferred in the write queue).
    Rename,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AppEvent {
    pub time_s: f64,
    pub object: u64,
    pub size_bytes: f64,
    pub op: AppOp,
    /// The object is in the disk cache when the run starts.
    pub cached: bool,
}

/// Fitted: the iPAQ's draw above its base power during I/O that makes Figure 3's 32 KB read from
/// a microdrive in performance idle cost its 0.32 J (see `SystemConfig::io_cpu_power_w`).
pub const SEED000_IO_CPU_POWER_W: f64 = 0.78;

#[derive(Debug, Clone, PartialEq)]
pub struct SystemConfig {
    /// The global knob, 0 (energy) to 100 (performance), used by the cache manager.
    pub knob: f64,
    pub base_power_w: f64,
    /// What the platform draws above its base power while a device serves a request: the CPU
    /// moving the data (programmed I/O through a CompactFlash slot, the TCP stack, the proxy).
    /// Seed 000 measured whole-system energy, and its Figure 3 implies about this much more
    /// during a read than the devices and the idle platform draw; no source gives it, so the
    /// default is **fitted** to Figure 3's read from a spinning microdrive (`docs/seed000.md`).
    pub io_cpu_power_w: f64,
    /// Adaptive (choose disk or network per read) or static (always the disk when cached).
    pub adaptive: bool,
    pub ghost_hints: bool,
    pub write_queue_cap_bytes: f64,
    /// Issue each event after the previous one completes plus the trace's think time.
    pub closed_loop: bool,
    /// Mode index each device is in when the run starts (0 = ready).
    pub storage_initial_mode: usize,
    pub network_initial_mode: usize,
}

impl Default for SystemConfig {
    fn default() -> Self {
        SystemConfig {
            knob: 50.0,
            base_power_w: 1.44,
            io_cpu_power_w: SEED000_IO_CPU_POWER_W,
            adaptive: true,
            ghost_hints: true,
            write_queue_cap_bytes: 4.0 * 1024.0 * 1024.0,
            closed_loop: true,
            storage_initial_mode: 0,
            network_initial_mode: 0,
        }
    }
}

#[derive(Debug, Clone)]
pub struct SystemReport {
    pub requests: u64,
    pub makespan_s: f64,
    pub mean_response_s: f64,
    pub p95_response_s: f64,
    pub max_response_s: f64,
    /// Storage + network + base power over the makespan + the CPU during I/O.
    pub energy_j: f64,
    pub storage_energy_j: f64,
    pub network_energy_j: f64,
    pub base_energy_j: f64,
    /// `io_cpu_power_w` over the time the devices spent serving.
    pub io_cpu_energy_j: f64,
    pub counters: CacheCounters,
    pub uploads: u64,
    pub ghost_hints: u64,
    /// Wake-ups of the storage device, and how many of them ghost hints caused.
    pub spin_ups: u64,
    pub hint_spin_ups: u64,
    pub writes_pending_at_end: u64,
    /// Seed 000 §5.3: platform idle power with the disk in its deepest mode and the network in
    /// its lowest serving mode, times the run's length without power management.
    pub energy_lower_bound_j: f64,
    pub storage: RunResult,
    pub network: Option<RunResult>,
}

/// Bytes between the disk addresses of consecutive object ids (objects do not overlap).
const OBJECT_STRIDE_BYTES: f64 = 1024.0 * 1024.0;

fn validate(events: &[AppEvent], cfg: &SystemConfig, has_network: bool) -> Result<()> {
    if events.is_empty() {
        return Err(Error::Trace("the application trace has no events".into()));
    }
    if !(cfg.knob.is_finite() && (0.0..=100.0).contains(&cfg.knob)) {
        return Err(Error::Option { option: "knob".into(), message: format!("must be between 0 and 100, got {}", cfg.knob) });
    }
    if !(cfg.base_power_w.is_finite() && cfg.base_power_w >= 0.0) {
        return Err(Error::Option { option: "base_power_w".into(), message: format!("must be non-negative, got {}", cfg.base_power_w) });
    }
    if !(cfg.io_cpu_power_w.is_finite() && cfg.io_cpu_power_w >= 0.0) {
        return Err(Error::Option { option: "io_cpu_power_w".into(), message: format!("must be non-negative, got {}", cfg.io_cpu_power_w) });
    }
    let mut known = std::collections::HashSet::new();
    let mut previous = f64::NEG_INFINITY;
    for (i, e) in events.iter().enumerate() {
        if let Some(message) = crate::trace::time_refusal(e.time_s) {
            return Err(Error::TraceRecord { index: i, field: "time_s", message });
        }
        if e.time_s < previous {
            return Err(Error::TraceRecord { index: i, field: "time_s", message: format!("times must be in order, got {} after {previous}", e.time_s) });
        }
        previous = e.time_s;
        if !(e.size_bytes.is_finite() && e.size_bytes >= 0.0) {
            return Err(Error::TraceRecord { index: i, field: "size_bytes", message: format!("size must be non-negative, got {}", e.size_bytes) });
        }
        if !has_network {
            if e.op == AppOp::Write {
                return Err(Error::TraceRecord { index: i, field: "op", message: "a write (send) needs a network device".into() });
            }
            if !e.cached && !known.contains(&e.object) {
                return Err(Error::TraceRecord {
                    index: i,
                    field: "object",
                    message: format!("object {} is read but was never cached or written, and there is no network to fetch it from", e.object),
                });
            }
        }
        if e.cached || e.op == AppOp::Read {
            known.insert(e.object);
        }
        if !has_network && matches!(e.op, AppOp::Delete | AppOp::Rename) {
            known.insert(e.object);
        }
    }
    Ok(())
}

/// Runs the application trace on the system. `storage` and `network` are devices with the spec of
/// the policy that manages each.
pub fn run_system(
    events: &[AppEvent],
    storage: (&Device, &PolicySpec),
    network: Option<(&Device, &PolicySpec)>,
    cfg: &SystemConfig,
) -> Result<SystemReport> {
    validate(events, cfg, network.is_some())?;
    let mut report = run(events, storage, network, cfg)?;
    // The lower bound needs the run's length without power management.
    let always_on = PolicySpec::parse("always-on")?;
    let unmanaged = run(events, (storage.0, &always_on), network.map(|(d, _)| (d, &always_on)), cfg)?;
    let storage_floor = storage.0.lowest_power_w();
    let network_floor = network.map_or(0.0, |(d, _)| {
        d.modes.iter().filter(|m| m.serves).map(|m| m.power_w).fold(f64::INFINITY, f64::min)
    });
    report.energy_lower_bound_j = (cfg.base_power_w + storage_floor + network_floor) * unmanaged.makespan_s;
    Ok(report)
}

fn run(events: &[AppEvent], storage: (&Device, &PolicySpec), network: Option<(&Device, &PolicySpec)>, cfg: &SystemConfig) -> Result<SystemReport> {
    let ctx = BuildContext { base_power_w: cfg.base_power_w };
    // Closed loop: the system issues each request when the one before has completed (a device
    // whose completions come from events, MEMS, then completes each request at once).
    let storage_opts = ReplayOptions { initial_mode: cfg.storage_initial_mode, mode: ReplayMode::Closed, ..Default::default() };
    let network_opts = ReplayOptions { initial_mode: cfg.network_initial_mode, mode: ReplayMode::Closed, ..Default::default() };
    crate::replay::check_options(storage.0, &storage_opts)?;
    if let Some((d, _)) = network {
        crate::replay::check_options(d, &network_opts)?;
    }
    let storage_policy = storage.1.build(storage.0, &ctx)?;
    let network_policy = match network {
        Some((d, spec)) => Some(spec.build(d, &ctx)?),
        None => None,
    };
    let start = events[0].time_s;
    let mut pm = PowerManager::default();
    let disk = pm.register_device(DeviceSim::new(Arc::new(storage.0.clone()), storage_policy, &storage_opts, start, events.len()));
    let net = match (network, network_policy) {
        (Some((d, _)), Some(p)) => Some(pm.register_device(DeviceSim::new(Arc::new(d.clone()), p, &network_opts, start, events.len()))),
        _ => None,
    };
    let mut cache = CacheManager::new(cfg.knob, cfg.base_power_w, cfg.adaptive, cfg.ghost_hints && cfg.adaptive, cfg.write_queue_cap_bytes);
    for e in events.iter().filter(|e| e.cached) {
        if cache.size_of(e.object).is_none() {
            cache.preload(e.object, e.size_bytes);
        }
    }
    // The write-back thread waits for the disk to enter its ready mode.
    pm.register_callback(disk, READY);

    let mut responses = ResponseStats::default();
    let (mut uploads, mut hint_spin_ups) = (0u64, 0u64);
    let mut completion = start;
    let mut end = start;
    let replay_mode = if cfg.closed_loop { ReplayMode::Closed } else { ReplayMode::Open };
    for (i, e) in events.iter().enumerate() {
        let issue = replay_mode.issue_s(e.time_s, (i > 0).then(|| events[i - 1].time_s), completion);
        let finish = match e.op {
            AppOp::Write => {
                uploads += 1;
                pm.sim(net.expect("validated: writes need a network")).request(issue, e.size_bytes, true, 0.0)
            }
            AppOp::Delete | AppOp::Rename => {
                let ready = disk_is_ready(&mut pm, disk, issue);
                let flush = if e.op == AppOp::Delete { cache.delete(e.object, ready) } else { cache.rename(e.object, ready) };
                if flush {
                    write_back(&mut pm, &mut cache, disk, issue);
                }
                issue
            }
            AppOp::Read => {
                let (status, hints) = cache.cache_status(&mut pm, disk, net, issue, e.object);
                for (device, benefit) in hints {
                    if let Some(ready) = pm.sim(device).ghost_hint(issue, benefit) {
                        if device == disk {
                            hint_spin_ups += 1;
                            flush_if_called_back(&mut pm, &mut cache, disk, ready);
                        }
                    }
                }
                match status {
                    CacheStatus::Present => {
                        cache.counters.storage_reads += 1;
                        let size = cache.size_of(e.object).unwrap_or(e.size_bytes);
                        let offset = e.object as f64 * OBJECT_STRIDE_BYTES;
                        // The file's metadata blocks, then its data, queued on the disk together.
                        let mut done = issue;
                        for part in cache::file_read_requests(size) {
                            done = pm.sim(disk).request(issue, part, false, offset);
                        }
                        flush_if_called_back(&mut pm, &mut cache, disk, done);
                        done
                    }
                    CacheStatus::PresentFetchFromNetwork | CacheStatus::Absent => {
                        cache.counters.network_reads += 1;
                        let done = pm.sim(net.expect("validated: misses need a network")).request(issue, e.size_bytes, false, 0.0);
                        if status == CacheStatus::Absent {
                            let ready = disk_is_ready(&mut pm, disk, done);
                            let data = cache.put_data(e.object, e.size_bytes, ready);
                            let metadata = cache.put_metadata(e.object, ready);
                            if data || metadata {
                                write_back(&mut pm, &mut cache, disk, done);
                            }
                        }
                        done
                    }
                }
            }
        };
        responses.record(finish - issue);
        completion = finish;
        end = end.max(finish);
    }
    end = end.max(pm.sim(disk).free_at());
    if let Some(n) = net {
        end = end.max(pm.sim(n).free_at());
    }
    let storage_run = pm.deregister_device(disk, end).expect("registered");
    let network_run = net.and_then(|n| pm.deregister_device(n, end));
    let makespan_s = storage_run.makespan_s.max(network_run.as_ref().map_or(0.0, |r| r.makespan_s));
    let network_energy_j = network_run.as_ref().map_or(0.0, |r| r.energy_j);
    let base_energy_j = cfg.base_power_w * makespan_s;
    // Summed over both devices: when both serve at once (a write-back beside a fetch) the CPU
    // moves both streams.
    let serving_s = storage_run.service_time_s + network_run.as_ref().map_or(0.0, |r| r.service_time_s);
    let io_cpu_energy_j = cfg.io_cpu_power_w * serving_s;
    let counters = cache.counters.clone();
    Ok(SystemReport {
        requests: responses.count(),
        makespan_s,
        mean_response_s: responses.mean_s(),
        p95_response_s: responses.quantile_s(0.95),
        max_response_s: responses.max_s(),
        energy_j: storage_run.energy_j + network_energy_j + base_energy_j + io_cpu_energy_j,
        storage_energy_j: storage_run.energy_j,
        network_energy_j,
        base_energy_j,
        io_cpu_energy_j,
        ghost_hints: counters.disk_hints + counters.network_hints,
        counters,
        uploads,
        spin_ups: storage_run.wakeups,
        hint_spin_ups,
        writes_pending_at_end: cache.pending() as u64,
        energy_lower_bound_j: 0.0,
        storage: storage_run,
        network: network_run,
    })
}

/// Whether the disk is spinning at `t` (serving, or idle in its ready mode): background writes
/// can then go at once instead of waiting in the queue.
fn disk_is_ready(pm: &mut PowerManager, disk: DeviceHandle, t: f64) -> bool {
    matches!(pm.query_current_mode(disk, t), DeviceState::Busy { .. } | DeviceState::Mode { mode: READY })
}

/// The disk is in its ready mode from `at`: if the write-back callback was waiting for that,
/// write the queue and wait again.
fn flush_if_called_back(pm: &mut PowerManager, cache: &mut CacheManager, disk: DeviceHandle, at: f64) {
    if pm.notify(disk, READY) {
        if cache.pending() > 0 {
            write_back(pm, cache, disk, at);
        }
        pm.register_callback(disk, READY);
    }
}

fn write_back(pm: &mut PowerManager, cache: &mut CacheManager, disk: DeviceHandle, at: f64) {
    for w in cache.drain() {
        let offset = match w {
            QueuedWrite::Data { object, .. } | QueuedWrite::Metadata { object } | QueuedWrite::Rename { object } | QueuedWrite::Delete { object } => object,
        };
        pm.sim(disk).request(at, w.size_bytes(), true, offset as f64 * OBJECT_STRIDE_BYTES);
    }
}
