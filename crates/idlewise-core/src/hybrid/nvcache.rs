//! The NVCache as seed 003 §3 describes it: every redirected write is appended in log order
//! with a metadata sector (target sector, offset, length), so a flush can read many of them
//! with one flash read; a read is served from flash only if all its sectors are held. A write
//! the spinning platters serve over held sectors makes those sectors stale: such writes are
//! "serviced by the rotating media and not the NVCache" (seed 003 §3), so the log forgets them
//! and a flush never writes them back over the newer data.

use std::collections::BTreeMap;

/// Bytes of the metadata sector written with each redirected request.
pub const METADATA_BYTES: u64 = 512;

/// A redirected write, or what is still valid of one: where its data belongs on the platters,
/// and the metadata sector a flush reads with it (`METADATA_BYTES` for a whole write and the first
/// piece of one split by a stale range; 0 for the pieces after it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEntry {
    pub offset_bytes: u64,
    pub size_bytes: u64,
    pub meta_bytes: u64,
}

impl LogEntry {
    /// A redirected write, with its metadata sector.
    pub fn new(offset_bytes: u64, size_bytes: u64) -> Self {
        LogEntry { offset_bytes, size_bytes, meta_bytes: METADATA_BYTES }
    }

    /// Bytes a flush reads for it: its data and its metadata sector.
    pub fn log_bytes(&self) -> u64 {
        self.size_bytes + self.meta_bytes
    }

    pub fn end_bytes(&self) -> u64 {
        self.offset_bytes + self.size_bytes
    }
}

/// Disjoint, non-adjacent byte ranges `[start, end)`, kept merged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RangeSet {
    ranges: BTreeMap<u64, u64>,
}

impl RangeSet {
    /// Adds `[start, end)`, merging with every range it touches.
    pub fn insert(&mut self, mut start: u64, mut end: u64) {
        if start >= end {
            return;
        }
        // The range that starts at or before `start` and reaches it.
        if let Some((&s, &e)) = self.ranges.range(..=start).next_back() {
            if e >= start {
                start = s;
                end = end.max(e);
                self.ranges.remove(&s);
            }
        }
        // Ranges that start within [start, end].
        let inside: Vec<(u64, u64)> = self.ranges.range(start..=end).map(|(&s, &e)| (s, e)).collect();
        for (s, e) in inside {
            end = end.max(e);
            self.ranges.remove(&s);
        }
        self.ranges.insert(start, end);
    }

    /// Bytes of `[start, end)` the set holds.
    pub fn covered(&self, start: u64, end: u64) -> u64 {
        if start >= end {
            return 0;
        }
        let mut total = 0;
        if let Some((_, &e)) = self.ranges.range(..start).next_back() {
            total += e.min(end).saturating_sub(start);
        }
        for (&s, &e) in self.ranges.range(start..end) {
            total += e.min(end) - s;
        }
        total
    }

    /// True when every byte of `[start, end)` is held.
    pub fn covers(&self, start: u64, end: u64) -> bool {
        self.covered(start, end) == end.saturating_sub(start)
    }

    /// Removes `[start, end)`, cutting the ranges it overlaps.
    pub fn remove(&mut self, start: u64, end: u64) {
        if start >= end {
            return;
        }
        let touched: Vec<(u64, u64)> = self.ranges.range(..end).filter(|&(_, &e)| e > start).map(|(&s, &e)| (s, e)).collect();
        for (s, e) in touched {
            self.ranges.remove(&s);
            if s < start {
                self.ranges.insert(s, start);
            }
            if e > end {
                self.ranges.insert(end, e);
            }
        }
    }

    pub fn clear(&mut self) {
        self.ranges.clear();
    }

    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The ranges, in order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.ranges.iter().map(|(&s, &e)| (s, e))
    }
}

/// The NVCache's log and the sectors it holds.
#[derive(Debug, Clone)]
pub struct NvCache {
    /// `None`: unbounded.
    capacity_bytes: Option<u64>,
    entries: Vec<LogEntry>,
    used_bytes: u64,
    held: RangeSet,
}

impl NvCache {
    pub fn new(capacity_bytes: Option<u64>) -> Self {
        NvCache { capacity_bytes, entries: Vec::new(), used_bytes: 0, held: RangeSet::default() }
    }

    /// Whether a write of `size_bytes` fits in what is left of the log.
    pub fn fits(&self, size_bytes: u64) -> bool {
        match self.capacity_bytes {
            None => true,
            Some(c) => self.used_bytes + size_bytes + METADATA_BYTES <= c,
        }
    }

    /// Appends a redirected write; the caller has checked that it fits.
    pub fn append(&mut self, offset_bytes: u64, size_bytes: u64) {
        let entry = LogEntry::new(offset_bytes, size_bytes);
        self.used_bytes += entry.log_bytes();
        self.held.insert(offset_bytes, entry.end_bytes());
        self.entries.push(entry);
    }

    /// The platters have been written over `[offset, offset + size)`: what the log holds there is
    /// stale. Entries keep the log space they took (the log is append-only until a flush clears
    /// it) but lose the stale data, so a flush neither reads nor writes it. Returns the stale
    /// bytes dropped.
    pub fn invalidate(&mut self, offset_bytes: u64, size_bytes: u64) -> u64 {
        let (start, end) = (offset_bytes, offset_bytes + size_bytes);
        if self.held.covered(start, end) == 0 {
            return 0;
        }
        let mut dropped = 0;
        let mut kept = Vec::with_capacity(self.entries.len() + 1);
        for e in self.entries.drain(..) {
            let (a, b) = (e.offset_bytes, e.end_bytes());
            if b <= start || a >= end {
                kept.push(e);
                continue;
            }
            dropped += b.min(end) - a.max(start);
            let mut meta = e.meta_bytes;
            if a < start {
                kept.push(LogEntry { offset_bytes: a, size_bytes: start - a, meta_bytes: meta });
                meta = 0;
            }
            if b > end {
                kept.push(LogEntry { offset_bytes: end, size_bytes: b - end, meta_bytes: meta });
            }
        }
        self.entries = kept;
        self.held.remove(start, end);
        dropped
    }

    /// Whether every sector of a request is held (a read served from flash alone).
    pub fn holds(&self, offset_bytes: u64, size_bytes: u64) -> bool {
        self.held.covers(offset_bytes, offset_bytes + size_bytes)
    }

    /// Bytes of a request the NVCache holds.
    pub fn held_bytes(&self, offset_bytes: u64, size_bytes: u64) -> u64 {
        self.held.covered(offset_bytes, offset_bytes + size_bytes)
    }

    pub fn entries(&self) -> &[LogEntry] {
        &self.entries
    }

    /// Log bytes in use (data and metadata).
    pub fn used_bytes(&self) -> u64 {
        self.used_bytes
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Empties the log once it has been flushed.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.used_bytes = 0;
        self.held.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_merge_when_they_touch_or_overlap() {
        let mut s = RangeSet::default();
        s.insert(10, 20);
        s.insert(30, 40);
        s.insert(20, 25); // adjacent to the first
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(10, 25), (30, 40)]);
        s.insert(5, 35); // swallows both
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(5, 40)]);
        assert_eq!(s.covered(0, 100), 35);
        assert!(s.covers(5, 40) && !s.covers(4, 40));
    }

    #[test]
    fn coverage_counts_only_held_bytes() {
        let mut s = RangeSet::default();
        s.insert(0, 10);
        s.insert(20, 30);
        assert_eq!(s.covered(5, 25), 5 + 5);
        assert_eq!(s.covered(10, 20), 0);
        assert_eq!(s.covered(12, 12), 0);
    }

    #[test]
    fn the_log_counts_a_metadata_sector_per_write_and_fills() {
        let mut nv = NvCache::new(Some(4096));
        assert!(nv.fits(3584) && !nv.fits(3585));
        nv.append(0, 1024);
        nv.append(512, 1024);
        assert_eq!(nv.used_bytes(), 2 * (1024 + 512));
        assert!(nv.holds(0, 1536) && !nv.holds(0, 1537));
        assert_eq!(nv.held_bytes(1024, 1024), 512);
        assert!(nv.fits(512) && !nv.fits(513));
        nv.clear();
        assert!(nv.is_empty() && nv.fits(3584) && !nv.holds(0, 1));
        assert!(NvCache::new(None).fits(u64::MAX / 2));
    }

    #[test]
    fn a_platter_write_over_held_sectors_makes_them_stale() {
        // A (0..2048) then B (4096..5120); the platters write 1024..4608: A keeps 0..1024 with its
        // metadata sector, B keeps 4608..5120 without it; 1024 + 512 bytes are stale.
        let mut nv = NvCache::new(Some(1 << 20));
        nv.append(0, 2048);
        nv.append(4096, 1024);
        let used = nv.used_bytes();
        assert_eq!(nv.invalidate(1024, 3584), 1024 + 512);
        assert_eq!(nv.entries(), &[LogEntry::new(0, 1024), LogEntry { offset_bytes: 4608, size_bytes: 512, meta_bytes: 512 }]);
        assert_eq!(nv.used_bytes(), used, "the log space stays taken until a flush");
        assert!(nv.holds(0, 1024) && !nv.holds(1024, 1) && nv.holds(4608, 512) && !nv.holds(4096, 512));
        // A write inside one entry splits it; the second piece has no metadata sector of its own.
        let mut nv = NvCache::new(None);
        nv.append(0, 4096);
        assert_eq!(nv.invalidate(1024, 1024), 1024);
        assert_eq!(nv.entries(), &[LogEntry::new(0, 1024), LogEntry { offset_bytes: 2048, size_bytes: 2048, meta_bytes: 0 }]);
        assert_eq!(nv.invalidate(8192, 512), 0);
    }

    /// Random redirected writes, platter writes and flushes: the platters end as a plain disk's
    /// would (every sector holds its last write), and a flush never writes stale data.
    #[test]
    fn the_platters_end_as_a_plain_disks_whatever_the_interleaving() {
        use std::collections::HashMap;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..200 {
            let mut nv = NvCache::new(None);
            let (mut plain, mut platters) = (HashMap::new(), HashMap::new());
            let flush = |nv: &mut NvCache, platters: &mut HashMap<u64, u64>, log: &HashMap<u64, u64>| {
                for e in nv.entries() {
                    for sector in e.offset_bytes / 512..e.end_bytes() / 512 {
                        platters.insert(sector, log[&sector]);
                    }
                }
                nv.clear();
            };
            // What the log holds of each sector (its newest redirected version).
            let mut log = HashMap::new();
            for version in 1..60u64 {
                let (sector, sectors) = (next(64), 1 + next(8));
                match next(5) {
                    0 => {
                        flush(&mut nv, &mut platters, &log);
                        log.clear();
                    }
                    1 | 2 => {
                        nv.append(sector * 512, sectors * 512);
                        for s in sector..sector + sectors {
                            log.insert(s, version);
                            plain.insert(s, version);
                        }
                    }
                    _ => {
                        nv.invalidate(sector * 512, sectors * 512);
                        for s in sector..sector + sectors {
                            platters.insert(s, version);
                            plain.insert(s, version);
                            log.remove(&s);
                        }
                    }
                }
                for e in nv.entries() {
                    for s in e.offset_bytes / 512..e.end_bytes() / 512 {
                        assert!(log.contains_key(&s), "the log keeps a stale sector {s}");
                    }
                }
            }
            flush(&mut nv, &mut platters, &log);
            assert_eq!(platters, plain);
        }
    }

    #[test]
    fn removing_ranges_cuts_them() {
        let mut s = RangeSet::default();
        s.insert(0, 100);
        s.insert(200, 300);
        s.remove(50, 250);
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![(0, 50), (250, 300)]);
        s.remove(0, 1000);
        assert!(s.is_empty());
    }
}
