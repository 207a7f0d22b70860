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
//!   gap's start (its device put where the shared run's is) and serves the request that ends
//!   the gap itself, going down and waking as its policy has it;
//! - then in a [`Track`]: members free at the same instant with the same wake-up behind them
//!   are in one state and serve every request that finds them busy alike, so a track serves
//!   it once for all of them (a sweep's timeouts mostly go down in the same long gaps);
//! - at the first request that finds its track idle: it rejoins the shared run if still ready
//!   (from then on it is the shared run again: same service start, same head), or goes down
//!   again and serves the request itself, into a new track.
//!
//! A member's ledger is its own gaps and wake-ups, its tracks' service, delays and responses,
//! plus the shared run's ready idle, service and responses over the stretches it shared, taken
//! as differences of running sums (kept in double-double, so a difference is as exact as a sum
//! of its terms). Its response histogram is the shared run's, less the shared responses of the
//! requests it did not share, plus its own and its tracks' ([`Spread`]: counted once for each
//! run of consecutive members, not once for each member). The rows equal separate replays' to
//! rounding (property-tested against them in `tests/family.rs`).
//!
//! Open-loop replay only (closed and synchronous replay shift every later arrival by a delay,
//! so a run never meets the shared one again), on devices whose ready service the runs share,
//! that start ready, serve nothing in a low-power mode and draw no wake-up times.

use crate::device::{Device, READY};
use crate::metrics::{bucket, ResponseStats, SharedCounts};
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

/// What a member took from the shared run, summed over the stretches it shared.
#[derive(Debug, Clone, Copy, Default)]
struct Taken {
    idle_s: f64,
    service_s: f64,
    service_j: f64,
    response_s: Exact,
}

impl Taken {
    fn take(&mut self, from: &Sums, to: &Sums) {
        self.idle_s += to.idle_s.since(from.idle_s);
        self.service_s += to.service_s.since(from.service_s);
        self.service_j += to.service_j.since(from.service_j);
        self.response_s.add(to.response_s.since(from.response_s));
    }
}

struct Member<'p> {
    /// Its place among the call's specs.
    spec: usize,
    replay: Replay<'p>,
    first_step_s: f64,
    /// Sharing since these sums (`None`: on its own course, in a track).
    joined: Option<Sums>,
    taken: Taken,
    /// Since when (a place in the piece's `shared_buckets`) it has not shared, while it does not.
    apart_from: usize,
}

/// The always-on run, as the members see it.
struct Shared {
    free_at: f64,
    head_bytes: f64,
    sums: Sums,
    responses: ResponseStats,
}

/// Members on their own course that are in one state: they went down in a gap and were ready
/// again at the same instant (`free_at` after the request that woke them), with the same
/// `woken_at`, so they serve every request alike until the device falls idle (ready service
/// depends only on the request and the head). The track serves those requests once for all
/// of them; it ends at the first request that finds it idle, where each member rejoins the
/// shared run or goes down again on its own.
struct Track {
    members: Vec<usize>,
    free_at: f64,
    woken_at: f64,
    /// The shared run's service sums after the request that formed the track: the track serves
    /// every request after it, in turn, until it ends (the first request that finds it idle),
    /// each in the ready service the shared run gives it, so its service is the shared run's
    /// since then, a difference of sums rather than sums of its own.
    served_from: (Exact, Exact),
    response_s: Exact,
    delayed: u64,
    min_s: f64,
    max_s: f64,
    /// Buckets of its responses not yet counted in its members' histograms.
    buckets: Vec<u32>,
}

impl Track {
    /// A track of one member, in the room of a track that ended (`spare`) if there is one: a
    /// sweep forms a track in most gaps that send a member down, and allocating its two
    /// vectors, then growing its buckets, took a twentieth of the family's instructions.
    fn new(spare: Option<Track>, member: usize, free_at: f64, woken_at: f64, served_from: (Exact, Exact)) -> Self {
        let (mut members, mut buckets) = spare.map_or_else(|| (Vec::new(), Vec::new()), |t| (t.members, t.buckets));
        members.clear();
        members.push(member);
        buckets.clear();
        Track {
            members,
            free_at,
            woken_at,
            served_from,
            response_s: Exact::default(),
            delayed: 0,
            min_s: f64::INFINITY,
            max_s: 0.0,
            buckets,
        }
    }

    /// A request that finds the device busy (`arrival <= free_at`), served as its members'
    /// devices would serve it.
    #[inline(always)]
    fn serve(&mut self, arrival: f64, measured_from: f64, service_s: f64) {
        let finish = self.free_at.max(arrival) + service_s;
        let response = (finish - measured_from).max(0.0);
        self.delayed += u64::from(arrival < self.woken_at);
        self.response_s.add(response);
        self.min_s = self.min_s.min(response);
        self.max_s = self.max_s.max(response);
        self.buckets.push(bucket(response) as u32);
        self.free_at = finish;
    }

    /// What the track served, into a member's ledger when it leaves the track (the track's
    /// whole course, as members only join one when it forms), but for the responses' buckets,
    /// which go to the family's [`Spread`]; `shared` are the shared run's sums after the last
    /// request the track served.
    fn hand_over(&self, member: &mut Member, shared: &Sums) {
        let ledger = member.replay.sim_mut().ledger_mut();
        ledger.service_time_s += shared.service_s.since(self.served_from.0);
        ledger.service_energy_j += shared.service_j.since(self.served_from.1);
        ledger.delayed_requests += self.delayed;
        ledger.responses.add_summary(self.response_s.total(), self.min_s, self.max_s);
    }
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
    plus: Vec<ResponseStats>,
    minus: Vec<ResponseStats>,
}

impl Spread {
    fn new(members: usize) -> Self {
        Spread { plus: (0..members).map(|_| ResponseStats::default()).collect(), minus: (0..members).map(|_| ResponseStats::default()).collect() }
    }

    /// `buckets` into the histograms of `members` (increasing numbers).
    fn add(&mut self, members: &[usize], buckets: &[u32]) {
        let mut first = 0;
        while first < members.len() {
            let mut end = first + 1;
            while end < members.len() && members[end] == members[end - 1] + 1 {
                end += 1;
            }
            self.count(members[first], members[end - 1] + 1, buckets, true);
            first = end;
        }
    }

    /// The shared run's responses each member of `stretches`, (member, where its stretch apart
    /// began in `shared_buckets`), did not share, taken off its histogram; `stretches` is left
    /// empty.
    fn take_off(&mut self, stretches: &mut Vec<(usize, usize)>, shared_buckets: &[u32]) {
        stretches.sort_unstable_by_key(|&(m, from)| (from, m));
        let mut first = 0;
        while first < stretches.len() {
            let (lo, from) = stretches[first];
            let mut end = first + 1;
            while end < stretches.len() && stretches[end] == (stretches[end - 1].0 + 1, from) {
                end += 1;
            }
            self.count(lo, stretches[end - 1].0 + 1, &shared_buckets[from..], false);
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
            plus.add_counts(&self.plus[m]);
            minus.add_counts(&self.minus[m]);
            each(m, &plus, &minus);
        }
    }
}

pub(crate) struct Family<'p> {
    members: Vec<Member<'p>>,
    shared: Shared,
    /// Members on their own course, in tracks of members in one state (indices into `members`,
    /// which are by increasing first step; the others share the replay).
    tracks: Vec<Track>,
    /// Tracks that ended, kept for their vectors' room.
    spare_tracks: Vec<Track>,
    /// The family disbanded: its members are replayed on their own to the end.
    disbanded: bool,
    /// The buckets of the shared run's responses in the piece being fed.
    shared_buckets: Vec<u32>,
    /// Members that went down at the request being fed, and (member, where its stretch apart
    /// began) of those that rejoin the shared run or reach the end of a piece (reused).
    sleepers: Vec<usize>,
    ending: Vec<(usize, usize)>,
    spread: Spread,
    /// Requests fed so far, and how many of them found the shared run idle (followed a gap).
    requests: u64,
    idle_requests: u64,
}

/// A track that ended is kept for its room unless its buckets hold more than this (256 KiB):
/// the spares then take at most that much a member, however long the bursts tracks served.
const SPARE_TRACK_BUCKETS: usize = 1 << 16;

/// The place of always-on among the members' specs, when the family carries it.
const ALWAYS_ON: usize = usize::MAX;

/// When more than this share of the requests follow a gap (a volume of a round-robin trace),
/// every member acts at nearly every request and sharing saves nothing: the family disbands.
/// (Members no longer leave one by one for serving many requests apart: in a track, a request
/// served apart costs a member nothing of its own.)
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
    /// A family of the given runs (`(spec index, replay)`, each of a policy with a first step),
    /// the first request arriving at `first_arrival_s` (the run beginning `lead_s` before it).
    /// Given always-on's replay, the family carries it: the shared run is always-on's replay, so
    /// always-on is a member that never leaves it, for nothing a request.
    pub(crate) fn new(runs: Vec<(usize, Replay<'p>)>, opts: &ReplayOptions, first_arrival_s: f64, always_on: Option<Replay<'p>>) -> Self {
        let join = |spec: usize, replay: Replay<'p>, first_step_s: f64| Member { spec, replay, first_step_s, joined: Some(Sums::default()), taken: Taken::default(), apart_from: 0 };
        let always_on = always_on.map(|replay| join(ALWAYS_ON, replay, f64::INFINITY));
        let mut members: Vec<Member<'p>> = runs
            .into_iter()
            .map(|(spec, mut replay)| {
                let first_step_s = replay.sim_mut().policy_first_step_s().expect("a member has a first step");
                join(spec, replay, first_step_s)
            })
            .chain(always_on)
            .collect();
        members.sort_by(|a, b| a.first_step_s.total_cmp(&b.first_step_s));
        let count = members.len();
        Family {
            members,
            shared: Shared { free_at: first_arrival_s - opts.lead_s, head_bytes: 0.0, sums: Sums::default(), responses: ResponseStats::default() },
            tracks: Vec::new(),
            spare_tracks: Vec::new(),
            disbanded: false,
            shared_buckets: Vec::new(),
            sleepers: Vec::new(),
            ending: Vec::new(),
            spread: Spread::new(count),
            requests: 0,
            idle_requests: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.members.len()
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
        self.requests += block.len() as u64;
        if self.disbanded {
            for member in self.members.iter_mut() {
                member.replay.feed(block);
            }
            return;
        }
        self.shared_buckets.clear();
        let mut sleepers = std::mem::take(&mut self.sleepers);
        for i in 0..block.len() {
            let arrival = block.arrival_s[i];
            let measured_from = original.map_or(arrival, |o| o[i]);
            let (size, is_write, offset) = (block.size_bytes[i] as f64, block.is_write[i] != 0, block.offset_bytes[i] as f64);
            let (service_s, service_j) = services[i];
            // (Until the shared run serves this request, below, its sums are those before it.)
            let shared = &mut self.shared;
            let idle = arrival > shared.free_at;
            let finish = shared.free_at.max(arrival) + service_s;
            let response = (finish - measured_from).max(0.0);

            // Members sharing the replay whose first step comes within this gap take their own
            // course from its start. (A step exactly at the arrival goes too: the member then
            // finds itself ready and rejoins at the next request; it is never left sharing a gap
            // in which it acted.) Done before the tracks end, so that a member rejoining at this
            // request is not sent off again by the shared run's longer gap.
            // (Members are by first step: those whose step comes are a prefix; the ones among
            // them already apart are passed over.)
            if idle {
                for (m, member) in self.members.iter_mut().enumerate() {
                    if shared.free_at + member.first_step_s > arrival {
                        break;
                    }
                    let Some(from) = member.joined.take() else { continue };
                    member.taken.take(&from, &shared.sums);
                    member.apart_from = i;
                    let sim = member.replay.sim_mut();
                    sim.resume_ready_at(shared.free_at, shared.head_bytes);
                    sim.request_measured_from(arrival, measured_from, size, is_write, offset, Some((service_s, service_j)));
                    sleepers.push(m);
                }
            }
            // Tracks this request finds idle end: each member, put where the track's devices
            // are, rejoins the shared run if still ready when the request arrives (its state is
            // then the shared run's, but for the idle it charged itself), else serves the
            // request itself, going down and waking as its policy has it.
            let mut t = 0;
            while t < self.tracks.len() {
                if arrival <= self.tracks[t].free_at {
                    t += 1;
                    continue;
                }
                let mut track = self.tracks.swap_remove(t);
                track.members.sort_unstable();
                self.spread.add(&track.members, &track.buckets);
                for &m in &track.members {
                    let member = &mut self.members[m];
                    track.hand_over(member, &shared.sums);
                    let sim = member.replay.sim_mut();
                    sim.resume_ready_at(track.free_at, shared.head_bytes);
                    if sim.idle_between(track.free_at, arrival) {
                        let mut from = shared.sums;
                        if idle {
                            from.idle_s.add(arrival - shared.free_at);
                        }
                        member.joined = Some(from);
                        self.ending.push((m, member.apart_from));
                    } else {
                        sim.request_measured_from(arrival, measured_from, size, is_write, offset, Some((service_s, service_j)));
                        sleepers.push(m);
                    }
                }
                // Those that rejoin did not share the shared run's responses since they left it.
                self.spread.take_off(&mut self.ending, &self.shared_buckets[..i]);
                if track.buckets.capacity() <= SPARE_TRACK_BUCKETS {
                    self.spare_tracks.push(track);
                }
            }
            // The tracks left find the device busy and serve the request once for their members.
            for track in self.tracks.iter_mut() {
                track.serve(arrival, measured_from, service_s);
            }
            // Members that served this request on their own after a gap, in one state when their
            // devices are free at the same instant with the same wake-up behind them: a track
            // each state.
            let formed = self.tracks.len();
            // (The shared run's service sums once it has served this request, as below.)
            let mut served_from = (shared.sums.service_s, shared.sums.service_j);
            if !sleepers.is_empty() {
                served_from.0.add(service_s);
                served_from.1.add(service_j);
            }
            for m in sleepers.drain(..) {
                let sim = self.members[m].replay.sim_mut();
                let (free_at, woken_at) = (sim.free_at(), sim.woken_at());
                match self.tracks[formed..].iter_mut().find(|t| t.free_at.to_bits() == free_at.to_bits() && t.woken_at.to_bits() == woken_at.to_bits()) {
                    Some(track) => track.members.push(m),
                    None => self.tracks.push(Track::new(self.spare_tracks.pop(), m, free_at, woken_at, served_from)),
                }
            }

            if idle {
                shared.sums.idle_s.add(arrival - shared.free_at);
                self.idle_requests += 1;
            }
            shared.sums.service_s.add(service_s);
            shared.sums.service_j.add(service_j);
            shared.sums.response_s.add(response);
            shared.responses.record_summary(response);
            self.shared_buckets.push(bucket(response) as u32);
            shared.free_at = finish;
            shared.head_bytes = offset + size;
        }
        self.sleepers = sleepers;
        // The shared run's responses counted as `record` counts them, from their buckets.
        self.shared.responses.count_buckets(&self.shared_buckets);
        // The piece's responses, counted for the members that did not share them: each
        // track's, and the shared run's they gave up.
        for track in self.tracks.iter_mut() {
            track.members.sort_unstable();
            self.spread.add(&track.members, &track.buckets);
            track.buckets.clear();
            for &m in &track.members {
                let member = &mut self.members[m];
                self.ending.push((m, member.apart_from));
                member.apart_from = 0;
            }
        }
        self.spread.take_off(&mut self.ending, &self.shared_buckets);
    }

    /// A family whose requests mostly follow a gap disbands: each member's ledger takes what
    /// it shared so far, and it is replayed on its own from here.
    pub(crate) fn disband_if_costly(&mut self) {
        // Only at every 512th request, wherever the caller's parts are cut (see `feed`).
        if self.requests < JUDGED_AFTER_REQUESTS || self.requests % JUDGED_EVERY_REQUESTS as u64 != 0 || self.disbanded {
            return;
        }
        if self.idle_requests as f64 <= DISBAND_ABOVE_IDLE_SHARE * self.requests as f64 {
            return;
        }
        let (members, shared, tracks) = (&mut self.members, &self.shared, &self.tracks);
        let mut gathered = SharedCounts::of(&shared.responses);
        self.spread.each_sum(|m, added, replaced| {
            settle(&mut members[m], shared, tracks.iter().find(|t| t.members.contains(&m)), added, replaced, &mut gathered);
        });
        self.tracks.clear();
        self.disbanded = true;
    }

    /// Each member's replay, its ledger completed with what it shared, with its spec's index;
    /// and always-on's, if the family carried it.
    pub(crate) fn finish(self) -> (Vec<(usize, Replay<'p>)>, Option<Replay<'p>>) {
        let Family { mut members, shared, tracks, spread, disbanded, .. } = self;
        if !disbanded {
            let mut gathered = SharedCounts::of(&shared.responses);
            spread.each_sum(|m, added, replaced| {
                settle(&mut members[m], &shared, tracks.iter().find(|t| t.members.contains(&m)), added, replaced, &mut gathered);
            });
        }
        let mut always_on = None;
        let mut runs = Vec::with_capacity(members.len());
        for member in members {
            match member.spec {
                ALWAYS_ON => always_on = Some(member.replay),
                spec => runs.push((spec, member.replay)),
            }
        }
        (runs, always_on)
    }
}

/// Completes a member's ledger with what it shared up to now (the shared run's ready idle,
/// service and responses, and its track's when it is in one, `track`), leaving its device where
/// it would be: a replay of its own from here. Called between pieces, when every response so
/// far is counted.
fn settle(member: &mut Member, shared: &Shared, track: Option<&Track>, added: &ResponseStats, replaced: &ResponseStats, gathered: &mut SharedCounts) {
    if member.spec == ALWAYS_ON {
        return settle_always_on(member, shared);
    }
    if let Some(from) = member.joined.take() {
        member.taken.take(&from, &shared.sums);
        member.replay.sim_mut().resume_ready_at(shared.free_at, shared.head_bytes);
    }
    if let Some(track) = track {
        debug_assert!(track.buckets.is_empty(), "a track's responses are counted at the end of each piece");
        track.hand_over(member, &shared.sums);
        member.replay.sim_mut().resume_ready_at(track.free_at, shared.head_bytes);
    }
    let taken = std::mem::take(&mut member.taken);
    let ledger = member.replay.sim_mut().ledger_mut();
    ledger.time_by_mode_s[READY] += taken.idle_s;
    ledger.service_time_s += taken.service_s;
    ledger.service_energy_j += taken.service_j;
    ledger.responses = ResponseStats::shared_with_own(&shared.responses, &ledger.responses, added, replaced, taken.response_s.total(), gathered);
}

/// Always-on carried by the family (it never leaves the shared run: the shared run is its
/// replay) takes the shared run's sums as a plain running sum has them, and its responses:
/// its own replay's, bit for bit (the oracle's shadow takes its service, and a row beside the
/// references is the row without them, `tests/mems.rs`).
fn settle_always_on(member: &mut Member, shared: &Shared) {
    member.joined = None;
    let sim = member.replay.sim_mut();
    sim.resume_ready_at(shared.free_at, shared.head_bytes);
    let ledger = sim.ledger_mut();
    debug_assert!(ledger.service_time_s == 0.0 && ledger.responses.count() == 0, "always-on never serves apart from the shared run");
    ledger.time_by_mode_s[READY] = shared.sums.idle_s.term_by_term();
    ledger.service_time_s = shared.sums.service_s.term_by_term();
    ledger.service_energy_j = shared.sums.service_j.term_by_term();
    ledger.responses = shared.responses.clone();
}
