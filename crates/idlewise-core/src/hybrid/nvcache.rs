//! The NVCache as seed 003 §3 describes it: every redirected write is appended in log order
//! with a metadata sector (target sector, offset, length), so a flush can read many of them
//! with one flash read; a read is served from flash only if all its sectors are held.

use std::collections::BTreeMap;

/// Bytes of the metadata sector written with each redirected request.
pub const METADATA_BYTES: u64 = 512;

/// A redirected write: where its data belongs on the platters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogEntry {
    pub offset_bytes: u64,
    pub size_bytes: u64,
}

impl LogEntry {
    /// Bytes it takes in the log: its data and its metadata sector.
    pub fn log_bytes(&self) -> u64 {
        self.size_bytes + METADATA_BYTES
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
        let entry = LogEntry { offset_bytes, size_bytes };
        self.used_bytes += entry.log_bytes();
        self.held.insert(offset_bytes, entry.end_bytes());
        self.entries.push(entry);
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
}
