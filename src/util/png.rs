//! A minimal PNG writer for the examples: 8-bit RGB or RGBA, no
//! compression.
//!
//! In: width, height and tightly packed pixel rows. Out: the bytes of a
//! valid PNG file: signature, `IHDR`, one `IDAT` holding a zlib stream of
//! *stored* deflate blocks (each at most 65535 bytes, adler32 trailer),
//! `IEND`; every chunk ends with its CRC-32. Invariant: the output is
//! always a well-formed PNG any decoder reads back to exactly the input
//! pixels (filter type 0 on every row); sizes that do not match the pixel
//! data are an error, never a short or padded image.

/// Channels per pixel of the input rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorType {
    /// 3 bytes per pixel: red, green, blue.
    Rgb,
    /// 4 bytes per pixel: red, green, blue, alpha.
    Rgba,
}

impl ColorType {
    fn channels(self) -> usize {
        match self {
            ColorType::Rgb => 3,
            ColorType::Rgba => 4,
        }
    }

    /// The PNG colour-type byte.
    fn code(self) -> u8 {
        match self {
            ColorType::Rgb => 2,
            ColorType::Rgba => 6,
        }
    }
}

/// Why an image could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PngError {
    #[error("a PNG needs a width and height of at least 1, got {width}x{height}")]
    Empty { width: u32, height: u32 },
    #[error("{width}x{height} {color:?} pixels need {expected} bytes, got {got}")]
    SizeMismatch {
        width: u32,
        height: u32,
        color: ColorType,
        expected: u64,
        got: usize,
    },
}

/// The CRC-32 (IEEE, reflected, as PNG and zip use) of `bytes`.
pub fn crc32(bytes: &[u8]) -> u32 {
    crc32_update(0xFFFF_FFFF, bytes) ^ 0xFFFF_FFFF
}

fn crc32_update(mut crc: u32, bytes: &[u8]) -> u32 {
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    crc
}

/// The Adler-32 checksum (zlib's trailer) of `bytes`.
pub fn adler32(bytes: &[u8]) -> u32 {
    const MOD: u32 = 65521;
    let (mut a, mut b) = (1u32, 0u32);
    // 5552 bytes keep `b` below 2^32 before the reduction.
    for chunk in bytes.chunks(5552) {
        for &x in chunk {
            a += u32::from(x);
            b += a;
        }
        a %= MOD;
        b %= MOD;
    }
    (b << 16) | a
}

/// A zlib stream holding `data` in stored (uncompressed) deflate blocks.
pub fn zlib_stored(data: &[u8]) -> Vec<u8> {
    const MAX_BLOCK: usize = 65535;
    let blocks = data.len().div_ceil(MAX_BLOCK).max(1);
    let mut out = Vec::with_capacity(data.len() + 5 * blocks + 6);
    // CMF: deflate with a 32 KiB window; FLG makes CMF*256+FLG a multiple of 31.
    out.extend_from_slice(&[0x78, 0x01]);
    let mut chunks = data.chunks(MAX_BLOCK).peekable();
    if chunks.peek().is_none() {
        out.extend_from_slice(&[1, 0, 0, 0xFF, 0xFF]);
    }
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        let len = chunk.len() as u16;
        out.push(u8::from(last));
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&adler32(data).to_be_bytes());
    out
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32_update(crc32_update(0xFFFF_FFFF, kind), data) ^ 0xFFFF_FFFF;
    out.extend_from_slice(&crc.to_be_bytes());
}

/// Encodes `pixels` (rows top to bottom, `width * channels` bytes each,
/// no padding) as a PNG file.
pub fn encode(
    width: u32,
    height: u32,
    color: ColorType,
    pixels: &[u8],
) -> Result<Vec<u8>, PngError> {
    if width == 0 || height == 0 {
        return Err(PngError::Empty { width, height });
    }
    let row = u64::from(width) * color.channels() as u64;
    let expected = row * u64::from(height);
    // PNG chunk lengths are 31-bit; one IDAT must stay below that.
    if expected != pixels.len() as u64 || expected + u64::from(height) > (1 << 30) {
        return Err(PngError::SizeMismatch {
            width,
            height,
            color,
            expected,
            got: pixels.len(),
        });
    }
    let mut raw = Vec::with_capacity(pixels.len() + height as usize);
    for r in pixels.chunks(row as usize) {
        raw.push(0); // filter type: none
        raw.extend_from_slice(r);
    }
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    // bit depth 8, colour type, deflate, adaptive filtering, no interlace
    ihdr.extend_from_slice(&[8, color.code(), 0, 0, 0]);
    let mut out = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    chunk(&mut out, b"IHDR", &ihdr);
    chunk(&mut out, b"IDAT", &zlib_stored(&raw));
    chunk(&mut out, b"IEND", &[]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Splits a PNG into (type, data) chunks, checking every CRC.
    fn chunks(png: &[u8]) -> Vec<([u8; 4], Vec<u8>)> {
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let mut at = 8;
        let mut out = Vec::new();
        while at < png.len() {
            let len = u32::from_be_bytes(png[at..at + 4].try_into().unwrap()) as usize;
            let kind: [u8; 4] = png[at + 4..at + 8].try_into().unwrap();
            let data = png[at + 8..at + 8 + len].to_vec();
            let crc = u32::from_be_bytes(png[at + 8 + len..at + 12 + len].try_into().unwrap());
            assert_eq!(crc, crc32(&png[at + 4..at + 8 + len]), "crc of {kind:?}");
            out.push((kind, data));
            at += 12 + len;
        }
        assert_eq!(at, png.len());
        out
    }

    /// Reads a zlib stream of stored blocks back, checking the headers,
    /// the LEN/NLEN pairs and the Adler-32 trailer.
    fn inflate_stored(z: &[u8]) -> Vec<u8> {
        assert_eq!((u16::from(z[0]) << 8 | u16::from(z[1])) % 31, 0);
        assert_eq!(z[0] & 0x0F, 8, "deflate");
        let mut at = 2;
        let mut out = Vec::new();
        loop {
            let header = z[at];
            assert_eq!(header >> 1, 0, "stored block");
            let len = u16::from_le_bytes([z[at + 1], z[at + 2]]);
            let nlen = u16::from_le_bytes([z[at + 3], z[at + 4]]);
            assert_eq!(len, !nlen);
            out.extend_from_slice(&z[at + 5..at + 5 + len as usize]);
            at += 5 + len as usize;
            if header & 1 == 1 {
                break;
            }
        }
        assert_eq!(z[at..].len(), 4);
        assert_eq!(
            u32::from_be_bytes(z[at..].try_into().unwrap()),
            adler32(&out)
        );
        out
    }

    #[test]
    fn checksums_match_known_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        assert_eq!(adler32(&[]), 1);
        // Large input exercises the deferred modulo.
        let big = vec![0xFFu8; 100_000];
        let (mut a, mut b) = (1u64, 0u64);
        for &x in &big {
            a = (a + u64::from(x)) % 65521;
            b = (b + a) % 65521;
        }
        assert_eq!(adler32(&big), ((b << 16) | a) as u32);
    }

    #[test]
    fn image_round_trips_through_its_own_structure() {
        // 200x120 RGBA = 96 000 bytes of pixels: two stored blocks.
        let (w, h) = (200u32, 120u32);
        let pixels: Vec<u8> = (0..w * h * 4).map(|i| (i * 7 % 251) as u8).collect();
        let png = encode(w, h, ColorType::Rgba, &pixels).unwrap();
        let cs = chunks(&png);
        let kinds: Vec<&[u8; 4]> = cs.iter().map(|(k, _)| k).collect();
        assert_eq!(kinds, [b"IHDR", b"IDAT", b"IEND"]);
        let ihdr = &cs[0].1;
        assert_eq!(u32::from_be_bytes(ihdr[0..4].try_into().unwrap()), w);
        assert_eq!(u32::from_be_bytes(ihdr[4..8].try_into().unwrap()), h);
        assert_eq!(&ihdr[8..], &[8, 6, 0, 0, 0]);
        let raw = inflate_stored(&cs[1].1);
        assert_eq!(raw.len(), (h * (1 + w * 4)) as usize);
        for (y, row) in raw.chunks(1 + 4 * w as usize).enumerate() {
            assert_eq!(row[0], 0, "filter byte of row {y}");
            let start = y * 4 * w as usize;
            assert_eq!(&row[1..], &pixels[start..start + 4 * w as usize]);
        }
    }

    #[test]
    fn rgb_and_tiny_images() {
        let png = encode(1, 1, ColorType::Rgb, &[1, 2, 3]).unwrap();
        let cs = chunks(&png);
        assert_eq!(cs[0].1[9], 2);
        assert_eq!(inflate_stored(&cs[1].1), vec![0, 1, 2, 3]);
        assert_eq!(inflate_stored(&zlib_stored(&[])), Vec::<u8>::new());
    }

    #[test]
    fn mismatched_sizes_are_errors() {
        assert!(matches!(
            encode(2, 2, ColorType::Rgb, &[0; 11]),
            Err(PngError::SizeMismatch {
                expected: 12,
                got: 11,
                ..
            })
        ));
        assert!(matches!(
            encode(0, 5, ColorType::Rgba, &[]),
            Err(PngError::Empty { .. })
        ));
        assert!(encode(u32::MAX, u32::MAX, ColorType::Rgba, &[]).is_err());
    }
}
