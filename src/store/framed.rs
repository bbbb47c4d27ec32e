//! The framing every binary file of a run shares (models, trainer checkpoints, game shards):
//! `magic [4] | version u16 | body | crc32 u32`, the CRC-32 taken over everything before it.
//!
//! A reader checks the magic number, the version and the checksum before it looks at the body,
//! and reads the body through [`BodyReader`], whose every read is bounds-checked, so a corrupt
//! or truncated file is an error naming what is wrong, never a panic.

/// One file format: its magic number, the version this build writes and reads, and a name
/// for messages ("model", "checkpoint", "game shard").
#[derive(Clone, Copy, Debug)]
pub struct Format {
    pub magic: [u8; 4],
    pub version: u16,
    pub what: &'static str,
}

/// Why framed bytes were refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("not a junglezero {what} (bad magic number)")]
    BadMagic { what: &'static str },
    #[error("{what} format version {found} is not supported (this build reads version {supported})")]
    Version { what: &'static str, found: u16, supported: u16 },
    #[error("checksum mismatch: the {what} is corrupt")]
    Checksum { what: &'static str },
    #[error("the {what} is truncated")]
    Truncated { what: &'static str },
    #[error("corrupt {what}: {message}")]
    Corrupt { what: &'static str, message: String },
}

/// Bytes of `format`'s header; the caller appends the body, then calls [`seal`].
pub fn begin(format: &Format, capacity: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(capacity + 10);
    out.extend_from_slice(&format.magic);
    out.extend_from_slice(&format.version.to_le_bytes());
    out
}

/// Appends the checksum of everything written so far.
pub fn seal(mut out: Vec<u8>) -> Vec<u8> {
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Checks magic, version and checksum; the body, to be read from [`BodyReader::new`].
pub fn open<'a>(format: &Format, bytes: &'a [u8]) -> Result<&'a [u8], FrameError> {
    let what = format.what;
    if bytes.len() < 4 || bytes[..4] != format.magic {
        return Err(FrameError::BadMagic { what });
    }
    if bytes.len() < 10 {
        return Err(FrameError::Truncated { what });
    }
    let found = u16::from_le_bytes([bytes[4], bytes[5]]);
    if found != format.version {
        return Err(FrameError::Version { what, found, supported: format.version });
    }
    let (head, tail) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(head) != u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]) {
        return Err(FrameError::Checksum { what });
    }
    Ok(&head[6..])
}

/// Appends little-endian values and length-prefixed byte strings to a body.
pub trait BodyWriter {
    fn put_u8(&mut self, v: u8);
    fn put_u16(&mut self, v: u16);
    fn put_u32(&mut self, v: u32);
    fn put_u64(&mut self, v: u64);
    fn put_f32(&mut self, v: f32);
    /// `len u32 | bytes`.
    fn put_bytes32(&mut self, b: &[u8]);
    /// `len u64 | bytes`.
    fn put_bytes64(&mut self, b: &[u8]);
    /// `len u16 | UTF-8`, cut at 65 535 bytes (on a character boundary).
    fn put_str16(&mut self, s: &str);
}

impl BodyWriter for Vec<u8> {
    fn put_u8(&mut self, v: u8) {
        self.push(v);
    }
    fn put_u16(&mut self, v: u16) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u32(&mut self, v: u32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_u64(&mut self, v: u64) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_f32(&mut self, v: f32) {
        self.extend_from_slice(&v.to_le_bytes());
    }
    fn put_bytes32(&mut self, b: &[u8]) {
        self.put_u32(b.len() as u32);
        self.extend_from_slice(b);
    }
    fn put_bytes64(&mut self, b: &[u8]) {
        self.put_u64(b.len() as u64);
        self.extend_from_slice(b);
    }
    fn put_str16(&mut self, s: &str) {
        let mut n = s.len().min(u16::MAX as usize);
        while !s.is_char_boundary(n) {
            n -= 1;
        }
        self.put_u16(n as u16);
        self.extend_from_slice(&s.as_bytes()[..n]);
    }
}

/// Bounds-checked reads from a body.
pub struct BodyReader<'a> {
    bytes: &'a [u8],
    at: usize,
    what: &'static str,
}

impl<'a> BodyReader<'a> {
    pub fn new(format: &Format, body: &'a [u8]) -> BodyReader<'a> {
        BodyReader { bytes: body, at: 0, what: format.what }
    }

    /// A corruption error about this body.
    pub fn corrupt(&self, message: impl Into<String>) -> FrameError {
        FrameError::Corrupt { what: self.what, message: message.into() }
    }

    pub fn take(&mut self, n: usize) -> Result<&'a [u8], FrameError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or(FrameError::Truncated { what: self.what })?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], FrameError> {
        let s = self.take(N)?;
        let mut a = [0; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    pub fn u8(&mut self) -> Result<u8, FrameError> {
        Ok(self.array::<1>()?[0])
    }
    pub fn u16(&mut self) -> Result<u16, FrameError> {
        Ok(u16::from_le_bytes(self.array()?))
    }
    pub fn u32(&mut self) -> Result<u32, FrameError> {
        Ok(u32::from_le_bytes(self.array()?))
    }
    pub fn u64(&mut self) -> Result<u64, FrameError> {
        Ok(u64::from_le_bytes(self.array()?))
    }
    pub fn f32(&mut self) -> Result<f32, FrameError> {
        Ok(f32::from_le_bytes(self.array()?))
    }
    pub fn bytes32(&mut self) -> Result<&'a [u8], FrameError> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    pub fn bytes64(&mut self) -> Result<&'a [u8], FrameError> {
        let n = usize::try_from(self.u64()?).map_err(|_| FrameError::Truncated { what: self.what })?;
        self.take(n)
    }
    /// A length-prefixed UTF-8 string (u32 length).
    pub fn str32(&mut self) -> Result<&'a str, FrameError> {
        let b = self.bytes32()?;
        std::str::from_utf8(b).map_err(|_| self.corrupt("a text field is not UTF-8"))
    }

    /// A length-prefixed UTF-8 string (u16 length).
    pub fn str16(&mut self) -> Result<&'a str, FrameError> {
        let n = self.u16()? as usize;
        let b = self.take(n)?;
        std::str::from_utf8(b).map_err(|_| self.corrupt("a text field is not UTF-8"))
    }

    /// Errors unless every byte was read.
    pub fn finish(self) -> Result<(), FrameError> {
        if self.at == self.bytes.len() { Ok(()) } else { Err(self.corrupt("trailing bytes")) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Format = Format { magic: *b"TEST", version: 3, what: "test file" };

    fn sample() -> Vec<u8> {
        let mut out = begin(&F, 64);
        out.put_u32(7);
        out.put_bytes32(b"header");
        out.put_bytes64(&[1, 2, 3]);
        out.put_f32(0.5);
        seal(out)
    }

    #[test]
    fn a_framed_body_reads_back() {
        let bytes = sample();
        let body = open(&F, &bytes).unwrap();
        let mut r = BodyReader::new(&F, body);
        assert_eq!(r.u32().unwrap(), 7);
        assert_eq!(r.str32().unwrap(), "header");
        assert_eq!(r.bytes64().unwrap(), &[1, 2, 3]);
        assert_eq!(r.f32().unwrap(), 0.5);
        r.finish().unwrap();
    }

    #[test]
    fn every_damage_is_an_error_naming_it() {
        let good = sample();
        let mut other = good.clone();
        other[0] = b'X';
        assert_eq!(open(&F, &other), Err(FrameError::BadMagic { what: "test file" }));
        let mut newer = good.clone();
        newer[4] = 9;
        assert!(matches!(open(&F, &newer), Err(FrameError::Version { found: 9, supported: 3, .. })));
        let mut flipped = good.clone();
        flipped[12] ^= 1;
        assert_eq!(open(&F, &flipped), Err(FrameError::Checksum { what: "test file" }));
        for cut in 0..good.len() {
            assert!(open(&F, &good[..cut]).is_err(), "a file cut at {cut} bytes is refused");
        }
        // A body whose length field points past its end: truncated, not a panic.
        let mut out = begin(&F, 16);
        out.put_u32(1000);
        let bytes = seal(out);
        let mut r = BodyReader::new(&F, open(&F, &bytes).unwrap());
        assert_eq!(r.bytes32(), Err(FrameError::Truncated { what: "test file" }));
        // Unread bytes are an error too.
        let whole = sample();
        let mut r = BodyReader::new(&F, open(&F, &whole).unwrap());
        r.u32().unwrap();
        assert!(matches!(r.finish(), Err(FrameError::Corrupt { .. })));
    }
}
