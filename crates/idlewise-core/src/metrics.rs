//! The ledger of one run: where the time went, where the energy went, and how long requests
//! waited. Residency and transition costs are accumulated as times and counts in the hot loop
//! and turned into energies once at the end, so the loop does no multiplication it can avoid.

use crate::device::{Device, READY};

/// Mantissa bits kept per bucket: buckets are 2^-11 wide relative to their values, so a
/// percentile reported as its bucket's upper end is at most 0.05 % above the exact one.
const MANTISSA_BITS: u32 = 11;
const SHIFT: u32 = 52 - MANTISSA_BITS;
/// Responses from 2^-30 s (0.93 ns) to 2^24 s (194 days) get their own buckets; shorter ones
/// share the first, longer ones the last (the exact maximum is kept apart).
const LOWEST_BINADE: i32 = -30;
const BINADES: u64 = 54;
const BUCKETS: usize = (BINADES << MANTISSA_BITS) as usize;
/// The bucket-number of 2^LOWEST_BINADE: its exponent field with the mantissa bits below it.
const FIRST_KEY: u64 = ((1023 + LOWEST_BINADE) as u64) << MANTISSA_BITS;

/// Buckets allocated together: a sixteenth of a binade (512 bytes of 32-bit counts).
const PER_BLOCK: usize = 128;
const BLOCKS: usize = BUCKETS / PER_BLOCK;
/// Distinct buckets counted in a sorted list before a run allocates any block (512 bytes, one
/// block's worth): a volume of a many-volume trace, or a device with a few fixed service times,
/// sees a few dozen distinct responses however many requests it serves, each in a block of its
/// own (10–13 KB a run for 1,000 round-robin volumes, most of their memory).
const SPARSE: usize = 64;
/// Past [`SPARSE`], the list grows (checked each time it doubles) while it takes less memory
/// than the blocks its buckets would touch, up to this many buckets (a table of 16 KiB):
/// responses scattered a few to a block (wake-ups caught at any point of a transition) stay in
/// the list.
const LONGEST_LIST: usize = 1024;
/// A run that has recorded this many responses with more than [`SPARSE`] buckets listed moves to
/// blocks: a run that large has its memory's worth in its data, and a block's count is found in
/// one step less.
const LISTED_RESPONSES: u64 = 1 << 16;
/// A free place in the list's table (no bucket is numbered this high).
const FREE: u32 = u32::MAX;
/// The list's table starts with this many places.
const FIRST_PLACES: usize = 16;
/// A run's bucket counts, merged with the shared run's (`shared_with_own`), are summed in one
/// array of every bucket above this many (an eighth of the buckets), else sorted.
const SUMMED_DENSE_ABOVE: usize = BUCKETS / 8;
/// A shared run holding more buckets than this (a binade's worth) is put in one array of every
/// bucket once for all the runs merged with it ([`SharedCounts`]): copying the array (864 KiB)
/// and passing over it costs a run less than sorting that many buckets again.
const DENSE_SHARED_ABOVE: usize = 1 << MANTISSA_BITS;
/// Below it, a run's buckets and the shared run's are summed by sorting them together; above,
/// in cells of every bucket ([`BucketSums`], 864 KiB made once for all the runs merged): a
/// volume of three requests would otherwise pay for the cells.
const SORTED_SUM_UP_TO: usize = 512;
/// Responses whose buckets wait to be counted, in blocks form. A sweep's runs record in turn into
/// histograms far apart in memory, and each count waited on its load (a fifth of a 100-timeout
/// sweep's CPU); counted a batch at a time in a tight loop, the loads overlap
/// (`histogram_record`, 100 runs in turn: 12–15 ns a response, from 21–39).
const PENDING: usize = 256;

/// Response-time statistics with memory that does not grow with the number of requests:
/// exact count, mean, minimum and maximum; percentiles from a log-linear histogram whose bucket
/// is read straight off the float's bits (exponent and top mantissa bits: no libm call, one
/// shift, one subtraction), within 0.05 % of the exact value.
///
/// Up to [`SPARSE`] distinct buckets are counted in a list of (bucket, count) kept as a hash
/// table (open addressing, at most half full: one probe or two whatever the list's length; a
/// sorted list's binary search took a quarter of the CPU of 1,000 round-robin volumes), and more
/// while the list is smaller than the blocks would be ([`LONGEST_LIST`]) and the run has recorded
/// fewer than [`LISTED_RESPONSES`]; past them, buckets are counted a block (a sixteenth of a
/// binade, 512 bytes) at a time, [`PENDING`] responses at once, a block allocated when a response
/// first falls in it and found through a table of the blocks (1.7 KiB), so a run holds the blocks
/// its responses touch, whatever the allocator does. (One array of every bucket relied on
/// untouched pages staying unmapped, which holds only while the allocator maps each array
/// afresh; blocks of a quarter binade and a table of pointers took 25–31 KB a run, 5 GB for 100k
/// devices under two policies.) Counts are 32-bit: a bucket that fills one carries its multiples of
/// 2^32 in a short list, so counts stay exact past four billion responses to a bucket. Every form
/// gives the same percentiles: those of one dense array of every bucket (tested).
#[derive(Debug, Clone)]
pub struct ResponseStats {
    /// The list: (bucket, count) in a table of a power of two places ([`FREE`] where none is),
    /// while it is the smaller form (`list_grows`); empty once blocks are in use.
    sparse: Vec<(u32, u32)>,
    /// Buckets in the list.
    listed: u32,
    /// Then `slot_of[block]`: 1 + the block's place in `blocks`, 0 where none has come.
    slot_of: Option<Box<[u16; BLOCKS]>>,
    /// In one array, grown by doubling: a count is one step nearer, and a run's blocks lie
    /// together (`histogram_record`, 100 runs in turn: 10.9–11.7 ns a response against 12.3–14.6
    /// with each block boxed on its own; one run alike).
    blocks: Vec<[u32; PER_BLOCK]>,
    /// (bucket, how many times its 32-bit count wrapped), for buckets past 2^32 responses.
    carries: Vec<(u32, u64)>,
    /// Buckets of responses recorded but not yet counted in the blocks (at most [`PENDING`]);
    /// every reading takes them in.
    pending: Vec<u32>,
    count: u64,
    sum_s: f64,
    min_s: f64,
    max_s: f64,
    /// The report's quantiles ([`REPORTED_QUANTILES`]), when they were found without a
    /// histogram of this run's own (a family's members at the end, [`BucketTree`]): the
    /// histogram is then empty, and no other quantile can be read.
    reported_s: Option<[f64; 3]>,
}

/// The quantiles a run's report gives: the median, the 95th and the 99th percentile.
pub const REPORTED_QUANTILES: [f64; 3] = [0.50, 0.95, 0.99];

impl Default for ResponseStats {
    fn default() -> Self {
        ResponseStats {
            sparse: Vec::new(),
            listed: 0,
            slot_of: None,
            blocks: Vec::new(),
            carries: Vec::new(),
            pending: Vec::new(),
            count: 0,
            sum_s: 0.0,
            min_s: f64::INFINITY,
            max_s: 0.0,
            reported_s: None,
        }
    }
}

/// The rank (from 1) of the `q`-quantile among `count` responses: the `ceil(q · count)`-th
/// smallest.
fn rank_of(q: f64, count: u64) -> u64 {
    ((q.clamp(0.0, 1.0) * count as f64).ceil() as u64).max(1)
}

/// The bucket of a non-negative response (NaN and negatives, which the engine never records,
/// land in the last bucket).
#[inline(always)]
pub(crate) fn bucket(response_s: f64) -> usize {
    let key = response_s.to_bits() >> SHIFT;
    (key.saturating_sub(FIRST_KEY) as usize).min(BUCKETS - 1)
}

/// The largest value that falls in bucket `index` (its upper end).
fn bucket_upper_s(index: usize) -> f64 {
    f64::from_bits(((index as u64 + FIRST_KEY + 1) << SHIFT) - 1)
}

impl ResponseStats {
    #[inline(always)]
    pub fn record(&mut self, response_s: f64) {
        self.count += 1;
        self.sum_s += response_s;
        self.max_s = self.max_s.max(response_s);
        self.min_s = self.min_s.min(response_s);
        let index = bucket(response_s);
        if self.slot_of.is_some() {
            self.pending.push(index as u32);
            if self.pending.len() >= PENDING {
                self.count_pending();
            }
        } else {
            self.count_in_list(index);
        }
    }

    /// Counts responses given by their buckets ([`bucket`]), one at a time as `record` would;
    /// their sum, least and largest come apart ([`ResponseStats::add_summary`]). A family's
    /// runs take a stretch they served alike so: bucketed once, counted in each run's histogram
    /// in one tight loop (`family.rs`).
    pub(crate) fn count_buckets(&mut self, buckets: &[u32]) {
        let mut rest = buckets;
        // The list counts one at a time (it may move to blocks at a given count, mid-batch).
        while let Some((&index, after)) = rest.split_first() {
            if self.slot_of.is_some() {
                break;
            }
            self.count += 1;
            self.count_in_list(index as usize);
            rest = after;
        }
        self.count += rest.len() as u64;
        self.count_all_in_blocks(rest);
    }

    /// One response's share of the sum, least and largest, as [`ResponseStats::record`] adds it,
    /// its bucket counted apart by [`ResponseStats::count_buckets`] (a family's shared run
    /// buckets each response once for its histogram and its members', `family.rs`).
    #[inline(always)]
    pub(crate) fn record_summary(&mut self, response_s: f64) {
        self.sum_s += response_s;
        self.max_s = self.max_s.max(response_s);
        self.min_s = self.min_s.min(response_s);
    }

    /// Takes `other`'s sum, least and largest response (a histogram counted from some of its
    /// buckets, which stands for all of its responses in a merge: `family.rs`).
    pub(crate) fn take_summary_of(&mut self, other: &ResponseStats) {
        (self.sum_s, self.min_s, self.max_s) = (other.sum_s, other.min_s, other.max_s);
    }

    /// The sum, least and largest of responses counted by [`ResponseStats::count_buckets`].
    pub(crate) fn add_summary(&mut self, sum_s: f64, min_s: f64, max_s: f64) {
        self.sum_s += sum_s;
        self.min_s = self.min_s.min(min_s);
        self.max_s = self.max_s.max(max_s);
    }

    /// Counts the responses waiting in `pending` into their blocks.
    #[inline(never)]
    fn count_pending(&mut self) {
        let mut pending = std::mem::take(&mut self.pending);
        self.count_all_in_blocks(&pending);
        pending.clear();
        self.pending = pending;
    }

    /// Counts `buckets` into the blocks (in use), without touching `count`. The table and the
    /// blocks are held in locals across the loop: counted through `self`, each count reloaded
    /// them after the store before it (the store might have changed them, as far as the
    /// compiler knew), and a family's histograms count several buckets a request.
    fn count_all_in_blocks(&mut self, buckets: &[u32]) {
        let mut i = 0;
        while i < buckets.len() {
            let slot_of = self.slot_of.as_deref().expect("blocks are in use");
            let blocks = self.blocks.as_mut_slice();
            while let Some(&index) = buckets.get(i) {
                let index = index as usize;
                let slot = slot_of[index / PER_BLOCK];
                if slot == 0 {
                    break;
                }
                let count = &mut blocks[slot as usize - 1][index % PER_BLOCK];
                let Some(next) = count.checked_add(1) else { break };
                *count = next;
                i += 1;
            }
            // A bucket in a block not yet allocated, or a count about to wrap.
            if let Some(&index) = buckets.get(i) {
                self.count_in_blocks(index as usize);
                i += 1;
            }
        }
    }

    /// Every recorded response counted in its bucket: what a reading sees (done by readings
    /// that own the statistics; the others count a copy).
    pub fn settle(&mut self) {
        if !self.pending.is_empty() {
            self.count_pending();
        }
    }

    /// These statistics with every response counted: themselves, or a settled copy.
    fn settled(&self) -> std::borrow::Cow<'_, ResponseStats> {
        if self.pending.is_empty() {
            std::borrow::Cow::Borrowed(self)
        } else {
            let mut copy = self.clone();
            copy.count_pending();
            std::borrow::Cow::Owned(copy)
        }
    }

    /// The list's place of bucket `index`: where it is, or the free place it would take.
    #[inline(always)]
    fn place(&self, index: u32) -> usize {
        let mask = self.sparse.len() - 1;
        // Fibonacci hashing (the product's top bits): consecutive buckets spread over the table.
        let mut i = (index.wrapping_mul(0x9E37_79B9) >> (32 - self.sparse.len().trailing_zeros())) as usize;
        while self.sparse[i].0 != index && self.sparse[i].0 != FREE {
            i = (i + 1) & mask;
        }
        i
    }

    #[inline]
    fn count_in_list(&mut self, index: usize) {
        let found = if self.sparse.is_empty() { None } else { Some(self.place(index as u32)).filter(|&i| self.sparse[i].0 != FREE) };
        match found {
            Some(i) => {
                let count = &mut self.sparse[i].1;
                match count.checked_add(1) {
                    Some(next) => *count = next,
                    None => {
                        *count = 0;
                        self.carry(index);
                    }
                }
            }
            None if self.list_grows() => self.list_new(index as u32, 1),
            None => return self.spill(index),
        }
        if self.count == LISTED_RESPONSES && self.listed as usize > SPARSE {
            self.move_to_blocks();
        }
    }

    /// A bucket not yet in the list, with its count (the table doubled first if it would be more
    /// than half full).
    fn list_new(&mut self, index: u32, count: u32) {
        if self.sparse.is_empty() {
            self.sparse = vec![(FREE, 0); FIRST_PLACES];
        }
        if 2 * (self.listed as usize + 1) > self.sparse.len() {
            let places = 2 * self.sparse.len();
            let entries = std::mem::replace(&mut self.sparse, vec![(FREE, 0); places]);
            for (b, c) in entries.into_iter().filter(|&(b, _)| b != FREE) {
                let at = self.place(b);
                self.sparse[at] = (b, c);
            }
        }
        let at = self.place(index);
        self.sparse[at] = (index, count);
        self.listed += 1;
    }

    /// The list's (bucket, count) by bucket.
    fn listed_by_bucket(&self) -> Vec<(u32, u32)> {
        let mut entries: Vec<(u32, u32)> = self.sparse.iter().copied().filter(|&(b, _)| b != FREE).collect();
        entries.sort_unstable_by_key(|&(b, _)| b);
        entries
    }

    /// Whether a new bucket joins the list (else the list moves into blocks).
    fn list_grows(&self) -> bool {
        let len = self.listed as usize;
        if len < SPARSE {
            return true;
        }
        if len >= LONGEST_LIST || self.count >= LISTED_RESPONSES {
            return false;
        }
        if !len.is_power_of_two() {
            return true;
        }
        // Doubled, the list's table (twice its buckets, 8 bytes a place) against the slot table
        // and one block per block touched.
        let entries = self.listed_by_bucket();
        let blocks = 1 + entries.windows(2).filter(|w| w[0].0 as usize / PER_BLOCK != w[1].0 as usize / PER_BLOCK).count();
        32 * len <= 2 * BLOCKS + 4 * PER_BLOCK * blocks
    }

    /// A bucket the list does not take: they and it go into blocks.
    #[cold]
    fn spill(&mut self, index: usize) {
        self.move_to_blocks();
        self.count_in_blocks(index);
    }

    /// The list's counts moved into blocks (carries stay as they are).
    fn move_to_blocks(&mut self) {
        self.slot_of = Some(Box::new([0; BLOCKS]));
        self.listed = 0;
        for (b, c) in std::mem::take(&mut self.sparse).into_iter().filter(|&(b, _)| b != FREE) {
            self.add_to_bucket(b as usize, u64::from(c));
        }
    }

    #[inline(always)]
    fn count_in_blocks(&mut self, index: usize) {
        let slot = self.slot_of.as_ref().expect("blocks are in use")[index / PER_BLOCK];
        if slot == 0 {
            self.count_in_new_block(index);
        } else {
            self.count_in_block(slot, index);
        }
    }

    #[inline(always)]
    fn count_in_block(&mut self, slot: u16, index: usize) {
        let count = &mut self.blocks[slot as usize - 1][index % PER_BLOCK];
        match count.checked_add(1) {
            Some(next) => *count = next,
            None => {
                *count = 0;
                self.carry(index);
            }
        }
    }

    #[cold]
    fn carry(&mut self, index: usize) {
        match self.carries.iter_mut().find(|(b, _)| *b as usize == index) {
            Some((_, wraps)) => *wraps += 1,
            None => self.carries.push((index as u32, 1)),
        }
    }

    #[cold]
    fn count_in_new_block(&mut self, index: usize) {
        let mut block = [0u32; PER_BLOCK];
        block[index % PER_BLOCK] = 1;
        self.blocks.push(block);
        // At most BLOCKS (864) blocks, so the slot fits.
        self.slot_of.as_mut().expect("blocks are in use")[index / PER_BLOCK] = self.blocks.len() as u16;
    }

    pub fn count(&self) -> u64 {
        self.count
    }

    pub fn mean_s(&self) -> f64 {
        if self.count == 0 { 0.0 } else { self.sum_s / self.count as f64 }
    }

    pub fn max_s(&self) -> f64 {
        self.max_s
    }

    /// The `q`-quantile (0..=1) in seconds: the upper end of the bucket holding the
    /// `ceil(q · count)`-th smallest response, kept within the exact minimum and maximum.
    pub fn quantile_s(&self, q: f64) -> f64 {
        self.quantiles_s([q])[0]
    }

    /// Several quantiles ([`ResponseStats::quantile_s`] each) in one walk over the buckets: a
    /// listed run sorts its list once, not once a quantile.
    pub fn quantiles_s<const N: usize>(&self, qs: [f64; N]) -> [f64; N] {
        if self.count == 0 {
            return [0.0; N];
        }
        if let Some(reported) = self.reported_s {
            assert!(qs[..] == REPORTED_QUANTILES[..], "a run finished by its family kept only its report's quantiles ({REPORTED_QUANTILES:?}), not {qs:?}");
            return std::array::from_fn(|k| reported[k]);
        }
        if !self.pending.is_empty() {
            return self.settled().quantiles_s(qs);
        }
        let ranks = qs.map(|q| rank_of(q, self.count));
        let mut out = [self.max_s; N];
        let mut found = [false; N];
        let mut seen = 0u64;
        // Counts `count` more responses up to bucket `index`; true once every quantile is found.
        let mut reach = |index: usize, count: u64| {
            seen += count;
            for k in 0..N {
                if !found[k] && seen >= ranks[k] {
                    (out[k], found[k]) = (self.value_of_bucket(index), true);
                }
            }
            found.iter().all(|&f| f)
        };
        let wraps = |index: u32| self.carries.iter().find(|(k, _)| *k == index).map_or(0, |(_, wraps)| wraps << 32);
        match self.slot_of.as_deref() {
            None => {
                for (b, c) in self.listed_by_bucket() {
                    if reach(b as usize, u64::from(c) + wraps(b)) {
                        break;
                    }
                }
            }
            Some(slot_of) => {
                'blocks: for (b, &slot) in slot_of.iter().enumerate().filter(|(_, &slot)| slot != 0) {
                    for (i, &c) in self.blocks[slot as usize - 1].iter().enumerate() {
                        let index = b * PER_BLOCK + i;
                        let carried = if self.carries.is_empty() { 0 } else { wraps(index as u32) };
                        if reach(index, u64::from(c) + carried) {
                            break 'blocks;
                        }
                    }
                }
            }
        }
        out
    }

    /// What a quantile falling in bucket `index` reads: the bucket's upper end, kept within the
    /// exact least and largest responses.
    fn value_of_bucket(&self, index: usize) -> f64 {
        bucket_upper_s(index).clamp(self.min_s, self.max_s)
    }

    /// Every (bucket, count) held, in no particular order.
    fn bucket_counts(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        debug_assert!(self.reported_s.is_none(), "a run finished by its family holds no counts to read");
        let listed = self.sparse.iter().filter(|&&(b, _)| b != FREE).map(|&(b, c)| (b as usize, u64::from(c)));
        let blocks = self.slot_of.iter().flat_map(move |slot_of| {
            slot_of.iter().enumerate().filter(|(_, &slot)| slot != 0).flat_map(move |(b, &slot)| {
                self.blocks[slot as usize - 1].iter().enumerate().filter(|(_, &c)| c != 0).map(move |(i, &c)| (b * PER_BLOCK + i, u64::from(c)))
            })
        });
        let carries = self.carries.iter().map(|&(b, wraps)| (b as usize, wraps << 32));
        let pending = self.pending.iter().map(|&b| (b as usize, 1));
        listed.chain(blocks).chain(carries).chain(pending)
    }

    /// Adds `sign` × each bucket's count into `dense` (an array of every bucket): what
    /// [`ResponseStats::bucket_counts`] gives, in plain loops over the list and the blocks (the
    /// chained iterators took most of a family's settling).
    fn add_into_dense(&self, dense: &mut [i64], sign: i64) {
        for &(b, c) in self.sparse.iter().filter(|&&(b, _)| b != FREE) {
            dense[b as usize] += sign * i64::from(c);
        }
        if let Some(slot_of) = self.slot_of.as_deref() {
            for (block, &slot) in slot_of.iter().enumerate().filter(|(_, &slot)| slot != 0) {
                let cells = &mut dense[block * PER_BLOCK..(block + 1) * PER_BLOCK];
                for (cell, &c) in cells.iter_mut().zip(&self.blocks[slot as usize - 1]) {
                    *cell += sign * i64::from(c);
                }
            }
        }
        for &(b, wraps) in &self.carries {
            dense[b as usize] += sign * ((wraps << 32) as i64);
        }
        for &b in &self.pending {
            dense[b as usize] += sign;
        }
    }

    /// Adds another's counts, bucket by bucket, and their number, but not their sum, least or
    /// largest: for running sums of histogram differences (`family.rs`).
    pub(crate) fn add_counts(&mut self, other: &ResponseStats) {
        if other.count == 0 {
            return;
        }
        if self.slot_of.is_none() {
            self.move_to_blocks();
        }
        for (b, c) in other.bucket_counts() {
            self.add_to_bucket(b, c);
        }
        self.count += other.count;
    }

    /// The statistics of a run that shared another's responses (`shared`, every request's) but
    /// for those it served itself (`own`) or took from elsewhere (`added`: counts only), in
    /// place of the shared run's (`replaced`): `shared + own + added − replaced`, bucket by
    /// bucket. `shared_sum_s` is the sum of the shared responses it kept (summed exactly by the
    /// caller, not as a difference of sums); `own` carries the sum, least and largest of its
    /// own and added responses. The maximum is the larger of the two, as every response of such
    /// a run is at least the shared run's response to the same request (it only ever waits
    /// longer).
    pub(crate) fn shared_with_own(
        shared: &ResponseStats,
        own: &ResponseStats,
        added: &ResponseStats,
        replaced: &ResponseStats,
        shared_sum_s: f64,
        gathered: &mut SharedCounts,
    ) -> ResponseStats {
        let mut out = ResponseStats::default();
        let totals: Vec<(usize, u64)> = match &gathered.dense {
            Some(dense) => {
                let counts = &mut gathered.scratch;
                counts.clear();
                counts.extend_from_slice(dense);
                own.add_into_dense(counts, 1);
                added.add_into_dense(counts, 1);
                replaced.add_into_dense(counts, -1);
                positive_counts(counts)
            }
            None if gathered.listed.is_some() => {
                let listed = gathered.listed.as_deref().expect("matched as listed");
                let counts = &mut gathered.own;
                counts.clear();
                counts.extend(own.bucket_counts().chain(added.bucket_counts()).map(|(b, c)| (b, c as i64)));
                counts.extend(replaced.bucket_counts().map(|(b, c)| (b, -(c as i64))));
                if listed.len() + counts.len() <= SORTED_SUM_UP_TO {
                    counts.extend_from_slice(listed);
                    sorted_positive(counts)
                } else {
                    // Summed in cells of every bucket, read back block by block where touched:
                    // a run of a round-robin volume holds as many buckets of its own as the
                    // shared run, and sorting the two lists together for each of 100 runs was
                    // two thirds of 1,000 such volumes' CPU.
                    let sums = &mut gathered.sums;
                    for &(b, c) in listed.iter().chain(counts.iter()) {
                        sums.add(b, c);
                    }
                    sums.take_positive()
                }
            }
            None => {
                // The buckets in use, merged (a run touches a few hundred of the 110,592).
                let mut counts: Vec<(usize, i64)> = shared
                    .bucket_counts()
                    .chain(own.bucket_counts())
                    .chain(added.bucket_counts())
                    .map(|(b, c)| (b, c as i64))
                    .chain(replaced.bucket_counts().map(|(b, c)| (b, -(c as i64))))
                    .collect();
                if counts.len() > SUMMED_DENSE_ABOVE {
                    // Summed in one array of every bucket rather than sorted: a run of a long
                    // trace holds tens of thousands of buckets, and a sweep sums one such list
                    // per run.
                    let mut dense = vec![0i64; BUCKETS];
                    for (b, c) in counts {
                        dense[b] += c;
                    }
                    positive_counts(&dense)
                } else {
                    sorted_positive(&mut counts)
                }
            }
        };
        if totals.len() > LONGEST_LIST {
            out.slot_of = Some(Box::new([0; BLOCKS]));
            for (b, c) in totals {
                out.add_to_bucket(b, c);
            }
        } else {
            for (b, c) in totals {
                out.list_new(b as u32, c as u32);
                if c >> 32 > 0 {
                    out.carries.push((b as u32, c >> 32));
                }
            }
        }
        out.count = shared.count + own.count + added.count - replaced.count;
        out.sum_s = shared_sum_s + own.sum_s;
        // A lower bound of the run's least response, not always the least: a percentile is clamped
        // to it only from below, where a bucket's upper end never falls.
        out.min_s = shared.min_s.min(own.min_s);
        out.max_s = shared.max_s.max(own.max_s);
        out
    }

    /// [`ResponseStats::shared_with_own`] for a run that records nothing more: its count, sum,
    /// least and largest alike, and only the report's quantiles ([`REPORTED_QUANTILES`]), read
    /// off `others` (the shared run's counts, plus those the run took from elsewhere, less those
    /// it replaced: `added` and `replaced` responses) with its own counts added for the reading.
    /// The quantiles are those of the histogram `shared_with_own` makes, bit for bit (tested).
    pub(crate) fn shared_with_own_reported(shared: &ResponseStats, own: &ResponseStats, added: u64, replaced: u64, shared_sum_s: f64, others: &mut BucketTree) -> ResponseStats {
        let own = own.settled();
        let mut out = ResponseStats {
            count: shared.count + own.count + added - replaced,
            sum_s: shared_sum_s + own.sum_s,
            min_s: shared.min_s.min(own.min_s),
            max_s: shared.max_s.max(own.max_s),
            ..ResponseStats::default()
        };
        others.add_counts(&own, 1);
        let buckets = REPORTED_QUANTILES.map(|q| others.bucket_of_rank(rank_of(q, out.count)));
        others.add_counts(&own, -1);
        out.reported_s = Some(if out.count == 0 { [0.0; 3] } else { buckets.map(|b| b.map_or(out.max_s, |b| out.value_of_bucket(b))) });
        out
    }

    /// Adds `count` responses to a bucket of a run that counts in blocks.
    fn add_to_bucket(&mut self, index: usize, count: u64) {
        let (low, wraps) = (count as u32, count >> 32);
        if self.slot_of.as_ref().expect("blocks are in use")[index / PER_BLOCK] == 0 {
            self.count_in_new_block(index);
            self.blocks.last_mut().expect("a block was just made")[index % PER_BLOCK] = 0;
        }
        let slot = self.slot_of.as_ref().expect("blocks are in use")[index / PER_BLOCK];
        let cell = &mut self.blocks[slot as usize - 1][index % PER_BLOCK];
        let (sum, wrapped) = cell.overflowing_add(low);
        *cell = sum;
        let carried = wraps + u64::from(wrapped);
        if carried > 0 {
            match self.carries.iter_mut().find(|(b, _)| *b as usize == index) {
                Some((_, w)) => *w += carried,
                None => self.carries.push((index as u32, carried)),
            }
        }
    }

    /// Blocks of counts held (for tests of the memory a run keeps).
    #[cfg(test)]
    fn blocks_held(&self) -> usize {
        self.settled().blocks.len()
    }
}

/// The (bucket, count) of every bucket of an array of every bucket whose count is above zero,
/// by bucket.
fn positive_counts(dense: &[i64]) -> Vec<(usize, u64)> {
    debug_assert!(dense.iter().all(|&c| c >= 0), "a replaced response the shared run did not have");
    // Counted first, so the list is made at its size (grown by doubling, it was copied over
    // and over).
    let mut out = Vec::with_capacity(dense.iter().filter(|&&c| c > 0).count());
    out.extend(dense.iter().enumerate().filter(|&(_, &c)| c > 0).map(|(b, &c)| (b, c as u64)));
    out
}

/// Counts by bucket in a Fenwick tree (Fenwick 1994, "A new data structure for cumulative
/// frequency tables"): a count added, or the bucket where the running count reaches a rank
/// found, in a step for each bit of a bucket's number (17). A family's members at the end differ
/// from one another by a few buckets each: their quantiles are read off one tree updated member
/// by member ([`ResponseStats::shared_with_own_reported`]), not off a histogram of every bucket
/// made for each (100 timeouts on each of 1,000 round-robin volumes: half the CPU of the
/// finish).
pub(crate) struct BucketTree {
    /// `sums[i]` (from 1) holds the counts of buckets `i − lowbit(i) .. i` (from 0).
    sums: Vec<i64>,
}

impl BucketTree {
    /// A tree holding `stats`' counts.
    pub(crate) fn of(stats: &ResponseStats) -> Self {
        let mut tree = BucketTree { sums: vec![0; BUCKETS + 1] };
        tree.add_counts(&stats.settled(), 1);
        tree
    }

    fn add(&mut self, bucket: usize, count: i64) {
        let mut i = bucket + 1;
        while i <= BUCKETS {
            self.sums[i] += count;
            i += i & i.wrapping_neg();
        }
    }

    /// Adds `sign` × each of `stats`' bucket counts (settled: none pending).
    pub(crate) fn add_counts(&mut self, stats: &ResponseStats, sign: i64) {
        debug_assert!(stats.pending.is_empty(), "counts read settled");
        for &(b, c) in stats.sparse.iter().filter(|&&(b, _)| b != FREE) {
            self.add(b as usize, sign * i64::from(c));
        }
        if let Some(slot_of) = stats.slot_of.as_deref() {
            for (block, &slot) in slot_of.iter().enumerate().filter(|(_, &slot)| slot != 0) {
                for (i, &c) in stats.blocks[slot as usize - 1].iter().enumerate().filter(|(_, &c)| c != 0) {
                    self.add(block * PER_BLOCK + i, sign * i64::from(c));
                }
            }
        }
        for &(b, wraps) in &stats.carries {
            self.add(b as usize, sign * ((wraps << 32) as i64));
        }
    }

    /// Adds `sign` for each of `buckets` (one a response).
    pub(crate) fn add_buckets(&mut self, buckets: &[u32], sign: i64) {
        for &b in buckets {
            self.add(b as usize, sign);
        }
    }

    /// The first bucket at which the running count reaches `rank` (from 1), if the tree holds
    /// that many; every bucket's count must be at least zero.
    fn bucket_of_rank(&self, rank: u64) -> Option<usize> {
        let (mut below, mut rest) = (0usize, rank as i64);
        let mut step = 1usize << (usize::BITS - 1 - BUCKETS.leading_zeros());
        while step > 0 {
            if below + step <= BUCKETS && self.sums[below + step] < rest {
                below += step;
                rest -= self.sums[below];
            }
            step >>= 1;
        }
        (below < BUCKETS).then_some(below)
    }
}

/// A shared run's bucket counts, gathered once for every run merged with it
/// ([`ResponseStats::shared_with_own`]): as one array of every bucket when it holds more than
/// [`DENSE_SHARED_ABOVE`], so that each run's merge copies the array and passes over it
/// instead of gathering and sorting the shared buckets again (601 timeouts settled over 10M
/// requests spent most of their finish so); else nothing, each run's merge gathering its own.
pub(crate) struct SharedCounts {
    dense: Option<Vec<i64>>,
    /// Else the shared run's (bucket, count), summed with each run's own in `sums`.
    listed: Option<Vec<(usize, i64)>>,
    scratch: Vec<i64>,
    /// (Reused.) A run's own buckets, and the cells they are summed in when many.
    own: Vec<(usize, i64)>,
    sums: BucketSums,
}

impl SharedCounts {
    pub(crate) fn of(shared: &ResponseStats) -> Self {
        let (dense, listed) = if shared.bucket_counts().count() > DENSE_SHARED_ABOVE {
            let mut dense = vec![0i64; BUCKETS];
            shared.add_into_dense(&mut dense, 1);
            (Some(dense), None)
        } else {
            (None, Some(shared.bucket_counts().map(|(b, c)| (b, c as i64)).collect()))
        };
        SharedCounts { dense, listed, scratch: Vec::new(), own: Vec::new(), sums: BucketSums::default() }
    }

    /// Nothing gathered: each merge gathers the shared buckets itself (for tests).
    #[cfg(test)]
    fn none() -> Self {
        SharedCounts { dense: None, listed: None, scratch: Vec::new(), own: Vec::new(), sums: BucketSums::default() }
    }
}

/// The (bucket, sum) of every bucket of `counts` whose counts sum above zero, by bucket.
fn sorted_positive(counts: &mut [(usize, i64)]) -> Vec<(usize, u64)> {
    counts.sort_unstable_by_key(|&(b, _)| b);
    counts
        .chunk_by(|x, y| x.0 == y.0)
        .filter_map(|run| {
            let c: i64 = run.iter().map(|&(_, c)| c).sum();
            debug_assert!(c >= 0, "a replaced response the shared run did not have");
            (c > 0).then_some((run[0].0, c as u64))
        })
        .collect()
}

/// Counts summed by bucket in cells of every bucket (made at the first count, zero between
/// uses), with the blocks of [`PER_BLOCK`] cells touched, so that reading the sums back passes
/// over those blocks alone, in order: a sort of the touched blocks, not of the counts.
#[derive(Default)]
struct BucketSums {
    cells: Vec<i64>,
    touched: Vec<bool>,
    blocks: Vec<usize>,
}

impl BucketSums {
    fn add(&mut self, bucket: usize, count: i64) {
        if self.cells.is_empty() {
            self.cells = vec![0; BUCKETS];
            self.touched = vec![false; BLOCKS];
        }
        let block = bucket / PER_BLOCK;
        if !self.touched[block] {
            self.touched[block] = true;
            self.blocks.push(block);
        }
        self.cells[bucket] += count;
    }

    /// The (bucket, sum) of every bucket whose sum is above zero, by bucket; the cells left zero.
    fn take_positive(&mut self) -> Vec<(usize, u64)> {
        self.blocks.sort_unstable();
        let mut out = Vec::new();
        for &block in &self.blocks {
            self.touched[block] = false;
            for (i, cell) in self.cells[block * PER_BLOCK..(block + 1) * PER_BLOCK].iter_mut().enumerate() {
                debug_assert!(*cell >= 0, "a replaced response the shared run did not have");
                if *cell > 0 {
                    out.push((block * PER_BLOCK + i, *cell as u64));
                }
                *cell = 0;
            }
        }
        self.blocks.clear();
        out
    }
}

/// Raw accumulators filled by the replay loop.
#[derive(Debug, Clone)]
pub struct Ledger {
    pub time_by_mode_s: Vec<f64>,
    /// `transition_counts[i]` counts uses of `device.transitions[i]`.
    pub transition_counts: Vec<u64>,
    pub transition_time_s: f64,
    pub transition_energy_j: f64,
    pub service_time_s: f64,
    pub service_energy_j: f64,
    /// Wake-ups (any route that ends in the ready mode), by the mode they started from.
    pub wakeups_from: Vec<u64>,
    /// Requests that arrived while the device was not ready because of the power policy.
    pub delayed_requests: u64,
    pub responses: ResponseStats,
    /// Each request's times and what it found, only when asked for.
    pub per_request: Option<PerRequest>,
    /// What the device did in a window of time, only when asked for.
    pub timeline: Option<Timeline>,
}

/// What a device is doing at an instant: resting in a mode (the ready mode included), on a
/// transition (its index in `device.transitions`), or serving a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activity {
    Mode(usize),
    Transition(usize),
    Serving,
}

impl Activity {
    /// "standby", "standby→active", "serving".
    pub fn label(&self, device: &Device) -> String {
        match *self {
            Activity::Mode(m) => device.modes[m].name.clone(),
            Activity::Transition(i) => {
                let t = &device.transitions[i];
                format!("{}→{}", device.modes[t.from].name, device.modes[t.to].name)
            }
            Activity::Serving => "serving".into(),
        }
    }
}

/// Per-request records, in trace order: when the request was issued (its trace time, open
/// loop), when its service began, its response, and what the device was doing when it arrived.
#[derive(Debug, Clone, Default)]
pub struct PerRequest {
    pub arrival_s: Vec<f64>,
    pub start_s: Vec<f64>,
    pub response_s: Vec<f64>,
    pub at_arrival: Vec<Activity>,
}

impl PerRequest {
    fn with_capacity(n: usize) -> Self {
        PerRequest { arrival_s: Vec::with_capacity(n), start_s: Vec::with_capacity(n), response_s: Vec::with_capacity(n), at_arrival: Vec::with_capacity(n) }
    }
}

/// What the device did between `from_s` and `to_s`: back-to-back segments, clipped to the
/// window, adjacent ones of the same activity merged. Memory grows with the window's events,
/// not the trace's.
#[derive(Debug, Clone)]
pub struct Timeline {
    pub from_s: f64,
    pub to_s: f64,
    pub segments: Vec<(f64, f64, Activity)>,
}

impl Timeline {
    pub fn new(from_s: f64, to_s: f64) -> Self {
        Timeline { from_s, to_s, segments: Vec::new() }
    }

    /// Adds `[start_s, end_s)` doing `activity`, the part of it inside the window.
    pub fn push(&mut self, start_s: f64, end_s: f64, activity: Activity) {
        let (start_s, end_s) = (start_s.max(self.from_s), end_s.min(self.to_s));
        if end_s <= start_s {
            return;
        }
        if let Some(last) = self.segments.last_mut() {
            if last.2 == activity && (start_s - last.1).abs() <= 1e-12 * start_s.abs().max(1.0) {
                last.1 = end_s;
                return;
            }
        }
        self.segments.push((start_s, end_s, activity));
    }
}

impl Ledger {
    pub fn new(device: &Device, requests: usize, keep_per_request: bool) -> Self {
        let n = device.mode_count();
        Ledger {
            time_by_mode_s: vec![0.0; n],
            transition_counts: vec![0; device.transitions.len()],
            transition_time_s: 0.0,
            transition_energy_j: 0.0,
            service_time_s: 0.0,
            service_energy_j: 0.0,
            wakeups_from: vec![0; n],
            delayed_requests: 0,
            responses: ResponseStats::default(),
            per_request: keep_per_request.then(|| PerRequest::with_capacity(requests)),
            timeline: None,
        }
    }
}

/// The finished account of one (trace, device, policy) run.
#[derive(Debug, Clone)]
pub struct RunResult {
    pub policy: String,
    pub device: String,
    pub requests: u64,
    pub first_arrival_s: f64,
    pub makespan_s: f64,
    pub mode_names: Vec<String>,
    pub time_by_mode_s: Vec<f64>,
    pub energy_by_mode_j: Vec<f64>,
    /// `(from, to, count)` for every direct transition used at least once.
    pub transition_counts: Vec<(String, String, u64)>,
    pub transition_time_s: f64,
    pub transition_energy_j: f64,
    pub service_time_s: f64,
    pub service_energy_j: f64,
    /// Device energy: residency + transitions + service.
    pub energy_j: f64,
    /// Device energy plus platform base power over the makespan.
    pub system_energy_j: f64,
    pub base_power_w: f64,
    pub wakeups: u64,
    /// Wake-ups out of modes that consume a rated start/stop cycle.
    pub cycle_wakeups: u64,
    pub rated_cycles: Option<f64>,
    /// Wake-ups that load the heads (out of a heads-unloaded mode), against their own rating.
    pub load_unload_wakeups: u64,
    pub rated_load_unload_cycles: Option<f64>,
    pub mean_response_s: f64,
    pub p50_response_s: f64,
    pub p95_response_s: f64,
    pub p99_response_s: f64,
    pub max_response_s: f64,
    pub delayed_requests: u64,
    pub per_request: Option<PerRequest>,
    pub timeline: Option<Timeline>,
    /// MEMS devices: seed 004's theoretical minima, from the trace's always-on replay.
    pub theoretical_min: Option<TheoreticalMinimum>,
}

/// Seed 004 §5.2.1's theoretical minima of a (trace, MEMS device): every request served with
/// the seek it causes (from where the previous request left the sled: no idle sweep, no
/// shutdown) and its media transfer, the device in its lowest-power mode the rest of the time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TheoreticalMinimum {
    /// Energy of the requests' seeks and media transfers (J), and their media time (s), by the
    /// ways that cost least (through the centre, or a shutdown cut short, where it pays).
    pub service_energy_j: f64,
    pub service_time_s: f64,
    /// Mean of command overhead + request-caused seek + media transfer (no queueing, no bus).
    pub mean_response_s: f64,
    pub lowest_power_w: f64,
}

impl TheoreticalMinimum {
    /// The least energy over a run of `makespan_s`.
    pub fn energy_j(&self, makespan_s: f64) -> f64 {
        self.service_energy_j + self.lowest_power_w * (makespan_s - self.service_time_s).max(0.0)
    }
}

impl RunResult {
    pub fn from_ledger(
        mut ledger: Ledger,
        device: &Device,
        policy: String,
        first_arrival_s: f64,
        last_completion_s: f64,
        base_power_w: f64,
    ) -> Self {
        ledger.responses.settle();
        let [p50, p95, p99] = ledger.responses.quantiles_s(REPORTED_QUANTILES);
        let energy_by_mode_j: Vec<f64> =
            ledger.time_by_mode_s.iter().zip(&device.modes).map(|(t, m)| t * m.power_w).collect();
        let transition_counts = ledger
            .transition_counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c > 0)
            .map(|(i, &c)| {
                let (from, to) = device.transition_names(i);
                (from, to, c)
            })
            .collect();
        let makespan_s = last_completion_s - first_arrival_s;
        let energy_j = energy_by_mode_j.iter().sum::<f64>() + ledger.transition_energy_j + ledger.service_energy_j;
        let wakeups = ledger.wakeups_from.iter().sum();
        let wakeups_out_of = |modes: &[bool]| -> u64 {
            ledger.wakeups_from.iter().zip(modes).filter(|(_, &counts)| counts).map(|(w, _)| *w).sum()
        };
        let cycle_wakeups = wakeups_out_of(&device.limits.cycle_mode);
        let load_unload_wakeups = wakeups_out_of(&device.limits.load_unload_mode);
        debug_assert_eq!(ledger.wakeups_from[READY], 0);
        RunResult {
            policy,
            device: device.name.clone(),
            requests: ledger.responses.count(),
            first_arrival_s,
            makespan_s,
            mode_names: device.modes.iter().map(|m| m.name.clone()).collect(),
            time_by_mode_s: ledger.time_by_mode_s,
            energy_by_mode_j,
            transition_counts,
            transition_time_s: ledger.transition_time_s,
            transition_energy_j: ledger.transition_energy_j,
            service_time_s: ledger.service_time_s,
            service_energy_j: ledger.service_energy_j,
            energy_j,
            system_energy_j: energy_j + base_power_w * makespan_s,
            base_power_w,
            wakeups,
            cycle_wakeups,
            rated_cycles: device.limits.start_stop_cycles,
            load_unload_wakeups,
            rated_load_unload_cycles: device.limits.load_unload_cycles,
            mean_response_s: ledger.responses.mean_s(),
            p50_response_s: p50,
            p95_response_s: p95,
            p99_response_s: p99,
            max_response_s: ledger.responses.max_s(),
            delayed_requests: ledger.delayed_requests,
            per_request: ledger.per_request,
            timeline: ledger.timeline,
            theoretical_min: None,
        }
    }

    /// Seed 004's least energy for this run's makespan (MEMS devices).
    pub fn theoretical_min_energy_j(&self) -> Option<f64> {
        self.theoretical_min.map(|m| m.energy_j(self.makespan_s))
    }

    pub fn theoretical_min_response_s(&self) -> Option<f64> {
        self.theoretical_min.map(|m| m.mean_response_s)
    }

    /// Total of residency, transition and service time: equals the makespan (time conservation).
    pub fn accounted_time_s(&self) -> f64 {
        self.time_by_mode_s.iter().sum::<f64>() + self.transition_time_s + self.service_time_s
    }

    fn per_day(&self, count: u64) -> f64 {
        if self.makespan_s <= 0.0 { 0.0 } else { count as f64 * 86_400.0 / self.makespan_s }
    }

    /// Wake-ups (from any low-power mode) per day of trace time.
    pub fn wakeups_per_day(&self) -> f64 {
        self.per_day(self.wakeups)
    }

    /// Wake-ups that consume a rated start/stop cycle, per day of trace time.
    pub fn cycle_wakeups_per_day(&self) -> f64 {
        self.per_day(self.cycle_wakeups)
    }

    /// Head loads (wake-ups out of a heads-unloaded mode) per day of trace time.
    pub fn load_unload_wakeups_per_day(&self) -> f64 {
        self.per_day(self.load_unload_wakeups)
    }

    /// Years until the first of the rated cycles (start/stop, load/unload) is used up at this
    /// run's rate (`None` when the device rates neither; infinite when the run consumed none).
    pub fn years_to_rated_cycles(&self) -> Option<f64> {
        let years = |rated: Option<f64>, per_day: f64| {
            rated.map(|r| if per_day == 0.0 { f64::INFINITY } else { r / per_day / 365.25 })
        };
        let start_stop = years(self.rated_cycles, self.cycle_wakeups_per_day());
        let load_unload = years(self.rated_load_unload_cycles, self.load_unload_wakeups_per_day());
        match (start_stop, load_unload) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Uniform draws in [0, 1) from a xorshift stream: the same responses on every run.
    fn uniform(mut state: u64) -> impl FnMut() -> f64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn percentiles_are_within_half_a_thousandth_of_the_exact_ones() {
        // Responses spread over ten decades, from a fixed generator: every reported percentile
        // lies at or above the exact one and within 2^-11 of it.
        let mut s = ResponseStats::default();
        let mut exact = Vec::new();
        let mut next = uniform(0x9E37_79B9_7F4A_7C15);
        for _ in 0..100_000 {
            let r = 10f64.powf(-7.0 + 10.0 * next());
            s.record(r);
            exact.push(r);
        }
        exact.sort_by(f64::total_cmp);
        for q in [0.01, 0.5, 0.9, 0.95, 0.99, 0.999] {
            let want = exact[((q * exact.len() as f64).ceil() as usize).max(1) - 1];
            let got = s.quantile_s(q);
            assert!(got >= want && got <= want * (1.0 + 1.0 / 2048.0), "q{q}: {got} against {want}");
        }
        assert_eq!(s.quantile_s(1.0), exact[exact.len() - 1]);
    }

    #[test]
    fn equal_responses_give_their_exact_value_and_extremes_share_the_end_buckets() {
        let mut s = ResponseStats::default();
        for _ in 0..10 {
            s.record(0.012_345);
        }
        assert_eq!((s.quantile_s(0.5), s.quantile_s(0.99)), (0.012_345, 0.012_345));
        let mut z = ResponseStats::default();
        z.record(0.0);
        z.record(0.0);
        assert_eq!(z.quantile_s(0.5), 0.0);
        // Bucket numbers grow with the value and stay in range at both ends.
        assert_eq!(bucket(0.0), 0);
        assert_eq!(bucket(1e-12), 0);
        assert_eq!(bucket(1e12), BUCKETS - 1);
        assert_eq!(bucket(f64::INFINITY), BUCKETS - 1);
        let mut last = 0;
        for e in -90..90 {
            let b = bucket(1.07f64.powi(e * 4));
            assert!(b >= last);
            last = b;
        }
        assert!(bucket_upper_s(bucket(0.75)) >= 0.75 && bucket_upper_s(bucket(0.75)) < 0.75 * (1.0 + 1.0 / 2048.0));
    }

    #[test]
    fn percentiles_are_within_a_thousandth() {
        let mut s = ResponseStats::default();
        for i in 1..=1000 {
            s.record(i as f64 * 1e-3);
        }
        assert!((s.mean_s() - 0.5005).abs() < 1e-12);
        assert_eq!(s.max_s(), 1.0);
        for (q, exact) in [(0.5, 0.5), (0.95, 0.95), (0.99, 0.99)] {
            assert!((s.quantile_s(q) - exact).abs() <= exact * 1e-3, "q{q}: {}", s.quantile_s(q));
        }
    }

    #[test]
    fn a_histogram_holds_only_the_blocks_its_responses_touch() {
        // A few dozen distinct responses take no block at all, however many times each comes.
        let mut few = ResponseStats::default();
        for i in 0..SPARSE * 2000 {
            few.record(1e-3 * (1.0 + (i % SPARSE) as f64));
        }
        assert_eq!(few.blocks_held(), 0);
        assert_eq!(few.count(), SPARSE as u64 * 2000);
        // Responses a few to a block stay in the list well past that: 300, each a sixteenth of a
        // binade from the last (282 blocks), 2.4 KB listed against 140 KB of blocks.
        let mut scattered = ResponseStats::default();
        for k in 0..300 {
            scattered.record(1e-6 * 2f64.powf(k as f64 / 16.0 + 1.0 / 32.0));
        }
        assert_eq!((scattered.listed, scattered.blocks_held()), (300, 0));
        // ... until the run has recorded 65,536 responses: a run that large searches its list
        // on every response, and takes blocks (here one a bucket) instead.
        for k in 300..LISTED_RESPONSES as usize - 1 {
            scattered.record(1e-6 * 2f64.powf((k % 300) as f64 / 16.0 + 1.0 / 32.0));
        }
        assert_eq!((scattered.listed, scattered.blocks_held()), (300, 0));
        scattered.record(1e-6);
        assert!(scattered.sparse.is_empty() && scattered.blocks_held() > 250, "{}", scattered.blocks_held());
        assert_eq!(scattered.count(), LISTED_RESPONSES);
        // Responses in consecutive buckets move to blocks once the list would be the larger:
        // at its 129th bucket (128 buckets fill one or two blocks; the list's table, 4 KiB).
        let mut dense = ResponseStats::default();
        let first = bucket(1e-3);
        for b in first..first + 128 {
            dense.record(bucket_upper_s(b));
        }
        assert_eq!((dense.listed, dense.blocks_held()), (128, 0));
        dense.record(bucket_upper_s(first + 128));
        assert!(dense.slot_of.is_some() && dense.sparse.is_empty() && dense.blocks_held() <= 3);
        // A million responses within one sixteenth of the 1-2 ms binade (110 buckets, listed at
        // first) take one block once past 65,536; the extremes (0, and beyond the last binade)
        // one more each.
        let mut s = ResponseStats::default();
        for i in 0..1_000_000 {
            s.record(1.04e-3 * (1.0 + 0.05 * (i as f64 / 1e6)));
        }
        assert_eq!((s.listed, s.blocks_held()), (0, 1));
        s.record(0.0);
        s.record(1e12);
        assert_eq!(s.blocks_held(), 3);
        // The counts are where the dense array had them: the quantiles of the values recorded.
        assert!(s.quantile_s(0.0) < 1e-9); // the first bucket's upper end
        assert_eq!(s.max_s(), 1e12); // beyond 2^24 s the last bucket holds it, the maximum is exact
        let median = s.quantile_s(0.5);
        assert!(median >= 1.04e-3 * 1.025 && median <= 1.04e-3 * 1.025 * (1.0 + 1.0 / 2048.0), "{median}");
    }

    #[test]
    fn a_bucket_past_four_billion_responses_keeps_its_count() {
        // Counting 2^32 + 5 responses one by one takes a while: the bucket's count is set just
        // below the wrap instead, as 2^32 - 3 responses would leave it; in the list, and in blocks.
        for in_blocks in [false, true] {
            let mut s = ResponseStats::default();
            s.record(1e-3);
            let index = bucket(1e-3);
            if in_blocks {
                s.move_to_blocks();
                let slot = s.slot_of.as_ref().unwrap()[index / PER_BLOCK];
                s.blocks[slot as usize - 1][index % PER_BLOCK] = u32::MAX - 2;
            } else {
                s.sparse.iter_mut().find(|e| e.0 == index as u32).unwrap().1 = u32::MAX - 2;
            }
            s.count = u64::from(u32::MAX) - 2;
            for _ in 0..8 {
                s.record(1e-3);
            }
            s.record(2e-3);
            s.settle(); // blocks count their responses a batch at a time
            assert_eq!(s.carries, vec![(index as u32, 1)]);
            let held = if in_blocks { s.blocks[s.slot_of.as_ref().unwrap()[index / PER_BLOCK] as usize - 1][index % PER_BLOCK] } else { s.sparse.iter().find(|e| e.0 == index as u32).unwrap().1 };
            assert_eq!(held, 5);
            // 2^32 + 5 responses at 1 ms and one at 2 ms: every quantile short of the last is 1 ms.
            assert_eq!(s.count(), (1u64 << 32) + 6);
            assert_eq!(s.quantile_s(0.999_999_999), s.quantile_s(0.5));
            assert!(s.quantile_s(0.5) >= 1e-3 && s.quantile_s(0.5) <= 1e-3 * (1.0 + 1.0 / 2048.0));
            assert_eq!(s.quantile_s(1.0), 2e-3);
            // Moved into blocks, the list's wrapped count keeps its carry.
            if !in_blocks {
                let q = s.quantile_s(0.999_999_999);
                s.move_to_blocks();
                assert_eq!((s.quantile_s(0.999_999_999), s.count()), (q, (1u64 << 32) + 6));
            }
        }
    }

    #[test]
    fn blocks_give_the_quantiles_of_one_dense_array() {
        // Generated responses across the whole range (below the first binade, every binade, past
        // the last), in clusters and spread: every quantile is the one a dense array of every
        // bucket gives, whether kept as a list of bucket numbers or in blocks.
        let mut next = uniform(0x9E37_79B9_7F4A_7C15);
        for trial in 0..40 {
            let mut s = ResponseStats::default();
            let mut dense = vec![0u64; BUCKETS];
            let (low, high) = (-32.0 + trial as f64, -20.0 + 1.3 * trial as f64);
            // Few enough to stay in the list, one past it, and many; and many responses of a
            // few distinct values (which stay in the list).
            let n = [1, 7, SPARSE, SPARSE + 1, 20_000, 300][trial % 6];
            let values: Vec<f64> = (0..48).map(|_| 2f64.powf(low + (high - low) * next())).collect();
            for _ in 0..n {
                let r = if next() < 0.1 {
                    0.0
                } else if trial % 6 == 5 {
                    values[(next() * 48.0) as usize]
                } else {
                    2f64.powf(low + (high - low) * next())
                };
                s.record(r);
                dense[bucket(r)] += 1;
            }
            for q in [0.0, 0.1, 0.5, 0.9, 0.95, 0.99, 0.999, 1.0] {
                let rank = ((q * s.count() as f64).ceil() as u64).max(1);
                let mut seen = 0;
                let index = dense.iter().position(|&c| {
                    seen += c;
                    seen >= rank
                });
                let expected = index.map_or(s.max_s(), |i| bucket_upper_s(i).clamp(s.min_s, s.max_s));
                assert_eq!(s.quantile_s(q), expected, "trial {trial}, q {q}");
            }
            // Several at once, in any order, in one walk: the same.
            let qs = [0.99, 0.0, 0.5, 1.0, 0.95];
            assert_eq!(s.quantiles_s(qs), qs.map(|q| s.quantile_s(q)), "trial {trial}");
        }
    }

    /// A run's histogram made from the shared run's, its own responses and ones added by bucket,
    /// less the shared responses it did not keep, is the histogram of the responses it kept,
    /// bucket by bucket: with few buckets (summed by sorting, or in cells read back block by
    /// block) and with tens of thousands (summed in one array of every bucket).
    #[test]
    fn shared_with_own_counts_what_the_run_kept_bucket_by_bucket() {
        let mut next = uniform(0x2545_F491_4F6C_DD1D);
        let by_bucket = |s: &ResponseStats| {
            let mut counts = vec![0u64; BUCKETS];
            for (b, c) in s.bucket_counts() {
                counts[b] += c;
            }
            counts
        };
        for (n, decades) in [(100usize, 1.0), (1_500, 1.0), (5_000, 3.0), (200_000, 12.0)] {
            let mut draw = || 1e-4 * 10f64.powf(decades * next());
            let (mut shared, mut own, mut added, mut replaced, mut kept) =
                (ResponseStats::default(), ResponseStats::default(), ResponseStats::default(), ResponseStats::default(), ResponseStats::default());
            let mut kept_sum = 0.0;
            for i in 0..n {
                let r = draw();
                shared.record(r);
                if i % 3 == 0 {
                    replaced.record(r);
                } else {
                    kept.record(r);
                    kept_sum += r;
                }
                if i % 5 == 0 {
                    let mine = r + draw();
                    own.record(mine);
                    kept.record(mine);
                }
                if i % 7 == 0 {
                    let taken = draw();
                    added.count_buckets(&[bucket(taken) as u32]);
                    kept.record(taken);
                }
            }
            let merged = ResponseStats::shared_with_own(&shared, &own, &added, &replaced, kept_sum, &mut SharedCounts::none());
            // The largest case takes the dense sum, the others the sort.
            assert_eq!(shared.bucket_counts().count() > SUMMED_DENSE_ABOVE, n == 200_000);
            assert_eq!(merged.count(), kept.count(), "{n} responses");
            assert!(by_bucket(&merged) == by_bucket(&kept), "{n} responses: the buckets differ");
            // The shared buckets gathered once, as an array (the two larger cases) or a list
            // summed with each run's own in cells (the smallest), give the same statistics, field
            // for field; merged twice with one gathering (its scratch reused).
            let mut gathered = SharedCounts::of(&shared);
            assert_eq!(gathered.dense.is_some(), n >= 5_000, "{n} responses");
            assert_eq!(gathered.listed.is_some(), n < 5_000, "{n} responses");
            // Of the listed, the smallest is summed by sorting (its lists hold fewer than 2n
            // buckets), the next in cells.
            let listed = gathered.listed.as_ref().map_or(0, Vec::len);
            assert!(n != 100 || 2 * n <= SORTED_SUM_UP_TO, "{n} responses");
            assert!(n != 1_500 || listed > SORTED_SUM_UP_TO, "{n} responses: {listed} buckets");
            for _ in 0..2 {
                let again = ResponseStats::shared_with_own(&shared, &own, &added, &replaced, kept_sum, &mut gathered);
                assert_eq!(format!("{again:?}"), format!("{merged:?}"), "{n} responses");
            }
            // Read off a tree of the others' counts instead, the report's figures are the
            // histogram's bit for bit, and the tree is left as it was (read twice).
            let mut others = BucketTree::of(&shared);
            others.add_counts(&added.settled(), 1);
            others.add_counts(&replaced.settled(), -1);
            for _ in 0..2 {
                let reported = ResponseStats::shared_with_own_reported(&shared, &own, added.count(), replaced.count(), kept_sum, &mut others);
                assert_eq!(reported.quantiles_s(REPORTED_QUANTILES).map(f64::to_bits), merged.quantiles_s(REPORTED_QUANTILES).map(f64::to_bits), "{n} responses");
                assert_eq!((reported.count(), reported.mean_s().to_bits(), reported.max_s().to_bits()), (merged.count(), merged.mean_s().to_bits(), merged.max_s().to_bits()), "{n} responses");
            }
        }
    }

    /// The tree finds the bucket where the running count reaches each rank, as a walk over every
    /// bucket does: counts in the first and last buckets, past 2^32 in one, none at all.
    #[test]
    fn a_bucket_tree_finds_each_rank_where_a_walk_over_the_buckets_does() {
        let mut next = uniform(0x9E37_79B9_7F4A_7C15);
        for trial in 0..40 {
            let mut stats = ResponseStats::default();
            let mut dense = vec![0u64; BUCKETS];
            for _ in 0..(1 + trial * 37) {
                let b = match trial % 4 {
                    0 => (next() * BUCKETS as f64) as usize,
                    1 => BUCKETS - 1 - (next() * 3.0) as usize,
                    _ => (next() * 40.0) as usize * 1000,
                }
                .min(BUCKETS - 1);
                stats.count_buckets(&[b as u32]);
                dense[b] += 1;
            }
            if trial == 7 {
                stats.move_to_blocks();
                stats.add_to_bucket(5, 1 << 33);
                dense[5] += 1 << 33;
            }
            let tree = BucketTree::of(&stats);
            let total: u64 = dense.iter().sum();
            for rank in [1, 2, total / 3, total / 2, total - 1, total].into_iter().filter(|&r| r >= 1) {
                let mut seen = 0;
                let walked = dense.iter().position(|&c| {
                    seen += c;
                    seen >= rank
                });
                assert_eq!(tree.bucket_of_rank(rank), walked, "trial {trial}, rank {rank} of {total}");
            }
            assert_eq!(tree.bucket_of_rank(total + 1), None, "trial {trial}");
        }
        assert_eq!(BucketTree::of(&ResponseStats::default()).bucket_of_rank(1), None);
    }
}
