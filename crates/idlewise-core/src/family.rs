//! Runs that share one replay where they agree: a sweep of timeouts costs one replay plus what
//! each timeout does differently.
//!
//! A policy whose plan is the same for every gap and made from the idle time alone
//! ([`crate::policy::Policy::first_step_s`]: timeouts, cascades, EPC's and APST's timers,
//! breakeven) keeps its device ready through every gap shorter than its first step. Until a gap
//! outlasts that step, such a run is the always-on run: the same services at the same times, the
//! same responses. So the family replays always-on once (the *shared* run, computed here from
//! the shared ready-mode services) and each member only
//!
//! - at a gap of the shared run that reaches its first step: it takes its own course from the
//!   gap's start (its device put where the shared run's is). A member of one fixed step (a
//!   timeout) that gets all the way down before the request that ends the gap takes the gap
//!   whole ([`Slept`]: three sums a member); any other serves the request itself, going down
//!   and waking as its policy has it;
//! - then in a [`Track`]: members free at the same instant with the same wake-up behind them
//!   are in one state and serve every request that finds them busy alike, so a track serves
//!   it once for all of them (a sweep's timeouts mostly go down in the same long gaps);
//! - at the first request that finds its track idle: it rejoins the shared run if still ready
//!   (from then on it is the shared run again: same service start, same head), or goes down
//!   again, whole or on its own, into a new track.
//!
//! Members are numbered by first step, and those in one place (sharing, or in one track) are
//! kept as runs of consecutive numbers: what a place does to its members (a stretch shared, a
//! track's service, delays and responses, a gap spent ready) is added once for each run, as a
//! difference over member numbers ([`ByRuns`], [`Spread`]), not once for each member. So a
//! volume of a round-robin trace, where every request follows a gap that sends most timeouts
//! down, costs a run or two a request and three sums for each member that sleeps.
//!
//! A member's ledger is its own gaps and wake-ups, the gaps it slept through, its tracks'
//! service, delays and responses, plus the shared run's ready idle, service and responses over
//! the stretches it shared, taken as differences of running sums (kept in double-double, so a
//! difference is as exact as a sum of its terms). Its response histogram is the shared run's,
//! less the shared responses of the requests it did not share, plus its own and its tracks'.
//! The rows equal separate replays' to rounding (property-tested against them in
//! `tests/family.rs`), and a row is the same bit for bit whatever other runs share its family.
//!
//! Open-loop replay only (closed and synchronous replay shift every later arrival by a delay,
//! so a run never meets the shared one again), on devices whose ready service the runs share,
//! that start ready, serve nothing in a low-power mode and draw no wake-up times.

use std::sync::Arc;

use crate::device::{Device, READY};
use crate::device_sim::{descend, stays_ready, DeviceSim, OneStep};
use crate::metrics::{bucket, BucketTree, ResponseStats, SharedCounts};
use crate::options::{ReplayMode, ReplayOptions, ResponseFrom};
use crate::replay::Replay;
use crate::trace::TraceView;

/// A sum carried as two floats (Knuth's TwoSum): exact to about 2^-106 of its size, so the
/// difference of two running sums is as good as summing the terms between them.
#[derive(Debug, Clone, Copy, Default)]
struct Exact {
    hi: f64,
    lo: f64,
}

impl Exact {
    fn of(x: f64) -> Self {
        Exact { hi: x, lo: 0.0 }
    }

    fn total(self) -> f64 {
        self.hi + self.lo
    }

    /// The sum as a plain running sum of the same terms has it, bit for bit (`hi` is that sum:
    /// TwoSum keeps the rounding errors apart, in `lo`).
    fn term_by_term(self) -> f64 {
        self.hi
    }

    #[inline(always)]
    fn add(&mut self, x: f64) {
        let s = self.hi + x;
        let v = s - self.hi;
        let err = (self.hi - (s - v)) + (x - v);
        self.hi = s;
        self.lo += err;
    }

    /// Adds `sign · x` (`sign` ±1).
    #[inline(always)]
    fn add_exact(&mut self, x: Exact, sign: f64) {
        self.add(sign * x.hi);
        self.add(sign * x.lo);
    }

    /// `self − earlier`, rounded once.
    fn since(self, earlier: Exact) -> f64 {
        (self.hi - earlier.hi) + (self.lo - earlier.lo)
    }
}

/// The shared run's running sums, at a point between requests.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    /// Ready idle (gaps).
    idle_s: Exact,
    service_s: Exact,
    service_j: Exact,
    response_s: Exact,
}

/// Sums over member numbers, as differences: an amount for the members `lo..hi` is added at
/// `hi − 1` and taken off at `lo − 1`, and a member's total is the sum from its number up. In
/// double-double, so a member's total is the sum of its own amounts to rounding, whatever runs
/// they came in (a row is the same bit for bit in any sweep).
struct ByRuns {
    diffs: Vec<Exact>,
}

impl ByRuns {
    fn new(members: usize) -> Self {
        ByRuns { diffs: vec![Exact::default(); members] }
    }

    /// `sign · x` (`sign` ±1) to each of the members `lo..hi`.
    #[inline]
    fn add(&mut self, lo: usize, hi: usize, x: Exact, sign: f64) {
        self.diffs[hi - 1].add_exact(x, sign);
        if lo > 0 {
            self.diffs[lo - 1].add_exact(x, -sign);
        }
    }

    /// Each member's total, by member number.
    fn totals(&self) -> Vec<f64> {
        let mut sum = Exact::default();
        let mut totals = vec![0.0; self.diffs.len()];
        for m in (0..self.diffs.len()).rev() {
            sum.add_exact(self.diffs[m], 1.0);
            totals[m] = sum.total();
        }
        totals
    }
}

/// What members took from the places they were in, by runs ([`ByRuns`]): the shared run's
/// ready idle, service and responses over the stretches they shared (the shared sums where a
/// stretch ended, less those where it began), their tracks' service, responses and delays,
/// and the gaps they spent ready before rejoining the shared run. The largest response a
/// track handed over is kept per run as the largest over the levels of a sparse table (a run
/// is two overlapping blocks of a power-of-two length).
struct Takings {
    ready_s: ByRuns,
    service_s: ByRuns,
    service_j: ByRuns,
    response_s: ByRuns,
    delayed: Vec<i64>,
    /// `max_s[j][k]`: the largest response handed to the members `k..k + 2^j`.
    max_s: Vec<Vec<f64>>,
}

/// A member's share of [`Takings`].
#[derive(Debug, Clone, Copy, Default)]
struct Taken {
    ready_s: f64,
    service_s: f64,
    service_j: f64,
    response_s: f64,
    delayed: u64,
    max_s: f64,
}

impl Takings {
    fn new(members: usize) -> Self {
        let levels = usize::BITS - members.max(1).leading_zeros();
        Takings {
            ready_s: ByRuns::new(members),
            service_s: ByRuns::new(members),
            service_j: ByRuns::new(members),
            response_s: ByRuns::new(members),
            delayed: vec![0; members],
            max_s: (0..levels).map(|_| vec![0.0; members]).collect(),
        }
    }

    /// A stretch the members `lo..hi` shared ends (`sign` 1) or begins (−1) at `sums`.
    fn shared(&mut self, lo: usize, hi: usize, sums: &Sums, sign: f64) {
        self.ready_s.add(lo, hi, sums.idle_s, sign);
        self.service_s.add(lo, hi, sums.service_s, sign);
        self.service_j.add(lo, hi, sums.service_j, sign);
        self.response_s.add(lo, hi, sums.response_s, sign);
    }

    /// What a track served, to its members `lo..hi`.
    fn served(&mut self, lo: usize, hi: usize, service: (f64, f64), response_s: Exact, delayed: u64, max_s: f64) {
        self.service_s.add(lo, hi, Exact::of(service.0), 1.0);
        self.service_j.add(lo, hi, Exact::of(service.1), 1.0);
        self.response_s.add(lo, hi, response_s, 1.0);
        self.delayed[hi - 1] += delayed as i64;
        if lo > 0 {
            self.delayed[lo - 1] -= delayed as i64;
        }
        let level = (usize::BITS - 1 - (hi - lo).leading_zeros()) as usize;
        for k in [lo, hi - (1 << level)] {
            let cell = &mut self.max_s[level][k];
            *cell = cell.max(max_s);
        }
    }

    /// Each member's total, by member number.
    fn totals(&self) -> Vec<Taken> {
        let n = self.delayed.len();
        let mut max_s = self.max_s.clone();
        for level in (1..max_s.len()).rev() {
            let half = 1 << (level - 1);
            let (below, above) = max_s.split_at_mut(level);
            for k in 0..n.saturating_sub((1 << level) - 1) {
                let v = above[0][k];
                below[level - 1][k] = below[level - 1][k].max(v);
                below[level - 1][k + half] = below[level - 1][k + half].max(v);
            }
        }
        let (ready_s, service_s, service_j, response_s) = (self.ready_s.totals(), self.service_s.totals(), self.service_j.totals(), self.response_s.totals());
        let mut delayed = 0i64;
        let mut totals = vec![Taken::default(); n];
        for m in (0..n).rev() {
            delayed += self.delayed[m];
            totals[m] = Taken { ready_s: ready_s[m], service_s: service_s[m], service_j: service_j[m], response_s: response_s[m], delayed: delayed as u64, max_s: max_s[0][m] };
        }
        totals
    }
}

struct Member<'p> {
    /// Its place among the call's specs.
    spec: usize,
    /// `None` once it left the family ([`Family::disband_if_costly`]).
    replay: Option<Replay<'p>>,
}

impl<'p> Member<'p> {
    fn sim(&mut self) -> &mut DeviceSim<'p> {
        self.replay.as_mut().expect("a member still in the family has its replay").sim_mut()
    }
}

/// The always-on run, as the members see it.
struct Shared {
    free_at: f64,
    head_bytes: f64,
    sums: Sums,
    responses: ResponseStats,
}

/// Gaps that members of one fixed step (timeouts) take whole, all the way down and woken by
/// the request that ends them, charged here rather than by their replays: such a gap is its
/// ready time until the step, the hops down, the rest and the hops up, the same for every
/// member of one step, so a gap costs a member three sums ([`OneStep::descent`], the arithmetic
/// its replay would use) and the members woken at one instant go on in one track. A sweep's
/// timeouts on a volume of a round-robin trace go down in nearly every gap.
struct Slept {
    /// Each member's step, if it has one fixed step (by member number), and when it comes.
    steps: Vec<Option<OneStep>>,
    at_s: Vec<f64>,
    /// For a member with one step: the end of the block of consecutive members whose steps take
    /// the same routes down and up (by increasing time: in a gap, those that get all the way
    /// down are a prefix of the block, and those still ready at its end a suffix), and the
    /// times of the hops down, in a list per block.
    same_routes_until: Vec<usize>,
    hops_of: Vec<usize>,
    hops_s: Vec<Vec<f64>>,
    ready_s: Vec<f64>,
    low_s: Vec<f64>,
    /// The gaps slept through, as differences over member numbers (a block's members `m..down`
    /// counted at `down − 1` and taken off at `m − 1`, [`Slept::gaps`]): one count a block, not
    /// one a member, in the loop every gap of a round-robin volume runs.
    gaps_by_runs: Vec<i64>,
    /// (when they are ready again, members `lo..hi`) that slept through the request being fed.
    woken: Vec<(f64, usize, usize)>,
}

impl Slept {
    fn new(steps: Vec<Option<OneStep>>, device: &Device) -> Self {
        let n = steps.len();
        let mut same_routes_until = vec![0; n];
        for m in (0..n).rev() {
            same_routes_until[m] = match (steps[m], steps.get(m + 1).copied().flatten()) {
                (Some(a), Some(b)) if a.same_routes(&b) => same_routes_until[m + 1],
                _ => m + 1,
            };
        }
        let (mut hops_of, mut hops_s) = (vec![0; n], Vec::new());
        for m in 0..n {
            if let Some(step) = steps[m] {
                if m == 0 || same_routes_until[m - 1] != same_routes_until[m] {
                    hops_s.push(step.down_hops_s(device).collect());
                }
                hops_of[m] = hops_s.len() - 1;
            }
        }
        let at_s = steps.iter().map(|s| s.map_or(f64::NAN, |s| s.at_s())).collect();
        Slept { steps, at_s, same_routes_until, hops_of, hops_s, ready_s: vec![0.0; n], low_s: vec![0.0; n], gaps_by_runs: vec![0; n], woken: Vec::new() }
    }

    /// The `members`, ready and idle since `from_s`, at an arrival at `arrival_s`: those
    /// of one step that get all the way down before it are charged the gap and noted as woken
    /// by it; those of one step still ready then are put in `ready` (as runs); the others are
    /// handed to `apart`, in turn.
    #[inline]
    fn sleep_run(&mut self, members: std::ops::Range<usize>, device: &Device, from_s: f64, arrival_s: f64, ready: &mut Vec<(usize, usize)>, mut apart: impl FnMut(usize)) {
        let (lo, hi) = (members.start, members.end);
        let Slept { steps, at_s, same_routes_until, hops_of, hops_s, ready_s, low_s, gaps_by_runs, woken } = self;
        let mut m = lo;
        while m < hi {
            let Some(step) = steps[m] else {
                apart(m);
                m += 1;
                continue;
            };
            let end = same_routes_until[m].min(hi);
            let hops = &hops_s[hops_of[m]];
            let block = &at_s[m..end];
            let down = m + block.partition_point(|&at_s| descend(from_s, at_s, hops.iter().copied()).1 < arrival_s);
            let stays = m + block.partition_point(|&at_s| !stays_ready(from_s, at_s, arrival_s));
            let (at_s, ready_s, low_s) = (&at_s[m..down], &mut ready_s[m..down], &mut low_s[m..down]);
            // (A route down of one hop, as most are, charged in a loop the compiler unrolls.)
            match hops[..] {
                [hop_s] => charge(at_s, ready_s, low_s, from_s, arrival_s, || std::iter::once(hop_s)),
                _ => charge(at_s, ready_s, low_s, from_s, arrival_s, || hops.iter().copied()),
            }
            if down > m {
                gaps_by_runs[down - 1] += 1;
                if m > 0 {
                    gaps_by_runs[m - 1] -= 1;
                }
                woken.push((step.ready_after_wake(device, arrival_s), m, down));
            }
            (down..stays).for_each(&mut apart);
            if end > stays {
                ready.push((stays, end));
            }
            m = end;
        }
    }

    /// Each member's count of gaps slept through (by member number).
    fn gaps(&self) -> Vec<u64> {
        let mut sum = 0i64;
        let mut gaps = vec![0; self.gaps_by_runs.len()];
        for m in (0..gaps.len()).rev() {
            sum += self.gaps_by_runs[m];
            gaps[m] = sum as u64;
        }
        gaps
    }
}

/// Charges members (by their steps `at_s`, one block's) a gap from `from_s` to `arrival_s` that
/// each took whole, its descent (`descend`) with hops down of `hops_s`.
#[inline(always)]
fn charge<H: IntoIterator<Item = f64>>(at_s: &[f64], ready_s: &mut [f64], low_s: &mut [f64], from_s: f64, arrival_s: f64, hops_s: impl Fn() -> H) {
    for ((&at_s, ready_s), low_s) in at_s.iter().zip(ready_s).zip(low_s) {
        let (begin, down_at) = descend(from_s, at_s, hops_s());
        *ready_s += begin - from_s;
        *low_s += arrival_s - down_at;
    }
}

/// Members on their own course that are in one state: they went down in a gap and were ready
/// again at the same instant (`free_at` after the request that woke them), with the same
/// `woken_at`, so they serve every request alike until the device falls idle (ready service
/// depends only on the request and the head). The track serves those requests once for all
/// of them; it ends at the first request that finds it idle, where each member rejoins the
/// shared run, sleeps through the gap into a new track, or goes down on its own.
struct Track {
    /// Its members, as runs of consecutive numbers `lo..hi` (increasing, apart).
    runs: Vec<(usize, usize)>,
    free_at: f64,
    woken_at: f64,
    /// The shared run's service sums before the first request the track served and has not
    /// handed over: the track serves every request after it, in turn, until it ends (the first
    /// request that finds it idle), each in the ready service the shared run gives it, so its
    /// service is the shared run's since then, a difference of sums rather than sums of its own.
    served_from: (Exact, Exact),
    response_s: Exact,
    delayed: u64,
    max_s: f64,
    /// Buckets of its responses not yet counted in its members' histograms.
    buckets: Vec<u32>,
}

impl Track {
    /// An empty track, in the room of a track that ended (`spare`) if there is one: a sweep
    /// forms a track in most gaps that send a member down, and allocating its two vectors,
    /// then growing its buckets, took a twentieth of the family's instructions.
    fn new(spare: Option<Track>, free_at: f64, woken_at: f64, served_from: (Exact, Exact)) -> Self {
        let (mut runs, mut buckets) = spare.map_or_else(|| (Vec::new(), Vec::new()), |t| (t.runs, t.buckets));
        runs.clear();
        buckets.clear();
        Track { runs, free_at, woken_at, served_from, response_s: Exact::default(), delayed: 0, max_s: 0.0, buckets }
    }

    /// A request that finds the device busy (`arrival <= free_at`), or the request that woke
    /// the track's devices, served as its members' devices would serve it.
    #[inline(always)]
    fn serve(&mut self, arrival: f64, measured_from: f64, service_s: f64) {
        let finish = self.free_at.max(arrival) + service_s;
        let response = (finish - measured_from).max(0.0);
        self.delayed += u64::from(arrival < self.woken_at);
        self.response_s.add(response);
        self.max_s = self.max_s.max(response);
        self.buckets.push(bucket(response) as u32);
        self.free_at = finish;
    }

    /// What the track served since it last handed over, handed to its members: its responses'
    /// buckets to the family's [`Spread`], the rest to [`Takings`], once for each run;
    /// `shared` are the shared run's sums after the last request the track served.
    fn hand_over(&mut self, shared: &Sums, spread: &mut Spread, takings: &mut Takings) {
        debug_assert!(self.runs.windows(2).all(|w| w[0].1 < w[1].0), "a track's runs are apart and increasing");
        spread.add(&self.runs, &self.buckets);
        self.buckets.clear();
        let service = (shared.service_s.since(self.served_from.0), shared.service_j.since(self.served_from.1));
        for &(lo, hi) in &self.runs {
            takings.served(lo, hi, service, self.response_s, self.delayed, self.max_s);
        }
        self.served_from = (shared.service_s, shared.service_j);
        (self.response_s, self.delayed, self.max_s) = (Exact::default(), 0, 0.0);
    }

    fn members(&self) -> impl Iterator<Item = usize> + '_ {
        self.runs.iter().flat_map(|&(lo, hi)| lo..hi)
    }
}

/// Members of one step still ready at the end of a gap of `gap_s` (`staying`, as runs, left
/// empty) spent it ready, as their replays would charge it (`stay_ready_until`), and rejoin the
/// shared run. (Those replayed on their own charge it themselves.)
fn spent_ready(staying: &mut Vec<(usize, usize)>, takings: &mut Takings, rejoining: &mut Vec<(usize, usize)>, gap_s: f64) {
    for &(lo, hi) in staying.iter() {
        takings.ready_s.add(lo, hi, Exact::of(gap_s), 1.0);
    }
    rejoining.append(staying);
}

/// Runs of member numbers without those `leaving`.
fn leave_out(runs: &mut Vec<(usize, usize)>, leaving: &[bool]) {
    let members: Vec<usize> = runs.iter().flat_map(|&(lo, hi)| lo..hi).filter(|&m| !leaving[m]).collect();
    runs.clear();
    runs.extend(runs_of(&members));
}

/// The runs of consecutive numbers among `members` (increasing), as `lo..hi`.
fn runs_of(members: &[usize]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut first = 0;
    std::iter::from_fn(move || {
        if first == members.len() {
            return None;
        }
        let mut end = first + 1;
        while end < members.len() && members[end] == members[end - 1] + 1 {
            end += 1;
        }
        let run = (members[first], members[end - 1] + 1);
        first = end;
        Some(run)
    })
}

/// Runs of member numbers `lo..hi` put in order, those that touch joined into one.
fn join_runs(runs: &mut Vec<(usize, usize)>) {
    runs.sort_unstable();
    let mut kept = 0;
    for k in 0..runs.len() {
        if kept > 0 && runs[kept - 1].1 == runs[k].0 {
            runs[kept - 1].1 = runs[k].1;
        } else {
            runs[kept] = runs[k];
            kept += 1;
        }
    }
    runs.truncate(kept);
}

/// The responses members took from tracks, less the shared run's they did not share, as
/// differences over member numbers: a stretch's buckets are counted once for each run of
/// consecutive numbers that took them, not once for each member (every timeout of a sweep
/// goes down in a long gap, and they all serve what follows in one track). A member's
/// histogram is the shared run's, its own, and `plus[k] − minus[k]` summed for k from its
/// number up. Summed downwards, a run of members `lo..hi` is counted at `hi − 1` and taken
/// off at `lo − 1`, so a run from the first member (the shortest timeouts, which go down in
/// every gap that sends any member down: two thirds of a 100-timeout sweep's buckets) is
/// counted once, not twice.
struct Spread {
    plus: Vec<Counted>,
    minus: Vec<Counted>,
}

/// Responses counted at one member number of a [`Spread`]: as their buckets in a plain list (4
/// bytes a response), folded into a histogram (16–32 bytes a distinct bucket) once the list
/// would pass [`FOLDED_ABOVE`]; or straight into the histogram, when the first
/// [`WEIGHED_AT`] repeat their buckets enough for the histogram to be the smaller. A
/// round-robin volume's sweep on a disk whose wake-ups vary counts a few hundred of them at each
/// of most numbers, nearly each in a bucket of its own (listed: half the memory of 1,000 such
/// volumes' runs); on a drive whose wake-ups are alike, a few buckets over and over (counted).
#[derive(Default)]
struct Counted {
    folded: ResponseStats,
    latest: Vec<u32>,
    /// Weighed, at its first [`WEIGHED_AT`] responses: they repeat their buckets, so every
    /// response goes straight into the histogram.
    repeats: bool,
}

/// Buckets a [`Counted`] lists before it folds them into its histogram (4 KiB).
const FOLDED_ABOVE: usize = 1024;
/// A list is weighed once, when it first holds this many buckets.
const WEIGHED_AT: usize = 64;
/// A list holding more than this many responses a distinct bucket is folded: a histogram keeps a
/// bucket in 16–32 bytes, the list a response in 4.
const FOLDED_ABOVE_REPEATS: usize = 4;

impl Counted {
    fn count_buckets(&mut self, buckets: &[u32]) {
        if self.repeats {
            return self.folded.count_buckets(buckets);
        }
        let weighed = self.folded.count() > 0 || self.latest.len() >= WEIGHED_AT;
        if self.latest.len() + buckets.len() > FOLDED_ABOVE {
            self.folded.count_buckets(&self.latest);
            self.latest.clear();
            if buckets.len() > FOLDED_ABOVE {
                return self.folded.count_buckets(buckets);
            }
        }
        // Grown by half, not doubled: most lists stop short of the fold, in the room they took.
        let wanted = self.latest.len() + buckets.len();
        if wanted > self.latest.capacity() {
            self.latest.reserve_exact((wanted + wanted / 2).min(FOLDED_ABOVE) - self.latest.len());
        }
        self.latest.extend_from_slice(buckets);
        if !weighed && self.latest.len() >= WEIGHED_AT {
            // (The order of a list's buckets counts for nothing.)
            self.latest.sort_unstable();
            let distinct = 1 + self.latest.windows(2).filter(|w| w[0] != w[1]).count();
            if self.latest.len() > FOLDED_ABOVE_REPEATS * distinct {
                self.repeats = true;
                self.folded.count_buckets(&self.latest);
                self.latest = Vec::new();
            }
        }
    }

    fn count(&self) -> u64 {
        self.folded.count() + self.latest.len() as u64
    }

    /// Its counts added into `sum`'s.
    fn add_to(&self, sum: &mut ResponseStats) {
        sum.add_counts(&self.folded);
        sum.count_buckets(&self.latest);
    }
}

impl Spread {
    fn new(members: usize) -> Self {
        Spread { plus: (0..members).map(|_| Counted::default()).collect(), minus: (0..members).map(|_| Counted::default()).collect() }
    }

    /// `buckets` into the histograms of the members in `runs`.
    fn add(&mut self, runs: &[(usize, usize)], buckets: &[u32]) {
        if buckets.is_empty() {
            return;
        }
        for &(lo, hi) in runs {
            self.count(lo, hi, buckets, true);
        }
    }

    /// The shared run's responses each member of `stretches`, (member, where its stretch
    /// began in `shared_buckets`), did not share (`add` false: taken off its histogram) or
    /// shared (`add` true: added to it), to the end of `shared_buckets`; `stretches` is left
    /// empty.
    fn count_stretches(&mut self, stretches: &mut Vec<(usize, usize)>, shared_buckets: &[u32], add: bool) {
        stretches.sort_unstable_by_key(|&(m, from)| (from, m));
        let mut first = 0;
        while first < stretches.len() {
            let (lo, from) = stretches[first];
            let mut end = first + 1;
            while end < stretches.len() && stretches[end] == (stretches[end - 1].0 + 1, from) {
                end += 1;
            }
            if from < shared_buckets.len() {
                self.count(lo, stretches[end - 1].0 + 1, &shared_buckets[from..], add);
            }
            first = end;
        }
        stretches.clear();
    }

    /// `buckets` added to (or taken off) the histograms of the members numbered `lo..hi`.
    fn count(&mut self, lo: usize, hi: usize, buckets: &[u32], add: bool) {
        let (opens, closes) = if add { (&mut self.plus, &mut self.minus) } else { (&mut self.minus, &mut self.plus) };
        opens[hi - 1].count_buckets(buckets);
        if lo > 0 {
            closes[lo - 1].count_buckets(buckets);
        }
    }

    /// The sums from each member up, handed to `each(member, what it took, what it gave up)`
    /// for every member, the last first.
    fn each_sum(&self, mut each: impl FnMut(usize, &ResponseStats, &ResponseStats)) {
        let (mut plus, mut minus) = (ResponseStats::default(), ResponseStats::default());
        for m in (0..self.plus.len()).rev() {
            self.plus[m].add_to(&mut plus);
            self.minus[m].add_to(&mut minus);
            each(m, &plus, &minus);
        }
    }

    /// The same sums as counts in `tree` (which holds the shared counts each member starts
    /// from), each member's added as it is reached: `each(member, tree, responses it took, gave
    /// up)`, the last member first.
    fn each_sum_in(&self, tree: &mut BucketTree, mut each: impl FnMut(usize, &mut BucketTree, u64, u64)) {
        let (mut added, mut replaced) = (0, 0);
        for m in (0..self.plus.len()).rev() {
            for (counted, sign) in [(&self.plus[m], 1), (&self.minus[m], -1)] {
                tree.add_counts(&counted.folded, sign);
                tree.add_buckets(&counted.latest, sign);
            }
            added += self.plus[m].count();
            replaced += self.minus[m].count();
            each(m, tree, added, replaced);
        }
    }
}

pub(crate) struct Family<'p> {
    device: Arc<Device>,
    /// By increasing first step (`first_step_s`).
    members: Vec<Member<'p>>,
    first_step_s: Vec<f64>,
    /// Members sharing the replay, as runs of consecutive numbers (increasing, apart).
    sharing: Vec<(usize, usize)>,
    shared: Shared,
    /// Members on their own course, in tracks of members in one state.
    tracks: Vec<Track>,
    /// Tracks that ended, kept for their vectors' room.
    spare_tracks: Vec<Track>,
    /// The family disbanded: its members are replayed on their own to the end.
    disbanded: bool,
    /// The buckets of the shared run's responses in the piece being fed.
    shared_buckets: Vec<u32>,
    /// For each member: where in the piece being fed (a place in its `shared_buckets`) its
    /// present place began, sharing or apart; 0 for every member at each piece's start. (One
    /// mark for both places, reset at every piece's end: a piece counts the shared responses
    /// one way or the other, and the way can change from piece to piece, so a mark kept for
    /// one way alone went stale across a piece counted the other way and cut a member's
    /// stretch short.)
    since: Vec<usize>,
    /// The shared responses every member starts from, once a piece was counted the other way:
    /// the shared run's of the pieces counted by taking off (`None`: all of them, the shared
    /// run's histogram).
    common: Option<ResponseStats>,
    /// (Reused.) Members that served the request being fed on their own after a gap; runs of
    /// members that leave the shared run at it, and that rejoin it; (member, where its stretch
    /// apart began) of those that rejoin the shared run or reach the end of a piece.
    sleepers: Vec<usize>,
    leaving: Vec<(usize, usize)>,
    staying: Vec<(usize, usize)>,
    rejoining: Vec<(usize, usize)>,
    ending: Vec<(usize, usize)>,
    slept: Slept,
    spread: Spread,
    takings: Takings,
    /// Requests fed so far, and how many of them found the shared run idle (followed a gap).
    requests: u64,
    idle_requests: u64,
    /// Members that left the family, (spec index, replay): replayed on their own, fed here
    /// until the caller takes them ([`Family::take_left`]).
    left: Vec<(usize, Replay<'p>)>,
}

/// A track that ended is kept for its room unless its buckets hold more than this (256 KiB):
/// the spares then take at most that much a member, however long the bursts tracks served.
const SPARE_TRACK_BUCKETS: usize = 1 << 16;

/// Families of at least this many members read their quantiles at the end off one tree of
/// counts ([`BucketTree`], 864 KiB); smaller ones make each member's histogram, as between
/// pieces: a million devices under one timeout made a million trees.
const READ_OFF_A_TREE_FROM_MEMBERS: usize = 8;

/// The place of always-on among the members' specs, when the family carries it.
const ALWAYS_ON: usize = usize::MAX;

/// When more than this share of the requests follow a gap (a volume of a round-robin trace),
/// every member acts at nearly every request: those that walk their gaps one by one gain
/// nothing from sharing and leave ([`Family::disband_if_costly`]); those of one fixed step
/// sleep through such gaps whole ([`Slept`]) and stay.
const DISBAND_ABOVE_IDLE_SHARE: f64 = 0.5;
/// Requests seen before a family is judged, and how often it is judged again.
const JUDGED_AFTER_REQUESTS: u64 = 512;
const JUDGED_EVERY_REQUESTS: usize = 512;

/// Whether runs under `opts` on `device` can share a replay at all.
pub(crate) fn shares(device: &Device, opts: &ReplayOptions) -> bool {
    opts.mode == ReplayMode::Open
        && !opts.separate_runs
        && !opts.keep_per_request
        && opts.timeline_s.is_none()
        && device.shares_ready_service()
        && !device.serves_in_low_power()
        && device.starting_mode(opts.initial_mode) == READY
        && (opts.transition_seed.is_none() || device.transitions.iter().all(|t| t.spread.is_none()))
}

impl<'p> Family<'p> {
    /// A family of the given runs on `device` (`(spec index, replay)`, each of a policy with a
    /// first step), the first request arriving at `first_arrival_s` (the run beginning `lead_s`
    /// before it). Given always-on's replay, the family carries it: the shared run is always-on's
    /// replay, so always-on is a member that never leaves it, for nothing a request.
    pub(crate) fn new(device: &Arc<Device>, runs: Vec<(usize, Replay<'p>)>, opts: &ReplayOptions, first_arrival_s: f64, always_on: Option<Replay<'p>>) -> Self {
        let mut members: Vec<(f64, Member<'p>)> = runs
            .into_iter()
            .map(|(spec, mut replay)| (replay.sim_mut().policy_first_step_s().expect("a member has a first step"), Member { spec, replay: Some(replay) }))
            .chain(always_on.map(|replay| (f64::INFINITY, Member { spec: ALWAYS_ON, replay: Some(replay) })))
            .collect();
        members.sort_by(|a, b| a.0.total_cmp(&b.0));
        let (first_step_s, mut members): (Vec<f64>, Vec<Member<'p>>) = members.into_iter().unzip();
        let count = members.len();
        let steps: Vec<Option<OneStep>> = members.iter_mut().map(|m| if m.spec == ALWAYS_ON { None } else { m.sim().one_step() }).collect();
        Family {
            device: Arc::clone(device),
            members,
            first_step_s,
            sharing: if count > 0 { vec![(0, count)] } else { Vec::new() },
            shared: Shared { free_at: first_arrival_s - opts.lead_s, head_bytes: 0.0, sums: Sums::default(), responses: ResponseStats::default() },
            tracks: Vec::new(),
            spare_tracks: Vec::new(),
            disbanded: false,
            shared_buckets: Vec::new(),
            since: vec![0; count],
            common: None,
            sleepers: Vec::new(),
            leaving: Vec::new(),
            staying: Vec::new(),
            rejoining: Vec::new(),
            ending: Vec::new(),
            slept: Slept::new(steps, device),
            spread: Spread::new(count),
            takings: Takings::new(count),
            requests: 0,
            idle_requests: 0,
            left: Vec::new(),
        }
    }

    /// Whether most requests so far followed a gap of the shared run ([`DISBAND_ABOVE_IDLE_SHARE`]).
    fn mostly_after_gaps(&self) -> bool {
        self.idle_requests as f64 > DISBAND_ABOVE_IDLE_SHARE * self.requests as f64
    }

    /// Runs it replays: its members, and those that left it until they are taken.
    pub(crate) fn len(&self) -> usize {
        self.members.iter().filter(|m| m.replay.is_some()).count() + self.left.len()
    }

    /// The runs that left the family since the last call, (spec index, replay), to be replayed
    /// on their own with the others, on every core.
    pub(crate) fn take_left(&mut self) -> Vec<(usize, Replay<'p>)> {
        std::mem::take(&mut self.left)
    }

    /// Requests to feed before members are first judged (0 once they have been).
    pub(crate) fn requests_until_judged(&self) -> usize {
        JUDGED_AFTER_REQUESTS.saturating_sub(self.requests) as usize
    }

    /// The family disbanded: its members' replays go on as any others.
    pub(crate) fn disbanded(&self) -> bool {
        self.disbanded
    }

    /// Replays the next block (validated, in order, with its shared ready services), judging
    /// whether it disbands every [`JUDGED_EVERY_REQUESTS`] requests.
    pub(crate) fn feed(&mut self, block: &TraceView, response_from: ResponseFrom) {
        // Cut at every 512th request since the family began, wherever the blocks are cut: a
        // family disbands at the same request, so a trace read in parts gives the whole read's
        // rows bit for bit.
        let mut from = 0;
        while from < block.len() {
            let to = (from + JUDGED_EVERY_REQUESTS - (self.requests as usize % JUDGED_EVERY_REQUESTS)).min(block.len());
            self.feed_piece(&block.slice(from, to), response_from);
            from = to;
        }
    }

    fn feed_piece(&mut self, block: &TraceView, response_from: ResponseFrom) {
        let services = block.ready_service.expect("a family's device shares its ready service");
        let original = block.original_s.filter(|_| response_from == ResponseFrom::Original);
        self.disband_if_costly();
        // Where most requests so far followed a gap, most members are apart most of the time:
        // the piece's shared responses are added to those that shared them, not taken off
        // those that did not (a volume of a round-robin trace: a run or two of sharing members
        // against a stretch apart for every member that flips). The counts are the same either
        // way; from the first such piece the members' common part is the shared run's other
        // pieces.
        let added = self.requests > 0 && self.mostly_after_gaps();
        if added && self.common.is_none() {
            self.common = Some(self.shared.responses.clone());
        }
        self.requests += block.len() as u64;
        for (_, replay) in self.left.iter_mut() {
            replay.feed(block);
        }
        if self.disbanded {
            for replay in self.members.iter_mut().filter_map(|m| m.replay.as_mut()) {
                replay.feed(block);
            }
            return;
        }
        let Family {
            device,
            members,
            first_step_s,
            sharing,
            shared,
            tracks,
            spare_tracks,
            shared_buckets,
            since,
            common,
            sleepers,
            leaving,
            staying,
            rejoining,
            ending,
            slept,
            spread,
            takings,
            idle_requests,
            ..
        } = self;
        let device: &Device = device;
        shared_buckets.clear();
        for i in 0..block.len() {
            let arrival = block.arrival_s[i];
            let measured_from = original.map_or(arrival, |o| o[i]);
            let (size, is_write, offset) = (block.size_bytes[i] as f64, block.is_write[i] != 0, block.offset_bytes[i] as f64);
            let (service_s, service_j) = services[i];
            // (Until the shared run serves this request, below, its sums are those before it.)
            let idle = arrival > shared.free_at;
            let finish = shared.free_at.max(arrival) + service_s;
            let response = (finish - measured_from).max(0.0);

            // Members sharing the replay whose first step comes within this gap take their own
            // course from its start (those numbered below `steps_come`: members are by first
            // step). (A step exactly at the arrival goes too: the member then finds itself
            // ready and rejoins below; it is never left sharing a gap in which it acted.) Done
            // before the tracks end, so that a member rejoining at this request is not sent off
            // again by the shared run's longer gap.
            if idle {
                let steps_come = first_step_s.partition_point(|&s| shared.free_at + s <= arrival);
                let going = sharing.partition_point(|&(lo, _)| lo < steps_come);
                let rest = sharing[..going].last().filter(|&&(_, hi)| hi > steps_come).map(|&(_, hi)| (steps_come, hi));
                leaving.extend(sharing.drain(..going).map(|(lo, hi)| (lo, hi.min(steps_come))));
                if let Some(rest) = rest {
                    sharing.insert(0, rest);
                }
                for &(lo, hi) in leaving.iter() {
                    takings.shared(lo, hi, &shared.sums, 1.0);
                    if added {
                        ending.extend((lo..hi).map(|m| (m, since[m])));
                    }
                    since[lo..hi].fill(i);
                    slept.sleep_run(lo..hi, device, shared.free_at, arrival, staying, |m| {
                        let sim = members[m].sim();
                        sim.resume_ready_at(shared.free_at, shared.head_bytes);
                        sim.request_measured_from(arrival, measured_from, size, is_write, offset, Some((service_s, service_j)));
                        sleepers.push(m);
                    });
                    spent_ready(staying, takings, rejoining, arrival - shared.free_at);
                }
                leaving.clear();
                // The shared responses they shared in this piece, theirs.
                if added {
                    spread.count_stretches(ending, &shared_buckets[..i], true);
                }
            }
            // Tracks this request finds idle end, handing over what they served: each member,
            // put where the track's devices are, rejoins the shared run if still ready when the
            // request arrives (its state is then the shared run's, but for the idle it charged
            // itself), else sleeps through the gap whole or serves the request itself, going
            // down and waking as its policy has it.
            let mut t = 0;
            while t < tracks.len() {
                if arrival <= tracks[t].free_at {
                    t += 1;
                    continue;
                }
                let mut track = tracks.swap_remove(t);
                track.hand_over(&shared.sums, spread, takings);
                let free_at = track.free_at;
                for &(lo, hi) in &track.runs {
                    slept.sleep_run(lo..hi, device, free_at, arrival, staying, |m| {
                        let sim = members[m].sim();
                        sim.resume_ready_at(free_at, shared.head_bytes);
                        if sim.idle_between(free_at, arrival) {
                            rejoining.push((m, m + 1));
                        } else {
                            sim.request_measured_from(arrival, measured_from, size, is_write, offset, Some((service_s, service_j)));
                            sleepers.push(m);
                        }
                    });
                    spent_ready(staying, takings, rejoining, arrival - free_at);
                }
                if track.buckets.capacity() <= SPARE_TRACK_BUCKETS {
                    spare_tracks.push(track);
                }
            }
            // Members that rejoin share from here (after the shared run's gap, which they spent
            // on their own course), and did not share the shared run's responses since they
            // left it.
            if !rejoining.is_empty() {
                let mut from = shared.sums;
                if idle {
                    from.idle_s.add(arrival - shared.free_at);
                }
                for &(lo, hi) in rejoining.iter() {
                    takings.shared(lo, hi, &from, -1.0);
                    if !added {
                        ending.extend((lo..hi).map(|m| (m, since[m])));
                    }
                    since[lo..hi].fill(i);
                }
                sharing.append(rejoining);
                join_runs(sharing);
                if !added {
                    spread.count_stretches(ending, &shared_buckets[..i], false);
                }
            }
            // The tracks left find the device busy and serve the request once for their members.
            for track in tracks.iter_mut() {
                track.serve(arrival, measured_from, service_s);
            }
            // Members that slept through the gap, in one state when they are ready at the same
            // instant: a track each instant, which serves this request.
            let formed = tracks.len();
            for &(ready, lo, hi) in &slept.woken {
                match tracks[formed..].iter_mut().find(|t| t.free_at.to_bits() == ready.to_bits()) {
                    Some(track) => track.runs.push((lo, hi)),
                    None => {
                        let woken_at = if ready > arrival { ready } else { f64::NEG_INFINITY };
                        let mut track = Track::new(spare_tracks.pop(), ready, woken_at, (shared.sums.service_s, shared.sums.service_j));
                        track.runs.push((lo, hi));
                        tracks.push(track);
                    }
                }
            }
            slept.woken.clear();
            for track in tracks[formed..].iter_mut() {
                join_runs(&mut track.runs);
                track.serve(arrival, measured_from, service_s);
            }
            // Members that served this request on their own after a gap, in one state when their
            // devices are free at the same instant with the same wake-up behind them: a track
            // each state.
            let formed = tracks.len();
            // (The shared run's service sums once it has served this request, as below.)
            let mut served_from = (shared.sums.service_s, shared.sums.service_j);
            if !sleepers.is_empty() {
                served_from.0.add(service_s);
                served_from.1.add(service_j);
            }
            for m in sleepers.drain(..) {
                let sim = members[m].sim();
                let (free_at, woken_at) = (sim.free_at(), sim.woken_at());
                match tracks[formed..].iter_mut().find(|t| t.free_at.to_bits() == free_at.to_bits() && t.woken_at.to_bits() == woken_at.to_bits()) {
                    Some(track) => track.runs.push((m, m + 1)),
                    None => {
                        let mut track = Track::new(spare_tracks.pop(), free_at, woken_at, served_from);
                        track.runs.push((m, m + 1));
                        tracks.push(track);
                    }
                }
            }
            for track in tracks[formed..].iter_mut() {
                join_runs(&mut track.runs);
            }

            if idle {
                shared.sums.idle_s.add(arrival - shared.free_at);
                *idle_requests += 1;
            }
            shared.sums.service_s.add(service_s);
            shared.sums.service_j.add(service_j);
            shared.sums.response_s.add(response);
            shared.responses.record_summary(response);
            shared_buckets.push(bucket(response) as u32);
            shared.free_at = finish;
            shared.head_bytes = offset + size;
        }
        // The shared run's responses counted as `record` counts them, from their buckets (and
        // into the members' common part when this piece's are its).
        shared.responses.count_buckets(shared_buckets);
        if let Some(common) = common.as_mut().filter(|_| !added) {
            common.count_buckets(shared_buckets);
        }
        // The piece's responses, counted for the members that did not share them: each
        // track's, and the shared run's they gave up; or, counted the other way, the shared
        // run's they shared.
        for track in tracks.iter_mut() {
            spread.add(&track.runs, &track.buckets);
            track.buckets.clear();
            if !added {
                ending.extend(track.members().map(|m| (m, since[m])));
            }
        }
        if added {
            ending.extend(sharing.iter().flat_map(|&(lo, hi)| lo..hi).map(|m| (m, since[m])));
        }
        spread.count_stretches(ending, shared_buckets, added);
        since.fill(0);
    }

    /// Where the family's requests mostly follow a gap (a volume of a round-robin trace), its
    /// members that walk their gaps one by one (cascades, EPC's and APST's timers) act at nearly
    /// every request, and sharing saves them nothing: each leaves the family (its ledger takes
    /// what it shared so far) and is replayed on its own from here, handed back to the caller
    /// ([`Family::take_left`]) to be dealt over the threads with the other runs (the family
    /// feeds it meanwhile, should it leave in the middle of a part). Members of one fixed step
    /// stay: they sleep through such gaps whole ([`Slept`]). Without any, the family disbands.
    /// The judgement is the shared run's alone, so a member leaves at the same request whatever
    /// other runs share its family (a row is the same bit for bit in any sweep).
    pub(crate) fn disband_if_costly(&mut self) {
        // Only at every 512th request, wherever the caller's parts are cut (see `feed`).
        if self.requests < JUDGED_AFTER_REQUESTS || self.requests % JUDGED_EVERY_REQUESTS as u64 != 0 || self.disbanded {
            return;
        }
        if !self.mostly_after_gaps() {
            return;
        }
        if self.slept.steps.iter().all(Option::is_none) {
            let all: Vec<bool> = self.members.iter().map(|m| m.replay.is_some()).collect();
            self.settle(&all, false);
            self.tracks.clear();
            self.disbanded = true;
            return;
        }
        let walking: Vec<bool> = (0..self.members.len()).map(|m| self.members[m].replay.is_some() && self.members[m].spec != ALWAYS_ON && self.slept.steps[m].is_none()).collect();
        if !walking.contains(&true) {
            return;
        }
        self.settle(&walking, false);
        leave_out(&mut self.sharing, &walking);
        let mut t = 0;
        while t < self.tracks.len() {
            leave_out(&mut self.tracks[t].runs, &walking);
            if self.tracks[t].runs.is_empty() {
                self.tracks.swap_remove(t);
            } else {
                t += 1;
            }
        }
        for (member, _) in self.members.iter_mut().zip(walking).filter(|(_, walks)| *walks) {
            self.left.push((member.spec, member.replay.take().expect("a walking member has its replay")));
        }
    }

    /// Completes the ledgers of the members `settled` (by member number) with what they shared,
    /// took from tracks and slept through up to now, leaving each device where it would be: a
    /// replay of its own from here. Called between pieces, when every response so far is
    /// counted. (The tracks hand over what they served to all their members: it is theirs
    /// whenever they take it.)
    ///
    /// Members that `end` record no more: in a family of many, their histograms are not made,
    /// only their report's quantiles read ([`ResponseStats::shared_with_own_reported`]).
    fn settle(&mut self, settled: &[bool], end: bool) {
        let Family { members, sharing, shared, tracks, spread, takings, slept, common, .. } = self;
        // Where each member is: sharing (None) or in a track.
        let mut in_track: Vec<Option<usize>> = vec![None; members.len()];
        for (t, track) in tracks.iter_mut().enumerate() {
            track.hand_over(&shared.sums, spread, takings);
            for m in track.members() {
                in_track[m] = Some(t);
            }
        }
        // The stretches shared end here.
        for m in sharing.iter().flat_map(|&(lo, hi)| lo..hi).filter(|&m| settled[m]) {
            takings.shared(m, m + 1, &shared.sums, 1.0);
        }
        let taken = takings.totals();
        let slept_gaps = slept.gaps();
        if let Some(common) = common.as_mut() {
            common.take_summary_of(&shared.responses);
        }
        let common = common.as_ref().unwrap_or(&shared.responses);
        let many = members.len() >= READ_OFF_A_TREE_FROM_MEMBERS;
        // A member's ledger completed with all but its responses; its histogram (or a summary)
        // is then `merged` from its own.
        let mut complete = |m: usize, merged: &mut dyn FnMut(&ResponseStats, f64) -> ResponseStats| {
            let member = &mut members[m];
            if member.spec == ALWAYS_ON {
                return settle_always_on(member, shared);
            }
            let sim = member.sim();
            sim.charge_slept_gaps(slept_gaps[m], slept.ready_s[m], slept.low_s[m]);
            match in_track[m].map(|t| &tracks[t]) {
                Some(track) => sim.resume_woken_at(track.free_at, shared.head_bytes, track.woken_at),
                None => sim.resume_ready_at(shared.free_at, shared.head_bytes),
            }
            let taken = &taken[m];
            let ledger = sim.ledger_mut();
            ledger.time_by_mode_s[READY] += taken.ready_s;
            ledger.service_time_s += taken.service_s;
            ledger.service_energy_j += taken.service_j;
            ledger.delayed_requests += taken.delayed;
            ledger.responses.add_summary(0.0, f64::INFINITY, taken.max_s);
            ledger.responses = merged(&ledger.responses, taken.response_s);
        };
        if end && many {
            let mut tree = BucketTree::of(common);
            spread.each_sum_in(&mut tree, |m, tree, added, replaced| {
                if settled[m] {
                    complete(m, &mut |own, shared_sum_s| ResponseStats::shared_with_own_reported(common, own, added, replaced, shared_sum_s, tree));
                }
            });
        } else {
            let mut gathered = SharedCounts::of(common);
            spread.each_sum(|m, added, replaced| {
                if settled[m] {
                    complete(m, &mut |own, shared_sum_s| ResponseStats::shared_with_own(common, own, added, replaced, shared_sum_s, &mut gathered));
                }
            });
        }
    }

    /// Each member's replay, its ledger completed with what it shared, with its spec's index;
    /// and always-on's, if the family carried it.
    pub(crate) fn finish(mut self) -> (Vec<(usize, Replay<'p>)>, Option<Replay<'p>>) {
        if !self.disbanded {
            let staying: Vec<bool> = self.members.iter().map(|m| m.replay.is_some()).collect();
            self.settle(&staying, true);
        }
        let mut always_on = None;
        let mut runs = std::mem::take(&mut self.left);
        for member in self.members {
            match (member.spec, member.replay) {
                (_, None) => {}
                (ALWAYS_ON, replay) => always_on = replay,
                (spec, Some(replay)) => runs.push((spec, replay)),
            }
        }
        (runs, always_on)
    }
}

/// Always-on carried by the family (it never leaves the shared run: the shared run is its
/// replay) takes the shared run's sums as a plain running sum has them, and its responses:
/// its own replay's, bit for bit (the oracle's shadow takes its service, and a row beside the
/// references is the row without them, `tests/mems.rs`).
fn settle_always_on(member: &mut Member, shared: &Shared) {
    let sim = member.sim();
    sim.resume_ready_at(shared.free_at, shared.head_bytes);
    let ledger = sim.ledger_mut();
    debug_assert!(ledger.service_time_s == 0.0 && ledger.responses.count() == 0, "always-on never serves apart from the shared run");
    ledger.time_by_mode_s[READY] = shared.sums.idle_s.term_by_term();
    ledger.service_time_s = shared.sums.service_s.term_by_term();
    ledger.service_energy_j = shared.sums.service_j.term_by_term();
    ledger.responses = shared.responses.clone();
}
