//! The route graph: a policy's move between two modes (the direct transition, a named chain or
//! the cheapest), and the oracle's Pareto set of (round trip, energy) per low-power mode, so a
//! replay only indexes tables.

use super::*;

/// How long `held` (mode, s) keeps the device out of `mode` from a gap's start (0 for others).
pub(super) fn held_for_s(held: Option<(usize, f64)>, mode: usize) -> f64 {
    match held {
        Some((held_mode, held_s)) if held_mode == mode => held_s,
        _ => 0.0,
    }
}

pub(super) fn push_route(table: &mut Vec<Route>, transitions: &[Transition], hops: Vec<usize>) -> RouteId {
    let time_s = hops.iter().map(|&h| transitions[h].time_s).sum();
    let energy_j = hops.iter().map(|&h| transitions[h].energy_j).sum();
    table.push(Route { time_s, energy_j, hops });
    (table.len() - 1) as RouteId
}

/// Every simple path (no mode visited twice) from `from` to `to`, as transition indices. Devices
/// have a handful of modes; the count is capped so a pathological file cannot stall loading.
pub(super) fn simple_paths(from: usize, to: usize, n: usize, transitions: &[Transition]) -> Vec<Vec<usize>> {
    const MAX_PATHS: usize = 4096;
    fn walk(at: usize, to: usize, visited: &mut Vec<bool>, hops: &mut Vec<usize>, transitions: &[Transition], out: &mut Vec<Vec<usize>>) {
        if out.len() >= MAX_PATHS {
            return;
        }
        if at == to && !hops.is_empty() {
            out.push(hops.clone());
            return;
        }
        for (i, t) in transitions.iter().enumerate() {
            if t.from == at && !visited[t.to] {
                visited[t.to] = true;
                hops.push(i);
                walk(t.to, to, visited, hops, transitions, out);
                hops.pop();
                visited[t.to] = false;
            }
        }
    }
    let mut visited = vec![false; n];
    visited[from] = true;
    let mut out = Vec::new();
    walk(from, to, &mut visited, &mut Vec::new(), transitions, &mut out);
    out
}

/// Policy routes: the direct transition where there is one, else the cheapest simple chain by
/// energy, then time.
pub(super) fn policy_routes(n: usize, transitions: &[Transition], table: &mut Vec<Route>) -> Vec<Option<RouteId>> {
    let mut routes = vec![None; n * n];
    for from in 0..n {
        for to in 0..n {
            if from == to {
                continue;
            }
            let hops = match transitions.iter().position(|t| t.from == from && t.to == to) {
                Some(direct) => Some(vec![direct]),
                None => simple_paths(from, to, n, transitions).into_iter().min_by(|a, b| {
                    let cost = |p: &Vec<usize>| (p.iter().map(|&h| transitions[h].energy_j).sum::<f64>(), p.iter().map(|&h| transitions[h].time_s).sum::<f64>());
                    let (ea, ta) = cost(a);
                    let (eb, tb) = cost(b);
                    ea.total_cmp(&eb).then(ta.total_cmp(&tb))
                }),
            };
            routes[from * n + to] = hops.map(|h| push_route(table, transitions, h));
        }
    }
    routes
}

/// The Pareto set of ways to dwell in `mode`: every (down path, up path) pair, kept when no
/// other pair is both as quick and as cheap. Dwelling anywhere but the dwell mode never helps
/// (its slack is spent at the mode's power), so a gap's optimum is one of these per mode.
pub(super) fn gap_options(mode: usize, modes: &[Mode], transitions: &[Transition], table: &mut Vec<Route>) -> Vec<GapOption> {
    let n = modes.len();
    let power = modes[mode].power_w;
    let downs = simple_paths(READY, mode, n, transitions);
    let ups = simple_paths(mode, READY, n, transitions);
    let sum = |p: &[usize]| (p.iter().map(|&h| transitions[h].time_s).sum::<f64>(), p.iter().map(|&h| transitions[h].energy_j).sum::<f64>());
    let mut candidates: Vec<(f64, f64, usize, usize)> = Vec::with_capacity(downs.len() * ups.len());
    for (i, d) in downs.iter().enumerate() {
        let (td, ed) = sum(d);
        for (j, u) in ups.iter().enumerate() {
            let (tu, eu) = sum(u);
            candidates.push((td + tu, ed + eu - power * (td + tu), i, j));
        }
    }
    candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let mut options: Vec<GapOption> = Vec::new();
    for (round_trip_s, fixed_j, i, j) in candidates {
        if options.last().is_none_or(|last| fixed_j < last.fixed_j) {
            let down = push_route(table, transitions, downs[i].clone());
            let up = push_route(table, transitions, ups[j].clone());
            options.push(GapOption { round_trip_s, fixed_j, down, up });
        }
    }
    options
}


impl Device {
    /// The route a policy's move between two distinct modes takes (the direct transition when
    /// there is one); every mode can reach and be reached from the ready mode (validated), but
    /// two low-power modes may have no route between them.
    #[inline]
    pub fn route(&self, from: usize, to: usize) -> Option<&Route> {
        self.route_id(from, to).map(|id| self.route_by_id(id))
    }

    #[inline]
    pub fn route_id(&self, from: usize, to: usize) -> Option<RouteId> {
        self.policy_routes[from * self.modes.len() + to]
    }

    #[inline]
    pub fn route_by_id(&self, id: RouteId) -> &Route {
        &self.route_table[id as usize]
    }

    /// A plan's chosen route, if it was given and starts in `from` (where the device is); `None`
    /// tells the caller to take the policy route instead.
    #[inline]
    pub fn planned_route(&self, id: Option<RouteId>, from: usize) -> Option<&Route> {
        id.map(|id| self.route_by_id(id)).filter(|r| self.transitions[r.hops[0]].from == from)
    }

    /// Route into `mode` from the ready mode (always exists for a validated device).
    pub fn down_route(&self, mode: usize) -> &Route {
        self.route(READY, mode).expect("validated device: every mode is reachable from ready")
    }

    /// Route from `mode` back to the ready mode (always exists for a validated device).
    pub fn up_route(&self, mode: usize) -> &Route {
        self.route(mode, READY).expect("validated device: every mode can return to ready")
    }

    /// The cheapest way to spend one idle gap of length `gap_s` in `mode` with an exact pre-wake
    /// (down at the gap start by any path, back by any path, ready exactly at its end). `None`
    /// when no round trip fits. For the ready mode: stay, `P_ready · gap_s`.
    #[inline]
    pub fn gap_choice(&self, mode: usize, gap_s: f64) -> Option<GapChoice> {
        if mode == READY {
            return Some(GapChoice { mode, energy_j: self.modes[READY].power_w * gap_s, down: None, up: None });
        }
        let options = &self.gap_options[mode];
        let fitting = options.partition_point(|o| o.round_trip_s <= gap_s);
        let o = options[..fitting].last()?;
        Some(GapChoice { mode, energy_j: o.fixed_j + self.modes[mode].power_w * gap_s, down: Some(o.down), up: Some(o.up) })
    }

    /// The shortest gap in which some mode's round trip fits (infinite if none does): in a
    /// shorter one, [`Device::gap_choice`] finds no option below the ready mode.
    pub fn shortest_round_trip_s(&self) -> f64 {
        self.gap_options.iter().filter_map(|options| options.first()).map(|o| o.round_trip_s).fold(f64::INFINITY, f64::min)
    }

    /// Energy of [`Device::gap_choice`].
    #[inline]
    pub fn gap_energy_j(&self, mode: usize, gap_s: f64) -> Option<f64> {
        self.gap_choice(mode, gap_s).map(|c| c.energy_j)
    }

    /// The offline optimum for one gap over every mode and every path: the cheapest sequence
    /// that is back in the ready mode in time.
    #[inline]
    pub fn best_choice_for_gap(&self, gap_s: f64) -> GapChoice {
        self.best_choice_for_held_gap(gap_s, None).0
    }

    /// [`Device::best_choice_for_gap`] when `held` = (mode, s) keeps the device out of `mode` for
    /// the gap's first `s` (a card's firmware in CAM): that mode's round trip must fit in the
    /// rest of the gap, ready until then. Also returns when the move down starts.
    pub fn best_choice_for_held_gap(&self, gap_s: f64, held: Option<(usize, f64)>) -> (GapChoice, f64) {
        let mut best = (GapChoice { mode: READY, energy_j: self.modes[READY].power_w * gap_s, down: None, up: None }, 0.0);
        for m in 1..self.modes.len() {
            let from_s = held_for_s(held, m);
            if let Some(mut c) = self.gap_choice(m, gap_s - from_s) {
                c.energy_j += self.modes[READY].power_w * from_s;
                if c.energy_j < best.0.energy_j {
                    best = (c, from_s);
                }
            }
        }
        best
    }

    /// The offline optimum for the last gap of a run, `gap_s` long and followed by no request:
    /// nothing wakes the device, so the cheapest is to stay ready or to set off at once down
    /// one path and stay where it ends (`mode` is the path's destination; a short gap may end
    /// before it gets there). The energy is charged as a run's end charges it: a hop
    /// begun before the end is paid whole, one not begun is not.
    pub fn best_choice_for_tail(&self, gap_s: f64) -> GapChoice {
        self.best_choice_for_held_tail(gap_s, None).0
    }

    /// [`Device::best_choice_for_tail`] when `held` = (mode, s) keeps the device out of `mode`
    /// for the gap's first `s`: a path ending there sets off once the hold ends, ready until
    /// then. Also returns when the path sets off.
    pub fn best_choice_for_held_tail(&self, gap_s: f64, held: Option<(usize, f64)>) -> (GapChoice, f64) {
        let mut best = (GapChoice { mode: READY, energy_j: self.modes[READY].power_w * gap_s, down: None, up: None }, 0.0);
        for &id in &self.tail_routes {
            let route = self.route_by_id(id);
            let destination = self.transitions[*route.hops.last().expect("a route has a hop")].to;
            let from_s = held_for_s(held, destination);
            let (mut t, mut energy_j, mut mode) = (from_s, self.modes[READY].power_w * from_s.min(gap_s), READY);
            for &h in &route.hops {
                if t >= gap_s {
                    break;
                }
                let hop = &self.transitions[h];
                energy_j += hop.energy_j;
                t += hop.time_s;
                mode = hop.to;
            }
            if t < gap_s {
                energy_j += self.modes[mode].power_w * (gap_s - t);
            }
            if energy_j < best.0.energy_j {
                best = (GapChoice { mode: destination, energy_j, down: Some(id), up: None }, from_s);
            }
        }
        best
    }

    /// The mode of [`Device::best_choice_for_gap`], with its energy.
    #[inline]
    pub fn best_mode_for_gap(&self, gap_s: f64) -> (usize, f64) {
        let c = self.best_choice_for_gap(gap_s);
        (c.mode, c.energy_j)
    }

    /// Break-even time of `mode` against staying in the ready mode (ALGORITHMS §2.4):
    /// `max(T_down + T_up, γ / (P_ready − P_mode))` with
    /// `γ = E_down + E_up − P_mode·(T_down + T_up)`; infinite if the mode saves no power.
    pub fn break_even_s(&self, mode: usize) -> f64 {
        if mode == READY {
            return 0.0;
        }
        let saving_w = self.modes[READY].power_w - self.modes[mode].power_w;
        if saving_w <= 0.0 {
            return f64::INFINITY;
        }
        let down = self.down_route(mode);
        let up = self.up_route(mode);
        let round_trip_s = down.time_s + up.time_s;
        let gamma_j = down.energy_j + up.energy_j - self.modes[mode].power_w * round_trip_s;
        round_trip_s.max(gamma_j / saving_w)
    }

    /// The lowest-power mode other than the ready mode (ties: the later one), if any.
    pub fn deepest_mode(&self) -> Option<usize> {
        (1..self.modes.len()).fold(None, |best: Option<usize>, m| match best {
            Some(b) if self.modes[b].power_w < self.modes[m].power_w => Some(b),
            _ => Some(m),
        })
    }
}
