//! The OS power manager of seed 000 (§4.1, Figure 5): the one place applications ask about the
//! devices of a simulated system — their modes, the cost of changing modes, the mode each is in
//! now — and register to be called back when a device enters a mode. Device "drivers" (the
//! simulated devices) report mode changes through `notify`.

use std::sync::Arc;

use crate::device::{Device, READY};
use crate::device_sim::{DeviceSim, DeviceState};
use crate::metrics::RunResult;

/// A registered device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DeviceHandle(pub usize);

/// What `QueryModeInfo` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct ModeInfo {
    pub name: String,
    pub power_w: f64,
    /// Whether the device can read or write data in this mode.
    pub serves: bool,
}

/// What `QueryTransitionCost` returns.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransitionCost {
    pub time_s: f64,
    pub energy_j: f64,
}

/// Predicted cost of an access: how long until the requester has its data, and the energy it
/// takes (the device's, plus the platform's base power over the wait).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    pub time_s: f64,
    pub energy_j: f64,
}

/// Seed 000's second question to the power manager: what reading `requests` (bytes each, served
/// in turn) from `device` would cost at `t`, with the device in `state` there: waiting out a
/// busy server or a transition, waking from a mode that does not serve, and the service itself
/// (in a low-power mode that serves, at its cost). The energy-aware cache weighs sources with it;
/// a live manager answers applications with it (`idlewise manage status`).
pub fn access_estimate(device: &Device, state: DeviceState, t: f64, requests: &[f64], base_power_w: f64) -> Estimate {
    let (wait_s, wait_j, serve_mode) = match state {
        DeviceState::Busy { until_s } => (until_s - t, 0.0, READY),
        DeviceState::Mode { mode } if mode == READY || device.modes[mode].serves => (0.0, 0.0, mode),
        DeviceState::Mode { mode } => {
            let up = device.up_route(mode);
            (up.time_s, up.energy_j, READY)
        }
        DeviceState::Transition { to, end_s, .. } => {
            let (time, energy) = if to == READY || device.modes[to].serves {
                (0.0, 0.0)
            } else {
                let up = device.up_route(to);
                (up.time_s, up.energy_j)
            };
            (end_s - t + time, energy, if device.modes[to].serves { to } else { READY })
        }
    };
    let (mut time, mut energy) = (0.0, 0.0);
    for &size_bytes in requests {
        let (dt, de) = if serve_mode == READY {
            device.service(size_bytes, false, 0.0, 0.0)
        } else {
            let served = device.service_in_mode(serve_mode, t + wait_s + time, size_bytes, false);
            (served.time_s, served.energy_j)
        };
        time += dt;
        energy += de;
    }
    let time_s = wait_s + time;
    Estimate { time_s, energy_j: wait_j + energy + base_power_w * time_s }
}

#[derive(Default)]
pub struct PowerManager<'p> {
    devices: Vec<Option<DeviceSim<'p>>>,
    callbacks: Vec<(DeviceHandle, usize)>,
}

impl<'p> PowerManager<'p> {
    /// `RegisterDevice`: a driver discloses its device (modes and transition costs come with it).
    pub fn register_device(&mut self, sim: DeviceSim<'p>) -> DeviceHandle {
        self.devices.push(Some(sim));
        DeviceHandle(self.devices.len() - 1)
    }

    /// `DeregisterDevice`: the device leaves the system; its account up to `end_s` is returned.
    pub fn deregister_device(&mut self, handle: DeviceHandle, end_s: f64) -> Option<RunResult> {
        self.callbacks.retain(|(h, _)| *h != handle);
        self.devices.get_mut(handle.0)?.take().map(|sim| sim.finish(end_s))
    }

    pub fn sim(&mut self, handle: DeviceHandle) -> &mut DeviceSim<'p> {
        self.devices[handle.0].as_mut().expect("device is registered")
    }

    pub fn device(&self, handle: DeviceHandle) -> Arc<Device> {
        Arc::clone(self.devices[handle.0].as_ref().expect("device is registered").device())
    }

    pub fn is_registered(&self, handle: DeviceHandle) -> bool {
        self.devices.get(handle.0).is_some_and(Option::is_some)
    }

    /// `QueryNumModes`.
    pub fn query_num_modes(&self, handle: DeviceHandle) -> usize {
        self.device(handle).mode_count()
    }

    /// `QueryModeInfo`.
    pub fn query_mode_info(&self, handle: DeviceHandle, mode: usize) -> ModeInfo {
        let device = self.device(handle);
        let m = &device.modes[mode];
        ModeInfo { name: m.name.clone(), power_w: m.power_w, serves: m.serves }
    }

    /// `QueryTransitionCost`: the route a policy's move takes between two modes (direct if any).
    pub fn query_transition_cost(&self, handle: DeviceHandle, from: usize, to: usize) -> Option<TransitionCost> {
        if from == to {
            return Some(TransitionCost { time_s: 0.0, energy_j: 0.0 });
        }
        self.device(handle).route(from, to).map(|r| TransitionCost { time_s: r.time_s, energy_j: r.energy_j })
    }

    /// `QueryCurrentMode` at time `t`.
    pub fn query_current_mode(&mut self, handle: DeviceHandle, t: f64) -> DeviceState {
        self.sim(handle).state_at(t)
    }

    /// `RegisterCallback`: be told when the device next enters `mode`.
    pub fn register_callback(&mut self, handle: DeviceHandle, mode: usize) {
        if !self.callbacks.contains(&(handle, mode)) {
            self.callbacks.push((handle, mode));
        }
    }

    /// `Notify`: the device entered `mode`. Returns whether a callback was waiting for it (each
    /// callback fires once).
    pub fn notify(&mut self, handle: DeviceHandle, mode: usize) -> bool {
        let before = self.callbacks.len();
        self.callbacks.retain(|&(h, m)| !(h == handle && m == mode));
        self.callbacks.len() != before
    }
}
