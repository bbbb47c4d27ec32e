//! Lines of outside text read with a cap on their length: a line longer than the cap (a
//! 300 MB protocol line, a program that prints without end) is skipped up to its end while
//! holding at most the cap in memory, and reported as too long.

use std::io::BufRead;

/// Lines of `R`, each at most `cap` bytes.
pub struct CappedLines<R> {
    reader: R,
    cap: usize,
    buf: Vec<u8>,
    /// Report a line as too long as soon as it passes the cap, without reading to its end
    /// (for a program's output, which may never end the line).
    eager: bool,
    /// The last line held bytes that are not UTF-8 (replaced in what it returned).
    lossy: bool,
}

/// A line longer than the cap; it holds the line's first bytes, for messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooLong {
    pub start: String,
    pub cap: usize,
}

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "a line longer than {} (starting '{}...') was ignored", super::human_bytes(self.cap as u64), self.start)
    }
}

impl<R: BufRead> CappedLines<R> {
    pub fn new(reader: R, cap: usize) -> CappedLines<R> {
        CappedLines { reader, cap, buf: Vec::new(), eager: false, lossy: false }
    }

    /// Lines that report `TooLong` as soon as they pass the cap, rather than after skipping to
    /// their end: for a reader that may print one endless line. What follows the cap is then
    /// read as the next line.
    pub fn eager(mut self) -> CappedLines<R> {
        self.eager = true;
        self
    }

    /// Whether the last line returned held bytes that are not UTF-8 (each replaced by U+FFFD):
    /// a reader for which that changes the meaning refuses the line.
    pub fn last_was_invalid_utf8(&self) -> bool {
        self.lossy
    }

    /// The next line without its line ending, `Err` for one over the cap, `None` at the end
    /// of the input or on a read error. Invalid UTF-8 is replaced, not refused.
    pub fn next_line(&mut self) -> Option<Result<String, TooLong>> {
        self.buf.clear();
        // The line's length so far (without its ending); only the first `cap` bytes are kept.
        let mut len = 0usize;
        let mut any = false;
        loop {
            let chunk = match self.reader.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => return None,
            };
            if chunk.is_empty() {
                if !any {
                    return None;
                }
                break;
            }
            any = true;
            let (take, content, done) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, i, true),
                None => (chunk.len(), chunk.len(), false),
            };
            let room = self.cap.saturating_sub(self.buf.len());
            self.buf.extend_from_slice(&chunk[..content.min(room)]);
            len = len.saturating_add(content);
            self.reader.consume(take);
            if done || (self.eager && len > self.cap) {
                break;
            }
        }
        if len > self.cap {
            let start = String::from_utf8_lossy(&self.buf[..self.buf.len().min(40)]).into_owned();
            return Some(Err(TooLong { start, cap: self.cap }));
        }
        if self.buf.last() == Some(&b'\r') {
            self.buf.pop();
        }
        let text = String::from_utf8_lossy(&self.buf);
        self.lossy = matches!(text, std::borrow::Cow::Owned(_));
        Some(Ok(text.into_owned()))
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    #[test]
    fn a_line_that_is_not_utf8_is_told_apart() {
        let text = b"ok\n{\"id\":\"\xff\"}\nok again\n";
        let mut lines = CappedLines::new(&text[..], 100);
        assert_eq!(lines.next_line(), Some(Ok("ok".into())));
        assert!(!lines.last_was_invalid_utf8());
        assert!(lines.next_line().unwrap().unwrap().contains('\u{fffd}'));
        assert!(lines.last_was_invalid_utf8());
        assert_eq!(lines.next_line(), Some(Ok("ok again".into())));
        assert!(!lines.last_was_invalid_utf8());
    }

    #[test]
    fn long_lines_are_refused_and_the_next_line_reads() {
        let mut text = b"uci\r\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 10_000));
        text.extend_from_slice(b"\nisready\nexact\nlast");
        let mut lines = CappedLines::new(std::io::BufReader::with_capacity(64, &text[..]), 5);
        assert_eq!(lines.next_line(), Some(Ok("uci".into())));
        let e = lines.next_line().unwrap().unwrap_err();
        assert_eq!(e.start, "xxxxx");
        assert_eq!(lines.next_line(), Some(Err(TooLong { start: "isrea".into(), cap: 5 })));
        assert_eq!(lines.next_line(), Some(Ok("exact".into())));
        assert_eq!(lines.next_line(), Some(Ok("last".into())));
        assert_eq!(lines.next_line(), None);
    }

    #[test]
    fn an_eager_reader_refuses_an_endless_line_at_the_cap() {
        let endless = std::io::BufReader::with_capacity(64, std::io::repeat(b'y'));
        let mut lines = CappedLines::new(endless, 1 << 10).eager();
        let e = lines.next_line().unwrap().unwrap_err();
        assert_eq!(e.start, "y".repeat(40));
        let mut text = b"ok\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', 100));
        let mut lines = CappedLines::new(std::io::BufReader::with_capacity(8, &text[..]), 10).eager();
        assert_eq!(lines.next_line(), Some(Ok("ok".into())));
        assert!(lines.next_line().unwrap().is_err());
    }

    #[test]
    fn an_endless_line_is_read_with_a_bounded_buffer() {
        let mut lines = CappedLines::new(std::io::BufReader::new(std::io::repeat(b'a').take(50 << 20)), 1 << 10);
        assert!(lines.next_line().unwrap().is_err());
        assert!(lines.buf.capacity() < 1 << 16, "{}", lines.buf.capacity());
        assert_eq!(lines.next_line(), None);
    }
}
