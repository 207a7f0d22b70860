//! `--format auto`: a trace's format recognised from the first bytes of its file, beside the
//! table of formats it names ([`super::table`]), so that a new format's entry and the rule that
//! knows it are in one place. Refuses rather than guesses: a file no rule knows, or one that
//! several fit, is an error saying which `--format` to pass.
//!
//! The rules read the first (up to 65,536, decompressed) bytes as text (UTF-8, a bad byte read as
//! U+FFFD), its first 50 non-blank lines; they are those the Python face had
//! (`tests/test_detect_engine.py` holds them as the reference of a differential test).

use std::sync::OnceLock;

use regex::Regex;

use super::table::TRACE_FORMATS;

/// Bytes read of a file to recognise it.
pub const HEAD_BYTES: usize = 65536;

/// Lines examined.
const LINES: usize = 50;

/// A blkparse event line: `maj,min cpu seq time pid action rwbs [rest]`.
fn blkparse_event() -> &'static Regex {
    static EVENT: OnceLock<Regex> = OnceLock::new();
    EVENT.get_or_init(|| Regex::new(r"^[ \t\n\r\x0b\x0c]*[0-9]+,[0-9]+[ \t\n\r\x0b\x0c]+[0-9]+[ \t\n\r\x0b\x0c]+[0-9]+[ \t\n\r\x0b\x0c]+[0-9]+\.[0-9]+[ \t\n\r\x0b\x0c]+[0-9]+[ \t\n\r\x0b\x0c]+[A-Za-z]+[ \t\n\r\x0b\x0c]+[A-Z]+[ \t\n\r\x0b\x0c]*.*$").expect("a valid pattern"))
}

/// A web server's access log line in the Common Log Format: `host ident user [time] "request"
/// status bytes` (users try such logs: NASA's is the best known public workload of its era).
fn common_log_line() -> &'static Regex {
    static LINE: OnceLock<Regex> = OnceLock::new();
    // (Not white space: Unicode's, and the four separators Python also counts as space.)
    LINE.get_or_init(|| {
        let word = r"[^\s\x1c-\x1f]+";
        Regex::new(&format!(r#"^{word} {word} {word} \[[^\]]+\] "[A-Z]+ [^"]*" \d{{3}} (\d+|-)"#)).expect("a valid pattern")
    })
}

/// White space as the rules have always read it (Unicode's, and the information separators).
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

fn strip(text: &str) -> &str {
    text.trim_matches(is_space)
}

/// A whole number, signed or not, of ASCII digits (white space around it ignored).
fn is_int(text: &str) -> bool {
    let text = strip(text);
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A plain ASCII decimal, as the readers accept it (no inf, nan, 0x10 or 1_000).
fn is_number(text: &str) -> bool {
    let text = strip(text);
    let text = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(at) => (&text[..at], Some(&text[at + 1..])),
        None => (text, None),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = digits(whole) && digits(fraction) && (!whole.is_empty() || (mantissa.contains('.') && !fraction.is_empty()));
    let exponent_ok = exponent.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && digits(e)
    });
    mantissa_ok && exponent_ok
}

/// A whole number (as [`is_int`] reads it) of at least 1,000,000.
fn at_least_a_million(text: &str) -> bool {
    let text = strip(text);
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let significant = digits.trim_start_matches('0').len();
    !negative && significant >= 7
}

/// The text's lines, cut at every line boundary the rules have always known (`\n`, `\r`, `\r\n`,
/// vertical tab, form feed, the file, group and record separators, NEL and Unicode's two).
fn lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match rest.char_indices().find(|&(_, c)| matches!(c, '\n' | '\r' | '\x0b' | '\x0c' | '\x1c' | '\x1d' | '\x1e' | '\u{85}' | '\u{2028}' | '\u{2029}')) {
            Some((at, c)) => {
                out.push(&rest[..at]);
                let after = at + c.len_utf8();
                rest = if c == '\r' && rest[after..].starts_with('\n') { &rest[after + 1..] } else { &rest[after..] };
            }
            None => {
                out.push(rest);
                rest = "";
            }
        }
    }
    out
}

fn known_formats() -> String {
    TRACE_FORMATS.iter().map(|f| f.name).collect::<Vec<_>>().join(", ")
}

/// The format of a file whose first (up to [`HEAD_BYTES`], decompressed) bytes are `head`; an
/// error (naming `path`) says why none is, and what to pass instead.
pub fn format_of_head(head: &[u8], path: &str) -> Result<&'static str, String> {
    let head = head.strip_prefix(b"\xef\xbb\xbf").unwrap_or(head);
    if head.get(257..262) == Some(b"ustar") {
        return Ok("tar"); // a tar archive's header
    }
    if let Some(format) = TRACE_FORMATS.iter().find(|f| f.magic.is_some_and(|magic| head.starts_with(magic))) {
        return Ok(format.name);
    }
    if head.contains(&0) {
        return Err(format!("{path}: a binary file in no format idlewise knows (known: {})", known_formats()));
    }
    let text = String::from_utf8_lossy(head);
    let mut lines: Vec<&str> = lines(&text).into_iter().filter(|line| !strip(line).is_empty()).collect();
    if head.len() == HEAD_BYTES && lines.len() > 1 {
        lines.pop(); // the last line may be cut by the read
    }
    lines.truncate(LINES);
    let Some(&first) = lines.first() else {
        return Err(format!("{path}: the file is empty"));
    };
    let header: Vec<&str> = first.split(',').map(strip).collect();
    if header.contains(&"time_s") && header.contains(&"size_bytes") {
        return Ok("csv");
    }
    if lines.iter().take(3).any(|line| line.trim_start_matches(is_space).starts_with("TIME(s)") && line.contains("LAT(ms)")) {
        return Ok("biosnoop");
    }
    if blkparse_event().is_match(first) {
        return Ok("blkparse");
    }
    let commas = first.contains(',');
    let rows: Vec<Vec<&str>> = if commas {
        lines.iter().map(|line| line.split(',').map(strip).collect()).collect()
    } else {
        lines.iter().map(|line| line.split(is_space).filter(|f| !f.is_empty()).collect()).collect()
    };
    let all = |rule: &dyn Fn(&[&str]) -> bool| rows.iter().all(|r| rule(r));
    let mut candidates = Vec::new();
    if commas {
        if all(&|r| r.len() == 7 && matches!(r[3], "Read" | "Write") && is_int(r[0])) {
            candidates.push("msr");
        }
        if all(&|r| r.len() >= 5 && matches!(r[3], "r" | "R" | "w" | "W") && is_int(r[0]) && is_int(r[1]) && is_number(r[4])) {
            candidates.push("spc");
        }
        if all(&|r| r.len() == 5 && matches!(r[1], "R" | "W") && is_int(r[0]) && is_int(r[4])) {
            candidates.push("alibaba");
        }
        if all(&|r| r.len() == 5 && matches!(r[3], "0" | "1") && is_number(r[0]) && is_int(r[1]) && is_int(r[2])) {
            candidates.push("tencent");
        }
    } else {
        // Time, major, minor, a device name, then the kernel's counters.
        if all(&|r| r.len() >= 15 && is_number(r[0]) && r[1..3].iter().chain(&r[4..]).all(|x| is_int(x)) && !is_int(r[3])) {
            return Ok("diskstats");
        }
        if all(&|r| r.len() == 9 && matches!(r[5], "R" | "W") && [0, 1, 3, 4, 6, 7].iter().all(|&i| is_int(r[i]))) {
            return Ok("fiu");
        }
        if all(&|r| r.len() == 5 && r.iter().all(|x| is_number(x))) {
            if !all(&|r| is_int(r[0])) {
                candidates.push("disksim"); // fractional milliseconds
            } else if all(&|r| matches!(r[4], "0" | "1")) && rows.iter().any(|r| at_least_a_million(r[0])) {
                candidates.push("spc-ascii");
            } else {
                return Err(format!(
                    "{path}: five integer columns could be DiskSim ASCII (milliseconds) or SPC ASCII (nanoseconds); pass --format disksim or --format spc-ascii"
                ));
            }
        }
    }
    match candidates[..] {
        [one] => return Ok(one),
        [] => {}
        _ => return Err(format!("{path}: the first lines fit several formats ({}); pass --format", candidates.join(", "))),
    }
    if commas && all(&|r| r.len() == 4 && is_number(r[0]) && is_int(r[1]) && is_int(r[2])) {
        // idlewise's own CSV, but its header is missing: say so rather than "unknown format".
        let mut hint = format!("{path}: line 1: this looks like idlewise's simple CSV without its header line; add 'time_s,offset_bytes,size_bytes,op' as the first line (op: R or W)");
        if all(&|r| matches!(r[3], "0" | "1")) {
            hint += "; with that header, an op column of 0/1 flags reads with --columns time_s=time_s,offset_bytes=offset_bytes,size_bytes=size_bytes,op=op --write-flag 1";
        }
        return Err(hint);
    }
    if let Some(web) = web_log_kind(&lines) {
        let columns = if web.starts_with("a NASA") {
            ""
        } else {
            "; workload web reads the log as tab-separated columns host, logname, time (Unix seconds), method, url, response, bytes"
        };
        return Err(format!(
            "{path}: line 1: {web}, not a block I/O trace: a web workload for a device comes from it with idlewise workload web --log {path} --out web.csv, replayed by idlewise cache web.csv{columns}"
        ));
    }
    Err(format!("{path}: line 1: not a trace format idlewise recognises; pass --format ({})", known_formats()))
}

/// What kind of web server log `lines` begin, if they begin one.
fn web_log_kind(lines: &[&str]) -> Option<&'static str> {
    let header: Vec<String> = lines[0].split('\t').take(5).map(|h| strip(h).to_lowercase()).collect();
    if header == ["host", "logname", "time", "method", "url"] {
        return Some("a NASA-format web access log (tab-separated)");
    }
    if lines.iter().take(5).all(|line| common_log_line().is_match(line)) {
        return Some("a web server's access log (Common Log Format)");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_read_as_the_readers_read_them() {
        for yes in ["0", "+5", "-12", " 7 ", "1.5", "1.", ".5", "-.5e-3", "2E+10", "00012"] {
            assert!(is_number(yes), "{yes}");
        }
        for no in ["", ".", "e5", "1e", "1e+", "inf", "nan", "0x10", "1_000", "1.2.3", "--1", "١"] {
            assert!(!is_number(no), "{no}");
        }
        for yes in ["0", "+5", "-12", " 7 ", "00012"] {
            assert!(is_int(yes), "{yes}");
        }
        for no in ["", "+", "1.0", "1e3", "1 2", "٣"] {
            assert!(!is_int(no), "{no}");
        }
        assert!(at_least_a_million("1000000") && at_least_a_million("+0001000000") && at_least_a_million("99999999999999999999999"));
        assert!(!at_least_a_million("999999") && !at_least_a_million("-1000000") && !at_least_a_million("0000999999"));
    }

    #[test]
    fn lines_are_cut_at_every_boundary_once() {
        assert_eq!(lines("a\r\nb\rc\nd\u{2028}e\x0cf"), ["a", "b", "c", "d", "e", "f"]);
        assert_eq!(lines("a\n\nb\n"), ["a", "", "b"]);
        assert!(lines("").is_empty());
    }

    #[test]
    fn each_format_is_known_by_its_first_lines() {
        let cases: [(&[u8], &str); 12] = [
            (b"time_s,offset_bytes,size_bytes,op\n0.1,0,4096,R\n", "csv"),
            (b"PAR1....", "parquet"),
            (b"0.000 0 1000 8 1\n1.500 0 2000 8 0\n", "disksim"),
            (b"0,20941264,8192,W,0.551706\n0,20939840,8192,r,0.554041\n", "spc"),
            (b"1000000 0 10 8 1\n2000000 0 20 8 0\n", "spc-ascii"),
            (b"128166372003061629,hm,1,Read,3154152448,4096,2308\n", "msr"),
            (b"  8,0    3        1     0.000000000  1245  Q   W 1000 + 8 [dd]\n", "blkparse"),
            (b"419,W,8621236224,4096,1577808000000124\n", "alibaba"),
            (b"1538323200,12345,8,1,1063\n", "tencent"),
            (b"89283853 4316 syslogd 2205008 8 W 6 0 73bdf9f1d7a3a63fe1ef5e5d8b3e6ba1\n", "fiu"),
            (b"TIME(s)     COMM           PID    DISK    T SECTOR     BYTES   LAT(ms)\n", "biosnoop"),
            (b"\xef\xbb\xbftime_s,size_bytes\n1,2\n", "csv"),
        ];
        for (head, format) in cases {
            assert_eq!(format_of_head(head, "f"), Ok(format), "{}", String::from_utf8_lossy(head));
        }
        let mut tar = vec![b'x'; 600];
        tar[257..262].copy_from_slice(b"ustar");
        assert_eq!(format_of_head(&tar, "f"), Ok("tar"));
    }

    #[test]
    fn a_file_no_rule_knows_is_refused_with_what_to_pass() {
        assert_eq!(format_of_head(b"", "t.txt"), Err("t.txt: the file is empty".to_string()));
        assert!(format_of_head(b"\x00\x01", "b.bin").unwrap_err().starts_with("b.bin: a binary file in no format idlewise knows (known: csv, parquet"));
        assert!(format_of_head(b"1 2 3 4 5\n", "d").unwrap_err().contains("pass --format disksim or --format spc-ascii"));
        assert!(format_of_head(b"0.5,0,4096,1\n", "h").unwrap_err().contains("--write-flag 1"));
        assert!(format_of_head(b"hello\n", "x").unwrap_err().starts_with("x: line 1: not a trace format idlewise recognises; pass --format (csv, "));
        let log = b"host\tlogname\ttime\tmethod\turl\tresponse\tbytes\n";
        assert!(format_of_head(log, "nasa.tsv").unwrap_err().contains("idlewise workload web --log nasa.tsv --out web.csv"));
        let clf = b"199.72.81.55 - - [01/Jul/1995:00:00:01 -0400] \"GET /history/apollo/ HTTP/1.0\" 200 6245\n";
        assert!(format_of_head(clf, "access.log").unwrap_err().contains("Common Log Format"));
    }
}
