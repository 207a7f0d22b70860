//! A MEMS device behind DiskSim 4.0's host path, event by event, so that under load (deep
//! queues, large requests, reads and writes interleaved) its requests complete when DiskSim's do.
//!
//! The topology is DiskSim's validation set-up for the CMU models: a stand-alone driver, a
//! pass-through controller and the device on one bus, all delays zero except the device's own
//! (command overhead, sled motion, 5.12 µs a sector on the bus). What decides a response there is
//! who holds the bus and when, and DiskSim settles that with events at equal times, so this model
//! keeps DiskSim's events and their order: an event queue ordered by time and then by the order
//! events were added (`addtointq` inserts after every event of the same time), and one handler per
//! DiskSim handler, named after it:
//!
//! - a request crosses the controller to the device only when the bus is free, and the device
//!   then holds the bus (`mems_io_access_arrive`) until the driver acknowledges a disconnect or a
//!   completion (`mems_io_interrupt_complete`); a waiting owner gets it in FIFO order
//!   (`bus_ownership_release`);
//! - a write keeps the bus after its command overhead and streams its sectors; a read lets the bus
//!   go (unless a transfer holds it) and asks for it again after each pass over the media, giving
//!   it up when it has sent what the media has read (`mems_bus_update`); transfers waiting for the
//!   bus go in turn, the next one reconnecting 1e-6 ms after the last sector;
//! - every interrupt to the host (disconnect, reconnect, completion) needs the bus: at once if
//!   the device holds it, else after the owners queued before it;
//! - the sled serves its queue in FCFS order, one pass per row of blocks, a write only over
//!   blocks already across the bus (`mems_sled_schedule` ... `mems_sled_update`); a write completes
//!   0.001 ms after its last pass, a read when its last sector is across.
//!
//! Power management is not DiskSim's timer but the device's policy: when a request reaches an
//! idle sled, the host (`MemsHost`) says how the sled starts (from its idle sweep, from rest after
//! a start-up, or where an interrupted shutdown left it).

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};

use super::mems::{Coord, CoordSet, MemsService, SledStart};

/// A write completes this long after its last pass (`mems_sled_update`: SCHLOS's "hack to make
/// the write requests not complete simultaneously").
pub const WRITE_COMPLETION_MS: f64 = 0.001;
/// A transfer that waited for the bus reconnects, and the device lets the bus go, this long after
/// the last sector (`mems_bus_update`: "to ensure the RECONNECT or DISCONNECT interrupts occur
/// after the COMPLETION").
pub const BUS_HANDOFF_MS: f64 = 0.000001;

/// What the device tells the one who drives it: power management, and the account.
pub trait MemsHost {
    /// A request's command overhead ended at `notice_ms` and it joins the sled's queue.
    /// `idle` is when the sled fell idle and where it was then, if it is idle now (`None`: busy,
    /// or starting). For an idle sled, returns how it starts and when it takes the request.
    fn noticed(&mut self, incoming: &Incoming, notice_ms: f64, idle: Option<(f64, Coord)>) -> Option<(SledStart, f64)>;
    /// The sled found nothing left to do at `at_ms`.
    fn sled_idle(&mut self, at_ms: f64);
    /// The sled served a request from `start_ms` to `end_ms` with `energy_j`; it had been idle
    /// for `idle_before_ms` when it took it (0 when it came from the queue).
    fn served(&mut self, served: &ServedRequest);
    /// The driver received a request's completion at `at_ms`.
    fn completed(&mut self, slot: usize, measured_from_ms: f64, at_ms: f64);
}

#[derive(Debug, Clone, Copy)]
pub struct ServedRequest {
    pub slot: usize,
    pub start_ms: f64,
    pub end_ms: f64,
    pub energy_j: f64,
    pub idle_before_ms: f64,
    pub lbn: i64,
    pub blocks: i64,
    pub is_write: bool,
}

/// A request to queue: where its response is measured from and what it moves.
#[derive(Debug, Clone, Copy)]
pub struct Incoming {
    pub slot: usize,
    pub arrival_s: f64,
    pub measured_from_ms: f64,
    pub lbn: i64,
    pub blocks: i64,
    pub is_write: bool,
}

/// Why the device interrupts the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Cause {
    Disconnect,
    Reconnect,
    Completion,
}

/// How long an interrupt takes to reach the controller once the device has the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Delay {
    None,
    /// `BUS_HANDOFF_MS`.
    Handoff,
    /// `WRITE_COMPLETION_MS`.
    WriteCompletion,
}

impl Delay {
    #[inline]
    fn ms(self) -> f64 {
        match self {
            Delay::None => 0.0,
            Delay::Handoff => BUS_HANDOFF_MS,
            Delay::WriteCompletion => WRITE_COMPLETION_MS,
        }
    }
}

/// What happens: one DiskSim event each, flat, so that one jump picks its handler (a kind
/// nested in a kind took three, most of them mispredicted).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
enum Step {
    /// No event: what a handler returns when it has nothing to hand on at once.
    Nothing,
    /// BUS_OWNERSHIP_GRANTED to the controller, for a request going down.
    GrantedToController,
    /// BUS_OWNERSHIP_GRANTED to the device, for an interrupt going up, which then takes its delay.
    GrantedToDevice,
    /// The controller's BUS_DELAY_COMPLETE downwards: the request reaches the device.
    AccessAtDevice,
    /// The same for the driver's acknowledgement of an interrupt.
    AcknowledgeAtDevice,
    /// The device's BUS_DELAY_COMPLETE: an interrupt reaches the controller.
    InterruptAtController,
    /// The controller's BUS_DELAY_COMPLETE upwards: the interrupt is raised at the driver.
    InterruptAtDriver,
    /// INTR_EVENT: the driver takes the interrupt.
    InterruptTaken,
    /// IO_INTERRUPT_COMPLETE: the driver handles it and acknowledges.
    InterruptComplete,
    OverheadComplete,
    SledSchedule,
    SledSeek,
    SledServo,
    SledData,
    SledUpdate,
    BusInitiate,
    BusTransfer,
    BusUpdate,
}

impl Step {
    #[inline(always)]
    fn of(self, id: u64) -> Event {
        Event::new(self, id, Cause::Disconnect, Delay::None)
    }

    #[inline(always)]
    fn is_sled(self) -> bool {
        (Step::SledSchedule as u8..=Step::SledUpdate as u8).contains(&(self as u8))
    }
}

/// What happens, to request `id` (the sled's events: to whichever it serves), and for an
/// interrupt why and with what delay, packed in a second word: the queue moves many events, and
/// a seven-byte kind was copied in overlapping pieces, which stalled the store buffer on nearly
/// every event (a third of the run time).
#[derive(Debug, Clone, Copy)]
struct Event {
    id: u64,
    /// Byte 0: the step; byte 1: the cause; byte 2: the delay.
    code: u64,
}

impl Event {
    #[inline(always)]
    const fn new(step: Step, id: u64, cause: Cause, delay: Delay) -> Event {
        Event { id, code: step as u64 | (cause as u64) << 8 | (delay as u64) << 16 }
    }

    #[inline(always)]
    fn interrupt(step: Step, id: u64, cause: Cause) -> Event {
        Event::new(step, id, cause, Delay::None)
    }

    /// The step back from its byte: the same numbers in the same order, so this compiles to no
    /// work.
    #[inline(always)]
    fn step(self) -> Step {
        use Step::*;
        match self.code as u8 {
            0 => Nothing,
            1 => GrantedToController,
            2 => GrantedToDevice,
            3 => AccessAtDevice,
            4 => AcknowledgeAtDevice,
            5 => InterruptAtController,
            6 => InterruptAtDriver,
            7 => InterruptTaken,
            8 => InterruptComplete,
            9 => OverheadComplete,
            10 => SledSchedule,
            11 => SledSeek,
            12 => SledServo,
            13 => SledData,
            14 => SledUpdate,
            15 => BusInitiate,
            16 => BusTransfer,
            _ => BusUpdate,
        }
    }

    #[inline(always)]
    fn cause(self) -> Cause {
        match (self.code >> 8) as u8 {
            0 => Cause::Disconnect,
            1 => Cause::Reconnect,
            _ => Cause::Completion,
        }
    }

    #[inline(always)]
    fn delay(self) -> Delay {
        match (self.code >> 16) as u8 {
            0 => Delay::None,
            1 => Delay::Handoff,
            _ => Delay::WriteCompletion,
        }
    }
}

const NOTHING: Event = Event::new(Step::Nothing, 0, Cause::Disconnect, Delay::None);

#[derive(Debug, Clone, Copy)]
struct Scheduled {
    time_ms: f64,
    seq: u64,
    event: Event,
}

impl Scheduled {
    #[inline]
    fn before(&self, time_ms: f64, seq: u64) -> bool {
        self.time_ms < time_ms || (self.time_ms == time_ms && self.seq < seq)
    }
}

impl PartialEq for Scheduled {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Scheduled {}
impl PartialOrd for Scheduled {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Scheduled {
    /// Reversed, for a min-heap on (time, order added).
    fn cmp(&self, other: &Self) -> Ordering {
        other.time_ms.total_cmp(&self.time_ms).then(other.seq.cmp(&self.seq))
    }
}

/// DiskSim's event queue, ordered by time and then by the order events were added, kept in four
/// places for speed (about 42 events a request): events for the present time in a FIFO (most
/// are: the hops of an interrupt), the sled's one chain of events and the one bus transfer's in
/// a slot each, the rest in a heap. The order they come out in is the single queue's.
#[derive(Debug, Clone)]
struct EventQueue {
    seq: u64,
    now_ms: f64,
    present: VecDeque<Scheduled>,
    later: BinaryHeap<Scheduled>,
    sled: Option<Scheduled>,
    transfer: Option<Scheduled>,
    /// The earliest time in `later`, `sled` and `transfer` (infinite when they are empty): most
    /// handlers ask whether anything is due by a time, and one comparison answers it.
    horizon_ms: f64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            seq: 0,
            now_ms: 0.0,
            present: VecDeque::new(),
            later: BinaryHeap::new(),
            sled: None,
            transfer: None,
            horizon_ms: f64::INFINITY,
        }
    }
}

#[derive(Clone, Copy)]
enum Source {
    Present,
    Later,
    Sled,
    Transfer,
}

impl EventQueue {
    /// The next order number (an arrival reserves one when the previous arrival is taken).
    #[inline]
    fn reserve(&mut self) -> u64 {
        self.seq += 1;
        self.seq - 1
    }

    #[inline(always)]
    fn push(&mut self, time_ms: f64, event: Event) {
        let next = Scheduled { time_ms, seq: self.reserve(), event };
        match event.step() {
            step if step.is_sled() => {
                debug_assert!(self.sled.is_none(), "the sled has one event at a time");
                self.sled = Some(next);
                self.horizon_ms = self.horizon_ms.min(time_ms);
            }
            Step::BusTransfer | Step::BusUpdate => {
                debug_assert!(self.transfer.is_none(), "one transfer has the bus at a time");
                self.transfer = Some(next);
                self.horizon_ms = self.horizon_ms.min(time_ms);
            }
            _ if time_ms == self.now_ms => self.present.push_back(next),
            _ => {
                self.later.push(next);
                self.horizon_ms = self.horizon_ms.min(time_ms);
            }
        }
    }

    /// Whether nothing is queued for `at_ms` or before.
    #[inline(always)]
    fn clear_until(&self, at_ms: f64) -> bool {
        self.present.is_empty() && self.horizon_ms > at_ms
    }

    fn update_horizon(&mut self) {
        let time = |e: Option<&Scheduled>| e.map_or(f64::INFINITY, |e| e.time_ms);
        self.horizon_ms = time(self.later.peek()).min(time(self.sled.as_ref())).min(time(self.transfer.as_ref()));
    }

    /// Where the first event is, if it comes before `(time_ms, seq)`.
    #[inline(always)]
    fn first_before(&self, time_ms: f64, seq: u64) -> Option<Source> {
        let mut best: Option<(Source, f64, u64)> = None;
        let mut consider = |source: Source, e: Option<&Scheduled>| {
            if let Some(e) = e {
                if best.is_none_or(|(_, t, q)| e.before(t, q)) {
                    best = Some((source, e.time_ms, e.seq));
                }
            }
        };
        consider(Source::Present, self.present.front());
        consider(Source::Sled, self.sled.as_ref());
        consider(Source::Transfer, self.transfer.as_ref());
        consider(Source::Later, self.later.peek());
        best.filter(|&(_, t, q)| t < time_ms || (t == time_ms && q < seq)).map(|(source, ..)| source)
    }

    /// Takes the first event if it comes before `(time_ms, seq)`.
    #[inline(always)]
    fn pop_before(&mut self, time_ms: f64, seq: u64) -> Option<Scheduled> {
        if let Some(front) = self.present.front() {
            // Events for the present time wait in the FIFO, and nothing elsewhere is due as soon:
            // the front is first (most pops).
            if self.horizon_ms > front.time_ms {
                return if front.before(time_ms, seq) { self.present.pop_front() } else { None };
            }
        } else if self.horizon_ms > time_ms {
            return None; // nothing is due before the limit (the next arrival, mostly)
        }
        let next = match self.first_before(time_ms, seq)? {
            Source::Present => self.present.pop_front(),
            source => {
                let next = match source {
                    Source::Later => self.later.pop(),
                    Source::Sled => self.sled.take(),
                    _ => self.transfer.take(),
                };
                self.update_horizon();
                next
            }
        }?;
        self.now_ms = next.time_ms;
        Some(next)
    }
}

/// One request's progress (DiskSim's `mems_reqinfo` with its one extent). Block counters are
/// DiskSim's: the last block done, −1 before the first.
#[derive(Debug, Clone, Copy)]
struct Request {
    incoming: Incoming,
    last: i64,
    media_done_to: i64,
    bus_done_to: i64,
    next_start: i64,
    next_end: i64,
    media_done: bool,
    bus_done: bool,
    bus_pending: bool,
    complete: bool,
    start_ms: f64,
    idle_before_ms: f64,
    energy_mj: f64,
}

#[derive(Debug, Clone, Default)]
struct Bus {
    owned: bool,
    /// Owners waiting, FIFO (`bus_fifo_arbitration`).
    waiting: VecDeque<Event>,
}

/// The device and the path to it, with the events not yet handled.
#[derive(Debug, Clone)]
pub struct MemsEvents {
    queue: EventQueue,
    /// Events are handled up to the next arrival, which comes at this time.
    limit_ms: f64,
    /// The order the next arrival takes among events of its time: DiskSim reads the next trace
    /// request when it takes the current one from its queue.
    arrival_seq: u64,
    /// Requests not yet completed, by id from `first_id`.
    requests: VecDeque<Request>,
    first_id: u64,
    bus: Bus,
    /// The device holds the bus (`dev->busowned`).
    device_owns_bus: bool,
    /// The transfer that has the bus, and those waiting for it (`dataxfer_req`, `dataxfer_queue`).
    transferring: Option<u64>,
    transfers_waiting: VecDeque<u64>,
    // The sled.
    pub pos: Coord,
    sled_running: bool,
    idle_since_ms: f64,
    sled_queue: VecDeque<u64>,
    active: Option<u64>,
    up: CoordSet,
    dn: CoordSet,
    target: CoordSet,
    tips: i32,
    /// The request that completed last, and when.
    last_completion: Option<(u64, f64)>,
}

/// A handler's last event, for `$at`, that is always handled by `$handle`: the handler is
/// called at once when the event is next (`take_next`), else the event is queued. A macro, not a
/// function taking a closure: written as a closure the loop ran 5–10 % slower.
macro_rules! then_call {
    ($self:ident, $at:expr, $event:expr, $handle:expr) => {{
        let at_ms = $at;
        if $self.take_next(at_ms) {
            $handle
        } else {
            $self.push(at_ms, $event);
            NOTHING
        }
    }};
}

impl MemsEvents {
    /// A device whose sled is at `pos`, idle since `start_ms` (the host says in what mode).
    pub fn new(pos: Coord, start_ms: f64) -> Self {
        MemsEvents {
            queue: EventQueue { now_ms: start_ms, ..EventQueue::default() },
            limit_ms: f64::INFINITY,
            arrival_seq: 0,
            requests: VecDeque::new(),
            first_id: 0,
            bus: Bus::default(),
            device_owns_bus: false,
            transferring: None,
            transfers_waiting: VecDeque::new(),
            pos,
            sled_running: false,
            idle_since_ms: start_ms,
            sled_queue: VecDeque::new(),
            active: None,
            up: CoordSet::default(),
            dn: CoordSet::default(),
            target: CoordSet::default(),
            tips: 0,
            last_completion: None,
        }
    }

    /// When the sled last fell idle (meaningful while it is idle).
    pub fn idle_since_ms(&self) -> f64 {
        self.idle_since_ms
    }

    #[inline(always)]
    fn push(&mut self, time_ms: f64, event: Event) {
        self.queue.push(time_ms, event);
    }

    #[inline]
    fn req(&mut self, id: u64) -> &mut Request {
        let i = (id - self.first_id) as usize;
        &mut self.requests[i]
    }

    /// A request arrives at the driver (it must not precede the previous arrival): the events
    /// before it are handled, then its own.
    pub fn arrive(&mut self, service: &MemsService, host: &mut impl MemsHost, incoming: Incoming) {
        // DiskSim's clock is in ms.
        let arrival_ms = incoming.arrival_s * 1e3;
        self.run_until(service, host, arrival_ms, self.arrival_seq);
        self.queue.now_ms = self.queue.now_ms.max(arrival_ms);
        self.arrival_seq = self.queue.reserve();
        let id = self.first_id + self.requests.len() as u64;
        let last = incoming.lbn + incoming.blocks.max(1) - 1;
        self.requests.push_back(Request {
            incoming,
            last,
            media_done_to: -1,
            bus_done_to: -1,
            next_start: -1,
            next_end: -1,
            media_done: false,
            bus_done: false,
            bus_pending: false,
            complete: false,
            start_ms: f64::NAN,
            idle_before_ms: 0.0,
            energy_mj: 0.0,
        });
        // The driver sends it straight down (no queueing there: the device takes 100,000); the
        // pass-through controller needs the bus to the device.
        self.get_bus(Step::GrantedToController.of(id));
    }

    /// Handles the events that come before a request arriving at `arrival_s`, as its `arrive`
    /// does first (then [`MemsEvents::quiescent`] says whether it finds the device at rest).
    pub fn run_before_arrival(&mut self, service: &MemsService, host: &mut impl MemsHost, arrival_s: f64) {
        self.run_until(service, host, arrival_s * 1e3, self.arrival_seq);
    }

    /// Nothing under way and nothing to come: no event queued, no request outstanding, the bus
    /// free and the sled idle. Such a device differs from a new one only in where its sled is,
    /// since when it has been idle, and its order numbers (which only order its own events).
    pub fn quiescent(&self) -> bool {
        let q = &self.queue;
        q.present.is_empty()
            && q.later.is_empty()
            && q.sled.is_none()
            && q.transfer.is_none()
            && self.requests.is_empty()
            && !self.bus.owned
            && self.bus.waiting.is_empty()
            && !self.device_owns_bus
            && self.transferring.is_none()
            && self.transfers_waiting.is_empty()
            && !self.sled_running
            && self.sled_queue.is_empty()
            && self.active.is_none()
    }

    /// Handles every event before `(time_ms, seq)`.
    fn run_until(&mut self, service: &MemsService, host: &mut impl MemsHost, time_ms: f64, seq: u64) {
        self.limit_ms = time_ms;
        while let Some(next) = self.queue.pop_before(time_ms, seq) {
            self.handle(service, host, next);
        }
        self.limit_ms = f64::INFINITY;
    }

    /// Handles every event left: the end of a run.
    pub fn drain(&mut self, service: &MemsService, host: &mut impl MemsHost) {
        while let Some(next) = self.queue.pop_before(f64::INFINITY, u64::MAX) {
            self.handle(service, host, next);
        }
    }

    /// Handles events until the request that arrived last has completed, and returns when it
    /// did. For a closed loop only, where nothing arrives before it completes.
    pub fn complete_last(&mut self, service: &MemsService, host: &mut impl MemsHost) -> f64 {
        let id = self.first_id + self.requests.len() as u64 - 1;
        loop {
            if let Some((done, at)) = self.last_completion {
                if done == id {
                    return at;
                }
            }
            let next = self.queue.pop_before(f64::INFINITY, u64::MAX).expect("a request in progress has events to come");
            self.handle(service, host, next);
        }
    }

    /// Whether an event added now for time `at_ms` would be the next one handled: nothing else is
    /// queued for that time or before, and the next arrival comes later. It is then handled at
    /// once instead of queued (the same order, without the queue's work).
    #[inline(always)]
    fn is_next(&self, at_ms: f64) -> bool {
        self.limit_ms > at_ms && self.queue.clear_until(at_ms)
    }

    /// A handler's last event, for the same time: handled at once if it is next, else queued.
    #[inline(always)]
    fn then(&mut self, t: f64, event: Event) -> Event {
        self.then_at(t, event)
    }

    /// A handler's last event, for `at_ms`: handled at once (the clock moved there) if nothing
    /// else comes first, else queued.
    #[inline(always)]
    fn then_at(&mut self, at_ms: f64, event: Event) -> Event {
        if self.take_next(at_ms) {
            event
        } else {
            self.push(at_ms, event);
            NOTHING
        }
    }

    /// Whether a handler's last event, for `at_ms`, is next: then its order is taken and the
    /// clock moved there, and the handler calls the event's own handler at once. Where the event
    /// that follows is always the same, a call the processor foresees replaces a trip through
    /// the dispatch's jump, which it mostly does not.
    #[inline(always)]
    fn take_next(&mut self, at_ms: f64) -> bool {
        let next = self.is_next(at_ms);
        if next {
            self.queue.reserve();
            self.queue.now_ms = at_ms;
        }
        next
    }

    fn handle(&mut self, service: &MemsService, host: &mut impl MemsHost, next: Scheduled) {
        let mut event = next.event;
        while event.code != NOTHING.code {
            let t = self.queue.now_ms;
            event = self.handle_one(service, host, t, event);
        }
    }

    /// One DiskSim handler; returns the event it adds last for the same time when that event is
    /// to be handled at once. It and the handlers it calls are inlined into the loop of
    /// `handle`: they keep the simulator's state in its registers instead of saving and
    /// restoring them at every step (7–10 % faster as recorded, 3–4 % queued).
    #[inline(always)]
    fn handle_one(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64, event: Event) -> Event {
        let id = event.id;
        match event.step() {
            Step::GrantedToController => self.granted_to_controller(service, host, t, id),
            Step::GrantedToDevice => self.granted_to_device(service, host, t, id, event.cause(), event.delay()),
            Step::AccessAtDevice => self.access_at_device(service, host, t, id),
            Step::AcknowledgeAtDevice => self.acknowledge_at_device(service, t, event.cause()),
            Step::InterruptAtController => self.interrupt_at_controller(service, host, t, id, event.cause()),
            Step::InterruptAtDriver => self.then(t, Event::interrupt(Step::InterruptTaken, id, event.cause())),
            Step::InterruptTaken => self.then(t, Event::interrupt(Step::InterruptComplete, id, event.cause())),
            Step::InterruptComplete => self.interrupt_complete(service, host, t, event.cause(), id),
            Step::OverheadComplete => {
                self.overhead_complete(service, host, t, id);
                NOTHING
            }
            Step::SledSchedule => self.sled_schedule(service, host, t),
            Step::SledSeek => self.sled_seek(service, host, t),
            Step::SledServo => self.sled_servo(service, host, t),
            Step::SledData => self.sled_data(service, host, t),
            Step::SledUpdate => self.sled_update(host, t),
            Step::BusInitiate => {
                if self.transferring.is_none() {
                    self.transferring = Some(id);
                    self.send_up(t, Cause::Reconnect, id, Delay::None);
                } else {
                    self.transfers_waiting.push_back(id);
                }
                NOTHING
            }
            Step::BusTransfer => self.bus_transfer(service, t, id),
            Step::BusUpdate => {
                self.bus_update(service, t, id);
                NOTHING
            }
            Step::Nothing => NOTHING,
        }
    }

    /// The controller has the bus: it sends the request down at once (delay 0) and forgets the
    /// bus, which stays owned: the device takes it over (`controller_disown_busno`).
    #[inline(always)]
    fn granted_to_controller(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64, id: u64) -> Event {
        then_call!(self, t, Step::AccessAtDevice.of(id), self.access_at_device(service, host, t, id))
    }

    /// The device has the bus for an interrupt, which reaches the controller after its delay.
    #[inline(always)]
    fn granted_to_device(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64, id: u64, cause: Cause, delay: Delay) -> Event {
        self.device_owns_bus = true;
        let at_ms = t + delay.ms();
        then_call!(self, at_ms, Event::interrupt(Step::InterruptAtController, id, cause), self.interrupt_at_controller(service, host, at_ms, id, cause))
    }

    /// The request reaches the device, which holds the bus through its command overhead.
    #[inline(always)]
    fn access_at_device(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64, id: u64) -> Event {
        self.device_owns_bus = true;
        let at_ms = t + service.command_overhead_ms;
        then_call!(self, at_ms, Step::OverheadComplete.of(id), {
            self.overhead_complete(service, host, at_ms, id);
            NOTHING
        })
    }

    /// The driver's acknowledgement reaches the device: a disconnect or a completion lets the
    /// bus go, a reconnect starts the transfer.
    #[inline(always)]
    fn acknowledge_at_device(&mut self, service: &MemsService, t: f64, cause: Cause) -> Event {
        match cause {
            Cause::Disconnect | Cause::Completion if self.device_owns_bus => {
                self.device_owns_bus = false;
                self.release_bus(t)
            }
            Cause::Disconnect | Cause::Completion => NOTHING,
            Cause::Reconnect => {
                let id = self.transferring.expect("a reconnect is for the transfer that has the bus");
                then_call!(self, t, Step::BusTransfer.of(id), self.bus_transfer(service, t, id))
            }
        }
    }

    /// The hops of an interrupt to the driver, and of its acknowledgement back: when nothing else
    /// is due at this time they follow one another at once.
    #[inline(always)]
    fn interrupt_at_controller(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64, id: u64, cause: Cause) -> Event {
        // Up to the driver's handler nothing is added but the next hop: when the first is next,
        // so are the others, and they are taken in one go (orders reserved).
        if self.is_next(t) {
            self.queue.reserve();
            self.queue.reserve();
            self.queue.reserve();
            return self.interrupt_complete(service, host, t, cause, id);
        }
        self.push(t, Event::interrupt(Step::InterruptAtDriver, id, cause));
        NOTHING
    }

    /// `MEMS_BUS_TRANSFER`: the next sector goes; it has crossed a sector's time later.
    #[inline(always)]
    fn bus_transfer(&mut self, service: &MemsService, t: f64, id: u64) -> Event {
        let at_ms = t + service.sector_transfer_ms;
        then_call!(self, at_ms, Step::BusUpdate.of(id), {
            self.bus_update(service, at_ms, id);
            NOTHING
        })
    }

    /// IO_INTERRUPT_COMPLETE: the driver takes a completion (the request's response ends here)
    /// and acknowledges every interrupt to the device.
    #[inline(always)]
    fn interrupt_complete(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64, cause: Cause, id: u64) -> Event {
        if cause == Cause::Completion {
            let r = self.req(id);
            r.complete = true;
            let (slot, from) = (r.incoming.slot, r.incoming.measured_from_ms);
            self.last_completion = Some((id, t));
            host.completed(slot, from, t);
            self.forget_completed();
        }
        then_call!(self, t, Event::interrupt(Step::AcknowledgeAtDevice, id, cause), self.acknowledge_at_device(service, t, cause))
    }

    /// Drops completed requests from the front of the list.
    #[inline(always)]
    fn forget_completed(&mut self) {
        // A request completes only after its media is done (a read's last sector crosses the bus
        // after its last pass; a write completes after its last pass).
        while self.requests.front().is_some_and(|r| r.complete) {
            self.requests.pop_front();
            self.first_id += 1;
        }
    }

    /// `bus_ownership_get`: a free bus is granted at once (as an event), a busy one in turn.
    #[inline(always)]
    fn get_bus(&mut self, grant: Event) {
        if self.bus.owned {
            self.bus.waiting.push_back(grant);
        } else {
            self.bus.owned = true;
            self.push(self.queue.now_ms, grant);
        }
    }

    /// `bus_ownership_release`: to the next owner waiting, or free.
    #[inline(always)]
    fn release_bus(&mut self, t: f64) -> Event {
        match self.bus.waiting.pop_front() {
            Some(grant) => self.then(t, grant),
            None => {
                self.bus.owned = false;
                NOTHING
            }
        }
    }

    /// `mems_send_event_up_path`: an interrupt to the host, over the bus the device holds or
    /// will be granted.
    #[inline(always)]
    fn send_up(&mut self, t: f64, cause: Cause, id: u64, delay: Delay) {
        if self.device_owns_bus {
            self.push(t + delay.ms(), Event::interrupt(Step::InterruptAtController, id, cause));
        } else {
            self.get_bus(Event::new(Step::GrantedToDevice, id, cause, delay));
        }
    }

    /// `mems_device_overhead_complete`.
    #[inline(always)]
    fn overhead_complete(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64, id: u64) {
        self.sled_queue.push_back(id);
        let incoming = self.req(id).incoming;
        if incoming.is_write {
            // A write keeps the bus to stream its sectors into the device.
            self.push(t, Step::BusInitiate.of(id));
            self.req(id).bus_pending = true;
        } else if self.transferring.is_none() {
            self.send_up(t, Cause::Disconnect, id, Delay::None);
        }
        let idle = (!self.sled_running).then_some((self.idle_since_ms, self.pos));
        if let Some((start, start_ms)) = host.noticed(&incoming, t, idle) {
            let sled = &service.sled;
            match start {
                SledStart::Idle { elapsed_ms } => self.pos = sled.idle_sweep(self.pos, elapsed_ms),
                SledStart::Stopped => self.pos = service.rest,
                SledStart::At(at) => self.pos = at,
                SledStart::Queued => {}
            }
            self.sled_running = true;
            self.push(start_ms, Step::SledSchedule.of(0));
        }
    }

    /// `mems_sled_schedule`: the sled takes the next request from its queue if it has none, and
    /// plans its next pass; with nothing to do it falls idle.
    #[inline(always)]
    fn sled_schedule(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64) -> Event {
        if self.active.is_none() {
            self.active = self.sled_queue.pop_front();
            if let Some(id) = self.active {
                // Since the sled left the media (0 straight from the previous request).
                let idle_before_ms = (t - self.idle_since_ms).max(0.0);
                let r = self.req(id);
                r.start_ms = t;
                r.idle_before_ms = idle_before_ms;
            }
        }
        let Some(id) = self.active else {
            self.sled_running = false;
            self.idle_since_ms = t;
            host.sled_idle(t);
            return NOTHING;
        };
        let sled = &service.sled;
        let r = self.req(id);
        let first = if r.media_done_to == -1 { r.incoming.lbn } else { r.media_done_to + 1 };
        let ready = (r.incoming.is_write).then_some(r.bus_done_to);
        let end = sled.pass_end(first, r.last, ready);
        (self.up, self.dn) = sled.position(first);
        self.tips = (end - first + 1) as i32 * sled.tip_sectors_per_lbn;
        let req = self.req(id);
        req.next_start = first;
        req.next_end = end;
        then_call!(self, t, Step::SledSeek.of(0), self.sled_seek(service, host, t))
    }

    /// `mems_sled_seek`: to the pass's start, up or down, whichever is sooner.
    #[inline(always)]
    fn sled_seek(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64) -> Event {
        let sled = &service.sled;
        let (target, seek) = if sled.bidirectional {
            let (seek_up, seek_dn) = sled.seek_both(self.pos, self.up.servo_start, self.dn.servo_start);
            if seek_up.total_ms < seek_dn.total_ms { (self.up, seek_up) } else { (self.dn, seek_dn) }
        } else {
            (self.up, sled.seek(self.pos, self.up.servo_start))
        };
        self.target = target;
        self.pos = target.servo_start;
        let energy = service.seek_energy_mj(&seek);
        let id = self.active.expect("seeking for a request");
        self.req(id).energy_mj += energy;
        let at_ms = t + seek.total_ms;
        then_call!(self, at_ms, Step::SledServo.of(0), self.sled_servo(service, host, at_ms))
    }

    /// `mems_sled_servo`: the servo burst before the data.
    #[inline(always)]
    fn sled_servo(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64) -> Event {
        let dt = service.sled.media_ms(self.pos, self.target.tipsector_start);
        let id = self.active.expect("a servo burst for a request");
        let r = self.req(id);
        // DiskSim's "weird special case": a write none of whose pass has crossed the bus
        // reads the servo with one tip and goes back to scheduling.
        let next = if r.incoming.is_write && r.next_start > r.bus_done_to {
            self.tips = 1;
            Step::SledSchedule
        } else {
            Step::SledData
        };
        self.pos = self.target.tipsector_start;
        self.req(id).energy_mj += service.access_power_w(self.tips) * dt;
        let at_ms = t + dt;
        if next == Step::SledData && self.take_next(at_ms) {
            return self.sled_data(service, host, at_ms);
        }
        // The special case's schedule goes back through the loop: it may repeat many times.
        self.then_at(at_ms, next.of(0))
    }

    /// `mems_sled_data`: the pass over the media.
    #[inline(always)]
    fn sled_data(&mut self, service: &MemsService, host: &mut impl MemsHost, t: f64) -> Event {
        let dt = service.sled.media_ms(self.pos, self.target.tipsector_end);
        let id = self.active.expect("data for a request");
        self.pos = self.target.tipsector_end;
        self.req(id).energy_mj += service.access_power_w(self.tips) * dt;
        let at_ms = t + dt;
        then_call!(self, at_ms, Step::SledUpdate.of(0), self.sled_update(host, at_ms))
    }

    /// `mems_sled_update`: the pass is done; a read's data may go up, a request whose media and
    /// bus are both done completes, and a request whose media is done leaves the sled.
    #[inline(always)]
    fn sled_update(&mut self, host: &mut impl MemsHost, t: f64) -> Event {
        let id = self.active.expect("an update for a request");
        let r = self.req(id);
        r.media_done_to = r.next_end;
        let start_read_transfer = !r.incoming.is_write && !r.bus_pending;
        if start_read_transfer {
            r.bus_pending = true;
        }
        let media_done = r.media_done_to >= r.last;
        let complete_now = media_done && r.bus_done;
        if media_done {
            r.media_done = true;
        }
        let r = *r;
        if start_read_transfer {
            self.push(t, Step::BusInitiate.of(id));
        }
        if complete_now {
            self.send_up(t, Cause::Completion, id, Delay::WriteCompletion);
        }
        if media_done {
            self.active = None;
            self.idle_since_ms = t;
            host.served(&ServedRequest {
                slot: r.incoming.slot,
                start_ms: r.start_ms,
                end_ms: t,
                energy_j: r.energy_mj / 1000.0,
                idle_before_ms: r.idle_before_ms,
                lbn: r.incoming.lbn,
                blocks: r.incoming.blocks,
                is_write: r.incoming.is_write,
            });
            self.forget_completed();
        }
        self.then(t, Step::SledSchedule.of(0))
    }

    /// `mems_bus_update`: one sector has crossed. While the transfer goes on and nothing else is
    /// due before its next sector (nor at the same time, which would come first), the next
    /// `MEMS_BUS_TRANSFER` and `MEMS_BUS_UPDATE` are handled here in turn: the same order and
    /// times as queued one by one.
    #[inline(always)]
    fn bus_update(&mut self, service: &MemsService, mut t: f64, id: u64) {
        loop {
            let r = self.req(id);
            r.bus_done_to = if r.bus_done_to == -1 { r.incoming.lbn } else { r.bus_done_to + 1 };
            let mut release = false;
            let mut complete_now = false;
            if r.bus_done_to >= r.last {
                r.bus_done = true;
                complete_now = r.media_done;
                r.bus_pending = false;
                release = true;
            } else if !r.incoming.is_write && r.bus_done_to >= r.media_done_to {
                // A read that has sent what the media has read lets the bus go until its next pass.
                r.bus_pending = false;
                release = true;
            }
            if complete_now {
                self.send_up(t, Cause::Completion, id, Delay::None);
            }
            if release {
                self.transferring = None;
                match self.transfers_waiting.pop_front() {
                    Some(next) => {
                        self.transferring = Some(next);
                        self.send_up(t, Cause::Reconnect, next, Delay::Handoff);
                    }
                    None => self.send_up(t, Cause::Disconnect, id, Delay::Handoff),
                }
                return;
            }
            let next_ms = t + service.sector_transfer_ms;
            if !self.is_next(next_ms) {
                self.push(t, Step::BusTransfer.of(id));
                return;
            }
            // MEMS_BUS_TRANSFER at t, then MEMS_BUS_UPDATE at the next sector.
            self.queue.reserve();
            self.queue.reserve();
            self.queue.now_ms = next_ms;
            t = next_ms;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a test does to the queue: add an event (its kind and how far after the present), or
    /// take the first one.
    #[derive(Debug, Clone)]
    enum Op {
        Push { kind: u8, after_ms: f64 },
        Pop,
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        // Few distinct delays, so that equal times (the order of addition decides) are common.
        let push = (0u8..4, prop::sample::select(vec![0.0, 0.0, 0.001, 0.5, 1.0, 2.5])).prop_map(|(kind, after_ms)| Op::Push { kind, after_ms });
        prop::collection::vec(prop_oneof![2 => push, 1 => Just(Op::Pop)], 1..300)
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: crate::testing::property_cases(256),
            rng_seed: proptest::test_runner::RngSeed::Fixed(crate::testing::PROPERTY_SEED),
            ..ProptestConfig::default()
        })]

        /// The four places give events in the order of one queue sorted by time and then by the
        /// order they were added, whatever is added when.
        #[test]
        fn the_four_places_give_the_order_of_one_queue(ops in ops()) {
            let mut queue = EventQueue::default();
            let mut single: Vec<(f64, u64)> = Vec::new();
            let mut id = 0u64;
            let take = |queue: &mut EventQueue, single: &mut Vec<(f64, u64)>| {
                let got = queue.pop_before(f64::INFINITY, u64::MAX).map(|e| (e.time_ms, e.event.id));
                let first = single.iter().enumerate().min_by(|a, b| a.1.0.total_cmp(&b.1.0).then(a.1.1.cmp(&b.1.1))).map(|(i, _)| i);
                let want = first.map(|i| single.remove(i));
                assert_eq!(got, want);
                assert_eq!(queue.horizon_ms, {
                    let time = |e: Option<&Scheduled>| e.map_or(f64::INFINITY, |e| e.time_ms);
                    time(queue.later.peek()).min(time(queue.sled.as_ref())).min(time(queue.transfer.as_ref()))
                });
            };
            for op in ops {
                match op {
                    Op::Push { kind, after_ms } => {
                        // The sled and the transfer have one event at a time; the rest may pile up.
                        let step = match kind {
                            0 if queue.sled.is_none() => Step::SledSeek,
                            1 if queue.transfer.is_none() => Step::BusUpdate,
                            2 => Step::OverheadComplete,
                            _ => Step::InterruptAtController,
                        };
                        let at_ms = queue.now_ms + after_ms;
                        // Events are numbered in the order added, as the queue numbers them.
                        single.push((at_ms, id));
                        queue.push(at_ms, step.of(id));
                        id += 1;
                    }
                    Op::Pop => take(&mut queue, &mut single),
                }
            }
            while !single.is_empty() {
                take(&mut queue, &mut single);
            }
            prop_assert!(queue.pop_before(f64::INFINITY, u64::MAX).is_none());
        }
    }
}
