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
//!   gap's start (its device put where the shared run's is), serving requests itself;
//! - while on its own course, request by request, until it finds itself idle and still ready
//!   when a request arrives: from then on it is the shared run again (same service start, same
//!   head), and it rejoins.
//!
//! A member's ledger is its own stretches, plus the shared run's ready idle, service and
//! responses over the stretches it shared, taken as differences of the shared run's running
//! sums (kept in double-double, so a difference is as exact as a sum of its terms). Its response
//! histogram is the shared run's, less the shared responses of the requests it served itself,
//! plus its own. The rows equal separate replays' to rounding (property-tested against them in
//! `tests/family.rs`).
//!
//! Open-loop replay only (closed and synchronous replay shift every later arrival by a delay,
//! so a run never meets the shared one again), on devices whose ready service the runs share,
//! that start ready, serve nothing in a low-power mode and draw no wake-up times.

use crate::device::{Device, READY};
use crate::device_sim::DeviceSim;
use crate::metrics::ResponseStats;
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
    /// Sharing since these sums (`None`: on its own course).
    joined: Option<Sums>,
    taken: Taken,
    /// The shared run's responses to the requests it served itself.
    replaced: ResponseStats,
    /// Requests it served itself.
    apart_requests: u64,
    /// It left the family (in `Family::left`).
    gone: bool,
}

/// The always-on run, as the members see it.
struct Shared {
    free_at: f64,
    head_bytes: f64,
    sums: Sums,
    responses: ResponseStats,
}

pub(crate) struct Family<'p> {
    members: Vec<Member<'p>>,
    shared: Shared,
    /// Members on their own course (indices into `members`, which are by increasing first
    /// step; the others share the replay).
    apart: Vec<usize>,
    /// Members that left the family: replayed on their own to the end (indices into `members`).
    left: Vec<usize>,
    /// Requests fed so far, and how many of them found the shared run idle (followed a gap).
    requests: u64,
    idle_requests: u64,
}

/// A member that serves more than this share of the requests itself (a device whose every
/// request follows a gap its timeout outlasts: a volume of a round-robin trace) costs more
/// sharing than replaying on its own, and leaves the family at the next block (1,000 volumes
/// under 100 timeouts: 94 s shared to the end, 43 s replayed apart).
const LEAVE_ABOVE_APART_SHARE: f64 = 1.0 / 3.0;
/// When more than this share of the requests follow a gap (a volume of a round-robin trace),
/// every member acts at nearly every request and sharing saves nothing: the family disbands.
const DISBAND_ABOVE_IDLE_SHARE: f64 = 0.5;
/// Requests seen before a member's share is judged, and how often it is judged again.
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
    pub(crate) fn new(runs: Vec<(usize, Replay<'p>)>, opts: &ReplayOptions, first_arrival_s: f64) -> Self {
        let mut members: Vec<Member<'p>> = runs
            .into_iter()
            .map(|(spec, mut replay)| {
                let first_step_s = replay.sim_mut().policy_first_step_s().expect("a member has a first step");
                Member { spec, replay, first_step_s, joined: Some(Sums::default()), taken: Taken::default(), replaced: ResponseStats::default(), apart_requests: 0, gone: false }
            })
            .collect();
        members.sort_by(|a, b| a.first_step_s.total_cmp(&b.first_step_s));
        Family {
            members,
            shared: Shared { free_at: first_arrival_s - opts.lead_s, head_bytes: 0.0, sums: Sums::default(), responses: ResponseStats::default() },
            apart: Vec::new(),
            left: Vec::new(),
            requests: 0,
            idle_requests: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether no request has been fed yet (it may still be split).
    pub(crate) fn fresh(&self) -> bool {
        self.requests == 0
    }

    /// This family, before any request is fed, as `k` families of a share of the members each,
    /// dealt in turn by first step (so each has short and long timeouts alike). Each replays the
    /// shared run itself (the same operations in the same order: the same sums, bit for bit),
    /// so the members' rows do not depend on how they are dealt; the families can then run on
    /// `k` threads.
    pub(crate) fn split(self, k: usize) -> Vec<Family<'p>> {
        assert!(self.fresh(), "a family is split before it is fed");
        let k = k.max(1);
        let mut groups: Vec<Vec<Member<'p>>> = (0..k).map(|_| Vec::new()).collect();
        for (i, member) in self.members.into_iter().enumerate() {
            groups[i % k].push(member);
        }
        let start = Shared { free_at: self.shared.free_at, head_bytes: self.shared.head_bytes, sums: Sums::default(), responses: ResponseStats::default() };
        groups
            .into_iter()
            .filter(|g| !g.is_empty())
            .map(|members| Family {
                members,
                shared: Shared { responses: ResponseStats::default(), ..start },
                apart: Vec::new(),
                left: Vec::new(),
                requests: 0,
                idle_requests: 0,
            })
            .collect()
    }

    /// Requests to feed before members are first judged (0 once they have been).
    pub(crate) fn requests_until_judged(&self) -> usize {
        JUDGED_AFTER_REQUESTS.saturating_sub(self.requests) as usize
    }

    /// Every member has left: their replays go on as any others.
    pub(crate) fn disbanded(&self) -> bool {
        self.members.iter().all(|m| m.gone)
    }

    /// Replays the next block (validated, in order, with its shared ready services), judging
    /// who stays every [`JUDGED_EVERY_REQUESTS`] requests.
    pub(crate) fn feed(&mut self, block: &TraceView, response_from: ResponseFrom) {
        // Cut at every 512th request since the family began, wherever the blocks are cut: the
        // members leave at the same request, so a trace read in parts gives the whole read's
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
        self.let_go_of_the_costly();
        for &m in &self.left {
            self.members[m].replay.feed(block);
        }
        self.requests += block.len() as u64;
        let mut newly_apart = Vec::new();
        for i in 0..block.len() {
            let arrival = block.arrival_s[i];
            let measured_from = original.map_or(arrival, |o| o[i]);
            let (size, is_write, offset) = (block.size_bytes[i] as f64, block.is_write[i] != 0, block.offset_bytes[i] as f64);
            let (service_s, service_j) = services[i];
            let shared = &mut self.shared;
            let idle = arrival > shared.free_at;
            let before = shared.sums;
            let finish = shared.free_at.max(arrival) + service_s;
            let response = (finish - measured_from).max(0.0);

            // Members sharing the replay whose first step comes within this gap take their own
            // course from its start. (A step exactly at the arrival goes too: the member then
            // finds itself ready and rejoins at the next request; it is never left sharing a gap
            // in which it acted.)
            // (Members are by first step: those whose step comes are a prefix; the ones among
            // them already apart, or gone, are passed over.)
            if idle {
                for (m, member) in self.members.iter_mut().enumerate() {
                    if shared.free_at + member.first_step_s > arrival {
                        break;
                    }
                    let Some(from) = member.joined.take() else { continue };
                    member.taken.take(&from, &before);
                    member.replay.sim_mut().resume_ready_at(shared.free_at, shared.head_bytes);
                    member.replaced.record(response);
                    member.apart_requests += 1;
                    member.replay.sim_mut().request_measured_from(arrival, measured_from, size, is_write, offset, Some((service_s, service_j)));
                    newly_apart.push(m);
                }
            }
            // Members on their own course: serve the request, or rejoin if idle and still ready
            // when it arrives (their state is then the shared run's, but for the idle they
            // charged themselves).
            let mut k = 0;
            while k < self.apart.len() {
                let m = self.apart[k];
                let member = &mut self.members[m];
                let sim: &mut DeviceSim<'p> = member.replay.sim_mut();
                let free_at = sim.free_at();
                if arrival > free_at && sim.idle_between(free_at, arrival) {
                    let mut from = before;
                    if idle {
                        from.idle_s.add(arrival - shared.free_at);
                    }
                    member.joined = Some(from);
                    self.apart.swap_remove(k);
                    continue;
                }
                member.replaced.record(response);
                member.apart_requests += 1;
                sim.request_measured_from(arrival, measured_from, size, is_write, offset, Some((service_s, service_j)));
                k += 1;
            }
            self.apart.append(&mut newly_apart);

            if idle {
                shared.sums.idle_s.add(arrival - shared.free_at);
                self.idle_requests += 1;
            }
            shared.sums.service_s.add(service_s);
            shared.sums.service_j.add(service_j);
            shared.sums.response_s.add(response);
            shared.responses.record(response);
            shared.free_at = finish;
            shared.head_bytes = offset + size;
        }
    }

    /// Members that served too many requests themselves leave: their ledgers take what they
    /// shared so far, and they are replayed on their own from here.
    pub(crate) fn let_go_of_the_costly(&mut self) {
        // Only at every 512th request, wherever the caller's parts are cut (see `feed`).
        if self.requests < JUDGED_AFTER_REQUESTS || self.requests % JUDGED_EVERY_REQUESTS as u64 != 0 {
            return;
        }
        let requests = self.requests as f64;
        let disband = self.idle_requests as f64 > DISBAND_ABOVE_IDLE_SHARE * requests;
        let leaving: Vec<usize> = (0..self.members.len())
            .filter(|&m| !self.members[m].gone && (disband || self.members[m].apart_requests as f64 > LEAVE_ABOVE_APART_SHARE * requests))
            .collect();
        for m in leaving {
            self.apart.retain(|&j| j != m);
            settle(&mut self.members[m], &self.shared);
            self.members[m].gone = true;
            self.left.push(m);
        }
    }

    /// Each member's replay, its ledger completed with what it shared, with its spec's index.
    pub(crate) fn finish(self) -> Vec<(usize, Replay<'p>)> {
        let Family { mut members, shared, .. } = self;
        for member in members.iter_mut().filter(|m| !m.gone) {
            settle(member, &shared);
        }
        members.into_iter().map(|member| (member.spec, member.replay)).collect()
    }
}

/// Completes a member's ledger with what it shared up to now (the shared run's ready idle,
/// service and responses), leaving its device where it would be: a replay of its own from here.
fn settle(member: &mut Member, shared: &Shared) {
    if let Some(from) = member.joined.take() {
        member.taken.take(&from, &shared.sums);
        member.replay.sim_mut().resume_ready_at(shared.free_at, shared.head_bytes);
    }
    let taken = std::mem::take(&mut member.taken);
    let replaced = std::mem::take(&mut member.replaced);
    let ledger = member.replay.sim_mut().ledger_mut();
    ledger.time_by_mode_s[READY] += taken.idle_s;
    ledger.service_time_s += taken.service_s;
    ledger.service_energy_j += taken.service_j;
    ledger.responses = ResponseStats::shared_with_own(&shared.responses, &ledger.responses, &replaced, taken.response_s.hi + taken.response_s.lo);
}
