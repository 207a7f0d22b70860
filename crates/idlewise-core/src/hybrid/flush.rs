//! Seed 003 §2.2's four flushing algorithms (Figure 2), as schedules of flash reads and disk
//! writes over a DRAM buffer:
//!
//! 1. one redirected request at a time: read it from flash into DRAM, write it to the platters;
//! 2. read a DRAM-sized chunk of log-ordered requests with one flash read, then write them one
//!    by one in log order;
//! 3. as 2 with two half-size buffers, so the flash reads one chunk while the disk writes the
//!    other;
//! 4. as 3, and within each chunk sort the requests by address and merge overlapping and
//!    adjacent ones (the later write wins; partial overlaps coalesce).
//!
//! Partial I/Os (§2.3): a request cut by a chunk's end is read again with the next chunk; a
//! request larger than a chunk is read and written in chunk-sized pieces.
//!
//! The flash is a function of read bytes to time; the disk is whatever `FlushDisk` says (the
//! hybrid engine's disk with its seek model and policy). Times are seconds from the flush start.

use super::nvcache::LogEntry;

/// How to flush (seed 003 Figure 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlushAlgorithm {
    OneAtATime = 1,
    Chunked = 2,
    DoubleBuffered = 3,
    SortedMerged = 4,
}

impl FlushAlgorithm {
    /// The algorithm's number in seed 003 Figure 2; the error says what is expected.
    pub fn from_number(n: u32) -> std::result::Result<FlushAlgorithm, String> {
        match n {
            1 => Ok(FlushAlgorithm::OneAtATime),
            2 => Ok(FlushAlgorithm::Chunked),
            3 => Ok(FlushAlgorithm::DoubleBuffered),
            4 => Ok(FlushAlgorithm::SortedMerged),
            _ => Err(format!("must be 1, 2, 3 or 4 (seed 003 Figure 2), got {n}")),
        }
    }
}

/// The platters as a flush sees them: a write issued at `issue_s` finishes when this says.
pub trait FlushDisk {
    /// Writes `size_bytes` at `offset_bytes`, issued at `issue_s`; returns (service start, finish).
    fn write(&mut self, issue_s: f64, offset_bytes: u64, size_bytes: u64) -> (f64, f64);
}

/// What a flush did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct FlushStats {
    /// From the flush's start to its last disk write's end: the media are blocked.
    pub time_s: f64,
    /// Time the flash spent reading.
    pub nvcache_time_s: f64,
    /// Time the disk spent writing (service, not waiting).
    pub disk_time_s: f64,
    pub disk_ios: u64,
    pub nvcache_reads: u64,
    /// Requests absorbed into another by merging (algorithm 4).
    pub merges: u64,
    /// Redirected data moved out of the NVCache (every logged request's bytes, once): what the
    /// flush emptied, seed 003's "data flushed".
    pub bytes_flushed: u64,
    /// Bytes the platters wrote for it: less than `bytes_flushed` when merging folded overlaps.
    pub disk_bytes_written: u64,
    /// Bytes read from flash (partial requests read twice count twice).
    pub bytes_read: u64,
}

/// Totals over several flushes.
impl std::ops::AddAssign for FlushStats {
    fn add_assign(&mut self, other: FlushStats) {
        self.time_s += other.time_s;
        self.nvcache_time_s += other.nvcache_time_s;
        self.disk_time_s += other.disk_time_s;
        self.disk_ios += other.disk_ios;
        self.nvcache_reads += other.nvcache_reads;
        self.merges += other.merges;
        self.bytes_flushed += other.bytes_flushed;
        self.disk_bytes_written += other.disk_bytes_written;
        self.bytes_read += other.bytes_read;
    }
}

/// One disk write of a chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Write {
    offset_bytes: u64,
    size_bytes: u64,
}

/// One flash read and the writes it feeds.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Chunk {
    read_bytes: u64,
    writes: Vec<Write>,
    merges: u64,
}

/// Cuts the log into chunks of at most `chunk_bytes` log bytes (data and metadata sectors).
/// Requests wholly inside a chunk are written from it; one cut by the chunk's end is read again
/// with the next; one that starts a chunk and does not fit is read and written in pieces.
fn chunks(entries: &[LogEntry], chunk_bytes: u64) -> Vec<Chunk> {
    let chunk_bytes = chunk_bytes.max(1);
    let mut out = Vec::new();
    let mut i = 0;
    let remaining = |from: usize| entries[from..].iter().map(LogEntry::log_bytes).sum::<u64>();
    while i < entries.len() {
        let first = entries[i];
        if first.log_bytes() > chunk_bytes {
            // Partial I/Os: the metadata and data in chunk-sized reads, each piece of data
            // written as it arrives.
            let mut read = 0;
            let mut data_done = 0;
            while read < first.log_bytes() {
                let piece = chunk_bytes.min(first.log_bytes() - read);
                let data_end = (read + piece).saturating_sub(first.meta_bytes);
                let data = data_end - data_done;
                let writes = if data > 0 { vec![Write { offset_bytes: first.offset_bytes + data_done, size_bytes: data }] } else { Vec::new() };
                out.push(Chunk { read_bytes: piece, writes, merges: 0 });
                data_done = data_end;
                read += piece;
            }
            i += 1;
            continue;
        }
        let read_bytes = chunk_bytes.min(remaining(i));
        let mut used = 0;
        let mut writes = Vec::new();
        while i < entries.len() && used + entries[i].log_bytes() <= read_bytes {
            used += entries[i].log_bytes();
            writes.push(Write { offset_bytes: entries[i].offset_bytes, size_bytes: entries[i].size_bytes });
            i += 1;
        }
        out.push(Chunk { read_bytes, writes, merges: 0 });
    }
    out
}

/// Sorts a chunk's writes by address and merges those that overlap or touch into one write of
/// their union (the later data wins, which changes what is written, not how much).
fn sort_and_merge(chunk: &mut Chunk) {
    chunk.writes.sort_by_key(|w| w.offset_bytes);
    let mut merged: Vec<Write> = Vec::with_capacity(chunk.writes.len());
    for w in chunk.writes.drain(..) {
        match merged.last_mut() {
            Some(last) if w.offset_bytes <= last.offset_bytes + last.size_bytes => {
                let end = (last.offset_bytes + last.size_bytes).max(w.offset_bytes + w.size_bytes);
                last.size_bytes = end - last.offset_bytes;
                chunk.merges += 1;
            }
            _ => merged.push(w),
        }
    }
    chunk.writes = merged;
}

/// Flushes `entries` (in log order) through a DRAM buffer of `dram_bytes`, starting at `start_s`.
/// `flash_read_s(bytes)` makes one flash read and returns the time it takes (the caller charges
/// its energy).
pub fn flush(
    entries: &[LogEntry],
    algorithm: FlushAlgorithm,
    dram_bytes: u64,
    start_s: f64,
    mut flash_read_s: impl FnMut(u64) -> f64,
    disk: &mut impl FlushDisk,
) -> FlushStats {
    let mut stats = FlushStats { bytes_flushed: entries.iter().map(|e| e.size_bytes).sum(), ..FlushStats::default() };
    if entries.is_empty() {
        return stats;
    }
    let chunk_list: Vec<Chunk> = match algorithm {
        // One request at a time: each is its own chunk, in pieces if it outgrows the DRAM.
        FlushAlgorithm::OneAtATime => entries.iter().flat_map(|e| chunks(std::slice::from_ref(e), dram_bytes)).collect(),
        FlushAlgorithm::Chunked => chunks(entries, dram_bytes),
        FlushAlgorithm::DoubleBuffered => chunks(entries, dram_bytes / 2),
        FlushAlgorithm::SortedMerged => {
            let mut list = chunks(entries, dram_bytes / 2);
            list.iter_mut().for_each(sort_and_merge);
            list
        }
    };
    let buffers = if matches!(algorithm, FlushAlgorithm::DoubleBuffered | FlushAlgorithm::SortedMerged) { 2 } else { 1 };
    // When each buffer is free again (its chunk's last write done), when the flash and the
    // disk are free.
    let mut buffer_free = vec![start_s; buffers];
    let mut flash_free = start_s;
    let mut disk_free = start_s;
    for (k, chunk) in chunk_list.iter().enumerate() {
        let buffer = k % buffers;
        let read_start = flash_free.max(buffer_free[buffer]);
        let read_s = flash_read_s(chunk.read_bytes);
        let read_end = read_start + read_s;
        flash_free = read_end;
        stats.nvcache_time_s += read_s;
        stats.nvcache_reads += 1;
        stats.bytes_read += chunk.read_bytes;
        stats.merges += chunk.merges;
        // The chunk's writes, in order, once it is in DRAM and the disk has finished the last.
        let mut t = read_end.max(disk_free);
        for w in &chunk.writes {
            let (service_start, finish) = disk.write(t, w.offset_bytes, w.size_bytes);
            stats.disk_time_s += finish - service_start;
            stats.disk_ios += 1;
            stats.disk_bytes_written += w.size_bytes;
            t = finish;
        }
        disk_free = t;
        buffer_free[buffer] = t;
    }
    stats.time_s = disk_free.max(flash_free) - start_s;
    stats
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A disk that serves every write in 10 ms + size / 1 MB/s, FIFO, no seeks.
    struct FixedDisk {
        free_s: f64,
        writes: Vec<(u64, u64)>,
    }

    impl FlushDisk for FixedDisk {
        fn write(&mut self, issue_s: f64, offset_bytes: u64, size_bytes: u64) -> (f64, f64) {
            let start = issue_s.max(self.free_s);
            self.free_s = start + 0.010 + size_bytes as f64 / 1e6;
            self.writes.push((offset_bytes, size_bytes));
            (start, self.free_s)
        }
    }

    // A (0, 1 KiB), B (512, 1 KiB) overlapping A's second half, C (8 KiB, 512), D (1536, 512)
    // adjacent to B's end. Log bytes with their metadata sectors: 1536, 1536, 1024, 1024.
    fn log() -> Vec<LogEntry> {
        [(0, 1024), (512, 1024), (8192, 512), (1536, 512)].map(|(o, s)| LogEntry::new(o, s)).to_vec()
    }

    fn run(algorithm: FlushAlgorithm, dram: u64) -> (FlushStats, Vec<(u64, u64)>) {
        let mut disk = FixedDisk { free_s: 0.0, writes: Vec::new() };
        let stats = flush(&log(), algorithm, dram, 0.0, |bytes| bytes as f64 / 1e6, &mut disk);
        (stats, disk.writes)
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-12
    }

    // Disk writes: 1024 B take 11.024 ms, 512 B 10.512 ms.

    #[test]
    fn algorithm_1_reads_and_writes_one_request_at_a_time() {
        let (s, writes) = run(FlushAlgorithm::OneAtATime, 4096);
        // Reads 1.536 + 1.536 + 1.024 + 1.024 = 5.12 ms; writes 2 x 11.024 + 2 x 10.512 = 43.072 ms,
        // one after the other.
        assert!(close(s.nvcache_time_s, 5.12e-3) && close(s.disk_time_s, 43.072e-3) && close(s.time_s, 48.192e-3), "{s:?}");
        assert_eq!((s.disk_ios, s.nvcache_reads, s.merges, s.bytes_flushed, s.disk_bytes_written), (4, 4, 0, 3072, 3072));
        assert_eq!(writes, vec![(0, 1024), (512, 1024), (8192, 512), (1536, 512)]);
    }

    #[test]
    fn algorithm_2_reads_a_dram_chunk_at_once() {
        let (s, _) = run(FlushAlgorithm::Chunked, 4096);
        // Chunk [0, 4096) holds A, B, C: one 4.096 ms read, 32.56 ms of writes; then D: 1.024 ms
        // read, 10.512 ms write. Same total here, half the reads.
        assert!(close(s.nvcache_time_s, 5.12e-3) && close(s.time_s, 48.192e-3), "{s:?}");
        assert_eq!((s.disk_ios, s.nvcache_reads), (4, 2));
    }

    #[test]
    fn algorithm_3_overlaps_reads_with_writes_and_rereads_cut_requests() {
        let (s, writes) = run(FlushAlgorithm::DoubleBuffered, 4096);
        // Half buffers of 2048: chunk 1 [0, 2048) holds A and the start of B (read again later);
        // chunk 2 [1536, 3584) holds B and the start of C; chunk 3 [3072, 5120) holds C and D.
        // Reads of 2.048 ms each: 0-2.048; 2.048-4.096 (other buffer); 13.072-15.12 (buffer 1
        // free once A is written at 2.048 + 11.024). Writes: A 2.048-13.072, B 13.072-24.096,
        // C 24.096-34.608, D 34.608-45.12.
        assert!(close(s.nvcache_time_s, 6.144e-3) && close(s.disk_time_s, 43.072e-3) && close(s.time_s, 45.12e-3), "{s:?}");
        assert_eq!((s.disk_ios, s.nvcache_reads, s.bytes_read), (4, 3, 6144));
        assert_eq!(writes, vec![(0, 1024), (512, 1024), (8192, 512), (1536, 512)]);
    }

    #[test]
    fn algorithm_4_sorts_and_merges_within_a_chunk() {
        // Half buffers of 4096: chunk 1 holds A, B, C; A and B overlap -> one write [0, 1536);
        // chunk 2 holds D alone (merging never crosses chunks).
        let (s, writes) = run(FlushAlgorithm::SortedMerged, 8192);
        assert_eq!(writes, vec![(0, 1536), (8192, 512), (1536, 512)]);
        // All 3072 bytes of data leave the NVCache; the platters write 2560 of them.
        assert_eq!((s.merges, s.disk_ios, s.bytes_flushed, s.disk_bytes_written), (1, 3, 3072, 2560));
        // Reads 4.096 ms then 1.024 ms (4.096-5.12, other buffer); writes 11.536 + 10.512 from
        // 4.096 to 26.144, then D 26.144-36.656.
        assert!(close(s.time_s, 36.656e-3), "{s:?}");
        // With the whole log in one half buffer, D joins A and B: [0, 2048), then C.
        let (s, writes) = run(FlushAlgorithm::SortedMerged, 10240);
        assert_eq!(writes, vec![(0, 2048), (8192, 512)]);
        assert_eq!((s.merges, s.disk_ios, s.nvcache_reads), (2, 2, 1));
        assert!(close(s.time_s, (5.12 + 12.048 + 10.512) * 1e-3), "{s:?}");
    }

    #[test]
    fn a_request_larger_than_the_dram_is_flushed_in_partial_ios() {
        // DRAM 1024: A's 1536 log bytes are read as 1024 (metadata + 512 data) and 512 (data),
        // each piece written as it arrives.
        let (s, writes) = run(FlushAlgorithm::Chunked, 1024);
        assert_eq!(&writes[..2], &[(0, 512), (512, 512)]);
        assert_eq!(writes.iter().map(|w| w.1).sum::<u64>(), 3072);
        assert_eq!(s.bytes_read, 1536 + 1536 + 1024 + 1024);
        // Algorithm 1 splits the same way when a request outgrows the DRAM.
        let (_, writes) = run(FlushAlgorithm::OneAtATime, 1024);
        assert_eq!(&writes[..2], &[(0, 512), (512, 512)]);
    }

    #[test]
    fn an_empty_log_takes_no_time() {
        let mut disk = FixedDisk { free_s: 0.0, writes: Vec::new() };
        assert_eq!(flush(&[], FlushAlgorithm::SortedMerged, 4096, 5.0, |_| 1.0, &mut disk), FlushStats::default());
    }
}
