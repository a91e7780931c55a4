//! The reflection chunks: signatures, RDEF, STAT and SFI0
//! (`dxbc-format.md` §1.4–§1.7), parsed for reporting only.
//!
//! In: a [`Container`]. Out: [`ChunkInfo`] with whatever of those chunks is
//! present, and [`ChunkInfo::describe`] for a CLI `info` command. The engine
//! never needs them to run a shader. Invariant: every read is bounds-checked
//! against the chunk's data; counts from the input never size an allocation
//! (lists grow only as entries are actually read); errors carry the tag and
//! the byte offset inside the chunk.

use super::container::{tag_string, Container};
use super::DecodeError;
use std::fmt::Write as _;

/// One input/output/patch-constant signature element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignatureElement {
    pub name: String,
    pub semantic_index: u32,
    /// D3D_NAME system value (0 = none).
    pub system_value: u32,
    /// 0 unknown, 1 uint32, 2 sint32, 3 float32.
    pub component_type: u32,
    pub register: u32,
    pub mask: u8,
    pub rw_mask: u8,
    /// Geometry-shader stream (OSG5, ISG1/OSG1/PSG1), else 0.
    pub stream: u32,
    /// Minimum precision (ISG1/OSG1/PSG1), else 0.
    pub min_precision: u32,
}

/// One variable of a constant buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    pub offset: u32,
    pub size: u32,
    pub flags: u32,
}

/// One constant buffer of RDEF.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConstantBuffer {
    pub name: String,
    pub size: u32,
    pub flags: u32,
    pub kind: u32,
    pub variables: Vec<Variable>,
}

/// One bound resource (D3D_SHADER_INPUT_BIND_DESC).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundResource {
    pub name: String,
    /// D3D_SHADER_INPUT_TYPE.
    pub input_type: u32,
    /// D3D_RESOURCE_RETURN_TYPE.
    pub return_type: u32,
    /// D3D_SRV_DIMENSION.
    pub dimension: u32,
    pub sample_count: u32,
    pub bind_point: u32,
    pub bind_count: u32,
    pub flags: u32,
    /// Register space (SM5.1 RDEF only, else 0).
    pub space: u32,
    /// Range id (SM5.1 RDEF only, else 0).
    pub id: u32,
}

/// The RDEF chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rdef {
    pub creator: String,
    /// `minor | major << 8 | type << 16` (type 0xFFFF PS, 0xFFFE VS, 0x4353 CS, ...).
    pub target: u32,
    pub compile_flags: u32,
    pub constant_buffers: Vec<ConstantBuffer>,
    pub resources: Vec<BoundResource>,
}

/// The STAT chunk: its raw dwords (meanings per `dxbc-format.md` §1.6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stat {
    pub dwords: Vec<u32>,
}

impl Stat {
    /// The instruction count (first dword).
    pub fn instruction_count(&self) -> Option<u32> {
        self.dwords.first().copied()
    }
}

/// The SFI0 chunk: "shader requires" feature flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShaderFeatures(pub u64);

/// Names of the SFI0 bits (DXC `ShaderFeatureInfo_*`).
const FEATURE_NAMES: [(u64, &str); 17] = [
    (0x1, "doubles"),
    (
        0x2,
        "compute shaders plus raw and structured buffers via shader 4.x",
    ),
    (0x4, "UAVs at every shader stage"),
    (0x8, "64 UAV slots"),
    (0x10, "minimum precision"),
    (0x20, "11.1 double extensions"),
    (0x40, "11.1 shader extensions"),
    (0x80, "level 9 comparison filtering"),
    (0x100, "tiled resources"),
    (0x200, "stencil ref"),
    (0x400, "inner coverage"),
    (0x800, "typed UAV load additional formats"),
    (0x1000, "ROVs"),
    (
        0x2000,
        "viewport and RT array index from any shader feeding the rasterizer",
    ),
    (0x4000, "wave ops"),
    (0x8000, "int64 ops"),
    (0x10000, "view instancing"),
];

impl ShaderFeatures {
    /// The names of the set bits; unknown bits as hex.
    pub fn names(&self) -> Vec<String> {
        let mut out: Vec<String> = FEATURE_NAMES
            .iter()
            .filter(|(bit, _)| self.0 & bit != 0)
            .map(|(_, n)| n.to_string())
            .collect();
        let known = FEATURE_NAMES.iter().fold(0, |a, (b, _)| a | b);
        if self.0 & !known != 0 {
            out.push(format!("unknown bits {:#x}", self.0 & !known));
        }
        out
    }
}

/// Everything parsed from the reflection chunks that are present.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkInfo {
    pub input_signature: Option<Vec<SignatureElement>>,
    pub output_signature: Option<Vec<SignatureElement>>,
    pub patch_constant_signature: Option<Vec<SignatureElement>>,
    pub rdef: Option<Rdef>,
    pub stat: Option<Stat>,
    pub features: Option<ShaderFeatures>,
    /// Every chunk tag in file order, with its data size.
    pub chunk_tags: Vec<(String, usize)>,
}

/// Bounds-checked little-endian reads inside one chunk.
struct ChunkReader<'a> {
    tag: &'a [u8; 4],
    data: &'a [u8],
}

impl ChunkReader<'_> {
    fn err(&self, offset: usize, what: impl Into<String>) -> DecodeError {
        DecodeError::Chunk {
            tag: tag_string(self.tag),
            offset,
            what: what.into(),
        }
    }

    fn u32(&self, offset: usize) -> Result<u32, DecodeError> {
        offset
            .checked_add(4)
            .and_then(|end| self.data.get(offset..end))
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(|| {
                self.err(
                    offset,
                    format!("read past the end of the {}-byte chunk", self.data.len()),
                )
            })
    }

    /// `n` dwords starting at `offset`.
    fn dwords<const N: usize>(&self, offset: usize) -> Result<[u32; N], DecodeError> {
        let mut out = [0u32; N];
        for (i, w) in out.iter_mut().enumerate() {
            *w = self.u32(offset + 4 * i)?;
        }
        Ok(out)
    }

    /// A NUL-terminated string at `offset`.
    fn string(&self, offset: usize) -> Result<String, DecodeError> {
        let rest = self
            .data
            .get(offset..)
            .ok_or_else(|| self.err(offset, "string offset past the end of the chunk"))?;
        let len = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.err(offset, "unterminated string"))?;
        Ok(String::from_utf8_lossy(&rest[..len]).into_owned())
    }

    /// Checks that `count` records of `size` bytes at `offset` fit in the chunk.
    fn table(
        &self,
        at: usize,
        offset: usize,
        count: usize,
        size: usize,
    ) -> Result<(), DecodeError> {
        let end = count.checked_mul(size).and_then(|n| n.checked_add(offset));
        match end {
            Some(end) if end <= self.data.len() => Ok(()),
            _ => Err(self.err(
                at,
                format!(
                    "{count} records of {size} bytes at {offset} do not fit in {} bytes",
                    self.data.len()
                ),
            )),
        }
    }
}

impl ChunkInfo {
    /// Parses the signature, RDEF, STAT and SFI0 chunks that are present.
    pub fn parse(c: &Container) -> Result<ChunkInfo, DecodeError> {
        let sig = |tags: &[&[u8; 4]]| -> Result<Option<Vec<SignatureElement>>, DecodeError> {
            match tags.iter().find_map(|t| c.chunk(t)) {
                Some(ch) => parse_signature(&ch.tag, &ch.data).map(Some),
                None => Ok(None),
            }
        };
        Ok(ChunkInfo {
            input_signature: sig(&[b"ISG1", b"ISGN"])?,
            output_signature: sig(&[b"OSG1", b"OSG5", b"OSGN"])?,
            patch_constant_signature: sig(&[b"PSG1", b"PCSG"])?,
            rdef: c
                .chunk(b"RDEF")
                .map(|ch| parse_rdef(&ch.data))
                .transpose()?,
            stat: c
                .chunk(b"STAT")
                .map(|ch| parse_stat(&ch.data))
                .transpose()?,
            features: c
                .chunk(b"SFI0")
                .map(|ch| parse_sfi0(&ch.data))
                .transpose()?,
            chunk_tags: c
                .chunks
                .iter()
                .map(|ch| (ch.tag_str(), ch.data.len()))
                .collect(),
        })
    }

    /// A human-readable report of the chunks.
    pub fn describe(&self) -> String {
        let mut s = String::new();
        let tags: Vec<String> = self
            .chunk_tags
            .iter()
            .map(|(t, n)| format!("{t} ({n} bytes)"))
            .collect();
        let _ = writeln!(s, "chunks: {}", tags.join(", "));
        for (label, sig) in [
            ("input signature", &self.input_signature),
            ("output signature", &self.output_signature),
            ("patch constant signature", &self.patch_constant_signature),
        ] {
            if let Some(sig) = sig {
                describe_signature(&mut s, label, sig);
            }
        }
        if let Some(r) = &self.rdef {
            describe_rdef(&mut s, r);
        }
        if let Some(st) = &self.stat {
            let count = st
                .instruction_count()
                .map_or("?".to_string(), |n| n.to_string());
            let _ = writeln!(s, "stat: {} dwords, {count} instructions", st.dwords.len());
        }
        if let Some(f) = &self.features {
            let names = f.names();
            let list = if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            };
            let _ = writeln!(s, "features: {:#x} ({list})", f.0);
        }
        s
    }
}

fn describe_signature(s: &mut String, label: &str, sig: &[SignatureElement]) {
    let _ = writeln!(s, "{label}: {} elements", sig.len());
    for e in sig {
        let _ = writeln!(
            s,
            "  {}{} reg {} mask {:#x} rw {:#x} sv {} type {} stream {}",
            e.name,
            e.semantic_index,
            e.register,
            e.mask,
            e.rw_mask,
            e.system_value,
            e.component_type,
            e.stream
        );
    }
}

fn describe_rdef(s: &mut String, r: &Rdef) {
    let _ = writeln!(s, "creator: {}", r.creator);
    let _ = writeln!(
        s,
        "target: {:#010x}, compile flags {:#x}",
        r.target, r.compile_flags
    );
    for cb in &r.constant_buffers {
        let _ = writeln!(
            s,
            "cbuffer {} ({} bytes, {} variables)",
            cb.name,
            cb.size,
            cb.variables.len()
        );
        for v in &cb.variables {
            let _ = writeln!(s, "  {} offset {} size {}", v.name, v.offset, v.size);
        }
    }
    for b in &r.resources {
        let _ = writeln!(
            s,
            "resource {}: type {} return {} dim {} bind {} count {} flags {:#x} space {}",
            b.name,
            b.input_type,
            b.return_type,
            b.dimension,
            b.bind_point,
            b.bind_count,
            b.flags,
            b.space
        );
    }
}

fn parse_signature(tag: &[u8; 4], data: &[u8]) -> Result<Vec<SignatureElement>, DecodeError> {
    let r = ChunkReader { tag, data };
    let count = r.u32(0)? as usize;
    let offset = r.u32(4)? as usize;
    let (size, stream_first, min_prec) = match tag {
        b"OSG5" => (28, true, false),
        b"ISG1" | b"OSG1" | b"PSG1" => (32, true, true),
        _ => (24, false, false),
    };
    r.table(0, offset, count, size)?;
    let mut out = Vec::new();
    for i in 0..count {
        let mut at = offset + i * size;
        let stream = if stream_first {
            at += 4;
            r.u32(at - 4)?
        } else {
            0
        };
        let [name_off, semantic_index, system_value, component_type, register, packed] =
            r.dwords::<6>(at)?;
        let min_precision = if min_prec { r.u32(at + 24)? } else { 0 };
        out.push(SignatureElement {
            name: r.string(name_off as usize)?,
            semantic_index,
            system_value,
            component_type,
            register,
            mask: packed as u8,
            rw_mask: (packed >> 8) as u8,
            stream,
            min_precision,
        });
    }
    Ok(out)
}

fn parse_rdef(data: &[u8]) -> Result<Rdef, DecodeError> {
    let r = ChunkReader { tag: b"RDEF", data };
    let [cb_count, cb_offset, res_count, res_offset, target, compile_flags, creator_off] =
        r.dwords::<7>(0)?;
    // SM5+ adds an RD11 block whose sizes say how long the records are.
    let (bind_size, var_size) = if (target >> 8) & 0xFF >= 5 {
        let rd11 = r.dwords::<8>(28)?;
        (rd11[3] as usize, rd11[4] as usize)
    } else {
        (32, 24)
    };
    if bind_size < 32 || var_size < 24 {
        return Err(r.err(
            28,
            format!("record sizes {bind_size}/{var_size} are smaller than the base layout"),
        ));
    }
    let (cb_count, cb_offset, res_count, res_offset) = (
        cb_count as usize,
        cb_offset as usize,
        res_count as usize,
        res_offset as usize,
    );
    r.table(0, cb_offset, cb_count, 24)?;
    r.table(8, res_offset, res_count, bind_size)?;
    let mut resources = Vec::new();
    for i in 0..res_count {
        let at = res_offset + i * bind_size;
        let [name, input_type, return_type, dimension, sample_count, bind_point, bind_count, flags] =
            r.dwords::<8>(at)?;
        let (space, id) = if bind_size >= 40 {
            (r.u32(at + 32)?, r.u32(at + 36)?)
        } else {
            (0, 0)
        };
        resources.push(BoundResource {
            name: r.string(name as usize)?,
            input_type,
            return_type,
            dimension,
            sample_count,
            bind_point,
            bind_count,
            flags,
            space,
            id,
        });
    }
    let mut constant_buffers = Vec::new();
    for i in 0..cb_count {
        let at = cb_offset + i * 24;
        let [name, var_count, var_offset, size, flags, kind] = r.dwords::<6>(at)?;
        let (var_count, var_offset) = (var_count as usize, var_offset as usize);
        r.table(at + 4, var_offset, var_count, var_size)?;
        let mut variables = Vec::new();
        for v in 0..var_count {
            let vat = var_offset + v * var_size;
            let [vname, offset, vsize, vflags] = r.dwords::<4>(vat)?;
            variables.push(Variable {
                name: r.string(vname as usize)?,
                offset,
                size: vsize,
                flags: vflags,
            });
        }
        constant_buffers.push(ConstantBuffer {
            name: r.string(name as usize)?,
            size,
            flags,
            kind,
            variables,
        });
    }
    Ok(Rdef {
        creator: r.string(creator_off as usize)?,
        target,
        compile_flags,
        constant_buffers,
        resources,
    })
}

fn parse_stat(data: &[u8]) -> Result<Stat, DecodeError> {
    if data.len() % 4 != 0 {
        return Err(DecodeError::Chunk {
            tag: "STAT".into(),
            offset: data.len(),
            what: "size is not a multiple of 4".into(),
        });
    }
    Ok(Stat {
        dwords: data
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect(),
    })
}

fn parse_sfi0(data: &[u8]) -> Result<ShaderFeatures, DecodeError> {
    let r = ChunkReader { tag: b"SFI0", data };
    let lo = r.u32(0)? as u64;
    let hi = r.u32(4)? as u64;
    Ok(ShaderFeatures((hi << 32) | lo))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dxbc::Chunk;

    fn sig_chunk() -> Vec<u8> {
        let mut d = Vec::new();
        for w in [1u32, 8, 32, 0, 0, 3, 0, 0x0F | (0x03 << 8)] {
            d.extend_from_slice(&w.to_le_bytes());
        }
        d.extend_from_slice(b"TEXCOORD\0\0\0\0");
        d
    }

    #[test]
    fn parses_a_signature() {
        let sig = parse_signature(b"ISGN", &sig_chunk()).unwrap();
        assert_eq!(sig.len(), 1);
        assert_eq!(sig[0].name, "TEXCOORD");
        assert_eq!(sig[0].component_type, 3);
        assert_eq!((sig[0].mask, sig[0].rw_mask), (0xF, 0x3));
    }

    #[test]
    fn signature_errors_name_offsets() {
        let mut d = sig_chunk();
        d[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            parse_signature(b"ISGN", &d),
            Err(DecodeError::Chunk { offset: 0, .. })
        ));
        let mut d = sig_chunk();
        d[8..12].copy_from_slice(&1000u32.to_le_bytes());
        assert!(matches!(
            parse_signature(b"ISGN", &d),
            Err(DecodeError::Chunk { offset: 1000, .. })
        ));
        let d = &sig_chunk()[..36];
        assert!(matches!(
            parse_signature(b"ISGN", d),
            Err(DecodeError::Chunk { offset: 32, .. })
        ));
    }

    #[test]
    fn sfi0_and_stat() {
        let c = Container {
            chunks: vec![
                Chunk {
                    tag: *b"SFI0",
                    data: vec![0x21, 0, 0, 0, 0, 0, 0, 0],
                },
                Chunk {
                    tag: *b"STAT",
                    data: vec![7, 0, 0, 0, 1, 0, 0, 0],
                },
            ],
        };
        let info = ChunkInfo::parse(&c).unwrap();
        assert_eq!(
            info.features.unwrap().names(),
            vec!["doubles", "11.1 double extensions"]
        );
        assert_eq!(info.stat.as_ref().unwrap().instruction_count(), Some(7));
        assert!(info.describe().contains("stat: 2 dwords, 7 instructions"));
    }

    /// A cs_5_0 RDEF: one cbuffer `Params` { float scale at 4 }, one texture `tex` at t3.
    fn rdef_chunk() -> Vec<u8> {
        let strings_at = 156u32;
        let creator = b"Microsoft (R) HLSL Shader Compiler\0";
        let cb_name = strings_at + creator.len() as u32;
        let var_name = cb_name + 7;
        let res_name = var_name + 6;
        let mut words = vec![1, 60, 1, 124, 0x4353_0500, 0x100, strings_at];
        words.extend([u32::from_le_bytes(*b"RD11"), 60, 24, 32, 40, 36, 12, 0]);
        words.extend([cb_name, 1, 84, 16, 0, 0]);
        words.extend([var_name, 4, 4, 2, 0, 0, 0, 0, 0, 0]);
        words.extend([res_name, 2, 5, 4, 0xFFFF_FFFF, 3, 1, 0xC]);
        let mut d: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert_eq!(d.len(), strings_at as usize);
        d.extend_from_slice(creator);
        d.extend_from_slice(b"Params\0scale\0tex\0");
        d
    }

    #[test]
    fn parses_an_sm5_rdef() {
        let r = parse_rdef(&rdef_chunk()).unwrap();
        assert_eq!(r.creator, "Microsoft (R) HLSL Shader Compiler");
        assert_eq!(r.target, 0x4353_0500);
        assert_eq!(r.constant_buffers.len(), 1);
        let cb = &r.constant_buffers[0];
        assert_eq!((cb.name.as_str(), cb.size), ("Params", 16));
        assert_eq!(
            cb.variables,
            vec![Variable {
                name: "scale".into(),
                offset: 4,
                size: 4,
                flags: 2
            }]
        );
        let t = &r.resources[0];
        assert_eq!(
            (
                t.name.as_str(),
                t.input_type,
                t.dimension,
                t.bind_point,
                t.bind_count
            ),
            ("tex", 2, 4, 3, 1)
        );
        let info = ChunkInfo {
            rdef: Some(r),
            ..Default::default()
        };
        let text = info.describe();
        assert!(
            text.contains("cbuffer Params (16 bytes, 1 variables)"),
            "{text}"
        );
        assert!(text.contains("resource tex: type 2"), "{text}");
    }

    #[test]
    fn rdef_errors_name_offsets() {
        let mut d = rdef_chunk();
        // Variable count far beyond the chunk.
        d[64..68].copy_from_slice(&1000u32.to_le_bytes());
        assert!(matches!(
            parse_rdef(&d),
            Err(DecodeError::Chunk { offset: 64, .. })
        ));
        let mut d = rdef_chunk();
        // Resource name offset past the end.
        d[124..128].copy_from_slice(&5000u32.to_le_bytes());
        assert!(matches!(
            parse_rdef(&d),
            Err(DecodeError::Chunk { offset: 5000, .. })
        ));
        // Unterminated creator string.
        let d = rdef_chunk();
        let cut = &d[..d.len() - 20];
        assert!(parse_rdef(cut).is_err());
    }

    #[test]
    fn rdef_with_absurd_counts_is_an_error() {
        let mut d = vec![0u8; 28];
        d[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            parse_rdef(&d),
            Err(DecodeError::Chunk { offset: 0, .. })
        ));
    }
}
