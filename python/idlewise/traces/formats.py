"""The trace formats idlewise reads, by name, with one line each: light enough for the command
line's start-up (the readers themselves, and NumPy and Arrow, load when a trace is read)."""

#: Format name -> one-line description, in the order `idlewise trace formats` lists them.
DESCRIPTIONS = {
    "csv": "idlewise simple CSV with header time_s,offset_bytes,size_bytes,op",
    "parquet": "idlewise native Parquet (time_s, offset_bytes, size_bytes, is_write[, stream])",
    "srt": "HP SRT binary (hplajw, cello), as shipped with DiskSim",
    "disksim": "DiskSim ASCII: arrival_ms devno blkno bcount flags",
    "spc": "UMass/SPC CSV: ASU,LBA,Size,Opcode,Timestamp",
    "spc-ascii": "SPC converted to ASCII: arrival_ns devno lsn size_sectors op",
    "msr": "MSR Cambridge CSV: Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime",
    "blkparse": "blkparse default text output",
    "alibaba": "Alibaba block CSV: device_id,opcode,offset,length,timestamp_us",
    "tencent": "Tencent CBS CSV: Timestamp,Offset,Size,IOType,VolumeID",
    "fiu": "FIU (SRCMap, I/O deduplication): ts_ns pid process lba size_sectors R|W major minor md5",
    "diskstats": "/proc/diskstats snapshots, each line prefixed with its Unix time (idlewise record)",
    "biosnoop": "biosnoop (BCC, libbpf-tools) output: TIME(s) COMM PID DISK T SECTOR BYTES [QUE(ms)] LAT(ms)",
    "tar": "a tar archive of trace files (.tar, .tgz, .tar.gz, .tar.zst, ...): each file a device, in its own format",
}
#: Formats read whole into memory, never in chunks: biosnoop lists its requests in completion
#: order, and a tar's members are read one after another. The binary formats (Parquet, SRT) and
#: diskstats recordings (their requests made from the counters as they are consumed) are streamed
#: a batch of records at a time, the others a chunk of lines at a time.
READ_WHOLE = ("tar",)
FORMATS = tuple(DESCRIPTIONS)
#: The bytes a file in a binary format begins with. A compressed one is checked against them as
#: it is decompressed, before the rest: a .gz of anything else is refused at its first bytes.
MAGIC = {"parquet": b"PAR1", "srt": b"$$TR_IOREC"}
#: The Parquet metadata key of a recording's end (a diskstats file converted): such a file is
#: read whole as its source was, so every device's run lasts until the recording's end.
END_KEY = b"idlewise.end_time_s"


def reads_whole(path, format: str) -> bool:
    """Whether a file in ``format`` is read whole rather than as it streams: a tar archive.
    (A diskstats recording, and a Parquet file converted from one, stream with the recording's
    span kept, biosnoop's output in arrival order: ``sources.batches_of``.)"""
    return format in READ_WHOLE


__all__ = ["DESCRIPTIONS", "END_KEY", "FORMATS", "MAGIC", "READ_WHOLE", "reads_whole"]
