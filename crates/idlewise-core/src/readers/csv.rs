//! idlewise's simple CSV: a header naming `time_s,offset_bytes,size_bytes,op` in any order, then
//! one request per line (`op` is `R` or `W`, either case). Fields may be quoted.

use super::{trim, Columns, Field, Line, ReadError, ReadResult, Separator};

pub const COLUMNS: [&str; 4] = ["time_s", "offset_bytes", "size_bytes", "op"];

fn unquote(field: &[u8]) -> &[u8] {
    let f = trim(field);
    if f.len() >= 2 && f[0] == b'"' && f[f.len() - 1] == b'"' {
        &f[1..f.len() - 1]
    } else {
        f
    }
}

/// The simple CSV's parser: the first line is the header, the rest records.
#[derive(Default, Clone)]
pub(super) struct SimpleCsv {
    /// The header's column count and where each of [`COLUMNS`] is, once read.
    header: Option<(Vec<String>, [usize; 4])>,
}

fn header(header_line: u64, header: &[u8]) -> ReadResult<(Vec<String>, [usize; 4])> {
    let names: Vec<String> = header.split(|&b| b == b',').map(|f| String::from_utf8_lossy(unquote(f)).into_owned()).collect();
    let mut position = [usize::MAX; 4];
    let mut unknown = Vec::new();
    for (i, name) in names.iter().enumerate() {
        match COLUMNS.iter().position(|c| c == name) {
            Some(c) if position[c] != usize::MAX => {
                return Err(ReadError { line: header_line, field: Some(name.clone()), message: "the header names this column twice".into() })
            }
            Some(c) => position[c] = i,
            None => unknown.push(name.clone()),
        }
    }
    let missing: Vec<&str> = COLUMNS.iter().zip(position).filter(|(_, p)| *p == usize::MAX).map(|(c, _)| *c).collect();
    if !missing.is_empty() || !unknown.is_empty() {
        let mut message = format!("header must name the columns {}", COLUMNS.join(","));
        if !missing.is_empty() {
            message += &format!("; missing {}", missing.join(", "));
        }
        if !unknown.is_empty() {
            // A header of any length: at most eight names, each shortened.
            let listed: Vec<String> = unknown.iter().take(8).map(|n| super::shown(n.as_bytes())).collect();
            message += &format!("; unknown {}", listed.join(", "));
            if unknown.len() > 8 {
                message += &format!(" and {} more", unknown.len() - 8);
            }
        }
        return Err(ReadError { line: header_line, field: None, message });
    }
    Ok((names, position))
}

impl super::LineFormat for SimpleCsv {
    fn separator(&self) -> Separator {
        Separator::Byte(b',')
    }

    #[inline]
    fn line(&mut self, line: u64, text: Line<'_>, c: &mut Columns) -> ReadResult<()> {
        let Some((names, position)) = &self.header else {
            self.header = Some(header(line, text.text())?);
            return Ok(());
        };
        c.records_read += 1;
        // The header names exactly the four columns, so a good line has four fields.
        let mut parts = [&b""[..]; 4];
        let count = text.fields(&mut parts);
        let fields = position.map(|p| unquote(parts[p]));
        if count != names.len() {
            return Err(ReadError { line, field: None, message: format!("expected {} fields ({}), got {count}", names.len(), names.join(",")) });
        }
        let f = |column: usize| Field { line, name: COLUMNS[column], text: fields[column] };
        let t = f(0).real("a number of seconds")?;
        let offset = f(1).int("a whole number of bytes")?;
        let size = f(2).int("a whole number of bytes")?;
        let write = f(3).one_of([("R", false), ("r", false), ("W", true), ("w", true)], "'R' or 'W'")?;
        c.push(line, t, offset, size, write, None);
        Ok(())
    }

    fn counts_records(&self) -> bool {
        true
    }

    fn fork(&self) -> Option<Self> {
        self.header.is_some().then(|| self.clone())
    }

    fn finish(&mut self, c: &mut Columns) -> ReadResult<()> {
        if c.records_read == 0 {
            return Err(super::whole_file("the trace has no requests (only a header)"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::read;

    #[test]
    fn columns_in_any_order_and_exact_lines() {
        let c = read("csv", b"op,time_s,size_bytes,offset_bytes\nW,0.5,4096,0\n\nr,1,512,\"8\"\n").unwrap();
        assert_eq!((c.time_s.clone(), c.is_write.clone(), c.line.iter().collect::<Vec<_>>()), (vec![0.5, 1.0], vec![1, 0], vec![2, 4]));
        let e = read("csv", b"time_s,offset_bytes,size_bytes,op\n0,0,1,R\n\n0,0,1_000,R\n").unwrap_err();
        assert_eq!(e.to_string(), "line 4, field 'size_bytes': expected a whole number of bytes, got '1_000'");
    }

    #[test]
    fn a_duplicated_or_missing_column_is_named() {
        let e = read("csv", b"time_s,time_s,offset_bytes,size_bytes,op\n").unwrap_err();
        assert!(e.to_string().contains("line 1, field 'time_s': the header names this column twice"), "{e}");
        let e = read("csv", b"time_s,size_bytes,op,x\n1,2,R,3\n").unwrap_err();
        assert!(e.message.contains("missing offset_bytes") && e.message.contains("unknown 'x'"), "{e}");
        let long = format!("time_s,offset_bytes,size_bytes,op\n0.{},0,1,R\n", "1".repeat(200_000));
        assert!(read("csv", long.as_bytes()).is_ok(), "a long but valid number");
        let long = format!("time_s,offset_bytes,size_bytes,op\n0,{},1,R\n", "9".repeat(200_000));
        assert!(read("csv", long.as_bytes()).unwrap_err().message.contains("bytes)"));
    }
}
