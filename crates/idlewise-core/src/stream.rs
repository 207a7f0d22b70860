//! Traces larger than memory: a text trace read in chunks and replayed as it is read, every
//! volume (device number) of a multi-volume trace through its own runs, at memory bounded by a
//! chunk's whatever the trace's length. The runs are the in-memory ones (`Replay`,
//! `References`), fed the same records in the same order, so the results are the in-memory
//! results bit for bit (tests/stream.rs).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

use crate::device::Device;
use crate::error::{Error, Result};
use crate::evaluate::{Report, Runs};
use crate::policy::{BuildContext, PolicySpec};
use crate::readers::{parse_threads, read_chunks, Columns, ReadError};
use crate::run_table::RunTable;
use crate::replay::{check_fits, check_options, ReplayOptions};
use crate::trace::TraceView;

const IN_ORDER: &str = "times must be in time order to be replayed as they are read; sorting (--sort, sort=True) reads the trace whole and sorts it";

/// What a streamed replay read and what each volume gave.
#[derive(Debug)]
pub struct StreamedEvaluation {
    /// One entry per volume in increasing order (`None` for a single-device format): its
    /// number, record count and number of runs (those of its specs, in the order given).
    pub volumes: Vec<VolumeRuns>,
    /// Every volume's runs, one volume after another, as columns: each run is written into
    /// them as it finishes and its report dropped (a million devices held a million reports).
    pub runs: RunTable,
    /// Non-blank lines examined, and what was skipped and why.
    pub records_read: u64,
    pub skipped: Vec<(String, u64)>,
    /// What the kept records were, as a whole read's trace would describe them.
    pub summary: KeptSummary,
}

/// A volume of a streamed replay: its number (`None` for a single-device format), its record
/// count and how many runs it has in the run table.
pub type VolumeRuns = (Option<i64>, u64, usize);

/// The kept records of a streamed read, described as a whole read describes its trace.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeptSummary {
    pub records: u64,
    pub writes: u64,
    /// Records that ask for no data (size 0): served in the command overhead alone, and counted
    /// so a read report can say so.
    pub zero_size: u64,
    pub first_time_s: f64,
    pub last_time_s: f64,
}

impl Default for KeptSummary {
    fn default() -> Self {
        KeptSummary { records: 0, writes: 0, zero_size: 0, first_time_s: f64::INFINITY, last_time_s: f64::NEG_INFINITY }
    }
}

impl KeptSummary {
    /// Records another part of the volumes replays: described here too, so that every part's
    /// report is the whole file's.
    fn add_records(&mut self, c: &Columns, records: impl Iterator<Item = usize>) {
        for i in records {
            self.records += 1;
            self.writes += u64::from(c.is_write[i] != 0);
            self.zero_size += u64::from(c.size_bytes[i] == 0);
            self.first_time_s = self.first_time_s.min(c.time_s[i]);
            self.last_time_s = self.last_time_s.max(c.time_s[i]);
        }
    }

    fn add(&mut self, block: &TraceView) {
        self.records += block.len() as u64;
        self.writes += block.is_write.iter().map(|&w| u64::from(w != 0)).sum::<u64>();
        self.zero_size += block.size_bytes.iter().filter(|&&size| size == 0).count() as u64;
        self.first_time_s = self.first_time_s.min(block.arrival_s[0]);
        self.last_time_s = self.last_time_s.max(*block.arrival_s.last().expect("a non-empty block"));
    }
}

/// One volume's runs, made when its first record arrives.
struct Volume {
    runs: Runs<'static>,
    last_time_s: f64,
    last_line: u64,
    records: u64,
}

/// How errors name a record's place: a text file's line (from 1), or a record's index (from 0,
/// as in a trace read whole). A part's columns number them from 1 either way.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Positions {
    Lines,
    Records,
}

impl Positions {
    fn word(self) -> &'static str {
        match self {
            Positions::Lines => "line",
            Positions::Records => "record",
        }
    }

    fn shown(self, position: u64) -> u64 {
        match self {
            Positions::Lines => position,
            Positions::Records => position - 1,
        }
    }
}

/// Runs fed a trace part by part in time order, one set per volume (device number), as a text
/// file's chunks or a Parquet file's record batches arrive. Memory is the runs' whatever the
/// trace's length.
pub struct StreamedRuns {
    device: Arc<Device>,
    specs: Vec<PolicySpec>,
    opts: ReplayOptions,
    /// Only this volume's records are replayed (the others are counted).
    keep: Option<i64>,
    /// Only the volumes of this part are replayed, `(index, of)`: those whose number is
    /// `index` modulo `of`, a single-device trace in part 0. The others are described in the
    /// summary as if kept, so each part reports the whole file; another part replays them.
    part: Option<(u32, u32)>,
    threads: usize,
    position: Positions,
    volumes: BTreeMap<Option<i64>, Volume>,
    other_volumes: u64,
    summary: KeptSummary,
    /// Records of a many-volume trace waiting for their volume's next part.
    pending: BTreeMap<i64, Waiting>,
    /// (Reused.) What splits a part by volume.
    split: VolumeSplit,
}

/// Records a volume of a many-volume trace gathers before its runs take them (about 100 kB).
const VOLUME_PART: usize = 4096;

/// Volumes' parts replayed together, spread over the threads ([`StreamedRuns::feed_volumes`]):
/// enough to keep every core busy, few enough that their room is freed soon.
const VOLUMES_FED_TOGETHER: usize = 32;

impl StreamedRuns {
    /// Checks the options and builds every spec (a bad one fails before any record is read).
    pub fn new(device: &Device, specs: &[PolicySpec], opts: &ReplayOptions, keep: Option<i64>, threads: usize, position: Positions) -> Result<Self> {
        check_options(device, opts)?;
        let ctx = BuildContext { base_power_w: opts.base_power_w };
        for spec in specs {
            spec.build(device, &ctx)?;
        }
        Ok(StreamedRuns {
            device: Arc::new(device.clone()),
            specs: specs.to_vec(),
            opts: opts.clone(),
            keep,
            part: None,
            threads,
            position,
            volumes: BTreeMap::new(),
            other_volumes: 0,
            summary: KeptSummary::default(),
            pending: BTreeMap::new(),
            split: VolumeSplit::default(),
        })
    }

    /// Where the recording ended, known once it is read (see `ReplayOptions::recording_end_s`);
    /// before [`StreamedRuns::finish`].
    pub fn set_recording_end_s(&mut self, end_s: f64) -> Result<()> {
        if !end_s.is_finite() {
            return Err(Error::Option { option: "recording_end_s".into(), message: format!("must be a finite time, got {end_s}") });
        }
        self.opts.recording_end_s = Some(end_s);
        Ok(())
    }

    /// Every volume's per-request records kept since the last call: (volume, run index in spec
    /// order, records), for runs that kept any (with `keep_per_request`).
    pub fn take_per_request(&mut self) -> Vec<(Option<i64>, usize, crate::metrics::PerRequest)> {
        let mut out = Vec::new();
        for (&id, v) in self.volumes.iter_mut() {
            for (run, records) in v.runs.take_per_request().into_iter().enumerate() {
                if let Some(records) = records.filter(|r| !r.arrival_s.is_empty()) {
                    out.push((id, run, records));
                }
            }
        }
        out
    }

    /// Replays only part `index` of `of` of the volumes (a cluster's workers share a trace of many
    /// volumes out this way, each reading the whole file).
    pub fn with_part(mut self, index: u32, of: u32) -> Result<Self> {
        if of == 0 || index >= of {
            return Err(Error::Option { option: "volume_part".into(), message: format!("part {index} of {of}: the index must be below the number of parts, which is at least 1") });
        }
        self.part = Some((index, of));
        Ok(self)
    }

    fn in_part(&self, volume: Option<i64>) -> bool {
        match (self.part, volume) {
            (None, _) => true,
            (Some((index, _)), None) => index == 0,
            (Some((index, of)), Some(v)) => v.rem_euclid(i64::from(of)) == i64::from(index),
        }
    }

    /// Hands the next part's records to their volumes' runs. `stop`, the caller's progress
    /// counter, is watched between blocks: a stop asked mid-part ends the part early with
    /// [`Error::Stopped`].
    pub fn feed(&mut self, chunk: &Columns, stop: Option<&AtomicU64>) -> Result<()> {
        if chunk.time_s.is_empty() {
            return Ok(());
        }
        let one_volume = chunk.stream.iter().all(|&s| s == chunk.stream[0]);
        if !chunk.original_s.is_empty() && !one_volume {
            return Err(Error::Option { option: "original_time_s".into(), message: "records with original times are fed one volume at a time".into() });
        }
        if !chunk.service_s.is_empty() && chunk.service_s.len() != chunk.time_s.len() {
            return Err(Error::Option { option: "service_s".into(), message: "one observed service time a record".into() });
        }
        // A single-device part is fed as it is; a part of several volumes is split by one
        // stable sort (each volume's records in file order), not one pass per volume: a
        // thousand volumes cost a sort, not a thousand scans of every chunk.
        if chunk.stream.is_empty() {
            if let Some(keep) = self.keep {
                // As a whole read refuses it: replaying the one device as device K would be a
                // silent wrong answer.
                return Err(Error::Read(format!("the trace has a single device; there is no stream {keep} to select")));
            }
            if self.in_part(None) {
                self.feed_volume(chunk, None, stop)?;
            } else {
                self.summary.add_records(chunk, 0..chunk.time_s.len());
            }
        } else if one_volume {
            self.feed_kept(chunk, chunk.stream[0], stop)?;
        } else {
            let order = self.split.order(&chunk.stream);
            let lines: Vec<u64> = chunk.line.iter().collect(); // once: a record's line is a walk
            let mut ready = Vec::new();
            for group in order.chunk_by(|&a, &b| chunk.stream[a] == chunk.stream[b]) {
                let volume = chunk.stream[group[0]];
                if self.keep.is_some_and(|k| k != volume) {
                    self.other_volumes += group.len() as u64;
                    continue;
                }
                if !self.in_part(Some(volume)) {
                    self.summary.add_records(chunk, group.iter().copied());
                    continue;
                }
                // A volume's records wait until there are enough to be worth its runs' time:
                // fed a few at a time, thousands of runs spend it finding their state.
                let pending = self.pending.entry(volume).or_default();
                pending.gather(chunk, &lines, group);
                if pending.records.len() >= VOLUME_PART {
                    ready.push((Some(volume), std::mem::take(pending).into_columns()));
                    // (A few at a time: a part's room is freed once its volume took it.)
                    if ready.len() == VOLUMES_FED_TOGETHER {
                        self.feed_volumes(&ready, stop)?;
                        ready.clear();
                    }
                }
            }
            self.feed_volumes(&ready, stop)?;
        }
        if crate::progress::stopped(stop) {
            return Err(Error::Stopped);
        }
        Ok(())
    }

    /// One volume's records (after any it has waiting), or a count of them when another volume
    /// is kept.
    fn feed_kept(&mut self, part: &Columns, volume: i64, stop: Option<&AtomicU64>) -> Result<()> {
        if self.keep.is_some_and(|k| k != volume) {
            self.other_volumes += part.time_s.len() as u64;
            return Ok(());
        }
        if !self.in_part(Some(volume)) {
            self.summary.add_records(part, 0..part.time_s.len());
            return Ok(());
        }
        if let Some(waiting) = self.pending.remove(&volume).filter(|w| !w.records.is_empty()) {
            self.feed_volume(&waiting.into_columns(), Some(volume), stop)?;
        }
        self.feed_volume(part, Some(volume), stop)
    }

    fn feed_volume(&mut self, c: &Columns, id: Option<i64>, stop: Option<&AtomicU64>) -> Result<()> {
        let block = self.take_part(c, id)?;
        let v = self.volumes.get_mut(&id).expect("the volume's runs were made");
        v.runs.feed_until_stopped(&block, self.threads, stop);
        Ok(())
    }

    /// Parts of several volumes (by increasing number), each replayed as [`Self::feed_volume`]
    /// replays it, the volumes spread over the threads: a volume's runs are a unit of work of
    /// their own, and a thousand volumes' families (each on one thread) would leave the other
    /// cores idle. Each volume's rows are the same bit for bit, however the volumes are spread;
    /// the parts are checked in order first, so an error is the one a volume-by-volume replay
    /// meets.
    fn feed_volumes(&mut self, parts: &[(Option<i64>, Columns)], stop: Option<&AtomicU64>) -> Result<()> {
        if self.threads <= 1 || parts.len() <= 1 {
            for (id, c) in parts {
                self.feed_volume(c, *id, stop)?;
            }
            return Ok(());
        }
        let mut blocks = Vec::with_capacity(parts.len());
        for (id, c) in parts {
            blocks.push(self.take_part(c, *id)?);
        }
        // The volumes' runs in the parts' order (both by number), each on the least loaded thread.
        let mut picked = Vec::with_capacity(parts.len());
        let mut wanted = parts.iter().map(|(id, _)| *id).peekable();
        // Only the parts' span of volumes is walked: every volume, for each 32 fed, made a
        // trace of 100k devices quadratic.
        let span = parts[0].0..=parts[parts.len() - 1].0;
        for (id, v) in self.volumes.range_mut(span) {
            if wanted.peek() == Some(id) {
                wanted.next();
                picked.push(&mut v.runs);
            }
        }
        debug_assert!(wanted.peek().is_none(), "every part's volume has runs");
        let threads = self.threads.min(parts.len());
        let mut shares: Vec<(usize, Vec<(&mut Runs<'static>, TraceView)>)> = (0..threads).map(|_| (0, Vec::new())).collect();
        for (runs, block) in picked.into_iter().zip(blocks) {
            let share = shares.iter_mut().min_by_key(|(load, _)| *load).expect("a thread");
            share.0 += block.len();
            share.1.push((runs, block));
        }
        std::thread::scope(|scope| {
            let mut shares = shares.into_iter();
            let own = shares.next().expect("a thread");
            for (_, share) in shares {
                scope.spawn(move || share.into_iter().for_each(|(runs, block)| runs.feed_until_stopped(&block, 1, stop)));
            }
            own.1.into_iter().for_each(|(runs, block)| runs.feed_until_stopped(&block, 1, stop));
        });
        Ok(())
    }

    /// Checks a volume's part (its records valid, in order after the volume's last, fitting the
    /// device), makes the volume's runs if it is new, and counts the part: the part, ready to
    /// replay.
    fn take_part<'c>(&mut self, c: &'c Columns, id: Option<i64>) -> Result<TraceView<'c>> {
        let (position, shown) = (self.position.word(), |p: u64| self.position.shown(p));
        let at_line = |e: Error| match e {
            Error::TraceRecord { index, field, message } => {
                // Sorting needs the whole trace: say what to do instead.
                let message = message.replace("times must be in order (ask for sorting to reorder)", IN_ORDER);
                let place = if c.positions.is_empty() { shown(c.line.get(index)) } else { c.positions[index] };
                Error::Read(format!("{position} {place}, field '{field}': {message}"))
            }
            other => other,
        };
        let mut block = TraceView::new(&c.time_s, &c.offset_bytes, &c.size_bytes, &c.is_write)?;
        if !c.original_s.is_empty() {
            block = block.with_original_s(&c.original_s)?;
        }
        if !c.service_s.is_empty() {
            block = block.with_observed_service_s(&c.service_s)?;
        }
        let block = block.validated().map_err(at_line)?;
        check_fits(&block, &self.device, &self.opts).map_err(at_line)?;
        let devices = self.volumes.len();
        let v = match self.volumes.entry(id) {
            std::collections::btree_map::Entry::Occupied(v) => v.into_mut(),
            std::collections::btree_map::Entry::Vacant(slot) => {
                if let Some(limit) = self.opts.max_volumes.filter(|&limit| devices >= limit) {
                    return Err(Error::Option {
                        option: "devices".into(),
                        message: format!(
                            "the trace holds more than {limit} devices, as many as the memory budget holds under {} runs each (device {} is the {}th); split them into parts (sweep --volume-parts N, volume_parts=N) or pick one (--stream K)",
                            self.specs.len() + 2,
                            id.map_or_else(|| "?".into(), |d| d.to_string()),
                            limit + 1
                        ),
                    });
                }
                let runs = Runs::new(&self.device, &self.specs, &self.opts, block.arrival_s[0], 0)?;
                slot.insert(Volume { runs, last_time_s: f64::NEG_INFINITY, last_line: 0, records: 0 })
            }
        };
        if block.arrival_s[0] < v.last_time_s {
            return Err(Error::Read(format!(
                "{position} {}, field 'time_s': time {} is earlier than {position} {}'s {}; {IN_ORDER}",
                shown(c.line.get(0)), block.arrival_s[0], shown(v.last_line), v.last_time_s
            )));
        }
        v.last_time_s = *block.arrival_s.last().expect("a non-empty block");
        v.last_line = c.line.last().expect("a non-empty block");
        v.records += block.len() as u64;
        self.summary.add(&block);
        Ok(block)
    }

    /// Every volume's reports; `what` names the records in the error when none were kept
    /// ("csv records", "records"), with `records_read` the number examined.
    pub fn finish(mut self, what: &str, records_read: u64, mut skipped: Vec<(String, u64)>) -> Result<StreamedEvaluation> {
        if let Some(end_s) = self.opts.recording_end_s {
            self.volumes.values_mut().for_each(|v| v.runs.set_recording_end_s(end_s));
        }
        let mut waiting = std::mem::take(&mut self.pending).into_iter().filter(|(_, part)| !part.records.is_empty()).map(|(volume, part)| (Some(volume), part.into_columns()));
        // A volume whose every record waited until now is replayed and finished at once, its
        // runs dropped: a trace of a million devices of a few requests each held every
        // device's runs (some 20 KB) until the last was fed.
        // (The waiting records of each few volumes are dropped once fed, as their reports come.)
        let mut finished = Finished::new(&self.device);
        loop {
            let parts: Vec<(Option<i64>, Columns)> = waiting.by_ref().take(VOLUMES_FED_TOGETHER).collect();
            if parts.is_empty() {
                break;
            }
            let fresh: Vec<Option<i64>> = parts.iter().map(|(id, _)| *id).filter(|id| !self.volumes.contains_key(id)).collect();
            self.feed_volumes(&parts, None)?;
            let done: Vec<(Option<i64>, Volume)> = fresh.into_iter().map(|id| (id, self.volumes.remove(&id).expect("fed just now"))).collect();
            finished.add(finish_volumes(&self.device, self.threads, done))?;
        }
        // A part may hold none of a trace's volumes; the trace itself must hold records.
        if self.volumes.is_empty() && finished.volumes.is_empty() && (self.part.is_none() || self.summary.records == 0) {
            return Err(Error::Read(match self.keep {
                Some(v) => format!("no records of device {v} found in {} {}s", crate::units::thousands(records_read), self.position.word()),
                None => format!("no {what} found in {} {}s", crate::units::thousands(records_read), self.position.word()),
            }));
        }
        if self.other_volumes > 0 {
            skipped.push((format!("records of other devices (kept device {})", self.keep.unwrap_or_default()), self.other_volumes));
        }
        // The volumes still running, a few at a time: their reports become columns as they come.
        let mut volumes = std::mem::take(&mut self.volumes).into_iter();
        loop {
            let some: Vec<(Option<i64>, Volume)> = volumes.by_ref().take(VOLUMES_FINISHED_TOGETHER.max(self.threads)).collect();
            if some.is_empty() {
                break;
            }
            finished.add(finish_volumes(&self.device, self.threads, some))?;
        }
        let (volumes, runs) = finished.in_volume_order()?;
        Ok(StreamedEvaluation { volumes, runs, records_read, skipped, summary: self.summary })
    }
}

/// Volumes finished together at the end: their reports are held until they are columns.
const VOLUMES_FINISHED_TOGETHER: usize = 64;

/// The finished volumes' runs, in the order they finished, as columns.
struct Finished {
    table: RunTable,
    /// (volume, records, first run, runs), in the order they finished.
    volumes: Vec<(Option<i64>, u64, usize, usize)>,
    /// The failure of the lowest volume that failed: the one a volume-by-volume replay meets.
    failure: Option<(Option<i64>, Error)>,
}

impl Finished {
    fn new(device: &Device) -> Self {
        Finished { table: RunTable::new(device), volumes: Vec::new(), failure: None }
    }

    fn add(&mut self, finished: Vec<FinishedVolume>) -> Result<()> {
        for (id, records, reports) in finished {
            match reports {
                Ok(reports) => {
                    self.volumes.push((id, records, self.table.runs, reports.len()));
                    for report in reports {
                        self.table.push(report)?;
                    }
                }
                Err(e) => {
                    if self.failure.as_ref().is_none_or(|(first, _)| id < *first) {
                        self.failure = Some((id, e));
                    }
                }
            }
        }
        Ok(())
    }

    /// The volumes and their runs in the volumes' order, however they finished.
    fn in_volume_order(mut self) -> Result<(Vec<VolumeRuns>, RunTable)> {
        if let Some((_, e)) = self.failure {
            return Err(e);
        }
        self.volumes.sort_by_key(|(id, ..)| *id);
        let order: Vec<usize> = self.volumes.iter().flat_map(|&(_, _, first, runs)| first..first + runs).collect();
        let volumes = self.volumes.into_iter().map(|(id, records, _, runs)| (id, records, runs)).collect();
        Ok((volumes, self.table.reordered(&order)))
    }
}

impl StreamedEvaluation {
    /// Another part's evaluation of the same file joined to this one (a trace replayed in
    /// parts, each part some of its volumes): the volumes in their order.
    pub fn join(self, other: StreamedEvaluation) -> Result<StreamedEvaluation> {
        let mut finished = Finished { table: self.runs, volumes: Vec::new(), failure: None };
        let mut first = 0;
        for (id, records, runs) in self.volumes {
            finished.volumes.push((id, records, first, runs));
            first += runs;
        }
        for (id, records, runs) in other.volumes {
            finished.volumes.push((id, records, first, runs));
            first += runs;
        }
        finished.table.append(other.runs);
        let (volumes, runs) = finished.in_volume_order()?;
        Ok(StreamedEvaluation { volumes, runs, records_read: self.records_read, skipped: self.skipped, summary: self.summary })
    }
}

/// Splits a part of several volumes into each volume's records, in file order, the volumes by
/// number: as a stable sort of places by volume would, by a count of each volume's records where
/// the part's volume numbers span no more numbers than it has records (Alibaba's and
/// Tencent's volumes, MSR's disks: numbered from 0 or 1), else by sorting (volume, place)
/// pairs. The split runs on one thread while the replay's others wait: counting costs a pass,
/// sorting a thousand volumes' round-robin records ~20 comparisons a record. Its room is kept
/// from part to part (made and dropped for every part, it left the heap fragmented).
#[derive(Default)]
pub(crate) struct VolumeSplit {
    counts: Vec<u32>,
    pairs: Vec<(i64, usize)>,
}

impl VolumeSplit {
    /// Counted when the numbers span no more than the records, or than this many numbers
    /// (the counts, 4 bytes a number, are kept from part to part).
    const SPAN_AT_LEAST: usize = 1 << 16;

    /// The places of `stream`'s records, each volume's in file order, the volumes by number.
    pub(crate) fn order(&mut self, stream: &[i64]) -> Vec<usize> {
        let (Some(&least), Some(&most)) = (stream.iter().min(), stream.iter().max()) else { return Vec::new() };
        let span = most.abs_diff(least);
        if span < stream.len().max(Self::SPAN_AT_LEAST) as u64 && stream.len() < u32::MAX as usize {
            let counts = &mut self.counts;
            counts.clear();
            counts.resize(span as usize + 1, 0);
            for &v in stream {
                counts[v.abs_diff(least) as usize] += 1;
            }
            // Each volume's first place in the order (a prefix sum), then its records in turn.
            let mut first = 0;
            for count in counts.iter_mut() {
                (*count, first) = (first, first + *count);
            }
            let mut order = vec![0; stream.len()];
            for (place, &v) in stream.iter().enumerate() {
                let next = &mut counts[v.abs_diff(least) as usize];
                order[*next as usize] = place;
                *next += 1;
            }
            order
        } else {
            let pairs = &mut self.pairs;
            pairs.clear();
            pairs.extend(stream.iter().copied().zip(0..));
            pairs.sort_unstable();
            pairs.iter().map(|&(_, place)| place).collect()
        }
    }
}

/// A volume's runs finished: (volume, records, reports).
type FinishedVolume = (Option<i64>, u64, Result<Vec<Report>>);

/// Each volume's runs finished on their own (their rows completed from what they shared), the
/// volumes in turns over the threads, in the volumes' order.
fn finish_volumes(device: &Arc<Device>, threads: usize, volumes: Vec<(Option<i64>, Volume)>) -> Vec<FinishedVolume> {
    let threads = threads.clamp(1, volumes.len().max(1));
    let per_thread = volumes.len().div_ceil(threads).max(1);
    let mut volumes = volumes.into_iter();
    let batches: Vec<Vec<(Option<i64>, Volume)>> = std::iter::from_fn(|| Some(volumes.by_ref().take(per_thread).collect::<Vec<_>>()).filter(|b| !b.is_empty())).collect();
    let mut finished: Vec<Vec<FinishedVolume>> = Vec::new();
    std::thread::scope(|scope| {
        let finish = |batch: Vec<(Option<i64>, Volume)>| batch.into_iter().map(|(id, v)| (id, v.records, v.runs.finish(device, None))).collect::<Vec<_>>();
        let mut batches = batches.into_iter();
        let own = batches.next();
        let handles: Vec<_> = batches.map(|batch| scope.spawn(move || finish(batch))).collect();
        finished.extend(own.map(finish));
        finished.extend(handles.into_iter().map(|h| h.join().expect("a volume's runs finish without panicking")));
    });
    finished.into_iter().flatten().collect()
}

/// Replays the trace file at `path` (a text format) on `device` under every spec, next to the
/// references, reading it in chunks. `volume`, when given, keeps only that device number's
/// records; `part`, `(index, of)`, only that part of the volumes (see
/// [`StreamedRuns::with_part`]). `progress` counts records read.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_file(
    path: &Path,
    format: &str,
    device: &Device,
    specs: &[PolicySpec],
    opts: &ReplayOptions,
    volume: Option<i64>,
    part: Option<(u32, u32)>,
    threads: usize,
    progress: Option<&AtomicU64>,
) -> Result<StreamedEvaluation> {
    let mut runs = StreamedRuns::new(device, specs, opts, volume, threads, Positions::Lines)?;
    if let Some((index, of)) = part {
        runs = runs.with_part(index, of)?;
    }
    let input = crate::readers::input::open(path, None).map_err(|e| Error::Read(format!("cannot read: {e}")))?;
    let (file, size) = (input.reader, input.size_hint);
    // The file is parsed on its own thread while the chunk before is replayed; two chunks wait
    // at most, so memory stays bounded. Chunks are replayed in file order, so the first error
    // (a replay's, or the reader's after the chunks before it) is the one a sequential run meets.
    let (sender, chunks) = std::sync::mpsc::sync_channel::<Columns>(2);
    let (read, out, failure) = std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut out = Columns::default();
            let read = read_chunks(format, file, size, true, parse_threads(), &mut out, |chunk| {
                if chunk.time_s.is_empty() {
                    return Ok(());
                }
                // A closed channel: the replay failed, and says why.
                sender.send(chunk.take_records()).map_err(|_| ReadError { line: 0, field: None, message: String::new() })
            });
            (read, out)
        });
        let mut failure = None;
        for chunk in chunks.iter() {
            if !crate::progress::advance(progress, chunk.time_s.len() as u64) {
                failure = Some(Error::Stopped);
                break;
            }
            if let Err(e) = runs.feed(&chunk, progress) {
                failure = Some(e);
                break;
            }
        }
        drop(chunks);
        let (read, out) = reader.join().expect("the reader thread does not panic");
        (read, out, failure)
    });
    if let Some(e) = failure {
        return Err(e);
    }
    read.map_err(|e| Error::Read(e.to_string()))?;
    runs.finish(&format!("{} records", crate::readers::format_name(format)), out.records_read, out.skipped)
}

/// A record of a many-volume trace waiting for its volume's next part.
#[derive(Debug, Clone, Copy)]
struct WaitingRecord {
    time_s: f64,
    offset_bytes: i64,
    size_bytes: i64,
    line: u64,
    is_write: u8,
}

/// A volume's waiting records, one allocation (a `Columns` a volume held seven: ~600 bytes
/// for a device of three requests, 600 MB for a million such devices).
#[derive(Debug, Default)]
struct Waiting {
    records: Vec<WaitingRecord>,
    /// Observed service times and positions, for the few sources that give them.
    rare: Option<Box<(Vec<f64>, Vec<u64>)>>,
}

impl Waiting {
    /// Adds `records` of `chunk` (their lines in `lines`).
    fn gather(&mut self, chunk: &Columns, lines: &[u64], records: &[usize]) {
        self.records.extend(records.iter().map(|&i| WaitingRecord {
            time_s: chunk.time_s[i],
            offset_bytes: chunk.offset_bytes[i],
            size_bytes: chunk.size_bytes[i],
            line: lines[i],
            is_write: chunk.is_write[i],
        }));
        if !chunk.service_s.is_empty() || !chunk.positions.is_empty() {
            let rare = self.rare.get_or_insert_with(Default::default);
            if !chunk.service_s.is_empty() {
                rare.0.extend(records.iter().map(|&i| chunk.service_s[i]));
            }
            if !chunk.positions.is_empty() {
                rare.1.extend(records.iter().map(|&i| chunk.positions[i]));
            }
        }
    }

    /// The records as the columns a volume's runs take.
    fn into_columns(self) -> Columns {
        let mut part = Columns::default();
        let n = self.records.len();
        part.time_s.reserve_exact(n);
        part.offset_bytes.reserve_exact(n);
        part.size_bytes.reserve_exact(n);
        part.is_write.reserve_exact(n);
        for r in &self.records {
            part.time_s.push(r.time_s);
            part.offset_bytes.push(r.offset_bytes);
            part.size_bytes.push(r.size_bytes);
            part.is_write.push(r.is_write);
            part.line.push(r.line);
        }
        if let Some(rare) = self.rare {
            (part.service_s, part.positions) = *rare;
        }
        part
    }
}

#[cfg(test)]
mod tests {
    use super::VolumeSplit;
    use crate::testing::{property_cases, PROPERTY_SEED};
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngSeed};

    /// Volume numbers as traces have them: a few or many, dense from any start (near either end
    /// of the i64 range too), or scattered (the sort's side), in runs or dealt round-robin.
    fn streams() -> impl Strategy<Value = Vec<i64>> {
        let start = prop_oneof![Just(0i64), Just(1), -5i64..5, Just(i64::MIN), Just(i64::MAX - 2_000), any::<i64>()];
        let dense = (start, 1usize..2_000, 1usize..3_000, any::<bool>()).prop_flat_map(|(start, volumes, records, round_robin)| {
            let top = start.saturating_add(volumes as i64 - 1);
            let drawn = proptest::collection::vec(start..=top, records);
            drawn.prop_map(move |mut v| {
                if round_robin {
                    let span = (top.abs_diff(start) + 1) as usize;
                    v.iter_mut().enumerate().for_each(|(i, x)| *x = start.saturating_add((i % span) as i64));
                }
                v
            })
        });
        let scattered = proptest::collection::vec(prop_oneof![any::<i64>(), -3i64..3, Just(i64::MIN), Just(i64::MAX)], 1..2_000);
        let wide = proptest::collection::vec(prop_oneof![0i64..4, 1_000_000i64..1_000_004], 1..500);
        prop_oneof![dense, scattered, wide]
    }

    proptest! {
        // The workspace's fixed seed and scaled counts (`testing`), as `tests/common` sets them.
        #![proptest_config(Config { cases: property_cases(300), rng_seed: RngSeed::Fixed(PROPERTY_SEED), failure_persistence: None, ..Config::default() })]

        /// Each volume's records in file order, the volumes by number: what a stable sort of the
        /// places by volume gives, whichever way the split went; the same with its room reused.
        #[test]
        fn a_split_orders_as_a_stable_sort_by_volume(first in streams(), second in streams()) {
            let mut split = VolumeSplit::default();
            for stream in [&first, &second] {
                let mut sorted: Vec<usize> = (0..stream.len()).collect();
                sorted.sort_by_key(|&i| stream[i]);
                prop_assert_eq!(split.order(stream), sorted);
            }
            prop_assert!(split.order(&[]).is_empty());
        }
    }
}
