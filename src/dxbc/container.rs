//! The DXBC container: header, checksum, chunk table (`dxbc-format.md` §1.1).
//!
//! In: a byte buffer. Out: [`Container`], the list of tagged chunks in file
//! order; and back: [`Container::to_bytes`] writes a container with a correct
//! checksum. Invariant: every offset and size is checked against the buffer
//! before use; a count from the input never sizes an allocation beyond what
//! the buffer can hold.

use super::checksum::dxbc_checksum;
use super::DecodeError;

const MAGIC: &[u8; 4] = b"DXBC";
const HEADER_SIZE: usize = 32;

/// One chunk: its four-character tag and its data (without the 8-byte header).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub tag: [u8; 4],
    pub data: Vec<u8>,
}

impl Chunk {
    /// The tag as text (non-ASCII bytes shown as `?`).
    pub fn tag_str(&self) -> String {
        tag_string(&self.tag)
    }
}

/// Renders a four-character code for messages.
pub(crate) fn tag_string(tag: &[u8; 4]) -> String {
    tag.iter()
        .map(|&b| {
            if b.is_ascii_graphic() || b == b' ' {
                b as char
            } else {
                '?'
            }
        })
        .collect()
}

/// A parsed container: its chunks in file order.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Container {
    pub chunks: Vec<Chunk>,
}

/// How strictly [`Container::parse`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ReadOptions {
    /// Skip checksum verification (the default verifies).
    pub ignore_checksum: bool,
}

fn read_u32(bytes: &[u8], offset: usize) -> Result<u32, DecodeError> {
    offset
        .checked_add(4)
        .and_then(|end| bytes.get(offset..end))
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .ok_or_else(|| container_err(offset, "unexpected end of data"))
}

fn container_err(offset: usize, what: impl Into<String>) -> DecodeError {
    DecodeError::Container {
        offset,
        what: what.into(),
    }
}

impl Container {
    /// Parses and checks a container (magic, version 1, total size, chunk
    /// table, every chunk inside the declared size, and the checksum unless
    /// `opts.ignore_checksum`).
    pub fn parse(bytes: &[u8], opts: &ReadOptions) -> Result<Container, DecodeError> {
        if bytes.len() < HEADER_SIZE {
            return Err(container_err(
                bytes.len(),
                format!(
                    "file is {} bytes, shorter than the 32-byte header",
                    bytes.len()
                ),
            ));
        }
        if &bytes[0..4] != MAGIC {
            return Err(container_err(0, "bad magic (expected \"DXBC\")"));
        }
        let version = read_u32(bytes, 20)?;
        if version != 1 {
            return Err(container_err(
                20,
                format!("unsupported container version {version:#x} (expected 1)"),
            ));
        }
        let total = read_u32(bytes, 24)? as usize;
        if total > bytes.len() {
            return Err(container_err(
                24,
                format!("total size {total} exceeds the {}-byte buffer", bytes.len()),
            ));
        }
        if total < HEADER_SIZE {
            return Err(container_err(
                24,
                format!("total size {total} is smaller than the header"),
            ));
        }
        let bytes = &bytes[..total];
        if !opts.ignore_checksum {
            let stored = [
                read_u32(bytes, 4)?,
                read_u32(bytes, 8)?,
                read_u32(bytes, 12)?,
                read_u32(bytes, 16)?,
            ];
            let computed = dxbc_checksum(bytes);
            if stored != computed {
                return Err(DecodeError::Checksum { stored, computed });
            }
        }
        let count = read_u32(bytes, 28)? as usize;
        let max_count = (total - HEADER_SIZE) / 4;
        if count > max_count {
            return Err(container_err(
                28,
                format!("chunk count {count} cannot fit in {total} bytes"),
            ));
        }
        let mut chunks = Vec::with_capacity(count);
        for i in 0..count {
            let entry = HEADER_SIZE + 4 * i;
            let offset = read_u32(bytes, entry)? as usize;
            chunks.push(Self::read_chunk(bytes, entry, offset)?);
        }
        Ok(Container { chunks })
    }

    fn read_chunk(bytes: &[u8], entry: usize, offset: usize) -> Result<Chunk, DecodeError> {
        let header_end = offset
            .checked_add(8)
            .filter(|&e| e <= bytes.len())
            .ok_or_else(|| {
                container_err(
                    entry,
                    format!(
                        "chunk offset {offset} leaves no room for a chunk header in {} bytes",
                        bytes.len()
                    ),
                )
            })?;
        let tag = [
            bytes[offset],
            bytes[offset + 1],
            bytes[offset + 2],
            bytes[offset + 3],
        ];
        let size = read_u32(bytes, offset + 4)? as usize;
        let data = header_end
            .checked_add(size)
            .and_then(|end| bytes.get(header_end..end))
            .ok_or_else(|| {
                container_err(
                    offset + 4,
                    format!(
                        "chunk {} size {size} runs past the end of the container ({} bytes)",
                        tag_string(&tag),
                        bytes.len()
                    ),
                )
            })?;
        Ok(Chunk {
            tag,
            data: data.to_vec(),
        })
    }

    /// The first chunk with this tag.
    pub fn chunk(&self, tag: &[u8; 4]) -> Option<&Chunk> {
        self.chunks.iter().find(|c| &c.tag == tag)
    }

    /// Writes the container: header, chunk table, chunks in order (each
    /// padded to 4 bytes), then the checksum over the result.
    pub fn to_bytes(&self) -> Vec<u8> {
        let table_end = HEADER_SIZE + 4 * self.chunks.len();
        let mut out = Vec::with_capacity(
            table_end
                + self
                    .chunks
                    .iter()
                    .map(|c| 8 + c.data.len() + 3)
                    .sum::<usize>(),
        );
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[0; 16]);
        out.extend_from_slice(&1u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(self.chunks.len() as u32).to_le_bytes());
        out.resize(table_end, 0);
        for (i, chunk) in self.chunks.iter().enumerate() {
            let offset = out.len() as u32;
            out[HEADER_SIZE + 4 * i..HEADER_SIZE + 4 * i + 4]
                .copy_from_slice(&offset.to_le_bytes());
            out.extend_from_slice(&chunk.tag);
            out.extend_from_slice(&(chunk.data.len() as u32).to_le_bytes());
            out.extend_from_slice(&chunk.data);
            while out.len() % 4 != 0 {
                out.push(0);
            }
        }
        let total = out.len() as u32;
        out[24..28].copy_from_slice(&total.to_le_bytes());
        let sum = dxbc_checksum(&out);
        for (i, w) in sum.iter().enumerate() {
            out[4 + 4 * i..8 + 4 * i].copy_from_slice(&w.to_le_bytes());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Container {
        Container {
            chunks: vec![
                Chunk {
                    tag: *b"ISGN",
                    data: vec![0, 0, 0, 0, 8, 0, 0, 0],
                },
                Chunk {
                    tag: *b"SHEX",
                    data: vec![1, 2, 3, 4],
                },
            ],
        }
    }

    #[test]
    fn round_trips_with_valid_checksum() {
        let c = sample();
        let bytes = c.to_bytes();
        assert_eq!(
            Container::parse(&bytes, &ReadOptions::default()).unwrap(),
            c
        );
        assert_eq!(c.chunk(b"SHEX").unwrap().data, vec![1, 2, 3, 4]);
        assert!(c.chunk(b"RDEF").is_none());
    }

    #[test]
    fn rejects_bad_checksum_unless_ignored() {
        let mut bytes = sample().to_bytes();
        bytes[5] ^= 1;
        assert!(matches!(
            Container::parse(&bytes, &ReadOptions::default()),
            Err(DecodeError::Checksum { .. })
        ));
        assert!(Container::parse(
            &bytes,
            &ReadOptions {
                ignore_checksum: true
            }
        )
        .is_ok());
    }

    #[test]
    fn rejects_absurd_counts_and_offsets() {
        let opts = ReadOptions {
            ignore_checksum: true,
        };
        let mut bytes = sample().to_bytes();
        bytes[28..32].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            Container::parse(&bytes, &opts).unwrap_err(),
            container_err(
                28,
                format!(
                    "chunk count {} cannot fit in {} bytes",
                    u32::MAX,
                    bytes.len()
                )
            )
        );
        let mut bytes = sample().to_bytes();
        bytes[32..36].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            Container::parse(&bytes, &opts),
            Err(DecodeError::Container { offset: 32, .. })
        ));
        let mut bytes = sample().to_bytes();
        let off = u32::from_le_bytes(bytes[32..36].try_into().unwrap()) as usize;
        bytes[off + 4..off + 8].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(
            matches!(Container::parse(&bytes, &opts), Err(DecodeError::Container { offset, .. }) if offset == off + 4)
        );
        let mut bytes = sample().to_bytes();
        bytes[24..28].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            Container::parse(&bytes, &opts),
            Err(DecodeError::Container { offset: 24, .. })
        ));
    }

    #[test]
    fn rejects_bad_magic_version_and_short_files() {
        let opts = ReadOptions {
            ignore_checksum: true,
        };
        let bytes = sample().to_bytes();
        assert!(matches!(
            Container::parse(&bytes[..10], &opts),
            Err(DecodeError::Container { .. })
        ));
        let mut b = bytes.clone();
        b[0] = b'X';
        assert!(matches!(
            Container::parse(&b, &opts),
            Err(DecodeError::Container { offset: 0, .. })
        ));
        let mut b = bytes.clone();
        b[20] = 2;
        assert!(matches!(
            Container::parse(&b, &opts),
            Err(DecodeError::Container { offset: 20, .. })
        ));
    }
}
