//! Traces larger than memory: a text trace read in chunks and replayed as it is read, every
//! volume (device number) of a multi-volume trace through its own runs, at memory bounded by a
//! chunk's whatever the trace's length. The runs are the in-memory ones (`Replay`,
//! `References`), fed the same records in the same order, so the results are the in-memory
//! results bit for bit (tests/stream.rs).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::device::Device;
use crate::error::{Error, Result};
use crate::evaluate::{Report, Runs};
use crate::policy::{BuildContext, PolicySpec};
use crate::readers::{read_chunks, Columns, ReadError};
use crate::replay::{check_fits, check_options, ReplayOptions};
use crate::trace::TraceView;

const IN_ORDER: &str = "a trace read in chunks must be in time order (read it whole and sort it)";

/// What a streamed replay read and what each volume gave.
#[derive(Debug)]
pub struct StreamedEvaluation {
    /// One entry per volume in increasing order (`None` for a single-device format), with its
    /// record count and the reports in the order the specs were given.
    pub volumes: Vec<(Option<i64>, u64, Vec<Report>)>,
    /// Non-blank lines examined, and what was skipped and why.
    pub records_read: u64,
    pub skipped: Vec<(String, u64)>,
}

/// One volume's runs, made when its first record arrives.
struct Volume<'p> {
    runs: Runs<'p>,
    last_time_s: f64,
    last_line: u64,
    records: u64,
}

/// Replays the trace file at `path` (a text format) on `device` under every spec, next to the
/// references, reading it in chunks. `volume`, when given, keeps only that device number's
/// records. `progress` counts records read.
#[allow(clippy::too_many_arguments)]
pub fn evaluate_file(
    path: &Path,
    format: &str,
    device: &Device,
    specs: &[PolicySpec],
    opts: &ReplayOptions,
    volume: Option<i64>,
    threads: usize,
    progress: Option<&AtomicU64>,
) -> Result<StreamedEvaluation> {
    check_options(device, opts)?;
    if opts.keep_per_request {
        return Err(Error::Option { option: "keep_per_request".into(), message: "per-request responses grow with the trace; a trace read in chunks does not keep them".into() });
    }
    let ctx = BuildContext { base_power_w: opts.base_power_w };
    for spec in specs {
        spec.build(device, &ctx)?; // every spec checked before the file is read
    }
    let shared = Arc::new(device.clone());
    let file = std::fs::File::open(path).map_err(|e| Error::Read(format!("cannot read: {e}")))?;
    let size = file.metadata().ok().map(|m| m.len());
    let mut volumes: BTreeMap<Option<i64>, Volume> = BTreeMap::new();
    let mut other_volumes = 0u64;
    // The file is parsed on its own thread while the chunk before is replayed; two chunks wait
    // at most, so memory stays bounded. Chunks are replayed in file order, so the first error
    // (a replay's, or the reader's after the chunks before it) is the one a sequential run meets.
    let (sender, chunks) = std::sync::mpsc::sync_channel::<Columns>(2);
    let (read, out, failure) = std::thread::scope(|scope| {
        let reader = scope.spawn(move || {
            let mut out = Columns::default();
            let read = read_chunks(format, file, size, true, &mut out, |chunk| {
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
            if let Some(counter) = progress {
                counter.fetch_add(chunk.time_s.len() as u64, Ordering::Relaxed);
            }
            if let Err(e) = feed_chunk(&chunk, &shared, specs, opts, volume, threads, &mut volumes, &mut other_volumes) {
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
    if volumes.is_empty() {
        return Err(Error::Read(match volume {
            Some(v) => format!("no records of device {v} found in {} lines", out.records_read),
            None => format!("no {format} records found in {} lines", out.records_read),
        }));
    }
    let mut skipped = out.skipped;
    if other_volumes > 0 {
        skipped.push((format!("records of other devices (kept device {})", volume.unwrap_or_default()), other_volumes));
    }
    let mut results = Vec::with_capacity(volumes.len());
    for (id, v) in volumes {
        results.push((id, v.records, v.runs.finish(device, None)?));
    }
    Ok(StreamedEvaluation { volumes: results, records_read: out.records_read, skipped })
}

/// Hands one chunk's records to their volumes' runs.
#[allow(clippy::too_many_arguments)]
fn feed_chunk<'p>(
    chunk: &Columns,
    device: &Arc<Device>,
    specs: &[PolicySpec],
    opts: &ReplayOptions,
    keep: Option<i64>,
    threads: usize,
    volumes: &mut BTreeMap<Option<i64>, Volume<'p>>,
    other_volumes: &mut u64,
) -> Result<()> {
    if chunk.time_s.is_empty() {
        return Ok(());
    }
    // A single-device chunk (or one volume kept) is fed as it is; otherwise it is split.
    let ids: Vec<Option<i64>> = if chunk.stream.is_empty() {
        vec![None]
    } else {
        let mut ids: Vec<i64> = chunk.stream.clone();
        ids.sort_unstable();
        ids.dedup();
        ids.into_iter().map(Some).collect()
    };
    for id in ids {
        if keep.is_some() && id != keep {
            *other_volumes += chunk.stream.iter().filter(|&&s| Some(s) == id).count() as u64;
            continue;
        }
        let part;
        let columns = match id {
            Some(volume) if !chunk.stream.iter().all(|&s| s == volume) => {
                part = select(chunk, volume);
                &part
            }
            _ => chunk,
        };
        feed_volume(columns, id, device, specs, opts, threads, volumes)?;
    }
    Ok(())
}

fn select(chunk: &Columns, id: i64) -> Columns {
    let mut part = Columns::default();
    for (i, line) in chunk.line.iter().enumerate().filter(|&(i, _)| chunk.stream[i] == id) {
        part.time_s.push(chunk.time_s[i]);
        part.offset_bytes.push(chunk.offset_bytes[i]);
        part.size_bytes.push(chunk.size_bytes[i]);
        part.is_write.push(chunk.is_write[i]);
        part.line.push(line);
    }
    part
}

fn feed_volume<'p>(
    c: &Columns,
    id: Option<i64>,
    device: &Arc<Device>,
    specs: &[PolicySpec],
    opts: &ReplayOptions,
    threads: usize,
    volumes: &mut BTreeMap<Option<i64>, Volume<'p>>,
) -> Result<()> {
    let at_line = |e: Error| match e {
        Error::TraceRecord { index, field, message } => {
            // Sorting needs the whole trace: say what to do instead.
            let message = message.replace("times must be in order (ask for sorting to reorder)", IN_ORDER);
            Error::Read(format!("line {}, field '{field}': {message}", c.line.get(index)))
        }
        other => other,
    };
    let block = TraceView::new(&c.time_s, &c.offset_bytes, &c.size_bytes, &c.is_write)?;
    let block = block.validated().map_err(at_line)?;
    check_fits(&block, device, opts).map_err(at_line)?;
    let v = match volumes.entry(id) {
        std::collections::btree_map::Entry::Occupied(v) => v.into_mut(),
        std::collections::btree_map::Entry::Vacant(slot) => {
            let runs = Runs::new(device, specs, opts, block.arrival_s[0], 0)?;
            slot.insert(Volume { runs, last_time_s: f64::NEG_INFINITY, last_line: 0, records: 0 })
        }
    };
    if block.arrival_s[0] < v.last_time_s {
        return Err(Error::Read(format!(
            "line {}, field 'time_s': time {} is earlier than line {}'s {}; {IN_ORDER}",
            c.line.get(0), block.arrival_s[0], v.last_line, v.last_time_s
        )));
    }
    v.last_time_s = *block.arrival_s.last().expect("a non-empty block");
    v.last_line = c.line.last().expect("a non-empty block");
    v.records += block.len() as u64;
    v.runs.feed(&block, threads, None);
    Ok(())
}
