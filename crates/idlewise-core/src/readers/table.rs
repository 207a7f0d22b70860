//! Every trace format idlewise reads, in one table: its name, one line for `idlewise trace
//! formats`, its fields, how a file of it is recognised (the bytes a binary file begins with,
//! the header or first line a text file has), the time field a sort beyond memory keys on, how
//! it is read (a chunk of lines at a time, a batch of records, or whole) and what a record
//! takes in memory read whole. The positional parsers (`formats.rs`), the Python readers,
//! `--format auto`, the memory budget and the help all read it.

/// How a file of a format is replayed as it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// A chunk of lines at a time, parsed by one thread per core (text formats).
    Chunks,
    /// A batch of records at a time (Parquet, HP SRT, a diskstats recording's counters, biosnoop
    /// put in arrival order holding only the requests in flight).
    Batches,
    /// Whole, before the replay (a tar archive's members, one after another).
    Whole,
}

impl Reading {
    pub fn as_str(self) -> &'static str {
        match self {
            Reading::Chunks => "chunks",
            Reading::Batches => "batches",
            Reading::Whole => "whole",
        }
    }
}

/// The time field of a text format, for the GNU `sort` command that sorts a file beyond memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimeField {
    /// The field's number, from 1.
    pub field: usize,
    pub separator: char,
    /// Header lines before the records.
    pub header_lines: usize,
}

/// One trace format.
#[derive(Debug, Clone, Copy)]
pub struct TraceFormat {
    pub name: &'static str,
    pub description: &'static str,
    /// The fields of a record, in the file's order (a binary format's, as its reader names them).
    pub fields: &'static [&'static str],
    /// The bytes a file of a binary format begins with (checked as a compressed one is
    /// decompressed, before the rest).
    pub magic: Option<&'static [u8]>,
    /// How `--format auto` knows it, in words (`idlewise trace formats`); the rules themselves
    /// are `detect.rs`'s, beside this table.
    pub recognised_by: &'static str,
    pub time_field: Option<TimeField>,
    pub reading: Reading,
    /// Peak bytes a record takes while a file is read whole and sorted (its columns, line
    /// numbers, the sort's order and the gathered columns; 77 measured for a 2M-record CSV).
    pub whole_read_bytes_per_record: u64,
}

const fn time(field: usize, separator: char, header_lines: usize) -> Option<TimeField> {
    Some(TimeField { field, separator, header_lines })
}

/// Bytes a record takes read whole: what `traces/budget.py` checks a whole read against.
const WHOLE: u64 = 100;

/// Every format, in the order `idlewise trace formats` lists them.
pub const TRACE_FORMATS: [TraceFormat; 14] = [
    TraceFormat {
        name: "csv",
        description: "idlewise simple CSV with header time_s,offset_bytes,size_bytes,op",
        fields: &["time_s", "offset_bytes", "size_bytes", "op"],
        magic: None,
        recognised_by: "a header naming time_s and size_bytes",
        time_field: time(1, ',', 1),
        reading: Reading::Chunks,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "parquet",
        description: "idlewise native Parquet (time_s, offset_bytes, size_bytes, is_write[, stream])",
        fields: &["time_s", "offset_bytes", "size_bytes", "is_write", "stream"],
        magic: Some(b"PAR1"),
        recognised_by: "its first bytes, PAR1",
        time_field: None,
        reading: Reading::Batches,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "srt",
        description: "HP SRT binary (hplajw, cello), as shipped with DiskSim",
        fields: &["size", "id", "sec", "usec", "start_us", "stop_us", "size_bytes", "sectno", "devno", "drivertype", "cylno",
                  "ioflags", "info", "queuelen"],
        magic: Some(b"$$TR_IOREC"),
        recognised_by: "its first bytes, $$TR_IOREC",
        time_field: None,
        reading: Reading::Batches,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "disksim",
        description: "DiskSim ASCII: arrival_ms devno blkno bcount flags",
        fields: &["arrival_ms", "devno", "blkno", "bcount", "flags"],
        magic: None,
        recognised_by: "five numbers a line, white space between",
        time_field: time(1, ' ', 0),
        reading: Reading::Chunks,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "spc",
        description: "UMass/SPC CSV: ASU,LBA,Size,Opcode,Timestamp",
        fields: &["asu", "lba", "size", "opcode", "timestamp"],
        magic: None,
        recognised_by: "ASU,LBA,Size,r|w,Timestamp lines",
        time_field: time(5, ',', 0),
        reading: Reading::Chunks,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "spc-ascii",
        description: "SPC converted to ASCII: arrival_ns devno lsn size_sectors op",
        fields: &["arrival_ns", "devno", "lsn", "size_sectors", "op"],
        magic: None,
        recognised_by: "nanosecond arrivals and a 0|1 op, white space between",
        time_field: time(1, ' ', 0),
        reading: Reading::Chunks,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "msr",
        description: "MSR Cambridge CSV: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
        fields: &["timestamp", "hostname", "disk", "type", "offset", "size", "response"],
        magic: None,
        recognised_by: "seven fields a line, Read|Write the fourth",
        time_field: time(1, ',', 0),
        reading: Reading::Chunks,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "blkparse",
        description: "blkparse default text output",
        fields: &["device", "cpu", "sequence", "time_s", "pid", "action", "rwbs", "sector", "+", "sectors"],
        magic: None,
        recognised_by: "a first line that is a blkparse event (maj,min cpu seq time pid action)",
        time_field: time(4, ' ', 0),
        reading: Reading::Chunks,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "alibaba",
        description: "Alibaba block CSV: device_id,opcode,offset,length,timestamp_us",
        fields: &["device_id", "opcode", "offset", "length", "timestamp_us"],
        magic: None,
        recognised_by: "five fields a line, R|W the second",
        time_field: time(5, ',', 0),
        reading: Reading::Chunks,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "tencent",
        description: "Tencent CBS CSV: Timestamp,Offset,Size,IOType,VolumeID",
        fields: &["timestamp", "offset", "size", "iotype", "volume"],
        magic: None,
        recognised_by: "five fields a line, 0|1 the fourth",
        time_field: time(1, ',', 0),
        reading: Reading::Chunks,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "fiu",
        description: "FIU (SRCMap, I/O deduplication): ts_ns pid process lba size_sectors R|W major minor md5",
        fields: &["ts_ns", "pid", "process", "lba", "size", "op", "major", "minor", "md5"],
        magic: None,
        recognised_by: "nine fields a line, R|W the sixth, an MD5 the last",
        time_field: time(1, ' ', 0),
        reading: Reading::Chunks,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "diskstats",
        description: "/proc/diskstats snapshots, each line prefixed with its Unix time (idlewise record)",
        fields: &["unix_time_s", "major", "minor", "device", "reads", "reads_merged", "sectors_read", "read_ms", "writes",
                  "writes_merged", "sectors_written", "write_ms", "in_flight", "io_ms", "weighted_io_ms"],
        magic: None,
        recognised_by: "a Unix time, then a /proc/diskstats line",
        time_field: None,
        reading: Reading::Batches,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "biosnoop",
        description: "biosnoop (BCC, libbpf-tools) output: TIME(s) COMM PID DISK T SECTOR BYTES [QUE(ms)] LAT(ms)",
        fields: &["time_s", "comm", "pid", "disk", "type", "sector", "bytes", "queue_ms", "latency_ms"],
        magic: None,
        recognised_by: "a header line starting TIME(s) and naming LAT(ms)",
        time_field: None,
        reading: Reading::Batches,
        whole_read_bytes_per_record: WHOLE,
    },
    TraceFormat {
        name: "tar",
        description: "a tar archive of trace files (.tar, .tgz, .tar.gz, .tar.zst, ...): each file a device, in its own format",
        fields: &[],
        magic: None,
        recognised_by: "ustar at byte 257 (a tar header)",
        time_field: None,
        reading: Reading::Whole,
        whole_read_bytes_per_record: WHOLE,
    },
];

/// The format of a name.
pub fn trace_format(name: &str) -> Option<&'static TraceFormat> {
    TRACE_FORMATS.iter().find(|f| f.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_each_positional_format_has_its_fields() {
        let mut names: Vec<&str> = TRACE_FORMATS.iter().map(|f| f.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), TRACE_FORMATS.len());
        for name in ["disksim", "spc-ascii", "spc", "msr", "alibaba", "tencent", "fiu"] {
            let format = trace_format(name).expect("in the table");
            assert!(format.fields.len() >= 5 && format.time_field.is_some() && format.reading == Reading::Chunks, "{name}");
        }
    }
}
