//! The service model: what a request costs in the ready mode (overhead, bandwidth, a seek
//! curve, a MEMS sled, an 802.11 link's transfers) and in a mode that serves at low power.

use super::*;

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


impl Device {
    /// A TCP transfer of one request over the card's link, starting at `start_s`, each downlink
    /// packet reaching the card at `deliver(t)`.
    pub(super) fn transfer(&self, tcp: &TcpLink, start_s: f64, size_bytes: f64, is_write: bool, deliver: impl Fn(f64) -> f64) -> Transfer {
        let s = &self.service;
        if is_write {
            tcp.upload(start_s, size_bytes, s.write_bandwidth_bytes_per_s, deliver)
        } else {
            tcp.download(start_s, size_bytes, s.read_bandwidth_bytes_per_s, s.write_bandwidth_bytes_per_s, deliver)
        }
    }

    /// Energy of a transfer made in `mode`: receiving and transmitting at the read and write
    /// powers, waiting (round trips, beacons) at the mode's power.
    pub(super) fn transfer_energy_j(&self, mode: usize, time_s: f64, t: &Transfer) -> f64 {
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
    pub(super) fn ready_services_from<'t>(&'t self, trace: &'t TraceView, head_bytes: &'t mut f64) -> impl Iterator<Item = (f64, f64)> + 't {
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
    pub(super) fn service_with_mechanics(&self, size_bytes: f64, is_write: bool, offset_bytes: f64, head_bytes: f64) -> (f64, f64) {
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
}
