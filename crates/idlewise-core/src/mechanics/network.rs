//! A transfer over one TCP connection on a link with a fixed one-way latency and a bandwidth cap
//! per direction (seed 000 §5.1 emulates broadband with NISTnet: 20 ms each way, 3 Mb/s down,
//! 256 kb/s up).
//!
//! The model is the textbook one for TCP latency with a dynamic window (Kurose & Ross, *Computer
//! Networking*, §3.7, "Modeling latency: dynamic congestion window"): one round trip to set up the
//! connection, the request, then the response in windows that double every round trip (slow
//! start); after sending a window the sender stalls until the acknowledgement of the window's
//! first segment returns, `max(w·S/R, S/R + RTT)` per window, until the pipe is full. We walk the
//! windows explicitly instead of using the closed form so that a card in 802.11 PSM can deliver
//! each downlink packet only at the next beacon (`deliver`).

/// The link and the connection's parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct TcpLink {
    pub one_way_latency_s: f64,
    pub mss_bytes: f64,
    pub initial_window_segments: f64,
    /// Bytes of the request that asks for a download (an HTTP GET with its headers).
    pub request_bytes: f64,
    /// Each transfer opens a new connection (HTTP/1.0 without keep-alive), paying a handshake.
    pub connection_setup: bool,
}

/// Timing of one transfer: its whole duration, and the parts the card spends receiving and
/// transmitting data (the rest it waits, at its mode's power).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transfer {
    pub time_s: f64,
    pub receive_s: f64,
    pub transmit_s: f64,
}

impl TcpLink {
    /// Sends `size_bytes` from `sender_rate` side in slow-start windows, the first window leaving
    /// the sender at `first_s`. `deliver_ack` maps the time an acknowledgement (or data, for the
    /// receiver) reaches the card's side to the time the card has it. Returns the time the last
    /// byte reaches the far end of the link.
    fn slow_start(&self, first_s: f64, size_bytes: f64, rate_bytes_per_s: f64, ack_returns: impl Fn(f64) -> f64) -> f64 {
        let segment_s = self.mss_bytes / rate_bytes_per_s;
        let mut window = self.initial_window_segments.max(1.0);
        let mut sent_at = first_s;
        let mut remaining = size_bytes;
        loop {
            let burst = remaining.min(window * self.mss_bytes);
            remaining -= burst;
            if remaining <= 0.0 {
                return sent_at + burst / rate_bytes_per_s + self.one_way_latency_s;
            }
            // The next window leaves when this one is out and the first segment's ACK is back.
            sent_at = (sent_at + burst / rate_bytes_per_s).max(ack_returns(sent_at + segment_s));
            window *= 2.0;
        }
    }

    /// A download of `size_bytes` starting at `start_s`: set-up, request, slow-start response.
    /// `deliver(t)` is when downlink data reaching the access point at `t` reaches the card (the
    /// identity when the card is awake; the next beacon in PSM).
    pub fn download(&self, start_s: f64, size_bytes: f64, down: f64, up: f64, deliver: impl Fn(f64) -> f64) -> Transfer {
        let l = self.one_way_latency_s;
        let mut t = start_s;
        if self.connection_setup {
            t = deliver(t + 2.0 * l); // SYN up, SYN-ACK down
        }
        let request_s = self.request_bytes / up;
        let server_s = t + request_s + l;
        let last_at_ap = self.slow_start(server_s, size_bytes, down, |first_sent| deliver(first_sent + l) + l);
        Transfer { time_s: deliver(last_at_ap) - start_s, receive_s: size_bytes / down, transmit_s: request_s }
    }

    /// An upload of `size_bytes` starting at `start_s`: set-up, then the data in slow-start
    /// windows up the link; done when the server's acknowledgement of the last byte is back.
    pub fn upload(&self, start_s: f64, size_bytes: f64, up: f64, deliver: impl Fn(f64) -> f64) -> Transfer {
        let l = self.one_way_latency_s;
        let mut t = start_s;
        if self.connection_setup {
            t = deliver(t + 2.0 * l);
        }
        let last_at_server = self.slow_start(t, size_bytes, up, |first_sent| deliver(first_sent + 2.0 * l));
        Transfer { time_s: deliver(last_at_server + l) - start_s, receive_s: 0.0, transmit_s: size_bytes / up }
    }
}

/// The next beacon at or after `t` (beacons at whole multiples of `period_s`). The tolerance
/// keeps an arrival that is on a beacon but for rounding (0.56 + 0.04 = 0.6000000000000001) on it.
#[inline]
pub fn next_beacon_s(t: f64, period_s: f64) -> f64 {
    let beats = t / period_s;
    let n = (beats - 1e-9 * beats.abs().max(1.0)).ceil();
    (n * period_s).max(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Seed 000 §5.1's link: 20 ms each way, 3 Mb/s down, 256 kb/s up; 1460-byte segments.
    fn link(iw: f64, setup: bool) -> TcpLink {
        TcpLink { one_way_latency_s: 0.02, mss_bytes: 1460.0, initial_window_segments: iw, request_bytes: 0.0, connection_setup: setup }
    }

    #[test]
    fn download_matches_the_kurose_ross_closed_form() {
        // Latency = 2·RTT + O/R + Σ_{k=1}^{P} [S/R + RTT − 2^{k−1}·S/R] with one initial segment.
        let (rtt, s, r): (f64, f64, f64) = (0.04, 1460.0, 375_000.0);
        for size in [1460.0f64, 32_768.0, 100_000.0, 524_288.0] {
            let segments = (size / s).ceil();
            let windows = (segments + 1.0).log2().ceil() as i32; // K: 1 + 2 + ... covers O
            let stalls: f64 = (1..windows).map(|k| (s / r + rtt - 2f64.powi(k - 1) * s / r).max(0.0)).sum();
            let expected = 2.0 * rtt + size / r + stalls;
            let got = link(1.0, true).download(0.0, size, r, 32_000.0, |t| t).time_s;
            assert!((got - expected).abs() < 1e-12, "{size} B: {got} vs {expected}");
        }
    }

    #[test]
    fn a_32_kib_fetch_in_cam_takes_four_round_trips_plus_transfer() {
        // IW = 2: windows 2, 4, 8 stall (S/R + RTT each), the rest goes at the link rate.
        let t = link(2.0, true).download(0.0, 32_768.0, 375_000.0, 32_000.0, |t| t);
        let seg = 1460.0 / 375_000.0;
        let expected = 0.04 + 0.02 + 3.0 * (seg + 0.04) + (32_768.0 - 14.0 * 1460.0) / 375_000.0 + 0.02;
        assert!((t.time_s - expected).abs() < 1e-12, "{} vs {expected}", t.time_s);
        assert!((t.receive_s - 32_768.0 / 375_000.0).abs() < 1e-15);
    }

    #[test]
    fn psm_delivers_each_round_at_a_beacon() {
        let beacon = |t: f64| next_beacon_s(t, 0.1);
        let cam = link(2.0, true).download(0.0, 32_768.0, 375_000.0, 32_000.0, |t| t).time_s;
        let psm = link(2.0, true).download(0.0, 32_768.0, 375_000.0, 32_000.0, beacon).time_s;
        assert!(psm > cam);
        // Every downlink delivery lands on a beacon, so the transfer ends on one.
        assert!((psm / 0.1 - (psm / 0.1).round()).abs() < 1e-9, "{psm}");
    }

    #[test]
    fn beacon_rounding_keeps_on_beacon_arrivals_on_the_beacon() {
        assert_eq!(next_beacon_s(0.56 + 0.04, 0.1), 0.56 + 0.04);
        assert!((next_beacon_s(0.61, 0.1) - 0.7).abs() < 1e-12);
        assert_eq!(next_beacon_s(0.0, 0.1), 0.0);
    }
}
