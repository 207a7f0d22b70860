//! Device model: power modes, the transitions between them, and the cost of serving a request.
//!
//! A device is read from TOML (see `docs/devices.md` for the schema). The first mode is the
//! *ready* mode: the one that serves requests. Transitions carry a total time and a total energy.
//!
//! Two kinds of *route* (a chain of transitions, taken hop by hop) are precomputed here so the
//! replay loop only indexes tables:
//! - a policy's move from one mode to another takes the direct transition when the device has
//!   one, the chain a `[[routes]]` entry names, or else the cheapest chain (energy, then time);
//! - the oracle may take any simple path down and any simple path back: per low-power mode the
//!   device keeps the Pareto set of (round-trip time, energy) over every pair of paths, so the
//!   cheapest sequence that is back in time for a gap is one table look-up away.

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::trace::TraceView;
use crate::mechanics::mems::{MemsService, SeekModel, Shutdown, Sled, SpringConvention};
use crate::mechanics::sled_shutdown::ShutdownPolicy;
use crate::mechanics::network::{next_beacon_s, TcpLink, Transfer};
use crate::random_time::{SpreadShape, TimeSpread};

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

/// The host interface a device is attached by, where a description states it: what decides
/// which of the host's power-management features the device has (APST is NVMe's alone).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Interface {
    #[serde(rename = "ata")]
    Ata,
    #[serde(rename = "scsi")]
    Scsi,
    #[serde(rename = "nvme")]
    Nvme,
    #[serde(rename = "compactflash")]
    CompactFlash,
    #[serde(rename = "usb")]
    Usb,
    #[serde(rename = "802.11")]
    Wireless,
}

impl Interface {
    pub fn as_str(self) -> &'static str {
        match self {
            Interface::Ata => "ata",
            Interface::Scsi => "scsi",
            Interface::Nvme => "nvme",
            Interface::CompactFlash => "compactflash",
            Interface::Usb => "usb",
            Interface::Wireless => "802.11",
        }
    }

    /// As a sentence names it ("an ATA disk").
    pub fn label(self) -> &'static str {
        match self {
            Interface::Ata => "ATA",
            Interface::Scsi => "SCSI",
            Interface::Nvme => "NVMe",
            Interface::CompactFlash => "CompactFlash",
            Interface::Usb => "USB",
            Interface::Wireless => "802.11",
        }
    }
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
    /// How the host attaches it (`"nvme"`, `"ata"`, ...), where the description states it.
    interface: Option<Interface>,
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
    /// The device's user capacity where nothing else in the file implies it.
    capacity: Option<CapacityFile>,
    /// An 802.11 card's firmware switch from power-save polling to CAM under traffic.
    fast_psp: Option<FastPspFile>,
    /// Chains a policy must take between two modes instead of the default route.
    #[serde(default)]
    routes: Vec<RouteFile>,
    /// The mode the device is in when a run starts (the ready mode if not given).
    initial_mode: Option<String>,
}

/// The device's user capacity, for devices whose service does not already imply one (a seek
/// curve's cylinders, a MEMS layout): a request larger than the whole device is refused.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CapacityFile {
    bytes: f64,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumed: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RouteFile {
    from: String,
    to: String,
    /// The modes passed through, in order (empty: the direct transition).
    via: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ModeFile {
    name: String,
    power_w: f64,
    #[serde(default)]
    serves: bool,
    /// ATA Extended Power Conditions: the drive's default idle time before it enters this mode
    /// on its own (the `epc` policy's timers).
    epc_timer_s: Option<f64>,
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
    /// A wake-up whose time varies per use: its standard deviation around `time_s`.
    time_std_s: Option<f64>,
    /// The distribution of a varying wake-up time: "lognormal" (default) or "normal".
    time_distribution: Option<String>,
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
    tcp: Option<TcpFile>,
    mems: Option<MemsFile>,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumed: String,
}

/// Network cards: each transfer is a TCP transfer over the link (`mechanics::network`); the
/// service bandwidths are the link's down (read) and up (write) caps.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TcpFile {
    one_way_latency_s: f64,
    mss_bytes: f64,
    initial_window_segments: f64,
    #[serde(default)]
    request_bytes: f64,
    #[serde(default)]
    connection_setup: bool,
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
    /// The disk's cylinders: with `bytes_per_cylinder`, its capacity. A request beyond it is an
    /// error (or folded onto the disk when asked), not a seek the curve extrapolates past full
    /// stroke. Absent: offsets are not checked.
    cylinders: Option<f64>,
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

/// MEMS probe storage: the sled (`mechanics::mems`), in DiskSim's `memsmodel` parameters. The
/// service's `overhead_s` is the command overhead and `active_power_w` the moving sled's power.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MemsFile {
    sled_movement_x_nm: u32,
    sled_movement_y_nm: u32,
    bit_cell_length_nm: u32,
    tip_sector_length_bits: u32,
    servo_burst_length_bits: u32,
    tip_sectors_per_block: u32,
    usable_tips: u32,
    active_tips: u32,
    bidirectional_access: bool,
    acceleration_x_m_per_s2: f64,
    acceleration_y_m_per_s2: f64,
    access_speed_bits_per_s: u32,
    resonant_frequency_hz: u32,
    settle_time_constants: f64,
    spring_factor: f64,
    /// "disksim" (default: as each of DiskSim's seek models reads the spring factor) or "edge"
    /// (spring force = factor × actuator force at the edge, for every motion).
    #[serde(default)]
    spring_convention: Option<String>,
    /// "piecewise" (DiskSim's seek function 0, its validated setting) or "hong".
    seek_model: String,
    sector_transfer_s: f64,
    tip_power_w: f64,
    /// "disksim" (default: DiskSim's sweep period, see `Sled::idle_sweep`) or "physical" (the
    /// sled sweeps the whole stroke at the access velocity).
    #[serde(default)]
    idle_sweep: Option<String>,
    /// Seed 004's seek power per moving axis (W); absent: the sled power over the positioning.
    seek_power_per_axis_w: Option<f64>,
    /// "per-tip" (default: `tip_power_w` for each tip a pass uses) or "all-tips" (every active
    /// tip's power whenever data move, whatever the request uses: seed 004's 1 W).
    #[serde(default)]
    probe_power: Option<String>,
    shutdown: Option<MemsShutdownFile>,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumed: String,
}

/// `[service.mems.shutdown]`: how power management brings the sled to rest (seed 004 §6).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MemsShutdownFile {
    /// "pe" (actuators accelerate and brake) or "ee" (springs accelerate, actuators brake).
    policy: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FastPspFile {
    /// The card's power-save (PSP) mode, which the switch keeps it out of.
    psp_mode: String,
    burst_requests: u32,
    window_s: f64,
    hold_s: f64,
    #[serde(default)]
    source: String,
    #[serde(default)]
    assumed: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LimitsFile {
    start_stop_cycles: Option<f64>,
    /// Modes whose wake-ups consume a rated start/stop cycle; by default every mode except the
    /// ready mode. (`cycle_modes`: the name before load/unload cycles were rated apart.)
    #[serde(alias = "cycle_modes")]
    start_stop_modes: Option<Vec<String>>,
    load_unload_cycles: Option<f64>,
    /// Modes with the heads unloaded: leaving one loads them (required with `load_unload_cycles`).
    load_unload_modes: Option<Vec<String>>,
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
    /// The drive's default EPC timer for this mode (ATA Extended Power Conditions), if it has one.
    pub epc_timer_s: Option<f64>,
    pub provenance: Provenance,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    pub from: usize,
    pub to: usize,
    /// The time it takes; the mean when it varies.
    pub time_s: f64,
    pub energy_j: f64,
    /// A wake-up whose time varies per use: drawn when a run asks for it (a seed in
    /// `ReplayOptions::transition_seed`), at the mean otherwise.
    pub spread: Option<TimeSpread>,
    pub provenance: Provenance,
}

/// A chain of transitions between two modes, taken hop by hop.
#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    pub time_s: f64,
    pub energy_j: f64,
    /// Indices into [`Device::transitions`], in order.
    pub hops: Vec<usize>,
}

/// Index of a route in the device's route table ([`Device::route_by_id`]).
pub type RouteId = u32;

/// One way to spend an idle gap in a low-power mode: down by one path, back by another.
/// `fixed_j = E_down + E_up − P_mode·(T_down + T_up)`, so a gap of `T ≥ round_trip_s` costs
/// `fixed_j + P_mode·T`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapOption {
    pub round_trip_s: f64,
    pub fixed_j: f64,
    pub down: RouteId,
    pub up: RouteId,
}

/// How long `held` (mode, s) keeps the device out of `mode` from a gap's start (0 for others).
fn held_for_s(held: Option<(usize, f64)>, mode: usize) -> f64 {
    match held {
        Some((held_mode, held_s)) if held_mode == mode => held_s,
        _ => 0.0,
    }
}

/// The cheapest way to spend one gap: stay ready (`mode == READY`, no routes) or go to `mode`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GapChoice {
    pub mode: usize,
    pub energy_j: f64,
    pub down: Option<RouteId>,
    pub up: Option<RouteId>,
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
    /// Cylinders × bytes per cylinder, where the device file gives its cylinders.
    pub capacity_bytes: Option<f64>,
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

    /// Where the arm goes for a byte offset: the offset itself on the disk, or (a run that folds
    /// offsets, a trace of a larger disk) the offset modulo the capacity. Replay has refused an
    /// offset beyond the capacity unless the run folds, so the modulo is taken only then.
    #[inline]
    pub fn position_bytes(&self, offset_bytes: f64) -> f64 {
        match self.capacity_bytes {
            Some(capacity) if offset_bytes > capacity => offset_bytes % capacity,
            _ => offset_bytes,
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
    pub tcp: Option<TcpLink>,
    pub tcp_provenance: Provenance,
    /// MEMS probe storage: the sled, command overhead and bus (`mechanics::mems`).
    pub mems: Option<MemsService>,
    pub mems_provenance: Provenance,
    pub provenance: Provenance,
}

/// A request served in a low-power mode that serves (802.11 PSM).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModeService {
    pub time_s: f64,
    pub energy_j: f64,
    /// How much longer than in the ready mode it took: beacon waits (power management's delay).
    pub power_management_wait_s: f64,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Limits {
    pub start_stop_cycles: Option<f64>,
    /// `cycle_mode[m]` is true when a wake-up out of mode `m` consumes a rated start/stop cycle.
    pub cycle_mode: Vec<bool>,
    /// Disks rate head load/unload cycles apart from spindle start/stop cycles (an unload at
    /// full speed, EPC's idle_b, wears the ramp but not the motor).
    pub load_unload_cycles: Option<f64>,
    /// `load_unload_mode[m]` is true when a wake-up out of mode `m` loads the heads.
    pub load_unload_mode: Vec<bool>,
    pub provenance: Provenance,
}

/// Cisco's "Fast PSP" (and cards like it): "when receiving a large number of packets, Fast PSP
/// Mode will temporarily switch to CAM mode to retrieve the packets. Once the packets are
/// retrieved, it switches back to PSP mode" (Aironet driver documentation). Here: once
/// `burst_requests` requests arrive within `window_s`, the card stays in CAM (its ready mode)
/// until `hold_s` after the last of them, whatever its policy would do: the policy's moves into the
/// PSP mode wait for the hold to end.
#[derive(Debug, Clone, PartialEq)]
pub struct FastPsp {
    /// The PSP mode (the MAC's doze); the OS's own moves (switching the card off) are not the
    /// firmware's and are left alone.
    pub psp_mode: usize,
    pub burst_requests: u32,
    pub window_s: f64,
    pub hold_s: f64,
    pub provenance: Provenance,
}

/// A validated device. Mode 0 is the ready mode.
#[derive(Debug, Clone, PartialEq)]
pub struct Device {
    pub name: String,
    pub kind: DeviceKind,
    /// How the host attaches it, where the description states it.
    pub interface: Option<Interface>,
    pub description: String,
    pub source: String,
    pub assumptions: Vec<String>,
    pub modes: Vec<Mode>,
    pub transitions: Vec<Transition>,
    pub service: Service,
    pub limits: Limits,
    /// `[capacity]`: the user capacity a device file states (bytes), with its source.
    pub capacity: Option<(f64, Provenance)>,
    /// A network card's switch to CAM under traffic (`[fast_psp]`).
    pub fast_psp: Option<FastPsp>,
    /// Values that are allowed but look wrong (a "low-power" mode drawing more than ready).
    pub warnings: Vec<String>,
    /// The mode a run starts in unless the run says otherwise (DiskSim's MEMS sled starts
    /// inactive).
    pub initial_mode: usize,
    /// Every route a run may take: policy routes first, then the oracle's paths.
    route_table: Vec<Route>,
    /// `policy_routes[from * n + to]`: the route a policy's move takes; `None` if unreachable.
    policy_routes: Vec<Option<RouteId>>,
    /// `gap_options[mode]`: Pareto set by increasing round trip and decreasing `fixed_j`.
    gap_options: Vec<Vec<GapOption>>,
    /// Every simple path down from the ready mode, for the last gap of a run (no wake-up after it).
    tail_routes: Vec<RouteId>,
}

/// The index of the ready mode: the first mode in the description.
pub const READY: usize = 0;

/// The physically meaningful range of a value, read from the unit in its field name (SI units
/// live in names). The bounds are far beyond any real device and keep every result finite: the
/// longest request (2^63 bytes at 1 B/s) at the highest power over 10^10 requests is ~10^34 J.
fn physical_range(field: &str) -> (f64, f64, &'static str) {
    if field.ends_with("_bytes_per_s") {
        (1.0, 1e13, "bytes per second")
    } else if field.ends_with("_s") {
        (0.0, 1e7, "seconds")
    } else if field.ends_with("_w") {
        (0.0, 1e5, "watts")
    } else if field.ends_with("_j") {
        (0.0, 1e9, "joules")
    } else if field.ends_with("_rpm") {
        (1.0, 1e6, "revolutions per minute")
    } else if field.ends_with("bytes_per_cylinder") || field.ends_with("capacity.bytes") {
        (1.0, 1e15, "bytes")
    } else {
        (0.0, 1e15, "")
    }
}

fn check_value(origin: &str, field: &str, value: f64, allow_zero: bool) -> Result<()> {
    if !value.is_finite() {
        return Err(Error::device(origin, field, format!("must be a finite number, got {value}")));
    }
    if value < 0.0 || (!allow_zero && value == 0.0) {
        let expected = if allow_zero { "non-negative" } else { "positive" };
        return Err(Error::device(origin, field, format!("must be {expected}, got {value}")));
    }
    let (min, max, unit) = physical_range(field);
    if value > max || (value != 0.0 && value < min) {
        return Err(Error::device(
            origin,
            field,
            format!("{value} is outside the physical range {min:e}..{max:e} {unit} that keeps results finite"),
        ));
    }
    Ok(())
}

/// A transition's varying time, checked: wake-ups only (the time a request waits), with a
/// positive mean, a positive deviation and a known distribution.
fn transition_spread(origin: &str, i: usize, t: &TransitionFile, to: usize) -> Result<Option<TimeSpread>> {
    let field = |name: &str| format!("transitions[{i}] ({} -> {}).{name}", t.from, t.to);
    let Some(std_s) = t.time_std_s else {
        if t.time_distribution.is_some() {
            return Err(Error::device(origin, field("time_distribution"), "is given without time_std_s, the spread it describes"));
        }
        return Ok(None);
    };
    check_value(origin, &field("time_std_s"), std_s, false)?;
    if to != READY {
        return Err(Error::device(
            origin,
            field("time_std_s"),
            "a varying time is supported on wake-ups (transitions into the first, ready mode) only: those are the times requests wait for",
        ));
    }
    if t.time_s <= 0.0 {
        return Err(Error::device(origin, field("time_std_s"), "needs a positive mean time_s to vary around"));
    }
    let text = t.time_distribution.as_deref().unwrap_or("lognormal");
    let shape = SpreadShape::parse(text).ok_or_else(|| Error::device(origin, field("time_distribution"), format!("must be \"lognormal\" or \"normal\", got \"{text}\"")))?;
    Ok(Some(TimeSpread { shape, std_s }))
}

const SHUTDOWN_POLICY_FIELD: &str = "service.mems.shutdown.policy";
const PROBE_POWER_FIELD: &str = "service.mems.probe_power";

/// A sled shutdown policy by name; EE needs springs to return the sled.
fn shutdown_policy(origin: &str, text: &str, has_springs: bool) -> Result<ShutdownPolicy> {
    let policy = ShutdownPolicy::parse(text).ok_or_else(|| Error::device(origin, SHUTDOWN_POLICY_FIELD, format!("must be \"pe\" or \"ee\", got \"{text}\"")))?;
    if policy == ShutdownPolicy::EnergyEfficient && !has_springs {
        return Err(Error::device(origin, SHUTDOWN_POLICY_FIELD, "\"ee\" lets the springs return the sled, and this sled has none (spring_factor = 0)"));
    }
    Ok(policy)
}

/// Checks a `[service.mems]` table and builds the sled. Integer geometry must divide into at
/// least one row, column and cylinder, or the layout has no blocks.
fn mems_service(origin: &str, m: &MemsFile, overhead_s: f64, sled_power_w: f64) -> Result<MemsService> {
    let field = |name: &str| format!("service.mems.{name}");
    let small = |name: &str, value: u32| -> Result<i32> {
        if value == 0 || value > 1_000_000_000 {
            return Err(Error::device(origin, field(name), format!("must be a positive whole number up to 1e9, got {value}")));
        }
        Ok(value as i32)
    };
    for (name, value, zero_ok) in [
        ("acceleration_x_m_per_s2", m.acceleration_x_m_per_s2, false),
        ("acceleration_y_m_per_s2", m.acceleration_y_m_per_s2, false),
        ("settle_time_constants", m.settle_time_constants, true),
        ("spring_factor", m.spring_factor, true),
        ("sector_transfer_s", m.sector_transfer_s, true),
        ("tip_power_w", m.tip_power_w, true),
    ] {
        check_value(origin, &field(name), value, zero_ok)?;
    }
    // A write whose data has not crossed the bus reads the servo and schedules again (DiskSim's
    // "weird special case"), so the sled spins pass after pass while a sector crosses: a bus
    // slower than this makes a replay take time in proportion and was never a MEMS device.
    const SLOWEST_SECTOR_TRANSFER_S: f64 = 0.01;
    if m.sector_transfer_s > SLOWEST_SECTOR_TRANSFER_S {
        return Err(Error::device(
            origin,
            field("sector_transfer_s"),
            format!("gives {} s for a 512-byte sector; at most {SLOWEST_SECTOR_TRANSFER_S} s (51 kB/s) is accepted (DiskSim's G1-G3: 5.12e-6 s)", m.sector_transfer_s),
        ));
    }
    let seek_model = match m.seek_model.as_str() {
        "piecewise" => SeekModel::Piecewise,
        "hong" => SeekModel::Hong,
        other => return Err(Error::device(origin, field("seek_model"), format!("must be \"piecewise\" or \"hong\", got \"{other}\""))),
    };
    let spring_convention = match m.spring_convention.as_deref() {
        None | Some("disksim") => SpringConvention::DiskSim,
        Some("edge") => SpringConvention::Edge,
        Some(other) => return Err(Error::device(origin, field("spring_convention"), format!("must be \"disksim\" or \"edge\", got \"{other}\""))),
    };
    let physical_sweep = match m.idle_sweep.as_deref() {
        None | Some("disksim") => false,
        Some("physical") => true,
        Some(other) => return Err(Error::device(origin, field("idle_sweep"), format!("must be \"disksim\" or \"physical\", got \"{other}\""))),
    };
    // The actuators must at least hold the sled at the edge against the springs; the piecewise
    // model divides by the net force there, so it needs them strictly stronger.
    let edge_factor = match (seek_model, spring_convention) {
        (SeekModel::Hong, SpringConvention::DiskSim) => m.spring_factor / 2.0,
        _ => m.spring_factor,
    };
    if edge_factor > 1.0 || (seek_model == SeekModel::Piecewise && edge_factor >= 1.0) {
        return Err(Error::device(
            origin,
            field("spring_factor"),
            format!("{} gives springs stronger than the actuators at the edge of the stroke (the piecewise model needs a spring factor below 1; hong at most 1 with spring_convention = \"edge\", 2 with \"disksim\")", m.spring_factor),
        ));
    }
    let sled = Sled {
        x_length_nm: small("sled_movement_x_nm", m.sled_movement_x_nm)?,
        y_length_nm: small("sled_movement_y_nm", m.sled_movement_y_nm)?,
        bit_length_nm: small("bit_cell_length_nm", m.bit_cell_length_nm)?,
        tip_sector_length_bits: small("tip_sector_length_bits", m.tip_sector_length_bits)?,
        servo_burst_length_bits: small("servo_burst_length_bits", m.servo_burst_length_bits)?,
        tip_sectors_per_lbn: small("tip_sectors_per_block", m.tip_sectors_per_block)?,
        tips_usable: small("usable_tips", m.usable_tips)?,
        tips_simultaneous: small("active_tips", m.active_tips)?,
        bidirectional: m.bidirectional_access,
        // DiskSim's loader multiplies the file's value by 1e9 to get nm/s²: the value is m/s².
        x_accel_nm_s2: m.acceleration_x_m_per_s2 * 1e9,
        y_accel_nm_s2: m.acceleration_y_m_per_s2 * 1e9,
        access_speed_bits_per_s: small("access_speed_bits_per_s", m.access_speed_bits_per_s)?,
        resonant_frequency_hz: small("resonant_frequency_hz", m.resonant_frequency_hz)?,
        settle_time_constants: m.settle_time_constants,
        spring_factor: m.spring_factor,
        spring_convention,
        seek_model,
        physical_sweep,
        layout: Default::default(),
    }
    .prepared();
    if (sled.access_speed_bits_per_s as i64) * (sled.bit_length_nm as i64) > i32::MAX as i64 {
        return Err(Error::device(origin, field("access_speed_bits_per_s"), "times the bit cell length exceeds 2^31 nm/s".to_string()));
    }
    if sled.tips_simultaneous > sled.tips_usable || sled.tip_sectors_per_lbn > sled.tips_simultaneous {
        return Err(Error::device(origin, field("active_tips"), format!("need tip_sectors_per_block ({}) <= active_tips ({}) <= usable_tips ({})", sled.tip_sectors_per_lbn, sled.tips_simultaneous, sled.tips_usable)));
    }
    if sled.rows_per_column() < 1 || sled.cylinders() < 1 {
        return Err(Error::device(origin, field("sled_movement_y_nm"), "the sled's stroke holds no row of tip sectors at this bit cell length".to_string()));
    }
    let rest = sled.position(sled.centermost_lbn()).0.servo_start;
    if let Some(p) = m.seek_power_per_axis_w {
        check_value(origin, &field("seek_power_per_axis_w"), p, true)?;
    }
    let probes_charged = probes_charged(origin, m.probe_power.as_deref().unwrap_or("per-tip"), &sled)?;
    let shutdown = match &m.shutdown {
        None => None,
        Some(sd) => {
            let policy = shutdown_policy(origin, &sd.policy, m.spring_factor > 0.0)?;
            let axis_power_w = m
                .seek_power_per_axis_w
                .ok_or_else(|| Error::device(origin, field("seek_power_per_axis_w"), "is needed with [service.mems.shutdown]: the actuators' power while they move the sled".to_string()))?;
            let (x_axis, y_axis) = sled.spring_axes();
            Some(Shutdown { policy, x_axis, y_axis, axis_power_w })
        }
    };
    Ok(MemsService {
        sled,
        command_overhead_ms: overhead_s * 1e3,
        sector_transfer_ms: m.sector_transfer_s * 1e3,
        sled_power_w,
        tip_power_w: m.tip_power_w,
        probes_charged,
        rest,
        seek_axis_power_w: m.seek_power_per_axis_w,
        shutdown,
    })
}

/// The tips a MEMS pass pays for under a probe-power convention: `"per-tip"`, the ones it uses
/// (`None`); `"all-tips"`, every active tip (seed 004's 1 W whenever data move).
fn probes_charged(origin: &str, convention: &str, sled: &Sled) -> Result<Option<i32>> {
    match convention {
        "per-tip" => Ok(None),
        "all-tips" => Ok(Some(sled.tips_simultaneous)),
        other => Err(Error::device(origin, PROBE_POWER_FIELD, format!("must be \"per-tip\" or \"all-tips\", got \"{other}\""))),
    }
}

impl Device {
    /// This MEMS device with another shutdown policy (`"pe"` or `"ee"`), for comparing the two.
    pub fn with_mems_shutdown(&self, policy: &str) -> Result<Device> {
        let mut device = self.clone();
        let shutdown = device
            .service
            .mems
            .as_mut()
            .and_then(|m| m.shutdown.as_mut())
            .ok_or_else(|| Error::device(&self.name, SHUTDOWN_POLICY_FIELD, "this device has no sled shutdown model ([service.mems.shutdown])"))?;
        shutdown.policy = shutdown_policy(&self.name, policy, shutdown.x_axis.omega2 > 0.0)?;
        Ok(device)
    }

    /// This MEMS device charging its probes' power another way: `"per-tip"` (each pass pays for
    /// the tips it uses) or `"all-tips"` (every active tip whenever data move, seed 004's 1 W).
    pub fn with_probe_power(&self, convention: &str) -> Result<Device> {
        let mut device = self.clone();
        let mems = device.service.mems.as_mut().ok_or_else(|| Error::device(&self.name, PROBE_POWER_FIELD, "this device has no MEMS sled"))?;
        mems.probes_charged = probes_charged(&self.name, convention, &mems.sled)?;
        Ok(device)
    }

    /// Parses and validates a TOML device description. `origin` names the file (or catalog entry)
    /// in error messages.
    pub fn from_toml(text: &str, origin: &str) -> Result<Device> {
        let file: DeviceFile = toml::from_str(text).map_err(|e| Error::device(origin, crate::error::toml_location(text, &e), e.message()))?;
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
            if let Some(timer) = m.epc_timer_s {
                check_value(origin, &format!("modes[{i}] ({}).epc_timer_s", m.name), timer, false)?;
                if i == 0 {
                    return Err(Error::device(origin, format!("modes[0] ({}).epc_timer_s", m.name), "the ready mode has no EPC timer; give timers to the idle and standby modes"));
                }
            }
            modes.push(Mode {
                name: m.name.clone(),
                power_w: m.power_w,
                serves: m.serves,
                epc_timer_s: m.epc_timer_s,
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
            let spread = transition_spread(origin, i, t, to)?;
            transitions.push(Transition {
                from,
                to,
                time_s: t.time_s,
                energy_j: t.energy_j,
                spread,
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
                if let Some(c) = k.cylinders {
                    check_value(origin, "service.seek.cylinders", c, false)?;
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
                    capacity_bytes: k.cylinders.map(|c| c * k.bytes_per_cylinder),
                    half_rotation_s,
                    seek_power_w: k.seek_power_w,
                    provenance: Provenance { source: k.source, assumed: k.assumed },
                })
            }
        };
        let (tcp, tcp_provenance) = match s.tcp {
            None => (None, Provenance::default()),
            Some(k) => {
                check_value(origin, "service.tcp.one_way_latency_s", k.one_way_latency_s, true)?;
                check_value(origin, "service.tcp.mss_bytes", k.mss_bytes, false)?;
                check_value(origin, "service.tcp.initial_window_segments", k.initial_window_segments, false)?;
                check_value(origin, "service.tcp.request_bytes", k.request_bytes, true)?;
                (
                    Some(TcpLink {
                        one_way_latency_s: k.one_way_latency_s,
                        mss_bytes: k.mss_bytes,
                        initial_window_segments: k.initial_window_segments,
                        request_bytes: k.request_bytes,
                        connection_setup: k.connection_setup,
                    }),
                    Provenance { source: k.source, assumed: k.assumed },
                )
            }
        };
        let (mems, mems_provenance) = match s.mems {
            None => (None, Provenance::default()),
            Some(m) => (Some(mems_service(origin, &m, s.overhead_s, s.active_power_w)?), Provenance { source: m.source, assumed: m.assumed }),
        };
        let service = Service {
            tcp,
            tcp_provenance,
            mems,
            mems_provenance,
            overhead_s: s.overhead_s,
            read_bandwidth_bytes_per_s: s.read_bandwidth_bytes_per_s,
            write_bandwidth_bytes_per_s: s.write_bandwidth_bytes_per_s,
            read_power_w,
            write_power_w,
            beacon_period_s: s.beacon_period_s,
            seek,
            provenance: Provenance { source: s.source, assumed: s.assumed },
        };

        let mut limits = Limits {
            cycle_mode: (0..modes.len()).map(|m| m != READY).collect(),
            load_unload_mode: vec![false; modes.len()],
            ..Default::default()
        };
        let mode_set = |field: &str, names: &[String]| -> Result<Vec<bool>> {
            let mut set = vec![false; modes.len()];
            for (i, name) in names.iter().enumerate() {
                let m = index_of(name).ok_or_else(|| {
                    Error::device(origin, format!("limits.{field}[{i}]"), format!("unknown mode '{name}'; known modes: {}", known()))
                })?;
                set[m] = true;
            }
            Ok(set)
        };
        if let Some(l) = file.limits {
            if let Some(c) = l.start_stop_cycles {
                check_value(origin, "limits.start_stop_cycles", c, false)?;
            }
            limits.start_stop_cycles = l.start_stop_cycles;
            if let Some(names) = &l.start_stop_modes {
                limits.cycle_mode = mode_set("start_stop_modes", names)?;
            }
            match (l.load_unload_cycles, &l.load_unload_modes) {
                (Some(c), Some(names)) => {
                    check_value(origin, "limits.load_unload_cycles", c, false)?;
                    limits.load_unload_cycles = Some(c);
                    limits.load_unload_mode = mode_set("load_unload_modes", names)?;
                }
                (Some(_), None) => {
                    return Err(Error::device(origin, "limits.load_unload_modes", "required with load_unload_cycles: the modes whose heads are unloaded"))
                }
                (None, Some(_)) => {
                    return Err(Error::device(origin, "limits.load_unload_cycles", "load_unload_modes is given without the rating it counts against"))
                }
                (None, None) => {}
            }
            limits.provenance = Provenance { source: l.source, assumed: l.assumed };
        }

        let n = modes.len();
        let mut route_table = Vec::new();
        let mut policy_routes = policy_routes(n, &transitions, &mut route_table);
        for (i, r) in file.routes.iter().enumerate() {
            let field = format!("routes[{i}] ({} -> {})", r.from, r.to);
            let mut path = Vec::with_capacity(r.via.len() + 2);
            for name in std::iter::once(&r.from).chain(&r.via).chain(std::iter::once(&r.to)) {
                path.push(index_of(name).ok_or_else(|| Error::device(origin, &field, format!("unknown mode '{name}'; known modes: {}", known())))?);
            }
            let mut hops = Vec::with_capacity(path.len() - 1);
            for pair in path.windows(2) {
                let hop = transitions.iter().position(|t| t.from == pair[0] && t.to == pair[1]).ok_or_else(|| {
                    Error::device(origin, &field, format!("no transition {} -> {} to pass through", modes[pair[0]].name, modes[pair[1]].name))
                })?;
                hops.push(hop);
            }
            policy_routes[path[0] * n + path[path.len() - 1]] = Some(push_route(&mut route_table, &transitions, hops));
        }
        let policy_route = |from: usize, to: usize| policy_routes[from * n + to];
        for m in 1..n {
            if policy_route(READY, m).is_none() {
                return Err(Error::device(
                    origin,
                    format!("modes[{m}] ({})", modes[m].name),
                    format!("no transition path from the ready mode '{}' into this mode", modes[READY].name),
                ));
            }
            if policy_route(m, READY).is_none() {
                return Err(Error::device(
                    origin,
                    format!("modes[{m}] ({})", modes[m].name),
                    format!("no transition path back to the ready mode '{}'", modes[READY].name),
                ));
            }
        }

        let gap_options = (0..n)
            .map(|m| if m == READY { Vec::new() } else { gap_options(m, &modes, &transitions, &mut route_table) })
            .collect();
        let tail_routes = (1..n)
            .flat_map(|m| simple_paths(READY, m, n, &transitions))
            .map(|hops| push_route(&mut route_table, &transitions, hops))
            .collect();
        let mut warnings = Vec::new();
        for mode in modes.iter().skip(1) {
            if mode.power_w > modes[READY].power_w {
                warnings.push(format!(
                    "device {origin}: low-power mode '{}' draws {} W, more than the ready mode '{}' ({} W)",
                    mode.name, mode.power_w, modes[READY].name, modes[READY].power_w
                ));
            }
        }

        let initial_mode = match &file.initial_mode {
            None => READY,
            Some(name) => modes
                .iter()
                .position(|m| &m.name == name)
                .ok_or_else(|| Error::device(origin, "initial_mode", format!("unknown mode '{name}'")))?,
        };
        let capacity = match file.capacity {
            None => None,
            Some(c) => {
                if file.kind == DeviceKind::Network {
                    return Err(Error::device(origin, "capacity", "a network card stores nothing; a capacity is for storage devices"));
                }
                check_value(origin, "capacity.bytes", c.bytes, false)?;
                if c.bytes < 512.0 || c.bytes.fract() != 0.0 {
                    return Err(Error::device(origin, "capacity.bytes", format!("must be a whole number of bytes, at least one 512-byte sector, got {}", c.bytes)));
                }
                Some((c.bytes, Provenance { source: c.source, assumed: c.assumed }))
            }
        };
        let fast_psp = match file.fast_psp {
            None => None,
            Some(f) => {
                if file.kind != DeviceKind::Network {
                    return Err(Error::device(origin, "fast_psp", "only a network card switches between PSP and CAM"));
                }
                if f.burst_requests < 1 {
                    return Err(Error::device(origin, "fast_psp.burst_requests", "must be at least 1"));
                }
                check_value(origin, "fast_psp.window_s", f.window_s, false)?;
                check_value(origin, "fast_psp.hold_s", f.hold_s, false)?;
                let psp_mode = modes.iter().position(|m| m.name == f.psp_mode).ok_or_else(|| {
                    Error::device(origin, "fast_psp.psp_mode", format!("unknown mode '{}'; known modes: {}", f.psp_mode, modes.iter().map(|m| m.name.as_str()).collect::<Vec<_>>().join(", ")))
                })?;
                if psp_mode == READY {
                    return Err(Error::device(origin, "fast_psp.psp_mode", "must be a low-power mode, not the ready mode (CAM)"));
                }
                Some(FastPsp { psp_mode, burst_requests: f.burst_requests, window_s: f.window_s, hold_s: f.hold_s, provenance: Provenance { source: f.source, assumed: f.assumed } })
            }
        };
        if let Some(interface) = file.interface.filter(|&i| (i == Interface::Wireless) != (file.kind == DeviceKind::Network)) {
            return Err(Error::device(origin, "interface", format!("a {} device is not attached by '{}'", file.kind.as_str(), interface.as_str())));
        }
        Ok(Device {
            initial_mode,
            name: file.name,
            kind: file.kind,
            interface: file.interface,
            description: file.description,
            source: file.source,
            assumptions: file.assumptions,
            modes,
            transitions,
            service,
            limits,
            capacity,
            fast_psp,
            warnings,
            route_table,
            policy_routes,
            gap_options,
            tail_routes,
        })
    }

    /// The whole device in bytes: a MEMS layout's blocks, a seek curve's cylinders, or the
    /// device file's `[capacity]`; `None` where nothing states it (network cards, custom files).
    pub fn capacity_bytes(&self) -> Option<f64> {
        if let Some(mems) = self.service.mems.as_ref() {
            return Some(mems.sled.blocks() as f64 * 512.0);
        }
        self.service.seek.as_ref().and_then(|k| k.capacity_bytes).or(self.capacity.as_ref().map(|c| c.0))
    }

    pub fn mode_count(&self) -> usize {
        self.modes.len()
    }

    pub fn mode_index(&self, name: &str) -> Option<usize> {
        self.modes.iter().position(|m| m.name == name)
    }

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

    /// The least power any mode draws: what the theoretical minima charge for time no request
    /// takes.
    pub fn lowest_power_w(&self) -> f64 {
        self.modes.iter().map(|m| m.power_w).fold(f64::INFINITY, f64::min)
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

    /// A TCP transfer of one request over the card's link, starting at `start_s`, each downlink
    /// packet reaching the card at `deliver(t)`.
    fn transfer(&self, tcp: &TcpLink, start_s: f64, size_bytes: f64, is_write: bool, deliver: impl Fn(f64) -> f64) -> Transfer {
        let s = &self.service;
        if is_write {
            tcp.upload(start_s, size_bytes, s.write_bandwidth_bytes_per_s, deliver)
        } else {
            tcp.download(start_s, size_bytes, s.read_bandwidth_bytes_per_s, s.write_bandwidth_bytes_per_s, deliver)
        }
    }

    /// Energy of a transfer made in `mode`: receiving and transmitting at the read and write
    /// powers, waiting (round trips, beacons) at the mode's power.
    fn transfer_energy_j(&self, mode: usize, time_s: f64, t: &Transfer) -> f64 {
        let s = &self.service;
        self.modes[mode].power_w * (time_s - t.receive_s - t.transmit_s).max(0.0) + s.read_power_w * t.receive_s + s.write_power_w * t.transmit_s
    }

    /// Service time and energy for one request, given where the head was.
    #[inline(always)]
    pub fn service(&self, size_bytes: f64, is_write: bool, offset_bytes: f64, head_bytes: f64) -> (f64, f64) {
        let s = &self.service;
        if s.tcp.is_some() || s.seek.is_some() {
            return self.service_with_mechanics(size_bytes, is_write, offset_bytes, head_bytes);
        }
        // The common case (no seek curve, no TCP) stays small enough to inline in the hot loop.
        let (bandwidth, power) = if is_write { (s.write_bandwidth_bytes_per_s, s.write_power_w) } else { (s.read_bandwidth_bytes_per_s, s.read_power_w) };
        let transfer_s = s.overhead_s + size_bytes / bandwidth;
        (transfer_s, transfer_s * power)
    }

    /// Whether every run of a call can share one computation of each request's ready-mode
    /// service ([`Device::ready_services`]): a MEMS device's service depends on its sled and bus.
    pub fn shares_ready_service(&self) -> bool {
        self.service.mems.is_none()
    }

    /// Each request's service in the ready mode, as [`Device::service`] gives it to any run:
    /// the head follows the requests (it ends where the last one did) whatever the policy, so
    /// the runs of one call can share this instead of each computing it. `head_bytes` carries
    /// the head from one part of a trace to the next.
    pub fn ready_services(&self, trace: &TraceView, head_bytes: &mut f64, out: &mut Vec<(f64, f64)>) {
        out.clear();
        out.extend(self.ready_services_from(trace, head_bytes));
    }

    /// [`Device::ready_services`] into a slice of the trace's length (a part of a larger one:
    /// parts of a trace computed on several threads, each from the head the request before it
    /// left).
    pub fn ready_services_into(&self, trace: &TraceView, head_bytes: &mut f64, out: &mut [(f64, f64)]) {
        for (slot, service) in out.iter_mut().zip(self.ready_services_from(trace, head_bytes)) {
            *slot = service;
        }
    }

    /// The services of [`Device::ready_services`], one by one, moving `head_bytes` along.
    /// (Pushed, not written over a zeroed vector: the zeroing was a pass of its own over 16 MB
    /// a piece.) A trace that says how long each request kept the real device busy is served
    /// in that time ([`Device::observed_service`]).
    fn ready_services_from<'t>(&'t self, trace: &'t TraceView, head_bytes: &'t mut f64) -> impl Iterator<Item = (f64, f64)> + 't {
        (0..trace.len()).map(move |i| {
            let (offset, size) = (trace.offset_bytes[i] as f64, trace.size_bytes[i] as f64);
            let service = match trace.observed_service_s {
                Some(observed) => self.observed_service(observed[i], trace.is_write[i] != 0),
                None => self.service(size, trace.is_write[i] != 0, offset, *head_bytes),
            };
            *head_bytes = offset + size;
            service
        })
    }

    /// A request that kept the real device busy `service_s` (a recording's busy time): served
    /// in that time, at the model's reading or writing power. The model prices what the device
    /// did; it does not decide how long the device took.
    #[inline]
    pub fn observed_service(&self, service_s: f64, is_write: bool) -> (f64, f64) {
        let power_w = if is_write { self.service.write_power_w } else { self.service.read_power_w };
        (service_s, service_s * power_w)
    }

    /// Each request's [`Device::observed_service`], from the trace's observed service times.
    pub fn observed_services(&self, trace: &TraceView) -> Vec<(f64, f64)> {
        let observed = trace.observed_service_s.expect("observed service times");
        (0..trace.len()).map(|i| self.observed_service(observed[i], trace.is_write[i] != 0)).collect()
    }

    /// [`Device::service`] for a device with a seek curve or a TCP link.
    #[inline(never)]
    fn service_with_mechanics(&self, size_bytes: f64, is_write: bool, offset_bytes: f64, head_bytes: f64) -> (f64, f64) {
        let s = &self.service;
        if let Some(tcp) = &s.tcp {
            let t = self.transfer(tcp, 0.0, size_bytes, is_write, |t| t);
            let time_s = s.overhead_s + t.time_s;
            return (time_s, self.transfer_energy_j(READY, time_s, &t));
        }
        let (bandwidth, power) = if is_write { (s.write_bandwidth_bytes_per_s, s.write_power_w) } else { (s.read_bandwidth_bytes_per_s, s.read_power_w) };
        let transfer_s = s.overhead_s + size_bytes / bandwidth;
        match &s.seek {
            Some(k) if offset_bytes != head_bytes => {
                let distance_bytes = (k.position_bytes(offset_bytes) - k.position_bytes(head_bytes)).abs();
                let cylinders = crate::mechanics::floor(distance_bytes / k.bytes_per_cylinder);
                let seek_s = k.seek_time_s(cylinders);
                let time_s = transfer_s + seek_s + k.half_rotation_s;
                (time_s, time_s * power + seek_s * k.seek_power_w)
            }
            _ => (transfer_s, transfer_s * power),
        }
    }

    /// True when some mode other than the ready mode can serve requests (802.11 PSM).
    pub fn serves_in_low_power(&self) -> bool {
        self.modes.iter().skip(1).any(|m| m.serves)
    }

    /// The mode a run starts in: the one it asks for, where 0 (the ready mode) means the
    /// device's own starting mode.
    pub fn starting_mode(&self, requested: usize) -> usize {
        if requested == READY { self.initial_mode } else { requested }
    }

    /// Serving a request that starts at `start_s` while the device rests in a low-power mode that
    /// serves (802.11 PSM): the request goes out at once; downlink data waits at the access point
    /// for the next beacon (beacons at whole multiples of `beacon_period_s`) while the card dozes
    /// at the mode's power. Over a TCP link every downlink packet (SYN-ACK, ACKs, data) waits so;
    /// without one, a download's data reaches the access point after `overhead_s`, waits for a
    /// beacon, then transfers at the read power, and an upload does not wait.
    pub fn service_in_mode(&self, mode: usize, start_s: f64, size_bytes: f64, is_write: bool) -> ModeService {
        let s = &self.service;
        let (ready_time_s, ready_energy_j) = self.service(size_bytes, is_write, 0.0, 0.0);
        let Some(beacon) = s.beacon_period_s else {
            return ModeService { time_s: ready_time_s, energy_j: ready_energy_j, power_management_wait_s: 0.0 };
        };
        if let Some(tcp) = &s.tcp {
            let at = start_s + s.overhead_s;
            let t = self.transfer(tcp, at, size_bytes, is_write, |t| next_beacon_s(t, beacon));
            let time_s = s.overhead_s + t.time_s;
            let energy_j = self.transfer_energy_j(mode, time_s, &t);
            return ModeService { time_s, energy_j, power_management_wait_s: (time_s - ready_time_s).max(0.0) };
        }
        if is_write {
            return ModeService { time_s: ready_time_s, energy_j: ready_energy_j, power_management_wait_s: 0.0 };
        }
        let data_at_ap = start_s + s.overhead_s;
        let wait_s = next_beacon_s(data_at_ap, beacon) - data_at_ap;
        ModeService { time_s: ready_time_s + wait_s, energy_j: ready_energy_j + wait_s * self.modes[mode].power_w, power_management_wait_s: wait_s }
    }

    /// One line: name, kind and each mode's power.
    pub fn summary(&self) -> String {
        let modes: Vec<String> = self.modes.iter().map(|m| format!("{} {:.3} W", m.name, m.power_w)).collect();
        format!("{} ({}): {}", self.name, self.kind.as_str(), modes.join(", "))
    }
}

fn push_route(table: &mut Vec<Route>, transitions: &[Transition], hops: Vec<usize>) -> RouteId {
    let time_s = hops.iter().map(|&h| transitions[h].time_s).sum();
    let energy_j = hops.iter().map(|&h| transitions[h].energy_j).sum();
    table.push(Route { time_s, energy_j, hops });
    (table.len() - 1) as RouteId
}

/// Every simple path (no mode visited twice) from `from` to `to`, as transition indices. Devices
/// have a handful of modes; the count is capped so a pathological file cannot stall loading.
fn simple_paths(from: usize, to: usize, n: usize, transitions: &[Transition]) -> Vec<Vec<usize>> {
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
fn policy_routes(n: usize, transitions: &[Transition], table: &mut Vec<Route>) -> Vec<Option<RouteId>> {
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
fn gap_options(mode: usize, modes: &[Mode], transitions: &[Transition], table: &mut Vec<Route>) -> Vec<GapOption> {
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

    pub(crate) const SERVICE: &str = "[service]\noverhead_s = 0.0\nread_bandwidth_bytes_per_s = 1.0\nwrite_bandwidth_bytes_per_s = 1.0\nactive_power_w = 1.0\n";

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
