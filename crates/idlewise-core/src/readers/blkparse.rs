//! blkparse's default text output: `maj,min cpu seq time_s pid action rwbs [sector + nsect] [process]`.
//!
//! Arrivals are the Q (queued) events when the trace has any, else the D (issued) events; other
//! actions are counted as skipped, as are events that are neither reads nor writes, events
//! without data and events without a sector range. The summary blkparse prints (from a line
//! starting `CPU`, `Total`, `Throughput`, `Events` or `Skips`, up to the next event line) is
//! counted as summary lines; a stray summary line in the middle does not end the events. Any
//! other line that is not an event is an error naming it. Each `maj,min` device is a stream
//! (`maj·256 + min`).

use super::{lines, Columns, Field, ReadError, ReadResult};

const SUMMARY: [&[u8]; 5] = [b"CPU", b"Total", b"Throughput", b"Events", b"Skips"];
const SECTOR: i64 = 512;

struct Event<'a> {
    device: (&'a [u8], &'a [u8]),
    time: &'a [u8],
    action: &'a [u8],
    rwbs: &'a [u8],
    range: Option<(&'a [u8], &'a [u8])>,
}

/// The event grammar, or None when the line is not an event.
fn event(line: &[u8]) -> Option<Event<'_>> {
    let mut t = line.split(|&b| b == b' ' || b == b'\t').filter(|p| !p.is_empty());
    let device = t.next()?;
    let comma = device.iter().position(|&b| b == b',')?;
    let (major, minor) = (&device[..comma], &device[comma + 1..]);
    let all_digits = |s: &[u8]| !s.is_empty() && s.iter().all(u8::is_ascii_digit);
    if !all_digits(major) || !all_digits(minor) {
        return None;
    }
    let (cpu, seq, time, pid) = (t.next()?, t.next()?, t.next()?, t.next()?);
    let dot = time.iter().position(|&b| b == b'.')?;
    if !all_digits(cpu) || !all_digits(seq) || !all_digits(pid) || !all_digits(&time[..dot]) || !all_digits(&time[dot + 1..]) {
        return None;
    }
    let action = t.next()?;
    let rwbs = t.next()?;
    if !action.iter().all(u8::is_ascii_alphabetic) || !rwbs.iter().all(u8::is_ascii_uppercase) {
        return None;
    }
    let range = match (t.next(), t.next(), t.next()) {
        (Some(sector), Some(b"+"), Some(count)) => Some((sector, count)),
        _ => None,
    };
    Some(Event { device: (major, minor), time, action, rwbs, range })
}

pub(super) fn read(bytes: &[u8]) -> ReadResult<Columns> {
    let (mut queued, mut issued) = (Columns::default(), Columns::default());
    let mut skipped = Columns::default();
    let mut in_summary = false;
    let mut examined = 0;
    for (line, text) in lines(bytes) {
        examined += 1;
        let Some(e) = event(text) else {
            let trimmed = super::trim(text);
            if in_summary || SUMMARY.iter().any(|p| trimmed.starts_with(p)) {
                in_summary = true;
                skipped.skip("summary lines");
                continue;
            }
            return Err(ReadError {
                line,
                field: None,
                message: "not a blkparse event line (expected 'maj,min cpu seq time pid action rwbs sector + nsect')".into(),
            });
        };
        in_summary = false;
        let target = match e.action {
            b"Q" => &mut queued,
            b"D" => &mut issued,
            _ => {
                skipped.skip("events of other actions");
                continue;
            }
        };
        let (reads, writes) = (e.rwbs.contains(&b'R'), e.rwbs.contains(&b'W'));
        if !reads && !writes {
            skipped.skip("events that are neither reads nor writes");
            continue;
        }
        let Some((sector, count)) = e.range else {
            skipped.skip("events without a sector range");
            continue;
        };
        let f = |name, text| Field { line, name, text };
        let offset = f("sector", sector).scaled("a sector number", SECTOR)?;
        let size = f("nsect", count).scaled("a sector count", SECTOR)?;
        if size == 0 {
            skipped.skip("events without data (flushes, barriers)");
            continue;
        }
        let time = f("time", e.time).real("a time in seconds")?;
        let major = f("major", e.device.0).int("a device major number")?;
        let minor = f("minor", e.device.1).int("a device minor number")?;
        let stream = major.checked_mul(256).and_then(|m| m.checked_add(minor)).ok_or_else(|| f("major", e.device.0).error("a device number below 2^55"))?;
        target.push(line, time, offset, size, writes, Some(stream));
    }
    let (mut kept, other, kept_name, other_name) =
        if queued.time_s.is_empty() { (issued, queued, "D", "Q") } else { (queued, issued, "Q", "D") };
    kept.records_read = examined;
    kept.skipped = skipped.skipped;
    if !other.time_s.is_empty() {
        kept.skipped.push((format!("{other_name} events (arrivals are taken from {kept_name} events)"), other.time_s.len() as u64));
    }
    if kept.time_s.is_empty() {
        return Err(super::whole_file(format!("no Q or D read/write events found in {examined} lines")));
    }
    Ok(kept)
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
        assert_eq!((c.stream.clone(), c.line.clone()), (vec![2048, 2064], vec![1, 5]));
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
