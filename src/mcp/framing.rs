//! Newline-delimited framing of the input stream.
//!
//! MCP over stdio sends one JSON message per line. Lines may be large (an import carries
//! its YAML inline), so the reader accepts anything up to a cap (64 MiB by default) and
//! skips a longer line without holding it in memory (only its first 4 KB, where a request's
//! id usually is), reporting it once so the caller can answer with an error and keep
//! serving. A UTF-8 byte order mark at the very start of the stream is dropped (RFC 8259
//! lets a parser ignore one): some Windows tools write one before the first line, and it
//! would otherwise turn `initialize` into a parse error.

use std::io::{self, BufRead};

/// The default longest line we accept.
pub const DEFAULT_MAX_LINE: usize = 64 * 1024 * 1024;

/// One unit of input.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A line's bytes without its `\n` and without one trailing `\r`.
    Line(Vec<u8>),
    /// A line longer than the cap was skipped; `bytes` is how long it was, `head` its
    /// first [`HEAD_BYTES`] (where a request's id usually is, so the error can carry it).
    TooLong { bytes: usize, head: Vec<u8> },
}

/// How much of a skipped line is kept.
pub const HEAD_BYTES: usize = 4096;

/// Reads frames from a buffered reader.
pub struct LineReader<R> {
    inner: R,
    max_line: usize,
    /// No line has been read yet, so a byte order mark may still come.
    at_start: bool,
}

/// The UTF-8 byte order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

impl<R: BufRead> LineReader<R> {
    pub fn new(inner: R, max_line: usize) -> LineReader<R> {
        LineReader {
            inner,
            max_line,
            at_start: true,
        }
    }

    /// The next frame, `Ok(None)` at end of input. A final line without a newline still
    /// counts. Blank and whitespace-only lines are skipped here.
    pub fn next_frame(&mut self) -> io::Result<Option<Frame>> {
        loop {
            let first = std::mem::replace(&mut self.at_start, false);
            match self.read_raw()? {
                None => return Ok(None),
                Some(Frame::Line(mut line)) => {
                    if first && line.starts_with(BOM) {
                        line.drain(..BOM.len());
                    }
                    if !line.iter().all(u8::is_ascii_whitespace) {
                        return Ok(Some(Frame::Line(line)));
                    }
                }
                Some(frame) => return Ok(Some(frame)),
            }
        }
    }

    fn read_raw(&mut self) -> io::Result<Option<Frame>> {
        let mut line = Vec::new();
        let mut head = Vec::new();
        let mut skipped: usize = 0;
        let mut saw_any = false;
        loop {
            let available = match self.inner.fill_buf() {
                Ok(buf) => buf,
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => return Err(err),
            };
            if available.is_empty() {
                if !saw_any {
                    return Ok(None);
                }
                return Ok(Some(finish(line, skipped, head)));
            }
            saw_any = true;
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(available.len());
            if skipped > 0 || line.len() + take > self.max_line {
                // Over the cap: keep the head, count the bytes and drop them.
                if skipped == 0 {
                    skipped = line.len();
                    head = std::mem::take(&mut line);
                    head.truncate(HEAD_BYTES);
                }
                let more = HEAD_BYTES.saturating_sub(head.len()).min(take);
                head.extend_from_slice(&available[..more]);
                skipped += take;
            } else {
                line.extend_from_slice(&available[..take]);
            }
            let consumed = take + usize::from(newline.is_some());
            self.inner.consume(consumed);
            if newline.is_some() {
                return Ok(Some(finish(line, skipped, head)));
            }
        }
    }
}

fn finish(mut line: Vec<u8>, skipped: usize, head: Vec<u8>) -> Frame {
    if skipped > 0 {
        return Frame::TooLong {
            bytes: skipped,
            head,
        };
    }
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    Frame::Line(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::BufReader;

    fn frames(input: &[u8], max: usize, capacity: usize) -> Vec<Frame> {
        let mut reader = LineReader::new(BufReader::with_capacity(capacity, input), max);
        let mut out = Vec::new();
        while let Some(frame) = reader.next_frame().unwrap() {
            out.push(frame);
        }
        out
    }

    #[test]
    fn splits_lines_strips_one_cr_and_skips_blanks() {
        let got = frames(b"a\r\n\n  \t\r\nb\r\r\nlast", 100, 3);
        assert_eq!(
            got,
            vec![
                Frame::Line(b"a".to_vec()),
                Frame::Line(b"b\r".to_vec()),
                Frame::Line(b"last".to_vec())
            ]
        );
    }

    #[test]
    fn a_byte_order_mark_is_dropped_only_at_the_start_of_the_stream() {
        let got = frames(b"\xEF\xBB\xBFa\n\xEF\xBB\xBFb\n", 100, 2);
        assert_eq!(
            got,
            vec![
                Frame::Line(b"a".to_vec()),
                Frame::Line(b"\xEF\xBB\xBFb".to_vec())
            ]
        );
        // A mark alone on the first line leaves a blank line, which is skipped.
        assert_eq!(
            frames(b"\xEF\xBB\xBF\r\nc", 100, 8),
            vec![Frame::Line(b"c".to_vec())]
        );
    }

    #[test]
    fn long_lines_are_skipped_and_reading_continues() {
        let mut input = vec![b'x'; 50];
        input.extend_from_slice(b"\nok\n");
        input.extend(vec![b'y'; 11]);
        let got = frames(&input, 10, 4);
        assert_eq!(
            got,
            vec![
                Frame::TooLong {
                    bytes: 50,
                    head: vec![b'x'; 50]
                },
                Frame::Line(b"ok".to_vec()),
                Frame::TooLong {
                    bytes: 11,
                    head: vec![b'y'; 11]
                }
            ]
        );
    }

    /// Only the first HEAD_BYTES of a skipped line are kept, however it arrives.
    #[test]
    fn a_skipped_line_keeps_its_head() {
        let line: Vec<u8> = (0..HEAD_BYTES * 3).map(|i| b'a' + (i % 26) as u8).collect();
        let mut input = line.clone();
        input.push(b'\n');
        for capacity in [7, 1000, HEAD_BYTES * 4] {
            assert_eq!(
                frames(&input, HEAD_BYTES + 10, capacity),
                vec![Frame::TooLong {
                    bytes: line.len(),
                    head: line[..HEAD_BYTES].to_vec()
                }],
                "capacity {capacity}"
            );
        }
    }

    #[test]
    fn a_line_exactly_at_the_cap_is_kept() {
        let mut input = vec![b'z'; 10];
        input.push(b'\n');
        assert_eq!(frames(&input, 10, 3), vec![Frame::Line(vec![b'z'; 10])]);
    }

    #[test]
    fn empty_input_is_eof() {
        assert!(frames(b"", 10, 8).is_empty());
    }
}
