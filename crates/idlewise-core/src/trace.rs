//! Column views of a request stream. The engine never owns or parses trace files: readers on the
//! Python side hand it columns, and it borrows them for the length of a replay.

use crate::error::{Error, Result};

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
}

impl<'a> TraceView<'a> {
    pub fn new(arrival_s: &'a [f64], offset_bytes: &'a [i64], size_bytes: &'a [i64], is_write: &'a [u8]) -> Result<Self> {
        let n = arrival_s.len();
        for (name, len) in [("offset_bytes", offset_bytes.len()), ("size_bytes", size_bytes.len()), ("op", is_write.len())] {
            if len != n {
                return Err(Error::Trace(format!("column '{name}' has {len} values but 'time_s' has {n}")));
            }
        }
        Ok(TraceView { arrival_s, offset_bytes, size_bytes, is_write, original_s: None })
    }

    /// The same columns with each request's original arrival time.
    pub fn with_original_s(self, original_s: &'a [f64]) -> Result<Self> {
        if original_s.len() != self.len() {
            return Err(Error::Trace(format!("column 'original_time_s' has {} values but 'time_s' has {}", original_s.len(), self.len())));
        }
        Ok(TraceView { original_s: Some(original_s), ..self })
    }

    pub fn len(&self) -> usize {
        self.arrival_s.len()
    }

    pub fn is_empty(&self) -> bool {
        self.arrival_s.is_empty()
    }

    /// Checks every record: finite times in non-decreasing order, non-negative sizes and
    /// offsets, op 0 or 1. The first offending record is reported by its index.
    pub fn validate(&self) -> Result<()> {
        if self.is_empty() {
            return Err(Error::Trace("the trace has no requests".to_string()));
        }
        let mut previous = f64::NEG_INFINITY;
        for i in 0..self.len() {
            let t = self.arrival_s[i];
            if !t.is_finite() {
                return Err(Error::TraceRecord { index: i, field: "time_s", message: format!("time must be a finite number, got {t}") });
            }
            if t < previous {
                return Err(Error::TraceRecord {
                    index: i,
                    field: "time_s",
                    message: format!("time {t} is earlier than the previous record's {previous}; times must be in order (ask for sorting to reorder)"),
                });
            }
            previous = t;
            if self.size_bytes[i] < 0 {
                return Err(Error::TraceRecord { index: i, field: "size_bytes", message: format!("size must be non-negative, got {}", self.size_bytes[i]) });
            }
            if self.offset_bytes[i] < 0 {
                return Err(Error::TraceRecord { index: i, field: "offset_bytes", message: format!("offset must be non-negative, got {}", self.offset_bytes[i]) });
            }
            if let Some(original) = self.original_s {
                if !original[i].is_finite() {
                    return Err(Error::TraceRecord { index: i, field: "original_time_s", message: format!("time must be a finite number, got {}", original[i]) });
                }
            }
            if self.is_write[i] > 1 {
                return Err(Error::TraceRecord { index: i, field: "op", message: format!("op must be 0 (read) or 1 (write), got {}", self.is_write[i]) });
            }
        }
        Ok(())
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
}
