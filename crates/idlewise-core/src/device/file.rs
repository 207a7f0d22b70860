//! The device file's schema: the TOML a user writes, as serde reads it (every field checked
//! into a [`Device`] by `validate.rs`; `docs/devices.md` documents it).

use super::*;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DeviceFile {
    pub(super) name: String,
    pub(super) kind: DeviceKind,
    /// How the host attaches it (`"nvme"`, `"ata"`, ...), where the description states it.
    pub(super) interface: Option<Interface>,
    #[serde(default)]
    pub(super) description: String,
    #[serde(default)]
    pub(super) source: String,
    #[serde(default)]
    pub(super) assumptions: Vec<String>,
    #[serde(default)]
    pub(super) modes: Vec<ModeFile>,
    #[serde(default)]
    pub(super) transitions: Vec<TransitionFile>,
    pub(super) service: Option<ServiceFile>,
    pub(super) limits: Option<LimitsFile>,
    /// The device's user capacity where nothing else in the file implies it.
    pub(super) capacity: Option<CapacityFile>,
    /// An 802.11 card's firmware switch from power-save polling to CAM under traffic.
    pub(super) fast_psp: Option<FastPspFile>,
    /// Chains a policy must take between two modes instead of the default route.
    #[serde(default)]
    pub(super) routes: Vec<RouteFile>,
    /// The mode the device is in when a run starts (the ready mode if not given).
    pub(super) initial_mode: Option<String>,
}

/// The device's user capacity, for devices whose service does not already imply one (a seek
/// curve's cylinders, a MEMS layout): a request larger than the whole device is refused.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CapacityFile {
    pub(super) bytes: f64,
    #[serde(default)]
    pub(super) source: String,
    #[serde(default)]
    pub(super) assumed: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RouteFile {
    pub(super) from: String,
    pub(super) to: String,
    /// The modes passed through, in order (empty: the direct transition).
    pub(super) via: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ModeFile {
    pub(super) name: String,
    pub(super) power_w: f64,
    #[serde(default)]
    pub(super) serves: bool,
    /// ATA Extended Power Conditions: the drive's default idle time before it enters this mode
    /// on its own (the `epc` policy's timers).
    pub(super) epc_timer_s: Option<f64>,
    #[serde(default)]
    pub(super) source: String,
    #[serde(default)]
    pub(super) assumed: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TransitionFile {
    pub(super) from: String,
    pub(super) to: String,
    pub(super) time_s: f64,
    pub(super) energy_j: f64,
    /// A wake-up whose time varies per use: its standard deviation around `time_s`.
    pub(super) time_std_s: Option<f64>,
    /// The distribution of a varying wake-up time: "lognormal" (default) or "normal".
    pub(super) time_distribution: Option<String>,
    #[serde(default)]
    pub(super) source: String,
    #[serde(default)]
    pub(super) assumed: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ServiceFile {
    pub(super) overhead_s: f64,
    pub(super) read_bandwidth_bytes_per_s: f64,
    pub(super) write_bandwidth_bytes_per_s: f64,
    pub(super) active_power_w: f64,
    pub(super) read_power_w: Option<f64>,
    pub(super) write_power_w: Option<f64>,
    /// Network cards: in a low-power mode that still serves (802.11 PSM), downloaded data waits
    /// at the access point for the next beacon, sent every `beacon_period_s`.
    pub(super) beacon_period_s: Option<f64>,
    pub(super) seek: Option<SeekFile>,
    pub(super) tcp: Option<TcpFile>,
    pub(super) mems: Option<MemsFile>,
    #[serde(default)]
    pub(super) source: String,
    #[serde(default)]
    pub(super) assumed: String,
}

/// Network cards: each transfer is a TCP transfer over the link (`mechanics::network`); the
/// service bandwidths are the link's down (read) and up (write) caps.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TcpFile {
    pub(super) one_way_latency_s: f64,
    pub(super) mss_bytes: f64,
    pub(super) initial_window_segments: f64,
    #[serde(default)]
    pub(super) request_bytes: f64,
    #[serde(default)]
    pub(super) connection_setup: bool,
    #[serde(default)]
    pub(super) source: String,
    #[serde(default)]
    pub(super) assumed: String,
}

/// Seek curve in the Ruemmler–Wilkes form used by DiskSim's "HPL" seek model:
/// `seek(d) = sqrt_intercept_s + sqrt_coeff_s·√d` for `1 ≤ d < boundary_cylinders`,
/// `linear_intercept_s + linear_coeff_s·d` beyond, `single_cylinder_s` for `d = 1` if given.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub(super) struct SeekFile {
    pub(super) bytes_per_cylinder: f64,
    pub(super) boundary_cylinders: f64,
    pub(super) sqrt_intercept_s: f64,
    pub(super) sqrt_coeff_s: f64,
    pub(super) linear_intercept_s: f64,
    pub(super) linear_coeff_s: f64,
    pub(super) single_cylinder_s: Option<f64>,
    /// The disk's cylinders: with `bytes_per_cylinder`, its capacity. A request beyond it is an
    /// error (or folded onto the disk when asked), not a seek the curve extrapolates past full
    /// stroke. Absent: offsets are not checked.
    pub(super) cylinders: Option<f64>,
    /// Spindle speed; a non-sequential request waits half a revolution on average.
    pub(super) rotation_rpm: Option<f64>,
    /// Extra power drawn by the arm's voice-coil motor while seeking, above `active_power_w`.
    #[serde(default)]
    pub(super) seek_power_w: f64,
    #[serde(default)]
    pub(super) source: String,
    #[serde(default)]
    pub(super) assumed: String,
}

/// MEMS probe storage: the sled (`mechanics::mems`), in DiskSim's `memsmodel` parameters. The
/// service's `overhead_s` is the command overhead and `active_power_w` the moving sled's power.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MemsFile {
    pub(super) sled_movement_x_nm: u32,
    pub(super) sled_movement_y_nm: u32,
    pub(super) bit_cell_length_nm: u32,
    pub(super) tip_sector_length_bits: u32,
    pub(super) servo_burst_length_bits: u32,
    pub(super) tip_sectors_per_block: u32,
    pub(super) usable_tips: u32,
    pub(super) active_tips: u32,
    pub(super) bidirectional_access: bool,
    pub(super) acceleration_x_m_per_s2: f64,
    pub(super) acceleration_y_m_per_s2: f64,
    pub(super) access_speed_bits_per_s: u32,
    pub(super) resonant_frequency_hz: u32,
    pub(super) settle_time_constants: f64,
    pub(super) spring_factor: f64,
    /// "disksim" (default: as each of DiskSim's seek models reads the spring factor) or "edge"
    /// (spring force = factor × actuator force at the edge, for every motion).
    #[serde(default)]
    pub(super) spring_convention: Option<String>,
    /// "piecewise" (DiskSim's seek function 0, its validated setting) or "hong".
    pub(super) seek_model: String,
    pub(super) sector_transfer_s: f64,
    pub(super) tip_power_w: f64,
    /// "disksim" (default: DiskSim's sweep period, see `Sled::idle_sweep`) or "physical" (the
    /// sled sweeps the whole stroke at the access velocity).
    #[serde(default)]
    pub(super) idle_sweep: Option<String>,
    /// Seed 004's seek power per moving axis (W); absent: the sled power over the positioning.
    pub(super) seek_power_per_axis_w: Option<f64>,
    /// "per-tip" (default: `tip_power_w` for each tip a pass uses) or "all-tips" (every active
    /// tip's power whenever data move, whatever the request uses: seed 004's 1 W).
    #[serde(default)]
    pub(super) probe_power: Option<String>,
    pub(super) shutdown: Option<MemsShutdownFile>,
    #[serde(default)]
    pub(super) source: String,
    #[serde(default)]
    pub(super) assumed: String,
}

/// `[service.mems.shutdown]`: how power management brings the sled to rest (seed 004 §6).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MemsShutdownFile {
    /// "pe" (actuators accelerate and brake) or "ee" (springs accelerate, actuators brake).
    pub(super) policy: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FastPspFile {
    /// The card's power-save (PSP) mode, which the switch keeps it out of.
    pub(super) psp_mode: String,
    pub(super) burst_requests: u32,
    pub(super) window_s: f64,
    pub(super) hold_s: f64,
    #[serde(default)]
    pub(super) source: String,
    #[serde(default)]
    pub(super) assumed: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct LimitsFile {
    pub(super) start_stop_cycles: Option<f64>,
    /// Modes whose wake-ups consume a rated start/stop cycle; by default every mode except the
    /// ready mode. (`cycle_modes`: the name before load/unload cycles were rated apart.)
    #[serde(alias = "cycle_modes")]
    pub(super) start_stop_modes: Option<Vec<String>>,
    pub(super) load_unload_cycles: Option<f64>,
    /// Modes with the heads unloaded: leaving one loads them (required with `load_unload_cycles`).
    pub(super) load_unload_modes: Option<Vec<String>>,
    #[serde(default)]
    pub(super) source: String,
    #[serde(default)]
    pub(super) assumed: String,
}
