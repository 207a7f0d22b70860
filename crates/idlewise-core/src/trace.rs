//! Column views of a request stream. The engine never owns or parses trace files: readers on the
//! Python side hand it columns, and it borrows them for the length of a replay.

use crate::error::{Error, Result};

/// The farthest from zero a trace's time may lie: 2^33 s (272 years), where a double's spacing
/// grows to 2^-19 s (1.9 µs). Past it a replay cannot tell a request's finish from its arrival
/// (at 1.7e18 s, a nanosecond epoch read as seconds, the spacing is 256 s: every response 0),
/// so such a trace is refused rather than replayed into wrong rows. Epoch seconds (1.7e9) and
/// times from a trace's start lie well inside it.
pub const TIME_LIMIT_S: f64 = 8_589_934_592.0;

/// A time's refusal, or None where it is a finite number within [`TIME_LIMIT_S`]: the one
/// rule for every time the engine is given (a trace's, an application trace's).
pub(crate) fn time_refusal(t: f64) -> Option<String> {
    if !t.is_finite() {
        return Some(format!("time must be a finite number, got {t}"));
    }
    (t.abs() >= TIME_LIMIT_S).then(|| {
        let spacing_s = f64::from_bits(t.abs().to_bits() + 1) - t.abs();
        format!(
            "time {t:e} s lies beyond ±2^33 s (272 years), where a double cannot tell apart times closer than {}, so \
             responses would be lost; are the times in milliseconds, microseconds or nanoseconds? Give seconds, or times \
             from the trace's start",
            crate::units::format_duration_s(spacing_s)
        )
    })
}

/// Borrowed columns of a trace, one entry per request, in arrival order.
#[derive(Debug, Clone, Copy)]
pub struct TraceView<'a> {
    /// Arrival time in seconds.
    pub arrival_s: &'a [f64],
    /// Byte offset on the device (used by seek models; ignored otherwise).
    pub offset_bytes: &'a [i64],
    /// Request size in bytes.
    pub size_bytes: &'a [i64],
    /// 1 for a write, 0 for a read.
    pub is_write: &'a [u8],
    /// When each request was originally wanted, where a transform issued it earlier (seed 001's
    /// compression); responses can be measured from it (`ResponseFrom::Original`).
    pub original_s: Option<&'a [f64]>,
    /// Each request's service in the ready mode, (time s, energy J), computed once for a call's
    /// device and shared by its runs (it depends on the request and the head, which follows the
    /// requests whatever the policy): see `Device::ready_services`. None: each run computes it.
    pub ready_service: Option<&'a [(f64, f64)]>,
    /// How long each request kept the real device busy, where a recording says (a diskstats
    /// recording's busy time shared among its interval's requests): served in that time instead
    /// of the device model's (`ReplayOptions`' observed service; `Device::observed_services`).
    pub observed_service_s: Option<&'a [f64]>,
    /// Set by [`TraceView::validated`]: every later `validate` is free, so a trace checked once
    /// is not read again before each of the runs made on it.
    checked: bool,
}

impl<'a> TraceView<'a> {
    pub fn new(arrival_s: &'a [f64], offset_bytes: &'a [i64], size_bytes: &'a [i64], is_write: &'a [u8]) -> Result<Self> {
        let n = arrival_s.len();
        for (name, len) in [("offset_bytes", offset_bytes.len()), ("size_bytes", size_bytes.len()), ("op", is_write.len())] {
            if len != n {
                return Err(Error::Trace(format!("column '{name}' has {len} values but 'time_s' has {n}")));
            }
        }
        Ok(TraceView { arrival_s, offset_bytes, size_bytes, is_write, original_s: None, ready_service: None, observed_service_s: None, checked: false })
    }

    /// The same columns with each request's original arrival time.
    pub fn with_original_s(self, original_s: &'a [f64]) -> Result<Self> {
        if original_s.len() != self.len() {
            return Err(Error::Trace(format!("column 'original_time_s' has {} values but 'time_s' has {}", original_s.len(), self.len())));
        }
        Ok(TraceView { original_s: Some(original_s), checked: false, ..self })
    }

    /// The same columns with the time each request kept the real device busy.
    pub fn with_observed_service_s(self, service_s: &'a [f64]) -> Result<Self> {
        if service_s.len() != self.len() {
            return Err(Error::Trace(format!("column 'service_s' has {} values but 'time_s' has {}", service_s.len(), self.len())));
        }
        Ok(TraceView { observed_service_s: Some(service_s), checked: false, ..self })
    }

    /// Records `from..to` (a checked view stays checked).
    pub fn slice(&self, from: usize, to: usize) -> TraceView<'a> {
        TraceView {
            arrival_s: &self.arrival_s[from..to],
            offset_bytes: &self.offset_bytes[from..to],
            size_bytes: &self.size_bytes[from..to],
            is_write: &self.is_write[from..to],
            original_s: self.original_s.map(|o| &o[from..to]),
            ready_service: self.ready_service.map(|s| &s[from..to]),
            observed_service_s: self.observed_service_s.map(|s| &s[from..to]),
            checked: self.checked,
        }
    }

    /// The same view with each request's ready-mode service, computed for the device the runs
    /// replay it on (`Device::ready_services`).
    pub fn with_ready_service(self, ready_service: &'a [(f64, f64)]) -> TraceView<'a> {
        assert_eq!(ready_service.len(), self.len(), "one ready-mode service per request");
        TraceView { ready_service: Some(ready_service), ..self }
    }

    pub fn len(&self) -> usize {
        self.arrival_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.arrival_s.is_empty()
    }

    /// Checks every record: finite times within [`TIME_LIMIT_S`] in non-decreasing order,
    /// non-negative sizes and offsets, op 0 or 1. The first offending record is reported by its
    /// index.
    pub fn validate(&self) -> Result<()> {
        if self.checked {
            return Ok(());
        }
        if self.is_empty() {
            return Err(Error::Trace("the trace has no requests".to_string()));
        }
        // Blocks are checked with branch-free arithmetic the compiler vectorises; only a block
        // that holds a bad record is walked one record at a time to name it.
        const BLOCK: usize = 4096;
        let mut previous = f64::NEG_INFINITY;
        let mut from = 0;
        while from < self.len() {
            let to = (from + BLOCK).min(self.len());
            if !self.block_is_valid(from, to, previous) {
                return Err(self.first_bad_record(from, to, previous));
            }
            previous = self.arrival_s[to - 1];
            from = to;
        }
        Ok(())
    }

    /// The same view, checked once (see [`TraceView::validate`]).
    pub fn validated(self) -> Result<Self> {
        self.validate()?;
        Ok(TraceView { checked: true, ..self })
    }

    // Negated comparisons are the point: NaN must fail them. `|t| < TIME_LIMIT_S` is the
    // finiteness test too (NaN and the infinities fail it).
    #[allow(clippy::neg_cmp_op_on_partial_ord, clippy::eq_op)]
    fn block_is_valid(&self, from: usize, to: usize, previous: f64) -> bool {
        // Each check is a 0/1 folded with `|` (no early exit, no short-circuit), which the
        // compiler turns into vector compares; NaN fails every `>=` and `<`.
        let times = &self.arrival_s[from..to];
        let mut bad = u8::from(!(times[0] >= previous));
        for (a, b) in times.iter().zip(&times[1..]) {
            bad |= u8::from(!(*b >= *a));
        }
        for &t in times {
            bad |= u8::from(!(t.abs() < TIME_LIMIT_S));
        }
        let sizes = &self.size_bytes[from..to];
        let offsets = &self.offset_bytes[from..to];
        let signs = sizes.iter().zip(offsets).fold(0i64, |acc, (&s, &o)| acc | s | o);
        let ops = self.is_write[from..to].iter().fold(0u8, |acc, &w| acc | (w & !1));
        let original_bad = self.original_s.map_or(0u8, |o| o[from..to].iter().fold(0u8, |acc, &t| acc | u8::from(!(t.abs() < TIME_LIMIT_S))));
        let service_bad = self.observed_service_s.map_or(0u8, |o| o[from..to].iter().fold(0u8, |acc, &s| acc | u8::from(!(s - s == 0.0 && s >= 0.0))));
        bad == 0 && signs >= 0 && ops == 0 && original_bad == 0 && service_bad == 0
    }

    fn first_bad_record(&self, from: usize, to: usize, mut previous: f64) -> Error {
        for i in from..to {
            let t = self.arrival_s[i];
            if let Some(message) = time_refusal(t) {
                return Error::TraceRecord { index: i, field: "time_s", message };
            }
            if t < previous {
                return Error::TraceRecord {
                    index: i,
                    field: "time_s",
                    message: format!("time {t} is earlier than the previous record's {previous}; times must be in order (ask for sorting to reorder)"),
                };
            }
            previous = t;
            if self.size_bytes[i] < 0 {
                return Error::TraceRecord { index: i, field: "size_bytes", message: format!("size must be non-negative, got {}", self.size_bytes[i]) };
            }
            if self.offset_bytes[i] < 0 {
                return Error::TraceRecord { index: i, field: "offset_bytes", message: format!("offset must be non-negative, got {}", self.offset_bytes[i]) };
            }
            if let Some(message) = self.original_s.and_then(|original| time_refusal(original[i])) {
                return Error::TraceRecord { index: i, field: "original_time_s", message };
            }
            if let Some(service) = self.observed_service_s {
                if !(service[i].is_finite() && service[i] >= 0.0) {
                    return Error::TraceRecord { index: i, field: "service_s", message: format!("a service time must be a non-negative number of seconds, got {}", service[i]) };
                }
            }
            if self.is_write[i] > 1 {
                return Error::TraceRecord { index: i, field: "op", message: format!("op must be 0 (read) or 1 (write), got {}", self.is_write[i]) };
            }
        }
        unreachable!("block_is_valid found a bad record in {from}..{to}")
    }

    /// Time from the first to the last arrival.
    pub fn span_s(&self) -> f64 {
        match (self.arrival_s.first(), self.arrival_s.last()) {
            (Some(a), Some(b)) => b - a,
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_first_bad_record() {
        let t = [0.0, 1.0, 0.5];
        let o = [0i64; 3];
        let s = [1i64, 1, 1];
        let w = [0u8; 3];
        let err = TraceView::new(&t, &o, &s, &w).unwrap().validate().unwrap_err();
        assert!(matches!(err, Error::TraceRecord { index: 2, field: "time_s", .. }), "{err}");

        let t = [0.0, f64::NAN];
        let err = TraceView::new(&t, &o[..2], &s[..2], &w[..2]).unwrap().validate().unwrap_err();
        assert!(matches!(err, Error::TraceRecord { index: 1, field: "time_s", .. }));

        let s = [1i64, -4];
        let t = [0.0, 1.0];
        let err = TraceView::new(&t, &o[..2], &s, &w[..2]).unwrap().validate().unwrap_err();
        assert!(matches!(err, Error::TraceRecord { index: 1, field: "size_bytes", .. }));
    }

    #[test]
    fn rejects_empty_and_ragged() {
        assert!(TraceView::new(&[], &[], &[], &[]).unwrap().validate().is_err());
        assert!(TraceView::new(&[0.0], &[], &[1], &[0]).is_err());
    }

    #[test]
    fn the_block_check_names_the_first_bad_record_wherever_it_lies() {
        // Bad records at block edges and inside blocks, one kind at a time and two at once.
        let n = 10_000;
        let t: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let (o, s, w) = (vec![0i64; n], vec![1i64; n], vec![0u8; n]);
        assert!(TraceView::new(&t, &o, &s, &w).unwrap().validate().is_ok());
        for at in [0usize, 1, 4095, 4096, 4097, 8191, 8192, 9999] {
            let mut t2 = t.clone();
            t2[at] = if at == 0 { f64::NAN } else { t[at - 1] - 0.5 };
            let err = TraceView::new(&t2, &o, &s, &w).unwrap().validate().unwrap_err();
            assert!(matches!(err, Error::TraceRecord { index, field: "time_s", .. } if index == at), "{at}: {err}");
            let mut o2 = o.clone();
            o2[at] = -1;
            let mut w2 = w.clone();
            w2[(at + 7).min(n - 1)] = 2;
            let err = TraceView::new(&t, &o2, &s, &w2).unwrap().validate().unwrap_err();
            assert!(matches!(err, Error::TraceRecord { index, field: "offset_bytes", .. } if index == at), "{at}: {err}");
            let err = TraceView::new(&t, &o, &s, &w2).unwrap().validate().unwrap_err();
            assert!(matches!(err, Error::TraceRecord { index, field: "op", .. } if index == (at + 7).min(n - 1)), "{at}: {err}");
            let mut t3 = t.clone();
            t3[at] = f64::INFINITY;
            let err = TraceView::new(&t3, &o, &s, &w).unwrap().validate().unwrap_err();
            assert!(matches!(err, Error::TraceRecord { index, .. } if index == at), "{at}: {err}");
        }
    }

    #[test]
    fn times_a_double_cannot_resolve_to_a_microsecond_are_refused_with_the_spacing_there() {
        let (o, s, w) = ([0i64; 3], [512i64; 3], [0u8; 3]);
        let below = f64::from_bits(TIME_LIMIT_S.to_bits() - 1);
        assert!(TraceView::new(&[-below, 0.0, below], &o, &s, &w).unwrap().validate().is_ok());
        for (t, at, spacing) in [
            ([0.0, 1.0, TIME_LIMIT_S], 2, "closer than 1.907349us"),
            ([-TIME_LIMIT_S, 0.0, 1.0], 0, "closer than 1.907349us"),
            ([1.7e18, 1.7e18, 1.7e18 + 5e9], 0, "closer than 256s"),
        ] {
            let err = TraceView::new(&t, &o, &s, &w).unwrap().validate().unwrap_err().to_string();
            assert!(err.contains(&format!("record {at}, field 'time_s'")) && err.contains(spacing) && err.contains("nanoseconds"), "{err}");
        }
        // A transform's original times are held to the same range.
        let original = [0.0, 1.0, 2.0 * TIME_LIMIT_S];
        let view = TraceView { original_s: Some(&original), ..TraceView::new(&[0.0, 1.0, 2.0], &o, &s, &w).unwrap() };
        let err = view.validate().unwrap_err().to_string();
        assert!(err.contains("field 'original_time_s'") && err.contains("272 years"), "{err}");
    }
}
