//! Device model: power modes, the transitions between them, and the cost of serving a request.
//!
//! A device is read from TOML (see `docs/devices.md` for the schema). The first mode is the
//! *ready* mode: the one that serves requests. Transitions carry a total time and a total energy.
//! When the catalog gives no direct transition between two modes, the engine uses the cheapest
//! chain of given transitions (a *route*), charged hop by hop; routes are precomputed once here so
//! the replay loop only indexes a table.

use serde::Deserialize;

use crate::error::{Error, Result};

/// What kind of device a description models. It changes no physics in the single-device replay;
/// system engines use it to decide what a device can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Disk,
    Flash,
    Network,
    Mems,
    Hybrid,
}

impl DeviceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            DeviceKind::Disk => "disk",
            DeviceKind::Flash => "flash",
            DeviceKind::Network => "network",
            DeviceKind::Mems => "mems",
            DeviceKind::Hybrid => "hybrid",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeviceFile {
    name: String,
    kind: DeviceKind,
    #[serde(default)]
    description: String,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumptions: Vec<String>,
    #[serde(default)]
    modes: Vec<ModeFile>,
    #[serde(default)]
    transitions: Vec<TransitionFile>,
    service: Option<ServiceFile>,
    limits: Option<LimitsFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModeFile {
    name: String,
    power_w: f64,
    #[serde(default)]
    serves: bool,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumed: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TransitionFile {
    from: String,
    to: String,
    time_s: f64,
    energy_j: f64,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumed: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServiceFile {
    overhead_s: f64,
    read_bandwidth_bytes_per_s: f64,
    write_bandwidth_bytes_per_s: f64,
    active_power_w: f64,
    read_power_w: Option<f64>,
    write_power_w: Option<f64>,
    /// Network cards: in a low-power mode that still serves (802.11 PSM), downloaded data waits
    /// at the access point for the next beacon, sent every `beacon_period_s`.
    beacon_period_s: Option<f64>,
    seek: Option<SeekFile>,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumed: String,
}

/// Seek curve in the Ruemmler–Wilkes form used by DiskSim's "HPL" seek model:
/// `seek(d) = sqrt_intercept_s + sqrt_coeff_s·√d` for `1 ≤ d < boundary_cylinders`,
/// `linear_intercept_s + linear_coeff_s·d` beyond, `single_cylinder_s` for `d = 1` if given.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct SeekFile {
    bytes_per_cylinder: f64,
    boundary_cylinders: f64,
    sqrt_intercept_s: f64,
    sqrt_coeff_s: f64,
    linear_intercept_s: f64,
    linear_coeff_s: f64,
    single_cylinder_s: Option<f64>,
    /// Spindle speed; a non-sequential request waits half a revolution on average.
    rotation_rpm: Option<f64>,
    /// Extra power drawn by the arm's voice-coil motor while seeking, above `active_power_w`.
    #[serde(default)]
    seek_power_w: f64,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumed: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsFile {
    start_stop_cycles: Option<f64>,
    /// Modes whose wake-ups consume a rated cycle; by default every mode except the ready mode.
    cycle_modes: Option<Vec<String>>,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumed: String,
}

/// Where a catalog value comes from: a seed table, a datasheet, or an assumption with its reason.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Provenance {
    pub source: String,
    pub assumed: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mode {
    pub name: String,
    pub power_w: f64,
    pub serves: bool,
    pub provenance: Provenance,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    pub from: usize,
    pub to: usize,
    pub time_s: f64,
    pub energy_j: f64,
    pub provenance: Provenance,
}

/// The cheapest chain of transitions between two modes.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    pub time_s: f64,
    pub energy_j: f64,
    /// Indices into [`Device::transitions`], in order.
    pub hops: Vec<usize>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SeekCurve {
    pub bytes_per_cylinder: f64,
    pub boundary_cylinders: f64,
    pub sqrt_intercept_s: f64,
    pub sqrt_coeff_s: f64,
    pub linear_intercept_s: f64,
    pub linear_coeff_s: f64,
    pub single_cylinder_s: Option<f64>,
    pub half_rotation_s: f64,
    pub seek_power_w: f64,
    pub provenance: Provenance,
}

impl SeekCurve {
    /// Seek time for a distance in cylinders (0 for no movement).
    #[inline]
    pub fn seek_time_s(&self, cylinders: f64) -> f64 {
        if cylinders <= 0.0 {
            0.0
        } else if cylinders <= 1.0 && self.single_cylinder_s.is_some() {
            self.single_cylinder_s.unwrap_or(0.0)
        } else if cylinders < self.boundary_cylinders {
            self.sqrt_intercept_s + self.sqrt_coeff_s * cylinders.sqrt()
        } else {
            self.linear_intercept_s + self.linear_coeff_s * cylinders
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Service {
    pub overhead_s: f64,
    pub read_bandwidth_bytes_per_s: f64,
    pub write_bandwidth_bytes_per_s: f64,
    pub read_power_w: f64,
    pub write_power_w: f64,
    pub beacon_period_s: Option<f64>,
    pub seek: Option<SeekCurve>,
    pub provenance: Provenance,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Limits {
    pub start_stop_cycles: Option<f64>,
    /// `cycle_mode[m]` is true when a wake-up out of mode `m` consumes a rated cycle.
    pub cycle_mode: Vec<bool>,
    pub provenance: Provenance,
}

/// A validated device. Mode 0 is the ready mode.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    pub name: String,
    pub kind: DeviceKind,
    pub description: String,
    pub source: String,
    pub assumptions: Vec<String>,
    pub modes: Vec<Mode>,
    pub transitions: Vec<Transition>,
    pub service: Service,
    pub limits: Limits,
    /// `routes[from * n + to]`; `None` when `to` cannot be reached from `from`.
    routes: Vec<Option<Route>>,
}

/// The index of the ready mode: the first mode in the description.
pub const READY: usize = 0;

fn check_value(origin: &str, field: &str, value: f64, allow_zero: bool) -> Result<()> {
    if !value.is_finite() {
        return Err(Error::device(origin, field, format!("must be a finite number, got {value}")));
    }
    if value < 0.0 || (!allow_zero && value == 0.0) {
        let expected = if allow_zero { "non-negative" } else { "positive" };
        return Err(Error::device(origin, field, format!("must be {expected}, got {value}")));
    }
    Ok(())
}

impl Device {
    /// Parses and validates a TOML device description. `origin` names the file (or catalog entry)
    /// in error messages.
    pub fn from_toml(text: &str, origin: &str) -> Result<Device> {
        let file: DeviceFile = toml::from_str(text).map_err(|e| {
            let message = e.message().to_string();
            let location = e
                .span()
                .map(|span| {
                    let line = text[..span.start.min(text.len())].matches('\n').count() + 1;
                    format!("line {line}")
                })
                .unwrap_or_else(|| "document".to_string());
            Error::device(origin, location, message)
        })?;
        Device::from_file(file, origin)
    }

    fn from_file(file: DeviceFile, origin: &str) -> Result<Device> {
        if file.name.trim().is_empty() {
            return Err(Error::device(origin, "name", "must not be empty"));
        }
        if file.modes.is_empty() {
            return Err(Error::device(
                origin,
                "modes",
                "no modes given; the first [[modes]] entry is the ready mode that serves requests",
            ));
        }
        if !file.modes[0].serves {
            return Err(Error::device(
                origin,
                format!("modes[0] ({})", file.modes[0].name),
                "the first mode is the ready mode and must have serves = true (no ready mode)",
            ));
        }
        let mut modes = Vec::with_capacity(file.modes.len());
        for (i, m) in file.modes.iter().enumerate() {
            let field = format!("modes[{i}] ({}).power_w", m.name);
            check_value(origin, &field, m.power_w, true)?;
            if modes.iter().any(|other: &Mode| other.name == m.name) {
                return Err(Error::device(origin, format!("modes[{i}].name"), format!("duplicate mode name '{}'", m.name)));
            }
            modes.push(Mode {
                name: m.name.clone(),
                power_w: m.power_w,
                serves: m.serves,
                provenance: Provenance { source: m.source.clone(), assumed: m.assumed.clone() },
            });
        }
        let index_of = |name: &str| modes.iter().position(|m| m.name == name);
        let known = || modes.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ");

        let mut transitions = Vec::with_capacity(file.transitions.len());
        for (i, t) in file.transitions.iter().enumerate() {
            let from = index_of(&t.from).ok_or_else(|| {
                Error::device(origin, format!("transitions[{i}].from"), format!("unknown mode '{}'; known modes: {}", t.from, known()))
            })?;
            let to = index_of(&t.to).ok_or_else(|| {
                Error::device(origin, format!("transitions[{i}].to"), format!("unknown mode '{}'; known modes: {}", t.to, known()))
            })?;
            if from == to {
                return Err(Error::device(origin, format!("transitions[{i}]"), format!("a transition from '{}' to itself", t.from)));
            }
            check_value(origin, &format!("transitions[{i}] ({} -> {}).time_s", t.from, t.to), t.time_s, true)?;
            check_value(origin, &format!("transitions[{i}] ({} -> {}).energy_j", t.from, t.to), t.energy_j, true)?;
            if transitions.iter().any(|x: &Transition| x.from == from && x.to == to) {
                return Err(Error::device(origin, format!("transitions[{i}]"), format!("duplicate transition {} -> {}", t.from, t.to)));
            }
            transitions.push(Transition {
                from,
                to,
                time_s: t.time_s,
                energy_j: t.energy_j,
                provenance: Provenance { source: t.source.clone(), assumed: t.assumed.clone() },
            });
        }

        let s = file.service.ok_or_else(|| {
            Error::device(origin, "service", "missing [service] table (overhead_s, read/write_bandwidth_bytes_per_s, active_power_w)")
        })?;
        check_value(origin, "service.overhead_s", s.overhead_s, true)?;
        check_value(origin, "service.read_bandwidth_bytes_per_s", s.read_bandwidth_bytes_per_s, false)?;
        check_value(origin, "service.write_bandwidth_bytes_per_s", s.write_bandwidth_bytes_per_s, false)?;
        check_value(origin, "service.active_power_w", s.active_power_w, true)?;
        let read_power_w = s.read_power_w.unwrap_or(s.active_power_w);
        let write_power_w = s.write_power_w.unwrap_or(s.active_power_w);
        check_value(origin, "service.read_power_w", read_power_w, true)?;
        check_value(origin, "service.write_power_w", write_power_w, true)?;
        if let Some(b) = s.beacon_period_s {
            check_value(origin, "service.beacon_period_s", b, false)?;
        }
        let seek = match s.seek {
            None => None,
            Some(k) => {
                for (field, value, zero_ok) in [
                    ("service.seek.bytes_per_cylinder", k.bytes_per_cylinder, false),
                    ("service.seek.boundary_cylinders", k.boundary_cylinders, true),
                    ("service.seek.sqrt_intercept_s", k.sqrt_intercept_s, true),
                    ("service.seek.sqrt_coeff_s", k.sqrt_coeff_s, true),
                    ("service.seek.linear_intercept_s", k.linear_intercept_s, true),
                    ("service.seek.linear_coeff_s", k.linear_coeff_s, true),
                    ("service.seek.seek_power_w", k.seek_power_w, true),
                ] {
                    check_value(origin, field, value, zero_ok)?;
                }
                if let Some(v) = k.single_cylinder_s {
                    check_value(origin, "service.seek.single_cylinder_s", v, true)?;
                }
                let half_rotation_s = match k.rotation_rpm {
                    Some(rpm) => {
                        check_value(origin, "service.seek.rotation_rpm", rpm, false)?;
                        30.0 / rpm
                    }
                    None => 0.0,
                };
                Some(SeekCurve {
                    bytes_per_cylinder: k.bytes_per_cylinder,
                    boundary_cylinders: k.boundary_cylinders,
                    sqrt_intercept_s: k.sqrt_intercept_s,
                    sqrt_coeff_s: k.sqrt_coeff_s,
                    linear_intercept_s: k.linear_intercept_s,
                    linear_coeff_s: k.linear_coeff_s,
                    single_cylinder_s: k.single_cylinder_s,
                    half_rotation_s,
                    seek_power_w: k.seek_power_w,
                    provenance: Provenance { source: k.source, assumed: k.assumed },
                })
            }
        };
        let service = Service {
            overhead_s: s.overhead_s,
            read_bandwidth_bytes_per_s: s.read_bandwidth_bytes_per_s,
            write_bandwidth_bytes_per_s: s.write_bandwidth_bytes_per_s,
            read_power_w,
            write_power_w,
            beacon_period_s: s.beacon_period_s,
            seek,
            provenance: Provenance { source: s.source, assumed: s.assumed },
        };

        let mut limits = Limits { cycle_mode: (0..modes.len()).map(|m| m != READY).collect(), ..Default::default() };
        if let Some(l) = file.limits {
            if let Some(c) = l.start_stop_cycles {
                check_value(origin, "limits.start_stop_cycles", c, false)?;
            }
            limits.start_stop_cycles = l.start_stop_cycles;
            if let Some(names) = l.cycle_modes {
                limits.cycle_mode = vec![false; modes.len()];
                for (i, name) in names.iter().enumerate() {
                    let m = index_of(name).ok_or_else(|| {
                        Error::device(origin, format!("limits.cycle_modes[{i}]"), format!("unknown mode '{name}'; known modes: {}", known()))
                    })?;
                    limits.cycle_mode[m] = true;
                }
            }
            limits.provenance = Provenance { source: l.source, assumed: l.assumed };
        }

        let routes = cheapest_routes(modes.len(), &transitions);
        let n = modes.len();
        for m in 1..n {
            if routes[READY * n + m].is_none() {
                return Err(Error::device(
                    origin,
                    format!("modes[{m}] ({})", modes[m].name),
                    format!("no transition path from the ready mode '{}' into this mode", modes[READY].name),
                ));
            }
            if routes[m * n + READY].is_none() {
                return Err(Error::device(
                    origin,
                    format!("modes[{m}] ({})", modes[m].name),
                    format!("no transition path back to the ready mode '{}'", modes[READY].name),
                ));
            }
        }

        Ok(Device {
            name: file.name,
            kind: file.kind,
            description: file.description,
            source: file.source,
            assumptions: file.assumptions,
            modes,
            transitions,
            service,
            limits,
            routes,
        })
    }

    pub fn mode_count(&self) -> usize {
        self.modes.len()
    }

    pub fn mode_index(&self, name: &str) -> Option<usize> {
        self.modes.iter().position(|m| m.name == name)
    }

    /// The route between two distinct modes; every mode can reach and be reached from the ready
    /// mode (validated), but two low-power modes may have no route between them.
    #[inline]
    pub fn route(&self, from: usize, to: usize) -> Option<&Route> {
        self.routes[from * self.modes.len() + to].as_ref()
    }

    /// Route into `mode` from the ready mode (always exists for a validated device).
    pub fn down_route(&self, mode: usize) -> &Route {
        self.route(READY, mode).expect("validated device: every mode is reachable from ready")
    }

    /// Route from `mode` back to the ready mode (always exists for a validated device).
    pub fn up_route(&self, mode: usize) -> &Route {
        self.route(mode, READY).expect("validated device: every mode can return to ready")
    }

    /// Energy of one idle gap of length `gap_s` spent in `mode` with an exact pre-wake
    /// (go down at the gap start, be ready exactly at its end). `None` when the gap is too short
    /// for the round trip. For the ready mode this is `P_ready · gap_s`.
    #[inline]
    pub fn gap_energy_j(&self, mode: usize, gap_s: f64) -> Option<f64> {
        if mode == READY {
            return Some(self.modes[READY].power_w * gap_s);
        }
        let down = self.down_route(mode);
        let up = self.up_route(mode);
        let round_trip_s = down.time_s + up.time_s;
        if gap_s < round_trip_s {
            return None;
        }
        Some(down.energy_j + up.energy_j + self.modes[mode].power_w * (gap_s - round_trip_s))
    }

    /// The mode that minimises [`Device::gap_energy_j`] for a gap, with its energy.
    #[inline]
    pub fn best_mode_for_gap(&self, gap_s: f64) -> (usize, f64) {
        let mut best = (READY, self.modes[READY].power_w * gap_s);
        for m in 1..self.modes.len() {
            if let Some(e) = self.gap_energy_j(m, gap_s) {
                if e < best.1 {
                    best = (m, e);
                }
            }
        }
        best
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

    /// Service time, energy and seek distance for one request, given where the head was.
    #[inline]
    pub fn service(&self, size_bytes: f64, is_write: bool, offset_bytes: f64, head_bytes: f64) -> (f64, f64) {
        let s = &self.service;
        let (bandwidth, power) = if is_write {
            (s.write_bandwidth_bytes_per_s, s.write_power_w)
        } else {
            (s.read_bandwidth_bytes_per_s, s.read_power_w)
        };
        let transfer_s = s.overhead_s + size_bytes / bandwidth;
        match &s.seek {
            None => (transfer_s, transfer_s * power),
            Some(k) => {
                if offset_bytes == head_bytes {
                    (transfer_s, transfer_s * power)
                } else {
                    let cylinders = ((offset_bytes - head_bytes).abs() / k.bytes_per_cylinder).floor();
                    let seek_s = k.seek_time_s(cylinders);
                    let time_s = transfer_s + seek_s + k.half_rotation_s;
                    (time_s, time_s * power + seek_s * k.seek_power_w)
                }
            }
        }
    }

    /// True when some mode other than the ready mode can serve requests (802.11 PSM).
    pub fn serves_in_low_power(&self) -> bool {
        self.modes.iter().skip(1).any(|m| m.serves)
    }

    /// Time and energy to serve a request that arrives at `arrival_s` while the device rests in a
    /// low-power mode that serves (802.11 PSM): the request goes out at once; downloaded data
    /// reaches the access point after `overhead_s` and waits there for the next beacon (beacons
    /// at whole multiples of `beacon_period_s`), dozing at the mode's power, then transfers at the
    /// read power. Uploads do not wait for a beacon.
    pub fn service_in_mode(&self, mode: usize, arrival_s: f64, size_bytes: f64, is_write: bool) -> (f64, f64) {
        let (time_s, energy_j) = self.service(size_bytes, is_write, 0.0, 0.0);
        let Some(beacon) = self.service.beacon_period_s.filter(|_| !is_write) else { return (time_s, energy_j) };
        let data_at_ap = arrival_s + self.service.overhead_s;
        let wait_s = (data_at_ap / beacon).ceil() * beacon - data_at_ap;
        (time_s + wait_s, energy_j + wait_s * self.modes[mode].power_w)
    }

    /// One line: name, kind and each mode's power.
    pub fn summary(&self) -> String {
        let modes: Vec<String> = self.modes.iter().map(|m| format!("{} {:.3} W", m.name, m.power_w)).collect();
        format!("{} ({}): {}", self.name, self.kind.as_str(), modes.join(", "))
    }
}

/// All-pairs cheapest routes by energy (ties broken by time), Floyd–Warshall over at most a
/// handful of modes.
fn cheapest_routes(n: usize, transitions: &[Transition]) -> Vec<Option<Route>> {
    let mut routes: Vec<Option<Route>> = vec![None; n * n];
    for (i, t) in transitions.iter().enumerate() {
        routes[t.from * n + t.to] = Some(Route { time_s: t.time_s, energy_j: t.energy_j, hops: vec![i] });
    }
    for k in 0..n {
        for i in 0..n {
            for j in 0..n {
                if i == j || i == k || j == k {
                    continue;
                }
                let (Some(a), Some(b)) = (&routes[i * n + k], &routes[k * n + j]) else { continue };
                let candidate = Route {
                    time_s: a.time_s + b.time_s,
                    energy_j: a.energy_j + b.energy_j,
                    hops: a.hops.iter().chain(b.hops.iter()).copied().collect(),
                };
                let better = match &routes[i * n + j] {
                    None => true,
                    Some(current) => {
                        candidate.energy_j < current.energy_j
                            || (candidate.energy_j == current.energy_j && candidate.time_s < current.time_s)
                    }
                };
                if better {
                    routes[i * n + j] = Some(candidate);
                }
            }
        }
    }
    routes
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Two-state test device with round numbers: ready 1 W, sleep 0 W, down 1 s / 1 J,
    /// up 2 s / 3 J, service 10 ms + size/1e6 at 2 W.
    pub(crate) fn two_state() -> Device {
        Device::from_toml(
            r#"
            name = "two-state"
            kind = "disk"
            [[modes]]
            name = "idle"
            power_w = 1.0
            serves = true
            [[modes]]
            name = "sleep"
            power_w = 0.0
            [[transitions]]
            from = "idle"
            to = "sleep"
            time_s = 1.0
            energy_j = 1.0
            [[transitions]]
            from = "sleep"
            to = "idle"
            time_s = 2.0
            energy_j = 3.0
            [service]
            overhead_s = 0.01
            read_bandwidth_bytes_per_s = 1e6
            write_bandwidth_bytes_per_s = 1e6
            active_power_w = 2.0
            [limits]
            start_stop_cycles = 1000
            "#,
            "two-state.toml",
        )
        .unwrap()
    }

    #[test]
    fn break_even_of_two_state_device() {
        let d = two_state();
        // gamma = 1 + 3 - 0 = 4 J over 1 W saving = 4 s > round trip 3 s.
        assert_eq!(d.break_even_s(1), 4.0);
        assert_eq!(d.gap_energy_j(1, 2.9), None);
        assert_eq!(d.gap_energy_j(1, 10.0), Some(4.0));
        assert_eq!(d.best_mode_for_gap(3.5), (READY, 3.5));
        assert_eq!(d.best_mode_for_gap(10.0), (1, 4.0));
    }

    fn expect_err(toml: &str, needle: &str) {
        let err = Device::from_toml(toml, "bad.toml").unwrap_err().to_string();
        assert!(err.contains(needle), "error '{err}' should mention '{needle}'");
        assert!(err.contains("bad.toml"), "error '{err}' should name the file");
    }

    const SERVICE: &str = "[service]\noverhead_s = 0.0\nread_bandwidth_bytes_per_s = 1.0\nwrite_bandwidth_bytes_per_s = 1.0\nactive_power_w = 1.0\n";

    #[test]
    fn rejects_unknown_mode_in_transition() {
        expect_err(
            &format!("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n[[transitions]]\nfrom='a'\nto='zz'\ntime_s=1\nenergy_j=1\n{SERVICE}"),
            "unknown mode 'zz'",
        );
    }

    #[test]
    fn rejects_negative_power_and_time() {
        expect_err(&format!("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=-1\nserves=true\n{SERVICE}"), "power_w");
        expect_err(
            &format!("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n[[modes]]\nname='b'\npower_w=0\n[[transitions]]\nfrom='a'\nto='b'\ntime_s=-1\nenergy_j=1\n{SERVICE}"),
            "time_s",
        );
    }

    #[test]
    fn rejects_missing_field_no_ready_mode_and_missing_return_path() {
        expect_err("name='x'\nkind='disk'\n[[modes]]\nname='a'\nserves=true\n", "power_w");
        expect_err(&format!("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\n{SERVICE}"), "no ready mode");
        expect_err(&format!("name='x'\nkind='disk'\n{SERVICE}"), "no modes");
        expect_err(
            &format!("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n[[modes]]\nname='b'\npower_w=0\n[[transitions]]\nfrom='a'\nto='b'\ntime_s=1\nenergy_j=1\n{SERVICE}"),
            "no transition path back",
        );
        expect_err("name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n", "[service]");
        expect_err(&format!("name='x'\nkind='floppy'\n{SERVICE}"), "line 2");
    }

    #[test]
    fn routes_chain_through_intermediate_modes() {
        let d = Device::from_toml(
            &format!(
                "name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=2\nserves=true\n[[modes]]\nname='b'\npower_w=1\n[[modes]]\nname='c'\npower_w=0\n\
                 [[transitions]]\nfrom='a'\nto='b'\ntime_s=1\nenergy_j=1\n[[transitions]]\nfrom='b'\nto='c'\ntime_s=1\nenergy_j=1\n\
                 [[transitions]]\nfrom='c'\nto='a'\ntime_s=3\nenergy_j=5\n[[transitions]]\nfrom='b'\nto='a'\ntime_s=1\nenergy_j=1\n{SERVICE}"
            ),
            "chain.toml",
        )
        .unwrap();
        let r = d.route(0, 2).unwrap();
        assert_eq!((r.time_s, r.energy_j, r.hops.len()), (2.0, 2.0, 2));
        assert_eq!(d.deepest_mode(), Some(2));
    }

    #[test]
    fn seek_curve_grows_with_distance() {
        let d = Device::from_toml(
            &format!(
                "name='x'\nkind='disk'\n[[modes]]\nname='a'\npower_w=1\nserves=true\n{SERVICE}\
                 [service.seek]\nbytes_per_cylinder=1000\nboundary_cylinders=300\nsqrt_intercept_s=0.00381\nsqrt_coeff_s=0.00033\n\
                 linear_intercept_s=0.00775\nlinear_coeff_s=0.0000059\nrotation_rpm=5400\nseek_power_w=2.0\n"
            ),
            "seek.toml",
        )
        .unwrap();
        // Sequential: no seek, no rotation.
        assert_eq!(d.service(0.0, false, 5000.0, 5000.0), (0.0, 0.0));
        let (t100, e100) = d.service(0.0, false, 100_000.0, 0.0);
        let half_rev = 30.0 / 5400.0;
        let seek100 = 0.00381 + 0.00033 * 10.0;
        assert!((t100 - (seek100 + half_rev)).abs() < 1e-12);
        assert!((e100 - (t100 * 1.0 + seek100 * 2.0)).abs() < 1e-12);
        let (t1000, e1000) = d.service(0.0, false, 1_000_000.0, 0.0);
        assert!((t1000 - (0.00775 + 0.0059 + half_rev)).abs() < 1e-12);
        assert!(e1000 > e100);
    }
}
