//! The headerless line formats: one record per line, fields by position.
//!
//! | format | fields | units |
//! |---|---|---|
//! | `disksim` | `arrival_ms devno blkno bcount flags` (white space) | ms; 512-byte sectors; flags bit 0 = read |
//! | `spc-ascii` | `arrival_ns devno lsn size_sectors op[ ...]` (white space) | ns; sectors; op 1 = read, 0 = write |
//! | `spc` | `ASU,LBA,Size,Opcode,Timestamp[,...]` | sectors; bytes; r/w; seconds |
//! | `msr` | `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime` | FILETIME 100 ns ticks; Read/Write; bytes |
//! | `alibaba` | `device_id,opcode,offset,length,timestamp` | R/W; bytes; microseconds |
//! | `tencent` | `Timestamp,Offset,Size,IOType,VolumeID` | seconds; sectors; 0 = read, 1 = write |
//! | `fiu` | `ts_ns pid process lba size_sectors R\|W major minor md5` (white space) | ns; sectors; device as `makedev(major, minor)` |
//!
//! Trailing fields are ignored where the format says so (SPC, SPC ASCII); elsewhere a line
//! must have exactly the format's fields.

use super::{relative_times, trim, Columns, Field, Line, ReadError, ReadResult, Separator};

const SECTOR: i64 = 512;

/// The formats, resolved once so a line is not matched against names.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Disksim,
    SpcAscii,
    Spc,
    Msr,
    Alibaba,
    Tencent,
    Fiu,
}

/// A positional format's parser, fed one line at a time.
#[derive(Clone)]
pub(super) struct Positional<'f> {
    format: &'f str,
    kind: Kind,
    names: &'static [&'static str],
    whitespace: bool,
    extra_allowed: bool,
    /// Streamed: times are made relative to the first record's as they come (a streamed trace
    /// must be in order, so the first is the earliest; the same numbers as reading it whole).
    /// Whole: integer times from an epoch are kept raw in `time_s` (as the i64's bits) and made
    /// relative to the earliest once the file is read, with no second column.
    streaming: bool,
    origin: Option<i64>,
    origin_s: Option<f64>,
    /// MSR: the host of the first record and its line. Devices are keyed by disk number, so a
    /// file that mixes hosts (`hm` disk 0 and `prn` disk 0) would merge two disks: refused.
    host: Option<(Vec<u8>, u64)>,
}

/// Fields kept per line; the formats have at most nine (and SPC's trailing ones are ignored).
const MAX_FIELDS: usize = 9;

impl<'f> Positional<'f> {
    pub(super) fn new(format: &'f str, streaming: bool) -> ReadResult<Self> {
        let kind = match format {
            "disksim" => Kind::Disksim,
            "spc-ascii" => Kind::SpcAscii,
            "spc" => Kind::Spc,
            "msr" => Kind::Msr,
            "alibaba" => Kind::Alibaba,
            "fiu" => Kind::Fiu,
            "tencent" => Kind::Tencent,
            _ => return Err(super::whole_file(format!("unknown text format '{format}'"))),
        };
        // The fields as the formats' table names them (`table.rs`), for error messages.
        let names = super::table::trace_format(format).map_or(&[][..], |f| f.fields);
        Ok(Positional {
            format,
            kind,
            names,
            whitespace: matches!(kind, Kind::Disksim | Kind::SpcAscii | Kind::Fiu),
            extra_allowed: matches!(kind, Kind::Spc | Kind::SpcAscii),
            streaming,
            origin: None,
            origin_s: None,
            host: None,
        })
    }

    /// An integer time from an epoch: relative now (streamed), or its raw bits (whole file).
    fn epoch_time(&mut self, field: Field, raw: i64, seconds_per_unit: f64) -> ReadResult<f64> {
        if !self.streaming {
            return Ok(f64::from_bits(raw as u64));
        }
        let origin = *self.origin.get_or_insert(raw);
        if raw < origin {
            return Err(out_of_order(field));
        }
        Ok(((raw as i128 - origin as i128) as f64) * seconds_per_unit)
    }
}

/// A streamed record earlier than the first: the trace is not in time order.
fn out_of_order(field: Field) -> ReadError {
    ReadError {
        line: field.line,
        field: Some(field.name.to_string()),
        message: "earlier than the first record; a trace read in chunks must be in time order (read it whole and sort it)".into(),
    }
}

impl super::LineFormat for Positional<'_> {
    fn separator(&self) -> Separator {
        if self.whitespace {
            Separator::Blank
        } else {
            Separator::Byte(b',')
        }
    }

    #[inline]
    fn line(&mut self, line: u64, text: Line<'_>, c: &mut Columns) -> ReadResult<()> {
        // The first fields on the stack (no allocation per line); the rest only counted.
        let mut parts: [&[u8]; MAX_FIELDS] = [&[]; MAX_FIELDS];
        let count = text.fields(&mut parts);
        if !self.whitespace {
            parts.iter_mut().take(count).for_each(|p| *p = trim(p));
        }
        self.record(line, &parts[..count.min(MAX_FIELDS)], count, c)
    }

    fn fork(&self) -> Option<Self> {
        // Streamed times from an epoch are made relative to the first record's: known once
        // a record is read.
        let origin_known = match self.kind {
            Kind::Msr | Kind::Alibaba | Kind::Fiu => self.origin.is_some(),
            Kind::Tencent => self.origin_s.is_some(),
            _ => true,
        };
        // Every chunk compares its hosts with the first record's, streamed or whole.
        let host_known = self.kind != Kind::Msr || self.host.is_some();
        ((!self.streaming || origin_known) && host_known).then(|| self.clone())
    }

    fn finish(&mut self, c: &mut Columns) -> ReadResult<()> {
        if self.streaming {
            return Ok(());
        }
        match self.kind {
            Kind::Msr => relative_times(&mut c.time_s, 1e-7),
            Kind::Alibaba => relative_times(&mut c.time_s, 1e-6),
            Kind::Fiu => relative_times(&mut c.time_s, 1e-9),
            Kind::Tencent => {
                // Seconds since an epoch: relative to the first, as the published traces are used.
                let min = c.time_s.iter().copied().fold(f64::INFINITY, f64::min);
                c.time_s.iter_mut().for_each(|t| *t -= min);
            }
            _ => {}
        }
        Ok(())
    }
}

impl Positional<'_> {
    #[inline(always)]
    fn record(&mut self, line: u64, parts: &[&[u8]], count: usize, c: &mut Columns) -> ReadResult<()> {
        let (format, names) = (self.format, self.names);
        if count < names.len() || (!self.extra_allowed && count != names.len()) {
            return Err(ReadError {
                line,
                field: None,
                message: format!("expected {} fields ({}) for the {format} format, got {count}", names.len(), names.join(" ")),
            });
        }
        let f = |i: usize| Field { line, name: names[i], text: parts[i] };
        match self.kind {
            Kind::Disksim => {
                let t = f(0).real("an arrival time in milliseconds")?;
                let dev = f(1).device("a device number")?;
                let offset = f(2).scaled("a block number (512-byte sectors)", SECTOR)?;
                let size = f(3).scaled("a size in 512-byte sectors", SECTOR)?;
                let flags = f(4).int("integer flags (bit 0 = read)")?;
                c.push(line, t * 1e-3, offset, size, flags & 1 == 0, Some(dev));
            }
            Kind::SpcAscii => {
                let ns = f(0).int("an arrival time in nanoseconds")?;
                let dev = f(1).device("a device number")?;
                let offset = f(2).scaled("a sector number (512-byte sectors)", SECTOR)?;
                let size = f(3).scaled("a size in 512-byte sectors", SECTOR)?;
                let read = f(4).one_of([("1", true), ("0", false)], "1 (read) or 0 (write)")?;
                c.push(line, ns as f64 * 1e-9, offset, size, !read, Some(dev));
            }
            Kind::Spc => {
                let asu = f(0).device("an application storage unit number")?;
                let offset = f(1).scaled("a logical block address (512-byte sectors)", SECTOR)?;
                let size = f(2).int("a size in bytes")?;
                let write = f(3).one_of([("r", false), ("R", false), ("w", true), ("W", true)], "'r' or 'w'")?;
                let t = f(4).real("a timestamp in seconds")?;
                c.push(line, t, offset, size, write, Some(asu));
            }
            Kind::Msr => {
                let raw = f(0).int("a FILETIME timestamp (100 ns ticks)")?;
                match &self.host {
                    None => self.host = Some((parts[1].to_vec(), line)),
                    Some((host, first)) if host.as_slice() != parts[1] => {
                        return Err(ReadError {
                            line,
                            field: Some(names[1].to_string()),
                            message: format!(
                                "host {} after host {} (line {first}): MSR disks are keyed by number, so two hosts' disk 0 would be replayed as one disk; split the file by host (each published MSR trace holds one host)",
                                super::shown(parts[1]),
                                super::shown(host)
                            ),
                        })
                    }
                    Some(_) => {}
                }
                let disk = f(2).device("a disk number")?;
                let write = f(3).one_of([("Read", false), ("Write", true)], "'Read' or 'Write'")?;
                let offset = f(4).int("a byte offset")?;
                let size = f(5).int("a size in bytes")?;
                f(6).int("a response time in 100 ns ticks")?;
                let t = self.epoch_time(f(0), raw, 1e-7)?;
                c.push(line, t, offset, size, write, Some(disk));
            }
            Kind::Alibaba => {
                let dev = f(0).device("a device id")?;
                let write = f(1).one_of([("R", false), ("W", true)], "'R' or 'W'")?;
                let offset = f(2).int("a byte offset")?;
                let size = f(3).int("a length in bytes")?;
                let raw = f(4).int("a timestamp in microseconds")?;
                let t = self.epoch_time(f(4), raw, 1e-6)?;
                c.push(line, t, offset, size, write, Some(dev));
            }
            Kind::Fiu => {
                let raw = f(0).int("a timestamp in nanoseconds")?;
                f(1).int("a process id")?;
                let offset = f(3).scaled("a logical block address (512-byte sectors)", SECTOR)?;
                let size = f(4).scaled("a size in 512-byte sectors", SECTOR)?;
                let write = f(5).one_of([("R", false), ("W", true)], "'R' or 'W'")?;
                let (major, minor) = (f(6).int("a device major number")?, f(7).int("a device minor number")?);
                let device = super::device_number(major, minor, f(6), f(7))?;
                let t = self.epoch_time(f(0), raw, 1e-9)?;
                c.push(line, t, offset, size, write, Some(device));
            }
            Kind::Tencent => {
                let mut t = f(0).real("a timestamp in seconds")?;
                let offset = f(1).scaled("an offset in 512-byte sectors", SECTOR)?;
                let size = f(2).scaled("a size in 512-byte sectors", SECTOR)?;
                let write = f(3).one_of([("0", false), ("1", true)], "0 (read) or 1 (write)")?;
                let volume = f(4).device("a volume id")?;
                if self.streaming {
                    let origin = *self.origin_s.get_or_insert(t);
                    if t < origin {
                        return Err(out_of_order(f(0)));
                    }
                    t -= origin;
                }
                c.push(line, t, offset, size, write, Some(volume));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::read as read_format;

    #[test]
    fn disksim_reads_sectors_as_bytes_and_names_bad_lines() {
        let c = read_format("disksim", b"0.5 1 10 8 1\n\n  \n12.25\t2  20 16 0\n").unwrap();
        assert_eq!(c.time_s, vec![0.0005, 0.01225]);
        assert_eq!(c.offset_bytes, vec![5120, 10240]);
        assert_eq!(c.size_bytes, vec![4096, 8192]);
        assert_eq!(c.is_write, vec![0, 1]);
        assert_eq!((c.stream.clone(), c.line.iter().collect::<Vec<_>>()), (vec![1, 2], vec![1, 4]));
        let e = read_format("disksim", b"0 1 10 8 1\n\n1 1 0x10 8 1\n").unwrap_err();
        assert_eq!(e.to_string(), "line 3, field 'blkno': expected a block number (512-byte sectors), got '0x10'");
        let e = read_format("disksim", b"0 1 99999999999999999999 8 1\n").unwrap_err();
        assert!(e.to_string().contains("within 64 bits"), "{e}");
        let e = read_format("disksim", b"0 1 18014398509481984 8 1\n").unwrap_err();
        assert!(e.message.contains("does not fit"), "{e}");
    }

    #[test]
    fn spc_ignores_trailing_fields_and_others_do_not() {
        let c = read_format("spc-ascii", b"100 0 1 1 1\n200 0 1 1 0 extra more\n").unwrap();
        assert_eq!(c.is_write, vec![0, 1]);
        let c = read_format("spc", b"0,20941264,8192,W,0.551706,x\n").unwrap();
        assert_eq!((c.offset_bytes[0], c.size_bytes[0], c.is_write[0]), (20941264 * 512, 8192, 1));
        assert!(read_format("alibaba", b"1,R,0,4096,10,extra\n").is_err());
    }

    #[test]
    fn epochs_near_the_ends_of_int64_are_made_relative_exactly() {
        // Two hosts' disk 0 would be one disk: refused at the first record of the second host.
        let e = read_format("msr", b"1,hm,0,Read,0,4096,1\n2,hm,1,Read,0,4096,1\n3,prn,0,Read,0,4096,1\n").unwrap_err();
        assert_eq!((e.line, e.field.as_deref()), (3, Some("hostname")), "{e}");
        assert!(e.message.contains("host 'prn' after host 'hm' (line 1)"), "{e}");
        let c = read_format("msr", b"9223372036854775000,hm,0,Read,0,4096,1\n9223372036854775807,hm,0,Write,0,4096,1\n").unwrap();
        assert_eq!(c.time_s, vec![0.0, 807e-7]);
        let c = read_format("alibaba", b"1,R,0,4096,-9223372036854775808\n1,W,0,4096,-9223372036854775800\n").unwrap();
        assert_eq!(c.time_s, vec![0.0, 8e-6]);
    }

    #[test]
    fn fiu_reads_nanoseconds_sectors_and_devices() {
        let c = read_format("fiu", b"89966527181059 4121 syslogd 904994888 8 W 6 0 531de8ebfe9e14f5ef4a65bcd0bc1b8b\n89966528181059 4121 syslogd 904994896 16 R 8 16 01234567890abcdef01234567890abcd\n").unwrap();
        assert_eq!(c.time_s, vec![0.0, 1e-3]);
        assert_eq!((c.offset_bytes.clone(), c.size_bytes.clone(), c.is_write.clone()), (vec![904994888 * 512, 904994896 * 512], vec![4096, 8192], vec![1, 0]));
        assert_eq!(c.stream, vec![6 * 256, 8 * 256 + 16]);
        // Devices are keyed as glibc's makedev keys them: 8,256 and 9,0 stay two devices.
        let c = read_format("fiu", b"1 2 p 3 8 W 8 256 abc\n2 2 p 3 8 W 9 0 abc\n3 2 p 3 8 W 2147483647 4294967295 abc\n").unwrap();
        assert_eq!(c.stream, vec![1_050_624, 2304, 0x7fff_ffff_ffff_ffff]);
        for (line, field) in [(&b"1 2 p 3 8 W -1 0 abc\n"[..], "major"), (b"1 2 p 3 8 W 1 -1 abc\n", "minor"), (b"1 2 p 3 8 W 2147483648 0 abc\n", "major"), (b"1 2 p 3 8 W 1 4294967296 abc\n", "minor")] {
            let e = read_format("fiu", line).unwrap_err();
            assert!(e.to_string().contains(&format!("field '{field}'")), "{e}");
        }
        let e = read_format("fiu", b"1 2 Web Content 3 8 W 6 0 abc\n").unwrap_err();
        assert!(e.to_string().starts_with("line 1: expected 9 fields"), "{e}");
        let e = read_format("fiu", b"1 2 p 3 8 X 6 0 abc\n").unwrap_err();
        assert!(e.to_string().contains("field 'op'"), "{e}");
    }

    #[test]
    fn non_finite_and_odd_numbers_are_errors() {
        for bad in [&b"inf 0 1 8 0\n"[..], b"1e400 0 1 8 0\n", b"nan 0 1 8 0\n"] {
            assert!(read_format("disksim", bad).is_err());
        }
        let e = read_format("tencent", b"1,0,8,2,1\n").unwrap_err();
        assert!(e.to_string().contains("field 'iotype'"), "{e}");
        assert!(read_format("tencent", b"\xEF\xBB\xBF").is_err());
        assert!(read_format("msr", b"\xEF\xBB\xBF\n").unwrap_err().message.contains("empty"));
    }
}
