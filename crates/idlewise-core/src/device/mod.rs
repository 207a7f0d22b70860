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
//!
//! Here the device and its parts; in `file.rs` the TOML schema as serde reads it, in
//! `validate.rs` the checks that turn a file into a device, in `routes.rs` the route graph, in
//! `service.rs` the service model.

mod file;
mod routes;
mod service;
mod validate;

use file::*;
use routes::*;

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

impl Device {
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

    /// The modes transition `i` goes from and to, by name: what a run's account calls it.
    pub fn transition_names(&self, i: usize) -> (String, String) {
        let t = &self.transitions[i];
        (self.modes[t.from].name.clone(), self.modes[t.to].name.clone())
    }

    /// The least power any mode draws: what the theoretical minima charge for time no request
    /// takes.
    pub fn lowest_power_w(&self) -> f64 {
        self.modes.iter().map(|m| m.power_w).fold(f64::INFINITY, f64::min)
    }

    /// One line: name, kind and each mode's power.
    pub fn summary(&self) -> String {
        let modes: Vec<String> = self.modes.iter().map(|m| format!("{} {:.3} W", m.name, m.power_w)).collect();
        format!("{} ({}): {}", self.name, self.kind.as_str(), modes.join(", "))
    }
}

#[cfg(test)]
pub(crate) mod tests;
