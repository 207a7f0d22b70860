//! blkparse's default text output: `maj,min cpu seq time_s pid action rwbs [sector + nsect] [process]`.
//!
//! Arrivals are the Q (queued) events when the trace has any, else the D (issued) events; other
//! actions are counted as skipped, as are events that are neither reads nor writes, events
//! without data and events without a sector range. The summary blkparse prints (from a line
//! starting `CPU`, `Total`, `Throughput`, `Events` or `Skips`, up to the next event line) is
//! counted as summary lines; a stray summary line in the middle does not end the events. Any
//! other line that is not an event is an error naming it. Each `maj,min` device is a stream
//! (`makedev(maj, min)`, see `readers::makedev`).

use super::{Columns, Field, Line, ReadError, ReadResult, Separator};

const SUMMARY: [&[u8]; 5] = [b"CPU", b"Total", b"Throughput", b"Events", b"Skips"];
const SECTOR: i64 = 512;

struct Event<'a> {
    device: (&'a [u8], &'a [u8]),
    time: &'a [u8],
    /// What `event` read of the numbers while checking them (None: too long for that; read
    /// again with the full parser, which names the error).
    major_minor: Option<(u64, u64)>,
    quick_time_s: Option<f64>,
    action: &'a [u8],
    rwbs: &'a [u8],
    range: Option<(&'a [u8], &'a [u8])>,
}

/// The event grammar, or None when the line is not an event.
#[inline(always)]
fn event(line: Line<'_>) -> Option<Event<'_>> {
    let mut parts: [&[u8]; 10] = [&[]; 10];
    let count = line.fields(&mut parts);
    if count < 7 {
        return None;
    }
    let [device, cpu, _seq, time, pid, action, rwbs, sector, plus, nsect] = parts;
    let comma = device.iter().position(|&b| b == b',')?;
    let (major, minor) = (&device[..comma], &device[comma + 1..]);
    // Digits only: Some(value), or Some(None) when they are too many to sum here.
    let digits = |s: &[u8]| match crate::units::ascii_digits(s) {
        Some(v) => Some(Some(v)),
        None => (!s.is_empty() && s.iter().all(u8::is_ascii_digit)).then_some(None),
    };
    let (major_value, minor_value) = (digits(major)?, digits(minor)?);
    let dot = time.iter().position(|&b| b == b'.')?;
    let (seconds, fraction) = (&time[..dot], &time[dot + 1..]);
    let (seconds_value, fraction_value) = (digits(seconds)?, digits(fraction)?);
    // cpu, seq and pid are checked but not read: with the time between, digits and blanks
    // but for the time's point.
    let point = time.as_ptr() as usize - cpu.as_ptr() as usize + dot;
    if !line.digits_between(cpu, pid, Some(point)) {
        return None;
    }
    if !action.iter().all(u8::is_ascii_alphabetic) || !rwbs.iter().all(u8::is_ascii_uppercase) {
        return None;
    }
    let range = (count >= 10 && matches!(plus, [b'+'])).then_some((sector, nsect));
    let quick_time_s = seconds_value.zip(fraction_value).and_then(|(s, f)| crate::units::exact_decimal(s, seconds.len(), f, fraction.len()));
    Some(Event { device: (major, minor), time, major_minor: major_value.zip(minor_value), quick_time_s, action, rwbs, range })
}

/// Which events are the arrivals.
#[derive(Clone, Copy, PartialEq)]
enum Arrivals {
    /// Not known yet: Q events go to the output, D events are kept apart.
    Undecided,
    Queued,
    Issued,
}

/// blkparse's parser (never forked: a summary's lines are known by the lines before them). Read whole, the arrivals are the Q events if the file has any, else the D
/// events. Read in chunks, the choice is made on the first chunk (a trace with Q events shows
/// them from its first requests on) and events of the other kind are counted as skipped.
#[derive(Clone)]
pub(super) struct Blkparse {
    arrivals: Arrivals,
    issued: Columns,
    other: u64,
    /// Arrivals handed to the output (which a chunked reader empties as it goes).
    kept: u64,
    in_summary: bool,
}

impl Default for Blkparse {
    fn default() -> Self {
        Blkparse { arrivals: Arrivals::Undecided, issued: Columns::default(), other: 0, kept: 0, in_summary: false }
    }
}

impl super::LineFormat for Blkparse {
    fn separator(&self) -> Separator {
        Separator::Blank
    }

    #[inline]
    fn line(&mut self, line: u64, text: Line<'_>, c: &mut Columns) -> ReadResult<()> {
        let Some(e) = event(text) else {
            let trimmed = super::trim(text.text());
            if self.in_summary || SUMMARY.iter().any(|p| trimmed.starts_with(p)) {
                self.in_summary = true;
                c.skip("summary lines");
                return Ok(());
            }
            return Err(ReadError {
                line,
                field: None,
                message: "not a blkparse event line (expected 'maj,min cpu seq time pid action rwbs sector + nsect')".into(),
            });
        };
        self.in_summary = false;
        // Slice patterns compare bytes in place (a comparison with a b"Q" literal calls memcmp).
        let queued = match e.action {
            [b'Q'] => true,
            [b'D'] => false,
            _ => {
                c.skip("events of other actions");
                return Ok(());
            }
        };
        let (reads, writes) = (e.rwbs.contains(&b'R'), e.rwbs.contains(&b'W'));
        if !reads && !writes {
            c.skip("events that are neither reads nor writes");
            return Ok(());
        }
        let Some((sector, count)) = e.range else {
            c.skip("events without a sector range");
            return Ok(());
        };
        let f = |name, text| Field { line, name, text };
        let offset = f("sector", sector).scaled("a sector number", SECTOR)?;
        let size = f("nsect", count).scaled("a sector count", SECTOR)?;
        if size == 0 {
            c.skip("events without data (flushes, barriers)");
            return Ok(());
        }
        let time = match e.quick_time_s {
            Some(t) => t,
            None => f("time", e.time).real("a time in seconds")?,
        };
        let (major, minor) = match e.major_minor {
            Some((major, minor)) => (major as i64, minor as i64),
            None => (f("major", e.device.0).int("a device major number")?, f("minor", e.device.1).int("a device minor number")?),
        };
        let stream = super::device_number(major, minor, f("major", e.device.0), f("minor", e.device.1))?;
        match (self.arrivals, queued) {
            (Arrivals::Undecided, true) | (Arrivals::Queued, true) | (Arrivals::Issued, false) => {
                self.kept += 1;
                c.push(line, time, offset, size, writes, Some(stream));
            }
            (Arrivals::Undecided, false) => self.issued.push(line, time, offset, size, writes, Some(stream)),
            _ => self.other += 1,
        }
        Ok(())
    }

    fn end_of_chunk(&mut self, c: &mut Columns) {
        if self.arrivals == Arrivals::Undecided {
            self.decide(c);
        }
    }

    fn finish(&mut self, c: &mut Columns) -> ReadResult<()> {
        if self.arrivals == Arrivals::Undecided {
            self.decide(c);
        }
        let (kept, other) = if self.arrivals == Arrivals::Queued { ("Q", "D") } else { ("D", "Q") };
        if self.other > 0 {
            c.skipped.push((format!("{other} events (arrivals are taken from {kept} events)"), self.other));
        }
        if self.kept == 0 {
            return Err(super::whole_file(format!("no Q or D read/write events found in {} lines", c.records_read)));
        }
        Ok(())
    }
}

impl Blkparse {
    /// Q events if there are any so far, else D events (moved to the output).
    fn decide(&mut self, c: &mut Columns) {
        let issued = std::mem::take(&mut self.issued);
        if c.time_s.is_empty() {
            self.arrivals = Arrivals::Issued;
            self.kept += issued.time_s.len() as u64;
            c.append(issued);
        } else {
            self.arrivals = Arrivals::Queued;
            self.other += issued.time_s.len() as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::read;

    const TRACE: &[u8] = b"  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]\n\
  8,0    3        2     0.000010000   697  D   W 223490 + 8 [kjournald]\n\
CPU3 (8,0):\n Reads Queued: 0, 0KiB\n\
  8,16   1        3     0.500000000   700  Q   R 100 + 16 [cat]\n\
  8,0    1        4     0.600000000   700  Q   FWS 0 + 0 [sync]\n\
Total (8,0):\n Writes Queued: 1\n";

    #[test]
    fn a_stray_summary_line_does_not_end_the_events() {
        let c = read("blkparse", TRACE).unwrap();
        assert_eq!(c.time_s, vec![0.0, 0.5]);
        assert_eq!((c.stream.clone(), c.line.iter().collect::<Vec<_>>()), (vec![2048, 2064], vec![1, 5]));
        let skipped: std::collections::HashMap<_, _> = c.skipped.iter().cloned().collect();
        assert_eq!(skipped["summary lines"], 4);
        assert_eq!(skipped["events without data (flushes, barriers)"], 1);
        assert_eq!(skipped["D events (arrivals are taken from Q events)"], 1);
        assert_eq!(c.records_read, 8);
    }

    #[test]
    fn a_huge_sector_and_a_garbage_line_are_named() {
        let huge = format!("  8,0 1 1 0.1 1 Q W {} + 8 [x]\n", "9".repeat(3000));
        let e = read("blkparse", huge.as_bytes()).unwrap_err();
        assert!(e.to_string().starts_with("line 1, field 'sector'"), "{e}");
        let e = read("blkparse", b"  8,0 1 1 0.1 1 Q W 1 + 8 [x]\nhello\n").unwrap_err();
        assert!(e.to_string().starts_with("line 2: not a blkparse event"), "{e}");
    }
}
