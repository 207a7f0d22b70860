//! MEMS probe storage: the sled of the CMU model (Griffin, Schlosser, Ganger, Nagle,
//! SIGMETRICS 2000) as DiskSim 4.0's `memsmodel` computes it, so that the same requests give the
//! same response times.
//!
//! - Layout (streaming, DiskSim layout policy 7): an LBN is a cell of `tip_sectors_per_lbn` tip
//!   sectors read in parallel; a row is the cells the active tips read at once; a column is the
//!   rows of one sweep in Y; a cylinder is all columns at one X offset. Odd columns run backwards
//!   so a sweep can turn around and keep streaming.
//! - Seeks (start and end at the access velocity in Y, at rest in X): DiskSim's piecewise-linear
//!   model (eight chunks per phase, springs as a force proportional to the offset) or Hong's
//!   closed form; X adds the settle time `N / (2π f)`; positioning is
//!   `max(X + settle, Y + turnarounds)`; a turnaround is `2v / (a ± spring)`.
//! - Media transfer at the per-tip bit rate; command overhead per request; a bus transfer per
//!   512-byte sector.
//! - While idle the sled keeps sweeping in Y, so where it is when the next request comes depends
//!   on the idle time modulo the sweep period (`idle_sweep`).
//!
//! Units and arithmetic follow DiskSim's on purpose: positions in bits (integers), lengths in nm,
//! times in ms, integer divisions where DiskSim divides integers. The sweep period is about
//! 70 ns while idle times are milliseconds, so only the same operations in the same order give
//! the same sled position, and with it the same seek. The two places where DiskSim's code differs
//! from its own physics (the idle sweep period, which drops the travel time by an integer
//! division and mixes seconds with milliseconds; the Hong seek with springs off, which returns
//! zero) are named where they occur; `docs/mems.md` lists them.

use super::sled_shutdown::{interrupted_shutdown, sled_shutdown, ShutdownPolicy, SpringAxis};
use super::{ceil, floor};

/// A sled position: X and Y offsets from the centre in bits, and the Y velocity in nm/s (the
/// sled reads on the fly, so a position carries its direction).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Coord {
    pub x: i32,
    pub y: i32,
    pub v: i32,
}

/// Where an access starts (servo burst), where its data start and where they end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CoordSet {
    pub servo_start: Coord,
    pub tipsector_start: Coord,
    pub tipsector_end: Coord,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekModel {
    /// DiskSim "Seek function = 0": the piecewise-linear model of Griffin et al. (2000).
    Piecewise,
    /// DiskSim "Seek function = 1": Hong's closed form of the spring-mass seek.
    Hong,
}

/// What the spring factor `K` means. DiskSim's two seek models disagree (ALGORITHMS.md §6.4):
/// the piecewise model and the turnarounds put the spring force at `K × actuator force` at the
/// edge of the stroke; Hong's closed form as DiskSim codes it puts it there at `K/2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpringConvention {
    /// As DiskSim codes each model (reproduces its numbers).
    DiskSim,
    /// One physical spring for every motion: force `K × actuator force` at the edge.
    Edge,
}

/// The sled's geometry and dynamics (DiskSim's `memsmodel_mems` parameters).
#[derive(Debug, Clone, PartialEq)]
pub struct Sled {
    pub x_length_nm: i32,
    pub y_length_nm: i32,
    pub bit_length_nm: i32,
    pub tip_sector_length_bits: i32,
    pub servo_burst_length_bits: i32,
    pub tip_sectors_per_lbn: i32,
    pub tips_usable: i32,
    pub tips_simultaneous: i32,
    pub bidirectional: bool,
    pub x_accel_nm_s2: f64,
    pub y_accel_nm_s2: f64,
    pub access_speed_bits_per_s: i32,
    pub resonant_frequency_hz: i32,
    pub settle_time_constants: f64,
    pub spring_factor: f64,
    pub spring_convention: SpringConvention,
    pub seek_model: SeekModel,
    /// The idle sweep at the access velocity over the whole stroke, reflecting at the edges,
    /// instead of DiskSim's (whose period drops the travel time; see `idle_sweep`).
    pub physical_sweep: bool,
    /// Layout figures derived from the above (`Sled::prepared` fills them): the replay maps
    /// every request, so the divisions are done once.
    pub layout: Layout,
}

/// The streaming layout's counts and the centring shifts (DiskSim's integer divisions).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Layout {
    rows_per_column: i32,
    columns_per_cylinder: i32,
    cells_per_row: i32,
    cells_per_column: i32,
    cells_per_cylinder: i32,
    cylinders: i32,
    x_shift: i32,
    y_shift: i32,
    /// Without springs every turnaround takes `2v/a` (s), computed once.
    flat_turnaround_s: Option<f64>,
    /// DiskSim's idle sweep period (see `idle_sweep`) and the X settle time (s), computed once.
    sweep_period: f64,
    settle_s: f64,
}

/// Times of one positioning: the total and its parts (ms).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Seek {
    pub total_ms: f64,
    pub x_ms: f64,
    pub y_ms: f64,
    pub turnarounds: u32,
}

impl Sled {
    /// Computes the layout figures from the geometry; call once after building a sled.
    pub fn prepared(mut self) -> Sled {
        let rows_per_column = (self.y_length_nm / self.bit_length_nm - self.servo_burst_length_bits) / (self.servo_burst_length_bits + self.tip_sector_length_bits);
        let columns_per_cylinder = self.tips_usable / self.tips_simultaneous;
        let cells_per_row = self.tips_simultaneous / self.tip_sectors_per_lbn;
        let cells_per_column = cells_per_row * rows_per_column;
        let pitch = self.servo_burst_length_bits + self.tip_sector_length_bits;
        self.layout = Layout {
            rows_per_column,
            columns_per_cylinder,
            cells_per_row,
            cells_per_column,
            cells_per_cylinder: cells_per_column * columns_per_cylinder,
            cylinders: self.x_length_nm / self.bit_length_nm,
            sweep_period: self.sweep_period(),
            settle_s: self.settle_time_constants * (1.0 / (DISKSIM_TWO_PI * self.resonant_frequency_hz as f64)),
            flat_turnaround_s: (self.spring_factor == 0.0)
                .then(|| turnaround_time_s(0.0, (self.access_speed_bits_per_s * self.bit_length_nm) as f64, self.y_accel_nm_s2, 0.0, self.y_length_nm as f64)),
            x_shift: self.x_length_nm / self.bit_length_nm / 2,
            y_shift: (rows_per_column * pitch + self.servo_burst_length_bits) / 2,
        };
        self
    }
    /// The spring factor in the convention of DiskSim's Hong code (`k·l = K·F`).
    fn hong_spring_factor(&self) -> f64 {
        match self.spring_convention {
            SpringConvention::DiskSim => self.spring_factor,
            SpringConvention::Edge => 2.0 * self.spring_factor,
        }
    }

    /// The X and Y axes as spring-mass systems (SI units) for the shutdown model: `ω² = k/m`,
    /// with the spring as the Hong seeks see it.
    pub fn spring_axes(&self) -> (SpringAxis, SpringAxis) {
        let axis = |accel_nm_s2: f64, length_nm: i32| {
            let a = accel_nm_s2 / 1e9;
            SpringAxis { accel_m_s2: a, omega2: self.hong_spring_factor() * a / (length_nm as f64 / 1e9) }
        };
        (axis(self.x_accel_nm_s2, self.x_length_nm), axis(self.y_accel_nm_s2, self.y_length_nm))
    }

    pub fn rows_per_column(&self) -> i32 {
        self.layout.rows_per_column
    }
    pub fn columns_per_cylinder(&self) -> i32 {
        self.layout.columns_per_cylinder
    }
    pub fn cells_per_row(&self) -> i32 {
        self.layout.cells_per_row
    }
    pub fn cells_per_column(&self) -> i32 {
        self.layout.cells_per_column
    }
    pub fn cells_per_cylinder(&self) -> i32 {
        self.layout.cells_per_cylinder
    }
    pub fn cylinders(&self) -> i32 {
        self.x_length_nm / self.bit_length_nm
    }
    /// Capacity in 512-byte blocks.
    pub fn blocks(&self) -> i64 {
        self.layout.cells_per_cylinder as i64 * self.layout.cylinders as i64
    }
    /// Access velocity in Y (nm/s): the per-tip bit rate times the bit length.
    pub fn access_velocity_nm_s(&self) -> i32 {
        self.access_speed_bits_per_s * self.bit_length_nm
    }

    /// The LBN nearest the centre: where the sled rests after it stops.
    pub fn centermost_lbn(&self) -> i64 {
        let horizontal = (self.x_length_nm / self.bit_length_nm / 2) as i64 * self.cells_per_cylinder() as i64;
        horizontal + (self.cells_per_cylinder() / 2) as i64
    }

    /// Where block `lbn` lies, read moving up (+Y) and moving down (−Y).
    // This and the other functions of a pass (pass end, seeks, turnarounds, media time) are
    // inlined into the event loop that calls them per pass (`mems_events`): 4–8 % of a replay.
    #[inline(always)]
    pub fn position(&self, lbn: i64) -> (CoordSet, CoordSet) {
        let l = &self.layout;
        // DiskSim takes the block modulo the capacity; replay has checked it lies within.
        let lbn = if (0..self.blocks()).contains(&lbn) { lbn as i32 } else { lbn.rem_euclid(self.blocks()) as i32 };
        let cylinder = lbn / l.cells_per_cylinder;
        let column = (lbn % l.cells_per_cylinder) / l.cells_per_column;
        let mut row = (lbn % l.cells_per_column) / l.cells_per_row;
        // Streaming layout: alternate columns run backwards so a sweep turns and goes on reading;
        // with an odd number of columns the inverted ones alternate between cylinders too.
        let invert = if l.columns_per_cylinder % 2 == 1 { (column % 2 == 1) != (cylinder % 2 == 1) } else { column % 2 == 1 };
        if invert {
            row = l.rows_per_column - row - 1;
        }
        let v = self.access_velocity_nm_s();
        let pitch = self.servo_burst_length_bits + self.tip_sector_length_bits;
        let up_servo = row * pitch;
        let up_start = up_servo + self.servo_burst_length_bits;
        let up_end = up_start + self.tip_sector_length_bits;
        let at = |y: i32, v: i32| Coord { x: cylinder - l.x_shift, y: y - l.y_shift, v };
        let up = CoordSet { servo_start: at(up_servo, v), tipsector_start: at(up_start, v), tipsector_end: at(up_end, v) };
        let dn = CoordSet { servo_start: at(up_end + self.servo_burst_length_bits, -v), tipsector_start: at(up_end, -v), tipsector_end: at(up_start, -v) };
        (up, dn)
    }

    /// X settle time (s): `N / (2π f)`, independent of the distance (`DISKSIM_TWO_PI`).
    pub fn settle_time_s(&self) -> f64 {
        self.layout.settle_s
    }

    /// Positioning time from `begin` to `end` (DiskSim `mems_seek_time`).
    pub fn seek(&self, begin: Coord, end: Coord) -> Seek {
        self.seek_with_x(begin, end, self.x_seek_s(begin.x, end.x))
    }

    /// Seeks to the up and the down position of the same block (one cylinder): one X seek serves
    /// both.
    #[inline(always)]
    pub fn seek_both(&self, begin: Coord, up: Coord, dn: Coord) -> (Seek, Seek) {
        debug_assert_eq!(up.x, dn.x, "a block's two ends lie in one cylinder");
        let x_s = self.x_seek_s(begin.x, up.x);
        (self.seek_with_x(begin, up, x_s), self.seek_with_x(begin, dn, x_s))
    }

    /// X seek plus settle (s); zero when X does not change.
    #[inline(always)]
    fn x_seek_s(&self, from_x: i32, to_x: i32) -> f64 {
        if from_x == to_x {
            return 0.0;
        }
        let bit = self.bit_length_nm as f64;
        let from = from_x as f64 * bit;
        let to = to_x as f64 * bit;
        let base = match self.seek_model {
            SeekModel::Piecewise => piecewise_seek_s(from, to, self.spring_factor, self.x_accel_nm_s2, self.x_length_nm as f64, 0.0),
            SeekModel::Hong => hong_seek_x_s(from, to, self.hong_spring_factor(), self.x_accel_nm_s2, self.x_length_nm as f64),
        };
        base + self.settle_time_s()
    }

    // Inlined, so that the seeks up and down (square roots and divisions, waiting on each other's
    // results otherwise) overlap in the pipeline.
    #[inline(always)]
    fn seek_with_x(&self, begin: Coord, end: Coord, x_s: f64) -> Seek {
        if begin == end {
            return Seek::default();
        }
        let bit = self.bit_length_nm as f64;
        let v = self.access_velocity_nm_s();
        let (turn_s, turnarounds) = self.turnarounds(begin, end);
        let from = begin.y as f64 * bit;
        let to = end.y as f64 * bit;
        let y_base = match self.seek_model {
            SeekModel::Piecewise => piecewise_seek_s(from, to, self.spring_factor, self.y_accel_nm_s2, self.y_length_nm as f64, v as f64),
            SeekModel::Hong => hong_seek_y_s(from, to, self.hong_spring_factor(), self.y_accel_nm_s2, self.y_length_nm as f64, v as f64),
        };
        let y_s = y_base + turn_s;
        Seek { total_ms: x_s.max(y_s) * 1000.0, x_ms: x_s * 1000.0, y_ms: y_s * 1000.0, turnarounds }
    }

    /// The turnarounds a Y seek needs (DiskSim's eight cases): reverse at the start when the
    /// target lies behind, at the end when the final direction differs.
    #[inline(always)]
    fn turnarounds(&self, begin: Coord, end: Coord) -> (f64, u32) {
        let bit = self.bit_length_nm as f64;
        let flat = self.layout.flat_turnaround_s;
        let turn = |c: Coord, v: i32| flat.unwrap_or_else(|| turnaround_time_s(c.y as f64 * bit, v as f64, self.y_accel_nm_s2, self.spring_factor, self.y_length_nm as f64));
        // A turnaround at the start reverses the start's velocity. One at the end arrives with
        // the opposite of the end's velocity; DiskSim passes the end's own, which turns the
        // spring's help into hindrance there (no matter without springs, as in its validated
        // runs): the physical convention passes the velocity the sled turns from.
        let end_v = if self.spring_convention == SpringConvention::Edge { -end.v } else { end.v };
        let (at_begin, at_end) = (|| turn(begin, begin.v), || turn(end, end_v));
        let behind = begin.y >= end.y;
        match (begin.v >= 0, end.v > 0) {
            (true, true) if behind => (at_begin() + at_end(), 2),
            (true, true) => (0.0, 0),
            (true, false) if behind => (at_begin(), 1),
            (true, false) => (at_end(), 1),
            (false, true) if behind => (at_end(), 1),
            (false, true) => (at_begin(), 1),
            (false, false) if behind => (0.0, 0),
            (false, false) => (at_begin() + at_end(), 2),
        }
    }

    /// Media access time (ms) between two positions in one sweep, at the access velocity.
    #[inline(always)]
    pub fn media_ms(&self, start: Coord, end: Coord) -> f64 {
        let velocity = (self.access_speed_bits_per_s * self.bit_length_nm) as f64;
        let distance = ((start.y - end.y) as f64).abs() * self.bit_length_nm as f64;
        distance / velocity * 1000.0
    }

    /// The last block of the pass that starts at `first` (DiskSim's `mems_sled_schedule`): the
    /// blocks up to `last` that the active tips read at once (a row's worth at most), across a
    /// row boundary only when the next row lies where this one does (the next column's first row
    /// may: DiskSim then goes on with other tips); a write's only up to `ready`, the last block
    /// across the bus (at least the first, which the servo burst then checks).
    #[inline(always)]
    pub fn pass_end(&self, first: i64, last: i64, ready: Option<i64>) -> i64 {
        let cells_per_row = self.cells_per_row() as i64;
        let mut end = last.min(first + cells_per_row - 1);
        if let Some(ready) = ready {
            end = end.min(ready).max(first);
        }
        let boundary = (first / cells_per_row + 1) * cells_per_row;
        if boundary <= end && self.position(boundary).0 != self.position(first).0 {
            end = boundary - 1;
        }
        end
    }

    /// DiskSim's idle sweep period (see `idle_sweep`).
    fn sweep_period(&self) -> f64 {
        let v = self.access_velocity_nm_s();
        let sweep = turnaround_time_s((self.y_length_nm / 2) as f64, v as f64, self.x_accel_nm_s2, self.spring_factor, self.y_length_nm as f64);
        sweep + (self.y_length_nm / self.access_speed_bits_per_s * self.bit_length_nm) as f64
    }

    /// Where the sled is after sweeping idle for `elapsed_ms` from `pos` (DiskSim's update on a
    /// request arriving at an idle sled). DiskSim's sweep period is a turnaround at half the
    /// stroke plus `y_length / bit rate × bit length` in integer arithmetic, which is zero, and
    /// it compares that period in seconds with an elapsed time in ms; both are kept so the sled
    /// ends where DiskSim's does (see `docs/mems.md`).
    pub fn idle_sweep(&self, pos: Coord, elapsed_ms: f64) -> Coord {
        if self.physical_sweep {
            return self.physical_idle_sweep(pos, elapsed_ms);
        }
        let sweep = self.layout.sweep_period;
        let leftover = remainder(elapsed_ms, sweep);
        let fraction = leftover / sweep;
        let half = self.y_length_nm / self.bit_length_nm / 2;
        let distance = (fraction * self.y_length_nm as f64) as i32 / self.bit_length_nm;
        let mut out = pos;
        if out.v > 0 {
            out.y += distance;
            if out.y.abs() > half {
                out.y = half - (out.y - half);
                out.v = -out.v;
            }
        } else {
            out.y -= distance;
            if out.y.abs() > half {
                out.y = -half + (out.y.abs() - half);
                out.v = -out.v;
            }
        }
        out
    }
}

impl Sled {
    /// The sled sweeping at the access velocity for `elapsed_ms`, reflecting at the edges of the
    /// stroke (turnarounds taken as instant: 2v/a is 0.06 ms of a 62 ms pass for seed 004's
    /// sled). Unfolded, the motion is a line of period four half-strokes.
    fn physical_idle_sweep(&self, pos: Coord, elapsed_ms: f64) -> Coord {
        let half = (self.y_length_nm / self.bit_length_nm / 2) as i64;
        let period = 4 * half;
        let travelled = (elapsed_ms / 1e3 * self.access_speed_bits_per_s as f64) as i64 % period;
        let unfolded = if pos.v >= 0 { pos.y as i64 + half } else { period - (pos.y as i64 + half) };
        let s = (unfolded + travelled).rem_euclid(period);
        let speed = pos.v.abs();
        if s <= 2 * half {
            Coord { x: pos.x, y: (s - half) as i32, v: speed }
        } else {
            Coord { x: pos.x, y: (period - s - half) as i32, v: -speed }
        }
    }
}

/// A MEMS device's service: the sled plus what surrounds it in DiskSim's model — a command
/// overhead per request that runs while the sled does something else, and a bus that moves one
/// 512-byte sector at a time between the device and the host.
#[derive(Debug, Clone, PartialEq)]
pub struct MemsService {
    pub sled: Sled,
    pub command_overhead_ms: f64,
    pub sector_transfer_ms: f64,
    /// Power of the moving sled (seeking, sweeping, accessing), W.
    pub sled_power_w: f64,
    /// Power of each active tip while it reads or writes, W.
    pub tip_power_w: f64,
    /// `None`: each pass pays for the tips it uses; `Some(n)`: for n tips whatever it uses (seed
    /// 004 charges its probes' 1 W whenever data move).
    pub probes_charged: Option<i32>,
    /// Where a stopped sled waits: the servo start of the centermost LBN, moving up (DiskSim
    /// starts the device inactive there).
    pub rest: Coord,
    /// Seed 004's seek power: this much per axis while that axis moves (X seek and settle, Y
    /// seek and turnarounds), instead of the sled power over the whole positioning.
    pub seek_axis_power_w: Option<f64>,
    /// How the sled is brought to rest when power management stops it; `None`: DiskSim's
    /// instant stop at the centre.
    pub shutdown: Option<Shutdown>,
}

/// A shutdown policy with the sled's axes and the actuators' power.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shutdown {
    pub policy: ShutdownPolicy,
    pub x_axis: SpringAxis,
    pub y_axis: SpringAxis,
    /// Power of one axis's actuator while it pushes (W).
    pub axis_power_w: f64,
}

/// What a shutdown from a given position costs, or what an interrupted one left.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ShutdownCost {
    /// Time from the start of the shutdown until the sled is at rest (s).
    pub time_s: f64,
    /// Actuator energy (J), beyond the power of the mode the device is in.
    pub energy_j: f64,
}

/// What the sled is doing when a request's command overhead ends.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SledStart {
    /// Busy with earlier requests: it takes this one when it finishes them, from where it is.
    Queued,
    /// Idle for `elapsed_ms` since its last access, sweeping in Y all the while.
    Idle { elapsed_ms: f64 },
    /// Stopped: it was re-initialised at the centre and starts up before seeking.
    Stopped,
    /// At rest at this position, where an interrupted shutdown stopped it.
    At(Coord),
}

/// One request's work on the media, served on its own (no bus, no queue).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Served {
    /// How long the sled spent on it, from taking it to leaving the media.
    pub media_ms: f64,
    pub energy_j: f64,
}

impl MemsService {
    /// The sled's and the probes' power while a pass that uses `tips` tips reads or writes (W).
    #[inline(always)]
    pub fn access_power_w(&self, tips: i32) -> f64 {
        self.sled_power_w + self.tip_power_w * self.probes_charged.unwrap_or(tips) as f64
    }

    /// Energy of a positioning (mW × ms).
    #[inline(always)]
    pub(crate) fn seek_energy_mj(&self, seek: &Seek) -> f64 {
        match self.seek_axis_power_w {
            Some(axis_w) => axis_w * (seek.x_ms + seek.y_ms),
            None => self.sled_power_w * seek.total_ms,
        }
    }

    /// A position's offsets from the centre (m).
    pub fn offset_m(&self, c: Coord) -> (f64, f64) {
        let bit = self.sled.bit_length_nm as f64 / 1e9;
        (c.x as f64 * bit, c.y as f64 * bit)
    }

    /// The bit position nearest `(x, y)` (m), keeping the direction of travel `v`.
    fn coord_at(&self, (x_m, y_m): (f64, f64), v: i32) -> Coord {
        let bit = self.sled.bit_length_nm as f64 / 1e9;
        Coord { x: (x_m / bit).round() as i32, y: (y_m / bit).round() as i32, v }
    }

    /// A shutdown from `from` to the centre under the device's shutdown policy, taken from rest
    /// (the idle sweep's 1.6 mm/s is a few per cent of the sled's speed during a shutdown).
    pub fn shutdown_cost(&self, from: Coord) -> Option<ShutdownCost> {
        let (x, y) = self.offset_m(from);
        self.shutdown_cost_m(x, y)
    }

    /// A shutdown from rest at offsets `(x, y)` (m) from the centre.
    pub fn shutdown_cost_m(&self, x_m: f64, y_m: f64) -> Option<ShutdownCost> {
        let sd = self.shutdown.as_ref()?;
        let cost = sled_shutdown(&sd.x_axis, &sd.y_axis, x_m, y_m, sd.policy);
        Some(ShutdownCost { time_s: cost.time_s, energy_j: sd.axis_power_w * cost.powered_s })
    }

    /// A shutdown from `from` interrupted `elapsed_s` after it began: the sled brakes at once.
    /// Returns where it stops, and the cost before the interruption and while braking.
    pub fn interrupt_shutdown(&self, from: Coord, elapsed_s: f64) -> Option<(Coord, ShutdownCost, ShutdownCost)> {
        let sd = self.shutdown.as_ref()?;
        let (x, y) = self.offset_m(from);
        let cut = interrupted_shutdown(&sd.x_axis, &sd.y_axis, x, y, sd.policy, elapsed_s);
        Some((
            self.coord_at(cut.stop_m, from.v),
            ShutdownCost { time_s: elapsed_s, energy_j: sd.axis_power_w * cut.powered_before_s },
            ShutdownCost { time_s: cut.braking_s, energy_j: sd.axis_power_w * cut.powered_braking_s },
        ))
    }

    /// The blocks a request covers: its first 512-byte block and how many (at least one), folded
    /// onto the device when asked (`block mod (capacity − size)`, as traces made for a larger
    /// device are run on a small one).
    pub fn block_range(&self, offset_bytes: f64, size_bytes: f64, fold: bool) -> (i64, i64) {
        let blocks = ceil(size_bytes / 512.0).max(1.0) as i64;
        let first = floor(offset_bytes / 512.0) as i64;
        (if fold { first % (self.sled.blocks() - blocks).max(1) } else { first }, blocks)
    }

    /// Serves `blocks` 512-byte blocks from `lbn` on the media with nothing else going on (the
    /// theoretical minima): DiskSim's schedule → seek → servo → data → update loop, one pass per
    /// row of simultaneously readable blocks ([`Sled::pass_end`]), starting from
    /// `pos`. Under load the device is served event by event instead (`mems_events`).
    pub fn serve(&self, pos: &mut Coord, start: SledStart, lbn: i64, blocks: i64) -> Served {
        let sled = &self.sled;
        match start {
            SledStart::Queued => {}
            SledStart::Idle { elapsed_ms } => *pos = sled.idle_sweep(*pos, elapsed_ms),
            SledStart::Stopped => *pos = self.rest,
            SledStart::At(at) => *pos = at,
        }
        let last = lbn + blocks.max(1) - 1;
        let mut t = 0.0;
        let mut done = lbn - 1;
        let mut energy = 0.0;
        while done < last {
            let first = done + 1;
            let end = sled.pass_end(first, last, None);
            let (up, dn) = sled.position(first);
            let tips = (end - first + 1) as i32 * sled.tip_sectors_per_lbn;
            let (target, seek) = if sled.bidirectional {
                let (seek_up, seek_dn) = sled.seek_both(*pos, up.servo_start, dn.servo_start);
                if seek_up.total_ms < seek_dn.total_ms { (up, seek_up) } else { (dn, seek_dn) }
            } else {
                (up, sled.seek(*pos, up.servo_start))
            };
            t += seek.total_ms;
            energy += self.seek_energy_mj(&seek);
            let servo_ms = sled.media_ms(target.servo_start, target.tipsector_start);
            t += servo_ms;
            let data_ms = sled.media_ms(target.tipsector_start, target.tipsector_end);
            t += data_ms;
            *pos = target.tipsector_end;
            energy += self.access_power_w(tips) * (servo_ms + data_ms);
            done = end;
        }
        // Powers in W times ms: mJ.
        Served { media_ms: t, energy_j: energy / 1000.0 }
    }
}

/// `x mod y` for `x, y > 0` as C's `fmod`. Below a second of idling (a timeout's range) it
/// subtracts the whole periods directly, within a few ulps of `x` (1e-13 ms, nine orders below
/// what moves the sled by one bit); beyond, the exact libm `fmod`, which is ten times slower.
#[inline]
fn remainder(x: f64, y: f64) -> f64 {
    if x < 1000.0 {
        let mut r = x - floor(x / y) * y;
        if r < 0.0 {
            r += y;
        } else if r >= y {
            r -= y;
        }
        r
    } else {
        x % y
    }
}

/// Time (s) to reverse the sled moving at `velocity` at `offset`: stop and return to speed under
/// the actuator, helped by the spring when it pulls against the motion, hurt otherwise. The
/// spring force is `K × actuator force` at the edge (`|offset| = length / 2`).
pub fn turnaround_time_s(offset_nm: f64, velocity_nm_s: f64, accel_nm_s2: f64, spring_factor: f64, length_nm: f64) -> f64 {
    let mut spring = accel_nm_s2 * (spring_factor * (offset_nm.abs() / (length_nm / 2.0)));
    if (offset_nm < 0.0 && velocity_nm_s > 0.0) || (offset_nm > 0.0 && velocity_nm_s < 0.0) {
        spring = -spring;
    }
    // With springs as strong as the actuator (K = 1) the sled can only just be held at the edge
    // and a turnaround there against the spring would never end: floor the net deceleration.
    2.0 * velocity_nm_s.abs() / (accel_nm_s2 + spring).max(accel_nm_s2 * 1e-3)
}

/// DiskSim writes 2π as 6.2831853 (`find_settle_time`); kept so settle times agree to the last
/// digit.
#[allow(clippy::approx_constant)]
const DISKSIM_TWO_PI: f64 = 6.2831853;

const CHUNKS: usize = 8;
const SWITCH: usize = CHUNKS;
const SWITCH_ITERATIONS: usize = 9;
const SHIFT_FRACTION: f64 = 0.05;

/// Distance between two offsets from the centre.
fn distance_nm(start: f64, end: f64) -> f64 {
    if (start > 0.0 && end > 0.0) || (start < 0.0 && end < 0.0) {
        (end - start).abs()
    } else {
        start.abs() + end.abs()
    }
}

/// Whether the actuator pulls toward the centre over `[from, to]` (then the spring helps).
fn pulls_inward(from: f64, to: f64, positive: bool) -> bool {
    if from <= 0.0 && to <= 0.0 {
        positive
    } else if from >= 0.0 && to >= 0.0 {
        !positive
    } else {
        from.abs() > to.abs()
    }
}

/// Mean acceleration over a chunk: actuator plus or minus the spring at its two ends.
fn chunk_accel(accel: f64, spring_factor: f64, from: f64, to: f64, length: f64, positive: bool) -> f64 {
    let k = if pulls_inward(from, to, positive) { spring_factor } else { -spring_factor };
    ((accel + accel * (k * (from.abs() / (length / 2.0)))) + (accel + accel * (k * (to.abs() / (length / 2.0))))) / 2.0
}

/// Seek time (s) of the piecewise-linear model (Griffin et al. 2000; DiskSim
/// `find_seek_time_piecewise`): accelerate to a switch point, decelerate to the target, each
/// phase cut into eight chunks of constant acceleration; the switch point moves until both
/// phases reach it at the same speed. Starts and ends at `velocity` (0 in X).
#[inline]
pub fn piecewise_seek_s(start: f64, end: f64, spring_factor: f64, accel: f64, length: f64, velocity: f64) -> f64 {
    if spring_factor == 0.0 {
        // Without springs every chunk has the actuator's acceleration, and the chunks add up to
        // constant-acceleration kinematics exactly (to rounding): accelerate over half the
        // distance, decelerate over the other half. DiskSim iterates once and stops there too.
        // Inlined, so the seeks to a block's two ends overlap in the pipeline.
        let dist = distance_nm(start, end);
        return 2.0 * ((velocity * velocity + accel * dist).sqrt() - velocity) / accel;
    }
    piecewise_spring_seek_s(start, end, spring_factor, accel, length, velocity)
}

#[inline(never)]
fn piecewise_spring_seek_s(start: f64, end: f64, spring_factor: f64, accel: f64, length: f64, velocity: f64) -> f64 {
    let dist = distance_nm(start, end);
    let positive = end > start;
    let mut x = [0.0f64; 2 * CHUNKS + 1];
    let mut v = [0.0f64; 2 * CHUNKS + 1];
    let mut a = [0.0f64; 2 * CHUNKS + 1];
    let mut t = [0.0f64; 2 * CHUNKS + 1];
    x[0] = start;
    x[SWITCH] = if positive { start + dist / 2.0 } else { start - dist / 2.0 };
    let mut min_diff = 666.0;
    let mut best = 0.0;
    for iteration in 1..SWITCH_ITERATIONS {
        let chunk1 = distance_nm(start, x[SWITCH]) / CHUNKS as f64;
        let chunk2 = distance_nm(x[SWITCH], end) / CHUNKS as f64;
        for i in 1..SWITCH {
            x[i] = if positive { x[i - 1] + chunk1 } else { x[i - 1] - chunk1 };
        }
        for i in SWITCH + 1..=2 * CHUNKS {
            x[i] = if positive { x[i - 1] + chunk2 } else { x[i - 1] - chunk2 };
        }
        for i in 1..=SWITCH {
            a[i] = chunk_accel(accel, spring_factor, x[i - 1], x[i], length, positive);
        }
        for i in SWITCH + 1..=2 * CHUNKS {
            a[i] = chunk_accel(accel, spring_factor, x[i - 1], x[i], length, !positive);
        }
        t[0] = 0.0;
        v[0] = velocity;
        for i in 1..=SWITCH {
            t[i] = (-(v[i - 1] - a[i] * t[i - 1]) + (v[i - 1] * v[i - 1] + (2.0 * a[i]) * (x[i] - x[i - 1]).abs()).sqrt()) / a[i];
            v[i] = v[i - 1] + a[i] * (t[i] - t[i - 1]);
        }
        let mut total = t[SWITCH];
        let v_switch = v[SWITCH];
        t[2 * CHUNKS] = 0.0;
        v[2 * CHUNKS] = velocity;
        for i in (SWITCH..2 * CHUNKS).rev() {
            t[i] = (-(v[i + 1] - a[i] * t[i + 1]) + (v[i + 1] * v[i + 1] + (2.0 * a[i]) * (x[i + 1] - x[i]).abs()).sqrt()) / a[i];
            v[i] = v[i + 1] + a[i] * (t[i] - t[i + 1]);
        }
        total += t[SWITCH];
        let diff = (v_switch / v[SWITCH]) * 100.0 - 100.0;
        if spring_factor == 0.0 {
            best = total;
            break;
        }
        let mut delta = SHIFT_FRACTION - 1.0 / ((SWITCH_ITERATIONS - iteration) as f64 * 100.0);
        if v_switch > v[SWITCH] {
            if positive {
                delta = -delta;
            }
        } else if !positive {
            delta = -delta;
        }
        x[SWITCH] += delta * dist;
        x[0] = start;
        if diff.abs() < min_diff {
            min_diff = diff.abs();
            best = total;
        }
    }
    best.abs()
}

/// Hong's closed form for an X seek (s), at rest at both ends, with a linear spring of stiffness
/// `k` where `k/F = K/l` (DiskSim's convention, `l` the full stroke). Without springs the limit is
/// bang-bang: `2·sqrt(d/a)` (DiskSim returns 0 there; this does not copy that).
pub fn hong_seek_x_s(start_nm: f64, end_nm: f64, spring_factor: f64, accel_nm_s2: f64, length_nm: f64) -> f64 {
    let x0 = start_nm.min(end_nm) / 1e9;
    let x1 = start_nm.max(end_nm) / 1e9;
    let a = accel_nm_s2 / 1e9;
    if spring_factor == 0.0 {
        return 2.0 * ((x1 - x0) / a).sqrt();
    }
    let l = length_nm / 1e9;
    let xm = hong_switch_point(x0, x1, spring_factor, l);
    let mk = l / (spring_factor * a);
    let am = a * mk;
    mk.sqrt() * (((xm - am) / (x0 - am)).clamp(-1.0, 1.0).acos() + ((xm + am) / (x1 + am)).clamp(-1.0, 1.0).acos())
}

/// Hong's closed form for a Y seek (s), starting and ending at the access velocity. Without
/// springs: constant acceleration to the midpoint and back, `2·(sqrt(v² + a·d) − v)/a`.
pub fn hong_seek_y_s(start_nm: f64, end_nm: f64, spring_factor: f64, accel_nm_s2: f64, length_nm: f64, velocity_nm_s: f64) -> f64 {
    let y0 = start_nm.min(end_nm) / 1e9;
    let y1 = start_nm.max(end_nm) / 1e9;
    let a = accel_nm_s2 / 1e9;
    let v = velocity_nm_s / 1e9;
    if spring_factor == 0.0 {
        return 2.0 * ((v * v + a * (y1 - y0)).sqrt() - v) / a;
    }
    let l = length_nm / 1e9;
    let ym = hong_switch_point(y0, y1, spring_factor, l);
    let mk = l / (spring_factor * a);
    let s = mk.sqrt();
    let am = a * mk;
    let r0 = ((y0 - am) * (y0 - am) + (v * s) * (v * s)).sqrt();
    let r1 = ((y1 + am) * (y1 + am) + (v * s) * (v * s)).sqrt();
    let asin = |z: f64| z.clamp(-1.0, 1.0).asin();
    s * (asin((ym - am) / r0) - asin((y0 - am) / r0) + asin((y1 + am) / r1) - asin((ym + am) / r1))
}

/// The switch point of a rest-to-rest spring seek, from the energy balance.
fn hong_switch_point(x0: f64, x1: f64, spring_factor: f64, length: f64) -> f64 {
    (x0 + x1) / 2.0 + (spring_factor / length / 4.0) * (x1 * x1 - x0 * x0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DiskSim's G2 (valid/memsdevices.specs) with the spring factor of its validation runs.
    pub fn g2(spring_factor: f64) -> Sled {
        Sled {
            x_length_nm: 100_000,
            y_length_nm: 100_000,
            bit_length_nm: 40,
            tip_sector_length_bits: 80,
            servo_burst_length_bits: 10,
            tip_sectors_per_lbn: 64,
            tips_usable: 6400,
            tips_simultaneous: 1280,
            bidirectional: true,
            x_accel_nm_s2: 803.6 * 1e9,
            y_accel_nm_s2: 803.6 * 1e9,
            access_speed_bits_per_s: 700_000,
            resonant_frequency_hz: 739,
            settle_time_constants: 1.0,
            spring_factor,
            spring_convention: SpringConvention::DiskSim,
            seek_model: SeekModel::Piecewise,
            physical_sweep: false,
            layout: Layout::default(),
        }
        .prepared()
    }

    #[test]
    fn g2_layout_has_disksims_capacity() {
        let s = g2(0.0);
        assert_eq!((s.rows_per_column(), s.columns_per_cylinder(), s.cells_per_row()), (27, 5, 20));
        assert_eq!(s.blocks(), 6_750_000);
        // Block 0: cylinder 0 (x = −1250 bits), row 0 (y = −1220 after the centring shift).
        let (up, dn) = s.position(0);
        assert_eq!(up.servo_start, Coord { x: -1250, y: -1220, v: 28_000_000 });
        assert_eq!(up.tipsector_end.y - up.tipsector_start.y, 80);
        assert_eq!(dn.servo_start.y, up.tipsector_end.y + 10);
        // Column 1 runs backwards: block 540 is in its last row.
        assert_eq!(s.position(540).0.servo_start.y, -1220 + 26 * 90);
    }

    #[test]
    fn constant_acceleration_seeks_match_the_closed_forms() {
        // Without springs each chunk is exact: X rest to rest over d takes 2·sqrt(d/a);
        // Y from v to v takes 2·(sqrt(v² + a·d) − v)/a.
        let a = 803.6e9;
        let full = piecewise_seek_s(-50_000.0, 50_000.0, 0.0, a, 100_000.0, 0.0);
        assert!((full - 2.0 * (100_000.0f64 / a).sqrt()).abs() < 1e-12, "{full}");
        let half = piecewise_seek_s(0.0, 50_000.0, 0.0, a, 100_000.0, 0.0);
        assert!((half - 2.0 * (50_000.0f64 / a).sqrt()).abs() < 1e-12);
        let v = 28e6;
        let y = piecewise_seek_s(-50_000.0, 50_000.0, 0.0, a, 100_000.0, v);
        assert!((y - 2.0 * ((v * v + a * 100_000.0f64).sqrt() - v) / a).abs() < 1e-12);
        assert!((hong_seek_x_s(-50_000.0, 50_000.0, 0.0, a, 100_000.0) - full).abs() < 1e-12);
        assert!((hong_seek_y_s(-50_000.0, 50_000.0, 0.0, a, 100_000.0, v) - y).abs() < 1e-12);
        // 0.7056 ms full stroke without springs (ALGORITHMS.md 6.4's "No spring" column).
        assert!((full * 1e3 - 0.7056).abs() < 1e-4);
    }

    #[test]
    fn hong_spring_seeks_match_the_reference_table() {
        // ALGORITHMS.md 6.4, G2 with K = 0.75 in DiskSim's Hong convention: full stroke 0.616 ms,
        // centre to edge 0.471 ms, +25 → +50 µm 0.352 ms; Y −50 → +50 µm 0.567 ms.
        let a = 803.6e9;
        let t = |x0, x1| hong_seek_x_s(x0, x1, 0.75, a, 100_000.0) * 1e3;
        assert!((t(-50_000.0, 50_000.0) - 0.616).abs() < 5e-4, "{}", t(-50_000.0, 50_000.0));
        assert!((t(0.0, 50_000.0) - 0.471).abs() < 5e-4);
        assert!((t(25_000.0, 50_000.0) - 0.352).abs() < 5e-4);
        let y = hong_seek_y_s(-50_000.0, 50_000.0, 0.75, a, 100_000.0, 28e6) * 1e3;
        assert!((y - 0.567).abs() < 5e-4, "{y}");
    }

    #[test]
    fn piecewise_spring_seeks_approach_the_edge_force_column() {
        // The piecewise model puts the spring force K·F at the edge; ALGORITHMS.md 6.4 integrated
        // that physics numerically for G2, K = 0.75: full stroke 0.555 ms, centre to edge
        // 0.458 ms (the spring brakes the outward seek), +25 → +50 µm 0.380 ms (it fights both
        // phases there). Eight chunks and nine switch-point iterations land within 2 %.
        let a = 803.6e9;
        let t = |x0, x1| piecewise_seek_s(x0, x1, 0.75, a, 100_000.0, 0.0) * 1e3;
        for (x0, x1, want) in [(-50_000.0, 50_000.0, 0.555), (0.0, 50_000.0, 0.458), (25_000.0, 50_000.0, 0.380)] {
            let got = t(x0, x1);
            assert!((got / want - 1.0).abs() < 0.02, "{x0} -> {x1}: {got} ms, want {want}");
        }
        // Toward the centre from the edge the spring helps the start: faster than without it.
        assert!(t(50_000.0, 0.0) < piecewise_seek_s(50_000.0, 0.0, 0.0, a, 100_000.0, 0.0) * 1e3);
    }

    #[test]
    fn turnarounds_at_centre_and_edge() {
        // ALGORITHMS.md 6.5, G2 K = 0.75: 0.070 ms at the centre; at the edge 0.040 ms when the
        // spring helps (moving outward), 0.279 ms when it hurts.
        let a = 803.6e9;
        let v = 28e6;
        assert!((turnaround_time_s(0.0, v, a, 0.75, 100_000.0) * 1e3 - 0.0697).abs() < 1e-4);
        assert!((turnaround_time_s(50_000.0, v, a, 0.75, 100_000.0) * 1e3 - 0.0398).abs() < 1e-4);
        assert!((turnaround_time_s(-50_000.0, v, a, 0.75, 100_000.0) * 1e3 - 0.2788).abs() < 1e-3);
        // Without springs a turnaround is 2v/a everywhere.
        assert_eq!(turnaround_time_s(37_000.0, v, a, 0.0, 100_000.0), 2.0 * v / a);
    }

    #[test]
    fn seek_cases_count_their_turnarounds() {
        let s = g2(0.0);
        let v = s.access_velocity_nm_s();
        let c = |y, v| Coord { x: 0, y, v };
        // Moving up to a point above, same direction: no turnaround, no X seek.
        let plain = s.seek(c(0, v), c(100, v));
        assert_eq!((plain.turnarounds, plain.x_ms), (0, 0.0));
        // Moving up to a point below, then up again: turn, seek, turn.
        assert_eq!(s.seek(c(100, v), c(0, v)).turnarounds, 2);
        assert_eq!(s.seek(c(0, v), c(100, -v)).turnarounds, 1);
        assert_eq!(s.seek(c(100, -v), c(0, -v)).turnarounds, 0);
        // An X move adds the settle time 1/(2π·739) = 0.2154 ms.
        let x = s.seek(Coord { x: 0, y: 0, v }, Coord { x: 1, y: 0, v });
        assert!((x.x_ms - (2.0 * (40.0f64 / 803.6e9).sqrt() + s.settle_time_s()) * 1e3).abs() < 1e-12);
        assert!((s.settle_time_s() * 1e3 - 0.21537).abs() < 1e-5);
    }

    #[test]
    fn physical_sweep_travels_at_the_access_velocity_and_reflects() {
        let mut sled = g2(0.0);
        sled.physical_sweep = true;
        // G2: 700 kbit/s, half stroke 1250 bits: 1250 bits take 1250/700000 s = 1.7857 ms.
        let v = sled.access_velocity_nm_s();
        let start = Coord { x: 7, y: 0, v };
        assert_eq!(sled.idle_sweep(start, 1250.0 / 700.0), Coord { x: 7, y: 1250, v });
        // 100 bits past the upper edge: reflected, moving down.
        assert_eq!(sled.idle_sweep(start, 1350.0 / 700.0), Coord { x: 7, y: 1150, v: -v });
        // A full period (four half-strokes) comes back to the start.
        assert_eq!(sled.idle_sweep(start, 5000.0 / 700.0 + 1e-9), start);
        let down = Coord { x: 0, y: -1200, v: -v };
        assert_eq!(sled.idle_sweep(down, 100.0 / 700.0 + 1e-9), Coord { x: 0, y: -1200, v });
    }

    #[test]
    fn idle_sweep_reflects_at_the_edges() {
        let s = g2(0.0);
        let v = s.access_velocity_nm_s();
        let period_s = 2.0 * v as f64 / s.x_accel_nm_s2;
        // Half a period: half the stroke (1250 bits) forward.
        let p = s.idle_sweep(Coord { x: 0, y: 0, v }, period_s * 0.5);
        assert_eq!((p.y, p.v), (1250, v));
        // From near the top edge the sled comes back down.
        let q = s.idle_sweep(Coord { x: 0, y: 1000, v }, period_s * 0.5);
        assert_eq!((q.y, q.v), (1250 - 1000, -v));
        // Whole periods leave it where it was.
        assert_eq!(s.idle_sweep(Coord { x: 3, y: 17, v: -v }, period_s * 4.0).y, 17);
    }
}
