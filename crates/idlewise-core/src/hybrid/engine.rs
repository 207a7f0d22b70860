//! A hybrid disk on a trace (seed 003 §2–3): the disk's `DeviceSim` with its spin-down policy,
//! a flash NVCache that takes every write while the platters are spun down, and a flush policy.
//!
//! Per request, open loop, in arrival order:
//! - **Platters spun down** (resting in a low-power mode or moving into one): a write is appended
//!   to the NVCache (with its metadata sector) if it fits, served by the flash; a read whose
//!   sectors are all held is served by the flash. Neither reaches the disk, so the disk's policy
//!   does not see them. A read that is not all held goes to the disk (spinning it up), gathering
//!   the held part from the flash at the same time; a write that does not fit spins the disk up,
//!   the NVCache is flushed, and the write goes to the platters.
//! - **Platters spinning** (busy, ready or spinning up): requests go to the disk. Held sectors
//!   (only with `full`) are gathered from the flash for reads; a write over held sectors is also
//!   appended to the NVCache, so the log's last word on those sectors is the newest data.
//! - **When to flush**: `each` flushes the whole NVCache after every spin-up (once the request
//!   that caused it is served); `full` only when a redirected write does not fit.
//! - **A flush** blocks the platters: its writes go through the disk's FIFO server, so user I/O
//!   arriving meanwhile waits behind them, and the disk's policy sees them as activity.
//!
//! Requests are issued open or closed loop (`ReplayOptions::mode`), and responses may be measured
//! from original times, as in every engine. The flash is one FIFO server at its idle power
//! between operations; DRAM power is not modelled.

use std::sync::Arc;

use super::flush::{flush, FlushAlgorithm, FlushDisk, FlushStats};
use super::nvcache::{NvCache, METADATA_BYTES};
use crate::device::{Device, READY};
use crate::device_sim::{DeviceSim, DeviceState};
use crate::error::{Error, Result};
use crate::metrics::RunResult;
use crate::options::{ReplayOptions, ResponseFrom};
use crate::policy::{BuildContext, Policy, PolicySpec};
use crate::replay::{blocks, check_fits, check_follows, Replay};
use crate::trace::TraceView;

/// When the NVCache is flushed (seed 003 §2.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlushWhen {
    /// After every spin-up.
    Each,
    /// Only when a redirected write does not fit.
    Full,
}

impl FlushWhen {
    /// `each` or `full`; the error says what is expected.
    pub fn parse(text: &str) -> std::result::Result<FlushWhen, String> {
        match text {
            "each" => Ok(FlushWhen::Each),
            "full" => Ok(FlushWhen::Full),
            _ => Err(format!("must be \"each\" or \"full\", got \"{text}\"")),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            FlushWhen::Each => "each",
            FlushWhen::Full => "full",
        }
    }
}

/// A hybrid disk's NVCache, DRAM buffer and flush policy.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HybridConfig {
    /// `None`: an unbounded NVCache.
    pub nvcache_bytes: Option<u64>,
    pub dram_bytes: u64,
    pub when: FlushWhen,
    pub algorithm: FlushAlgorithm,
    /// Flush what the NVCache still holds after the last request (spinning the disk up if need
    /// be), and charge it: the data then end on the platters, as they would before a shutdown.
    /// Without it they are left in the log and counted as `bytes_unflushed`.
    pub final_flush: bool,
}

/// What a hybrid run did, beside the disk's own ledger.
#[derive(Debug, Clone)]
pub struct HybridResult {
    /// The disk's run: its modes, transitions, spin-ups and energy (user I/O and flushes), and
    /// every user request's response, wherever it was served (disk, flash or both).
    pub disk: RunResult,
    pub flash_energy_j: f64,
    pub flash_busy_s: f64,
    /// Disk and flash energy.
    pub energy_j: f64,
    pub writes_redirected: u64,
    pub bytes_redirected: u64,
    /// Redirected bytes the platters overwrote while they spun, before a flush: stale in the
    /// NVCache, never flushed. `bytes_redirected` = flushed + unflushed + superseded.
    pub bytes_superseded: u64,
    /// User bytes written straight to the platters.
    pub bytes_written_to_disk: u64,
    pub reads_from_nvcache: u64,
    pub reads_spinning_up: u64,
    pub flushes: u64,
    pub flush: FlushStats,
    /// Bytes cached in each spin-down period (from a spin-down to the next spin-up).
    pub bytes_cached_per_spindown: Vec<u64>,
    /// When each of those periods ended: the arrival of the I/O that spun the disk up (the end
    /// of the run for a period still open then).
    pub spindown_ends_s: Vec<f64>,
    pub flash_bytes_written: u64,
    /// Data left in the NVCache at the end (not flushed).
    pub bytes_unflushed: u64,
}

impl HybridResult {
    pub fn max_bytes_cached_per_spindown(&self) -> u64 {
        self.bytes_cached_per_spindown.iter().copied().max().unwrap_or(0)
    }
}

/// The flash as one FIFO server.
struct Flash {
    device: Arc<Device>,
    free_s: f64,
    busy_s: f64,
    energy_j: f64,
}

impl Flash {
    /// Charges one operation of `bytes` (its busy time and energy); returns its time.
    fn charge(&mut self, bytes: u64, is_write: bool) -> f64 {
        let (time_s, energy_j) = self.device.service(bytes as f64, is_write, 0.0, 0.0);
        self.busy_s += time_s;
        self.energy_j += energy_j;
        time_s
    }

    /// Serves `bytes` from `at_s` (FIFO); returns the finish.
    fn serve(&mut self, at_s: f64, bytes: u64, is_write: bool) -> f64 {
        let start = at_s.max(self.free_s);
        self.free_s = start + self.charge(bytes, is_write);
        self.free_s
    }
}

/// A flush's writes go through the disk's FIFO server. Between them the disk waits, ready, for
/// the next chunk from flash: the media are blocked by the flush, not idle, so the policy does not
/// see those waits (it would otherwise spin the disk down in the middle of a flush).
struct DiskWrites<'a, 'p>(&'a mut DeviceSim<'p>);

impl FlushDisk for DiskWrites<'_, '_> {
    fn write(&mut self, issue_s: f64, offset_bytes: u64, size_bytes: u64) -> (f64, f64) {
        self.0.hold_ready(issue_s);
        self.0.serve_unrecorded(issue_s, size_bytes as f64, true, offset_bytes as f64)
    }
}

struct Run<'p> {
    config: HybridConfig,
    disk: DeviceSim<'p>,
    flash: Flash,
    nvcache: NvCache,
    result_counts: Counts,
    spinups_seen: u64,
    cached_this_spindown: u64,
    bytes_cached_per_spindown: Vec<u64>,
    spindown_ends_s: Vec<f64>,
    flush: FlushStats,
}

#[derive(Default)]
struct Counts {
    writes_redirected: u64,
    bytes_redirected: u64,
    bytes_superseded: u64,
    bytes_written_to_disk: u64,
    reads_from_nvcache: u64,
    reads_spinning_up: u64,
    flushes: u64,
    flash_bytes_written: u64,
}

impl Run<'_> {
    fn spun_down(&mut self, t: f64) -> bool {
        match self.disk.state_at(t) {
            DeviceState::Mode { mode } => mode != READY,
            DeviceState::Transition { to, .. } => to != READY,
            DeviceState::Busy { .. } => false,
        }
    }

    /// Flushes the whole NVCache from `at_s` (the platters are spinning, or spin up first).
    fn flush_now(&mut self, at_s: f64) {
        if self.nvcache.is_empty() {
            return;
        }
        let flash = &mut self.flash;
        let start = at_s.max(flash.free_s);
        // The flash is busy with the flush's reads; their times and energies are charged to it.
        let stats = flush(
            self.nvcache.entries(),
            self.config.algorithm,
            self.config.dram_bytes,
            start,
            |bytes| flash.charge(bytes, false),
            &mut DiskWrites(&mut self.disk),
        );
        flash.free_s = flash.free_s.max(start + stats.time_s);
        self.result_counts.flushes += 1;
        self.flush += stats;
        self.nvcache.clear();
    }

    /// After a disk I/O that arrived at `arrival_s`: a spin-up ends a spin-down period, and under
    /// `each` flushes once the I/O is done (`done_s`).
    fn after_disk_io(&mut self, arrival_s: f64, done_s: f64) {
        let spinups = self.disk.wakeups();
        if spinups > self.spinups_seen {
            self.spinups_seen = spinups;
            self.bytes_cached_per_spindown.push(std::mem::take(&mut self.cached_this_spindown));
            self.spindown_ends_s.push(arrival_s);
            if self.config.when == FlushWhen::Each {
                self.flush_now(done_s);
            }
        }
    }

    /// Serves one user request; its response is measured from `measured_from_s` (its arrival,
    /// or its original time when a transform issued it early). Returns when it completes.
    fn request(&mut self, arrival_s: f64, measured_from_s: f64, offset: u64, size: u64, is_write: bool) -> f64 {
        let finish = if self.spun_down(arrival_s) {
            if is_write {
                if self.nvcache.fits(size) {
                    self.redirect(arrival_s, offset, size)
                } else {
                    // Spin up, flush, then the write goes to the platters.
                    let ready = self.disk.wake(arrival_s);
                    self.after_disk_io(arrival_s, ready);
                    self.flush_now(ready);
                    self.serve_on_disk(arrival_s, offset, size, true)
                }
            } else if self.nvcache.holds(offset, size) {
                self.result_counts.reads_from_nvcache += 1;
                self.flash.serve(arrival_s, size, false)
            } else {
                self.result_counts.reads_spinning_up += 1;
                self.serve_on_disk(arrival_s, offset, size, false)
            }
        } else {
            self.serve_on_disk(arrival_s, offset, size, is_write)
        };
        self.disk.record_response((finish - measured_from_s).max(0.0));
        finish
    }

    fn redirect(&mut self, arrival_s: f64, offset: u64, size: u64) -> f64 {
        self.nvcache.append(offset, size);
        let c = &mut self.result_counts;
        c.writes_redirected += 1;
        c.bytes_redirected += size;
        c.flash_bytes_written += size + METADATA_BYTES;
        self.cached_this_spindown += size;
        self.flash.serve(arrival_s, size + METADATA_BYTES, true)
    }

    /// A request the platters serve. A read gathers its held sectors from the flash at the same
    /// time; a write over held sectors makes them stale in the NVCache (seed 003 §3: such writes
    /// are "serviced by the rotating media and not the NVCache, of which does not have to
    /// flushed"), so a later flush does not write the older data back over it. Returns when the
    /// request is done.
    fn serve_on_disk(&mut self, arrival_s: f64, offset: u64, size: u64, is_write: bool) -> f64 {
        let held = self.nvcache.held_bytes(offset, size);
        let (_, disk_done) = self.disk.serve_user(arrival_s, size as f64, is_write, offset as f64);
        let mut done = disk_done;
        if is_write {
            self.result_counts.bytes_written_to_disk += size;
            if held > 0 {
                self.result_counts.bytes_superseded += self.nvcache.invalidate(offset, size);
            }
        } else if held > 0 {
            done = done.max(self.flash.serve(arrival_s, held, false));
        }
        self.after_disk_io(arrival_s, disk_done);
        done
    }
}

/// A hybrid disk's policy must be online: an offline policy reads each gap's length before the
/// gap starts, and a hybrid disk's gaps depend on which I/O its NVCache absorbs.
pub fn check_policy(policy: &dyn Policy) -> Result<()> {
    if policy.reads_gap_lengths() {
        return Err(Error::Option {
            option: "policy".into(),
            message: format!(
                "'{}' reads each idle gap's length before the gap starts, but a hybrid disk's gaps depend on which I/O its NVCache absorbs, so they are not known in advance; choose an online policy (experts, timeout, stpm, ...)",
                policy.name()
            ),
        });
    }
    Ok(())
}

/// Replays `trace` on a hybrid disk: `disk` under `policy`, `flash` as the NVCache.
pub fn replay_hybrid(
    trace: &TraceView,
    disk: &Device,
    flash: &Device,
    policy: Box<dyn Policy + '_>,
    config: HybridConfig,
    opts: &ReplayOptions,
) -> Result<HybridResult> {
    let mut run = HybridReplay::new(disk, flash, policy, config, opts)?;
    trace.validate()?;
    run.feed(trace);
    run.finish()
}

/// One hybrid disk's replay fed the trace a part at a time in time order (a file as it is
/// read): the same requests in the same order give [`replay_hybrid`]'s result, whatever the
/// parts. Memory is the run's (the NVCache's log, one entry per spin-down period), not the
/// trace's.
pub struct HybridReplay<'p> {
    disk: Arc<Device>,
    flash: Arc<Device>,
    config: HybridConfig,
    opts: ReplayOptions,
    /// The policy until the first request makes the run (which starts at its arrival).
    policy: Option<Box<dyn Policy + 'p>>,
    run: Option<Run<'p>>,
    completion_s: f64,
    last_arrival_s: Option<f64>,
}

impl<'p> HybridReplay<'p> {
    /// Checks the parts, the policy and the sizes (a bad one fails before any request is read).
    pub fn new(disk: &Device, flash: &Device, policy: Box<dyn Policy + 'p>, config: HybridConfig, opts: &ReplayOptions) -> Result<Self> {
        crate::replay::check_options(disk, opts)?;
        if disk.service.mems.is_some() {
            return Err(Error::Option { option: "disk".into(), message: format!("'{}' is MEMS storage; a hybrid disk's disk must be a disk", disk.name) });
        }
        check_policy(policy.as_ref())?;
        if config.dram_bytes < 1024 {
            return Err(Error::Option { option: "dram".into(), message: format!("must be at least 1 KiB (two 512-byte sectors), got {} bytes", config.dram_bytes) });
        }
        if config.nvcache_bytes.is_some_and(|b| b < 1024) {
            return Err(Error::Option { option: "nvcache".into(), message: "must be at least 1 KiB (a sector of data and its metadata sector)".into() });
        }
        Ok(HybridReplay {
            disk: Arc::new(disk.clone()),
            flash: Arc::new(flash.clone()),
            config,
            opts: opts.clone(),
            policy: Some(policy),
            run: None,
            completion_s: 0.0,
            last_arrival_s: None,
        })
    }

    /// The next requests, after every one fed before (the caller validates each part and its
    /// order: see [`HybridRuns::feed`]).
    pub fn feed(&mut self, part: &TraceView) {
        if part.is_empty() {
            return;
        }
        let run = match &mut self.run {
            Some(run) => run,
            None => {
                let start = part.arrival_s[0];
                let policy = self.policy.take().expect("a policy until the run is made");
                self.completion_s = start;
                self.run.insert(Run {
                    config: self.config,
                    disk: DeviceSim::new(Arc::clone(&self.disk), policy, &self.opts.seen_from_first_arrival(start), start, 0),
                    flash: Flash { device: Arc::clone(&self.flash), free_s: start, busy_s: 0.0, energy_j: 0.0 },
                    nvcache: NvCache::new(self.config.nvcache_bytes),
                    result_counts: Counts::default(),
                    spinups_seen: 0,
                    cached_this_spindown: 0,
                    bytes_cached_per_spindown: Vec::new(),
                    spindown_ends_s: Vec::new(),
                    flush: FlushStats::default(),
                })
            }
        };
        // The replay options every engine honours: closed loop, and responses from original times.
        let original = part.original_s.filter(|_| self.opts.response_from == ResponseFrom::Original);
        for i in 0..part.len() {
            let issue = self.opts.mode.issue_s(part.arrival_s[i], self.last_arrival_s, self.completion_s);
            let measured_from = original.map_or(issue, |o| o[i]);
            self.completion_s = run.request(issue, measured_from, part.offset_bytes[i] as u64, part.size_bytes[i] as u64, part.is_write[i] != 0);
            self.last_arrival_s = Some(part.arrival_s[i]);
        }
    }

    /// The run's account, once every request is fed.
    pub fn finish(self) -> Result<HybridResult> {
        let Some(mut run) = self.run else { return Err(Error::Trace("the trace has no requests".to_string())) };
        if self.config.final_flush && !run.nvcache.is_empty() {
            let last_s = run.disk.free_at().max(run.flash.free_s);
            if run.spun_down(last_s) {
                let ready = run.disk.wake(last_s);
                run.after_disk_io(last_s, ready);
                run.flush_now(ready);
            } else {
                run.flush_now(last_s);
            }
        }
        let tail_s = self.last_arrival_s.map_or(self.opts.tail_s, |last| self.opts.tail_after(last));
        let end = run.disk.free_at().max(run.flash.free_s) + tail_s;
        let bytes_unflushed = run.nvcache.entries().iter().map(|e| e.size_bytes).sum();
        if run.cached_this_spindown > 0 {
            run.bytes_cached_per_spindown.push(run.cached_this_spindown);
            run.spindown_ends_s.push(end);
        }
        let disk_result = run.disk.finish(end);
        let flash_idle_s = (disk_result.makespan_s - run.flash.busy_s).max(0.0);
        let flash_energy_j = run.flash.energy_j + self.flash.modes[READY].power_w * flash_idle_s;
        let c = run.result_counts;
        Ok(HybridResult {
            energy_j: disk_result.energy_j + flash_energy_j,
            flash_energy_j,
            flash_busy_s: run.flash.busy_s,
            writes_redirected: c.writes_redirected,
            bytes_redirected: c.bytes_redirected,
            bytes_superseded: c.bytes_superseded,
            bytes_written_to_disk: c.bytes_written_to_disk,
            reads_from_nvcache: c.reads_from_nvcache,
            reads_spinning_up: c.reads_spinning_up,
            flushes: c.flushes,
            flush: run.flush,
            bytes_cached_per_spindown: run.bytes_cached_per_spindown,
            spindown_ends_s: run.spindown_ends_s,
            flash_bytes_written: c.flash_bytes_written,
            bytes_unflushed,
            disk: disk_result,
        })
    }
}

/// Every configuration of a hybrid disk, and the plain disk under the same policy (what the
/// NVCache is measured against), fed one trace a part at a time in time order: what
/// `idlewise hybrid` replays as a file is read. Each part is validated once for all the runs.
pub struct HybridRuns {
    disk: Arc<Device>,
    opts: ReplayOptions,
    plain_policy: Option<Box<dyn Policy>>,
    plain: Option<Replay<'static>>,
    hybrids: Vec<(HybridConfig, HybridReplay<'static>)>,
    last_arrival_s: f64,
}

impl HybridRuns {
    /// Builds the policy once per run and checks everything (before any request is read).
    pub fn new(disk: &Device, flash: &Device, policy: &PolicySpec, ctx: &BuildContext, configs: &[HybridConfig], opts: &ReplayOptions) -> Result<Self> {
        let hybrids = configs
            .iter()
            .map(|&config| Ok((config, HybridReplay::new(disk, flash, policy.build(disk, ctx)?, config, opts)?)))
            .collect::<Result<Vec<_>>>()?;
        Ok(HybridRuns {
            disk: Arc::new(disk.clone()),
            opts: opts.clone(),
            plain_policy: Some(policy.build(disk, ctx)?),
            plain: None,
            hybrids,
            last_arrival_s: f64::NEG_INFINITY,
        })
    }

    /// The next part of the trace (validated here, and after the parts before it).
    pub fn feed(&mut self, part: &TraceView) -> Result<()> {
        if part.is_empty() {
            return Ok(());
        }
        part.validate()?;
        check_fits(part, &self.disk, &self.opts)?;
        check_follows(part, self.last_arrival_s)?;
        self.last_arrival_s = part.arrival_s[part.len() - 1];
        let (disk, opts, policy) = (&self.disk, &self.opts, &mut self.plain_policy);
        let plain = self.plain.get_or_insert_with(|| {
            Replay::new(Arc::clone(disk), policy.take().expect("a policy until the run is made"), &opts.seen_from_first_arrival(part.arrival_s[0]), part.arrival_s[0], 0)
        });
        for block in blocks(part) {
            plain.feed(&block);
        }
        for (_, run) in &mut self.hybrids {
            run.feed(part);
        }
        Ok(())
    }

    /// Where the recording these runs replay ended (known once it is read; see
    /// `ReplayOptions::recording_end_s`).
    pub fn set_recording_end_s(&mut self, end_s: f64) {
        self.opts.recording_end_s = Some(end_s);
        self.hybrids.iter_mut().for_each(|(_, run)| run.opts.recording_end_s = Some(end_s));
    }

    /// The plain disk's run and each configuration's, in the order given.
    pub fn finish(self) -> Result<(RunResult, Vec<(HybridConfig, HybridResult)>)> {
        let Some(mut plain) = self.plain else { return Err(Error::Trace("the trace has no requests".to_string())) };
        if self.opts.recording_end_s.is_some() {
            plain.set_tail_s(self.opts.tail_after(self.last_arrival_s));
        }
        let runs = self.hybrids.into_iter().map(|(config, run)| Ok((config, run.finish()?))).collect::<Result<Vec<_>>>()?;
        Ok((plain.finish(), runs))
    }
}
