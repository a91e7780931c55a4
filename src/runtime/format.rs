//! DXGI formats for typed buffers and textures, and the conversions between
//! a texel's bytes and the four 32-bit components a shader sees.
//!
//! In: a [`Format`] and either texel bytes (loads) or four shader DWORDs
//! (stores). Out: the other side. Rules (FS §3.2, `sm5-semantics.md` §12):
//! loads turn UNORM/SNORM into float and fill missing components with
//! (0, 0, 0, 1) (1.0f for float-like formats, integer 1 otherwise); stores
//! clamp and round FLOAT→UNORM/SNORM (NaN → 0), convert float→half and
//! float→11/10-bit with round-toward-zero and clamp to the largest finite
//! value, and clamp integers into the narrower range.
//!
//! Invariant: every format is described by its channels (kind, bit offset,
//! bit width) inside one little-endian texel of at most 16 bytes, so a
//! single pair of functions handles all of them.

/// A DXGI format usable for typed UAVs and SRVs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    R32G32B32A32Float,
    R32G32B32A32Uint,
    R32G32B32A32Sint,
    R32G32B32Float,
    R32G32B32Uint,
    R32G32B32Sint,
    R16G16B16A16Float,
    R16G16B16A16Unorm,
    R16G16B16A16Snorm,
    R16G16B16A16Uint,
    R16G16B16A16Sint,
    R32G32Float,
    R32G32Uint,
    R32G32Sint,
    R10G10B10A2Unorm,
    R10G10B10A2Uint,
    R11G11B10Float,
    R8G8B8A8Unorm,
    R8G8B8A8Snorm,
    R8G8B8A8Uint,
    R8G8B8A8Sint,
    B8G8R8A8Unorm,
    R16G16Float,
    R16G16Unorm,
    R16G16Snorm,
    R16G16Uint,
    R16G16Sint,
    R32Float,
    R32Uint,
    R32Sint,
    R8G8Unorm,
    R8G8Snorm,
    R8G8Uint,
    R8G8Sint,
    R16Float,
    R16Unorm,
    R16Snorm,
    R16Uint,
    R16Sint,
    R8Unorm,
    R8Snorm,
    R8Uint,
    R8Sint,
    R8G8B8A8UnormSrgb,
    B8G8R8A8UnormSrgb,
    R9G9B9E5Sharedexp,
    D32Float,
    Bc1Unorm,
    Bc1UnormSrgb,
    Bc2Unorm,
    Bc2UnormSrgb,
    Bc3Unorm,
    Bc3UnormSrgb,
    Bc4Unorm,
    Bc4Snorm,
    Bc5Unorm,
    Bc5Snorm,
    Bc6hUf16,
    Bc6hSf16,
    Bc7Unorm,
    Bc7UnormSrgb,
}

/// How one channel's bits are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChannelKind {
    Float,
    Unorm,
    Snorm,
    Uint,
    Sint,
}

/// One channel: which shader component (0 = r ... 3 = a) it feeds, where
/// its bits are inside the texel and how wide it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Channel {
    component: usize,
    shift: u32,
    bits: u32,
}

const NAMES: &[(&str, Format)] = &[
    ("R32G32B32A32_FLOAT", Format::R32G32B32A32Float),
    ("R32G32B32A32_UINT", Format::R32G32B32A32Uint),
    ("R32G32B32A32_SINT", Format::R32G32B32A32Sint),
    ("R32G32B32_FLOAT", Format::R32G32B32Float),
    ("R32G32B32_UINT", Format::R32G32B32Uint),
    ("R32G32B32_SINT", Format::R32G32B32Sint),
    ("R16G16B16A16_FLOAT", Format::R16G16B16A16Float),
    ("R16G16B16A16_UNORM", Format::R16G16B16A16Unorm),
    ("R16G16B16A16_SNORM", Format::R16G16B16A16Snorm),
    ("R16G16B16A16_UINT", Format::R16G16B16A16Uint),
    ("R16G16B16A16_SINT", Format::R16G16B16A16Sint),
    ("R32G32_FLOAT", Format::R32G32Float),
    ("R32G32_UINT", Format::R32G32Uint),
    ("R32G32_SINT", Format::R32G32Sint),
    ("R10G10B10A2_UNORM", Format::R10G10B10A2Unorm),
    ("R10G10B10A2_UINT", Format::R10G10B10A2Uint),
    ("R11G11B10_FLOAT", Format::R11G11B10Float),
    ("R8G8B8A8_UNORM", Format::R8G8B8A8Unorm),
    ("R8G8B8A8_SNORM", Format::R8G8B8A8Snorm),
    ("R8G8B8A8_UINT", Format::R8G8B8A8Uint),
    ("R8G8B8A8_SINT", Format::R8G8B8A8Sint),
    ("B8G8R8A8_UNORM", Format::B8G8R8A8Unorm),
    ("R16G16_FLOAT", Format::R16G16Float),
    ("R16G16_UNORM", Format::R16G16Unorm),
    ("R16G16_SNORM", Format::R16G16Snorm),
    ("R16G16_UINT", Format::R16G16Uint),
    ("R16G16_SINT", Format::R16G16Sint),
    ("R32_FLOAT", Format::R32Float),
    ("R32_UINT", Format::R32Uint),
    ("R32_SINT", Format::R32Sint),
    ("R8G8_UNORM", Format::R8G8Unorm),
    ("R8G8_SNORM", Format::R8G8Snorm),
    ("R8G8_UINT", Format::R8G8Uint),
    ("R8G8_SINT", Format::R8G8Sint),
    ("R16_FLOAT", Format::R16Float),
    ("R16_UNORM", Format::R16Unorm),
    ("R16_SNORM", Format::R16Snorm),
    ("R16_UINT", Format::R16Uint),
    ("R16_SINT", Format::R16Sint),
    ("R8_UNORM", Format::R8Unorm),
    ("R8_SNORM", Format::R8Snorm),
    ("R8_UINT", Format::R8Uint),
    ("R8_SINT", Format::R8Sint),
    ("R8G8B8A8_UNORM_SRGB", Format::R8G8B8A8UnormSrgb),
    ("B8G8R8A8_UNORM_SRGB", Format::B8G8R8A8UnormSrgb),
    ("R9G9B9E5_SHAREDEXP", Format::R9G9B9E5Sharedexp),
    ("D32_FLOAT", Format::D32Float),
    ("BC1_UNORM", Format::Bc1Unorm),
    ("BC1_UNORM_SRGB", Format::Bc1UnormSrgb),
    ("BC2_UNORM", Format::Bc2Unorm),
    ("BC2_UNORM_SRGB", Format::Bc2UnormSrgb),
    ("BC3_UNORM", Format::Bc3Unorm),
    ("BC3_UNORM_SRGB", Format::Bc3UnormSrgb),
    ("BC4_UNORM", Format::Bc4Unorm),
    ("BC4_SNORM", Format::Bc4Snorm),
    ("BC5_UNORM", Format::Bc5Unorm),
    ("BC5_SNORM", Format::Bc5Snorm),
    ("BC6H_UF16", Format::Bc6hUf16),
    ("BC6H_SF16", Format::Bc6hSf16),
    ("BC7_UNORM", Format::Bc7Unorm),
    ("BC7_UNORM_SRGB", Format::Bc7UnormSrgb),
];

impl Format {
    /// Looks a format up by its DXGI name, with or without `DXGI_FORMAT_`.
    pub fn from_dxgi_name(s: &str) -> Option<Format> {
        let name = s.strip_prefix("DXGI_FORMAT_").unwrap_or(s);
        NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, f)| *f)
    }

    /// Every supported format's DXGI name (no prefix), in table order.
    pub fn dxgi_names() -> impl Iterator<Item = &'static str> {
        NAMES.iter().map(|(n, _)| *n)
    }

    /// The DXGI name without the `DXGI_FORMAT_` prefix.
    pub fn dxgi_name(self) -> &'static str {
        NAMES
            .iter()
            .find(|(_, f)| *f == self)
            .map(|(n, _)| *n)
            .unwrap_or("UNKNOWN")
    }

    /// Bytes per texel (per 4x4 block for block-compressed formats).
    #[inline(always)]
    pub fn bytes(self) -> u32 {
        if let Some(b) = self.block_bytes() {
            return b;
        }
        let (widths, _) = self.layout();
        widths.iter().sum::<u32>() / 8
    }

    /// Bytes of one 4x4 block of a block-compressed (BC1–BC7) format.
    #[inline(always)]
    pub fn block_bytes(self) -> Option<u32> {
        use Format::*;
        match self {
            Bc1Unorm | Bc1UnormSrgb | Bc4Unorm | Bc4Snorm => Some(8),
            Bc2Unorm | Bc2UnormSrgb | Bc3Unorm | Bc3UnormSrgb | Bc5Unorm | Bc5Snorm | Bc6hUf16
            | Bc6hSf16 | Bc7Unorm | Bc7UnormSrgb => Some(16),
            _ => None,
        }
    }

    /// True for the BC1–BC7 formats.
    #[inline(always)]
    pub fn is_block_compressed(self) -> bool {
        self.block_bytes().is_some()
    }

    /// Texels per block edge: 4 for BC formats, 1 otherwise.
    #[inline(always)]
    pub fn block_edge(self) -> u32 {
        if self.is_block_compressed() {
            4
        } else {
            1
        }
    }

    /// Bytes of one row of `width` texels (one row of blocks for BC formats).
    pub fn row_bytes(self, width: u32) -> u64 {
        u64::from(width.div_ceil(self.block_edge())) * u64::from(self.bytes())
    }

    /// Rows of memory for `height` texel rows (block rows for BC formats).
    pub fn memory_rows(self, height: u32) -> u32 {
        height.div_ceil(self.block_edge())
    }

    /// True if the red, green and blue channels are stored in sRGB space
    /// and decoded to linear on read.
    #[inline(always)]
    pub fn is_srgb(self) -> bool {
        use Format::*;
        matches!(
            self,
            R8G8B8A8UnormSrgb
                | B8G8R8A8UnormSrgb
                | Bc1UnormSrgb
                | Bc2UnormSrgb
                | Bc3UnormSrgb
                | Bc7UnormSrgb
        )
    }

    /// The channel kind shared by all channels.
    #[inline(always)]
    pub fn kind(self) -> ChannelKind {
        self.layout().1
    }

    /// Channel bit widths in memory order (r, g, b, a; b, g, r, a for BGRA)
    /// and the channel kind.
    #[inline(always)]
    fn layout(self) -> (&'static [u32], ChannelKind) {
        use ChannelKind::*;
        use Format::*;
        match self {
            R32G32B32A32Float => (&[32, 32, 32, 32], Float),
            R32G32B32A32Uint => (&[32, 32, 32, 32], Uint),
            R32G32B32A32Sint => (&[32, 32, 32, 32], Sint),
            R32G32B32Float => (&[32, 32, 32], Float),
            R32G32B32Uint => (&[32, 32, 32], Uint),
            R32G32B32Sint => (&[32, 32, 32], Sint),
            R16G16B16A16Float => (&[16, 16, 16, 16], Float),
            R16G16B16A16Unorm => (&[16, 16, 16, 16], Unorm),
            R16G16B16A16Snorm => (&[16, 16, 16, 16], Snorm),
            R16G16B16A16Uint => (&[16, 16, 16, 16], Uint),
            R16G16B16A16Sint => (&[16, 16, 16, 16], Sint),
            R32G32Float => (&[32, 32], Float),
            R32G32Uint => (&[32, 32], Uint),
            R32G32Sint => (&[32, 32], Sint),
            R10G10B10A2Unorm => (&[10, 10, 10, 2], Unorm),
            R10G10B10A2Uint => (&[10, 10, 10, 2], Uint),
            R11G11B10Float => (&[11, 11, 10], Float),
            R8G8B8A8Unorm | B8G8R8A8Unorm => (&[8, 8, 8, 8], Unorm),
            R8G8B8A8Snorm => (&[8, 8, 8, 8], Snorm),
            R8G8B8A8Uint => (&[8, 8, 8, 8], Uint),
            R8G8B8A8Sint => (&[8, 8, 8, 8], Sint),
            R16G16Float => (&[16, 16], Float),
            R16G16Unorm => (&[16, 16], Unorm),
            R16G16Snorm => (&[16, 16], Snorm),
            R16G16Uint => (&[16, 16], Uint),
            R16G16Sint => (&[16, 16], Sint),
            R32Float => (&[32], Float),
            R32Uint => (&[32], Uint),
            R32Sint => (&[32], Sint),
            R8G8Unorm => (&[8, 8], Unorm),
            R8G8Snorm => (&[8, 8], Snorm),
            R8G8Uint => (&[8, 8], Uint),
            R8G8Sint => (&[8, 8], Sint),
            R16Float => (&[16], Float),
            R16Unorm => (&[16], Unorm),
            R16Snorm => (&[16], Snorm),
            R16Uint => (&[16], Uint),
            R16Sint => (&[16], Sint),
            R8Unorm => (&[8], Unorm),
            R8Snorm => (&[8], Snorm),
            R8Uint => (&[8], Uint),
            R8Sint => (&[8], Sint),
            R8G8B8A8UnormSrgb | B8G8R8A8UnormSrgb => (&[8, 8, 8, 8], Unorm),
            D32Float => (&[32], Float),
            // Not channel-described: decoded by `load_special` (and BC by
            // `runtime::bc`); the widths only give the texel size.
            R9G9B9E5Sharedexp => (&[32], Float),
            Bc1Unorm | Bc1UnormSrgb | Bc2Unorm | Bc2UnormSrgb | Bc3Unorm | Bc3UnormSrgb
            | Bc4Unorm | Bc4Snorm | Bc5Unorm | Bc5Snorm | Bc6hUf16 | Bc6hSf16 | Bc7Unorm
            | Bc7UnormSrgb => (&[8], Unorm),
        }
    }

    /// The channels with their shader component and bit position.
    #[inline(always)]
    fn channels(self) -> impl Iterator<Item = Channel> {
        let (widths, _) = self.layout();
        let bgra = matches!(self, Format::B8G8R8A8Unorm | Format::B8G8R8A8UnormSrgb);
        let mut shift = 0;
        widths.iter().enumerate().map(move |(i, &bits)| {
            let component = if bgra && i < 3 { 2 - i } else { i };
            let ch = Channel {
                component,
                shift,
                bits,
            };
            shift += bits;
            ch
        })
    }

    /// True if the format's shader components are integers.
    #[inline(always)]
    pub fn is_integer(self) -> bool {
        matches!(self.kind(), ChannelKind::Uint | ChannelKind::Sint)
    }

    /// The value a component the format lacks reads as: 0, 0, 0 and 1
    /// (1.0f for float-like formats, integer 1 for integer formats).
    #[inline(always)]
    pub fn default_components(self) -> [u32; 4] {
        let one = if self.is_integer() {
            1
        } else {
            1.0f32.to_bits()
        };
        [0, 0, 0, one]
    }

    /// What an out-of-range texture fetch reads: 0 in every component the
    /// format has, the defaults of [`Format::default_components`] in the rest.
    #[inline(always)]
    pub fn zero_texel(self) -> [u32; 4] {
        use Format::*;
        match self {
            Bc1Unorm | Bc1UnormSrgb | Bc2Unorm | Bc2UnormSrgb | Bc3Unorm | Bc3UnormSrgb
            | Bc7Unorm | Bc7UnormSrgb => [0; 4],
            _ if self.is_block_compressed() => self.default_components(),
            _ => self.load(&[0u8; 16]),
        }
    }

    /// Decodes a texel (`bytes.len() >= self.bytes()`) into four shader DWORDs.
    /// Short input reads as the out-of-bounds value, [`Format::zero_texel`]
    /// (0 in every component the format has, defaults in the rest).
    /// sRGB formats are decoded to linear (`srgb_to_linear`); BC formats
    /// are decoded per block by `runtime::bc` and read as defaults here.
    pub fn load(self, bytes: &[u8]) -> [u32; 4] {
        self.load_inline(bytes)
    }

    /// [`Format::load`], inlined where it is called: with a constant
    /// format (the specialised sampling entries) only that format's
    /// decode remains.
    #[inline(always)]
    pub fn load_inline(self, bytes: &[u8]) -> [u32; 4] {
        let mut out = self.default_components();
        if self.is_block_compressed() {
            return out;
        }
        let Some(texel) = read_texel(bytes, self.bytes()) else {
            return self.zero_texel();
        };
        if self == Format::R9G9B9E5Sharedexp {
            return rgb9e5_to_f32(texel as u32);
        }
        let kind = self.kind();
        let packed_float = self == Format::R11G11B10Float;
        for ch in self.channels() {
            let raw = extract(texel, ch.shift, ch.bits);
            out[ch.component] = match kind {
                ChannelKind::Float if packed_float => small_float_to_f32(raw, ch.bits),
                _ => decode_channel(kind, raw, ch.bits),
            };
        }
        if self.is_srgb() {
            // Every sRGB format with channels stores 8-bit UNORM r, g, b.
            let table = srgb8_table();
            for ch in self.channels().take(3) {
                out[ch.component] = table[extract(texel, ch.shift, ch.bits) as usize & 0xFF];
            }
        }
        out
    }

    /// [`Format::load_inline`] of a texel of exactly [`Format::bytes`]
    /// bytes, straight-line for the formats the specialised sampling
    /// entries fix (each channel read at its byte and decoded by the same
    /// channel rule; a unit test compares every such decode with
    /// [`Format::load_inline`]), the channel walk for the others.
    #[inline(always)]
    pub fn decode(self, bytes: &[u8]) -> [u32; 4] {
        use Format::*;
        if bytes.len() != self.bytes() as usize {
            return self.load_inline(bytes);
        }
        let unorm8 = |i: usize| UNORM8[usize::from(bytes[i])];
        let srgb8 = |i: usize| srgb8_table()[usize::from(bytes[i])];
        let word =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let half =
            |i: usize| half_to_f32_bits(u32::from(u16::from_le_bytes([bytes[i], bytes[i + 1]])));
        let one = 1.0f32.to_bits();
        match self {
            R8G8B8A8Unorm => [unorm8(0), unorm8(1), unorm8(2), unorm8(3)],
            B8G8R8A8Unorm => [unorm8(2), unorm8(1), unorm8(0), unorm8(3)],
            R8G8B8A8UnormSrgb => [srgb8(0), srgb8(1), srgb8(2), unorm8(3)],
            B8G8R8A8UnormSrgb => [srgb8(2), srgb8(1), srgb8(0), unorm8(3)],
            R8Unorm => [unorm8(0), 0, 0, one],
            R8G8Unorm => [unorm8(0), unorm8(1), 0, one],
            R16G16B16A16Float => [half(0), half(2), half(4), half(6)],
            R32Float => [word(0), 0, 0, one],
            R32G32B32A32Float => [word(0), word(4), word(8), word(12)],
            R11G11B10Float => {
                let t = word(0);
                [
                    small_float_to_f32(t & 0x7FF, 11),
                    small_float_to_f32((t >> 11) & 0x7FF, 11),
                    small_float_to_f32(t >> 22, 10),
                    one,
                ]
            }
            _ => self.load_inline(bytes),
        }
    }

    /// Encodes four shader DWORDs into a texel, returning the bytes written
    /// (`self.bytes()` of them, at the start of the array).
    pub fn store(self, value: [u32; 4]) -> [u8; 16] {
        let kind = self.kind();
        let packed_float = self == Format::R11G11B10Float;
        let mut texel: u128 = 0;
        for ch in self.channels() {
            let v = value[ch.component];
            let raw = match kind {
                ChannelKind::Float if packed_float => f32_to_small_float(v, ch.bits),
                _ => encode_channel(kind, v, ch.bits),
            };
            texel |= u128::from(raw) << ch.shift;
        }
        texel.to_le_bytes()
    }
}

/// Every 8-bit UNORM code's value as `decode_channel` gives it (`raw /
/// 255` in f32), computed at compile time.
static UNORM8: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut raw = 0;
    while raw < 256 {
        t[raw] = (raw as f32 / 255.0).to_bits();
        raw += 1;
    }
    t
};

/// The linear value of every 8-bit sRGB code: `srgb_to_linear` of its
/// UNORM decode, computed once.
fn srgb8_table() -> &'static [u32; 256] {
    static TABLE: std::sync::OnceLock<[u32; 256]> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        std::array::from_fn(|raw| {
            let c = f32::from_bits(decode_channel(ChannelKind::Unorm, raw as u32, 8));
            srgb_to_linear(c).to_bits()
        })
    })
}

/// sRGB → linear (IEC 61966-2-1, as FS §3.2.3 gives it): `c / 12.92` up
/// to 0.04045, `((c + 0.055) / 1.055)^2.4` above.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}

/// R9G9B9E5_SHAREDEXP: three 9-bit mantissas (no implicit one) sharing a
/// 5-bit exponent with bias 15: `m * 2^(e - 15 - 9)`; alpha reads 1.0.
fn rgb9e5_to_f32(word: u32) -> [u32; 4] {
    let e = (word >> 27) as i32;
    let scale = (2.0f32).powi(e - 24);
    let m = |k: u32| ((word >> (9 * k)) & 0x1FF) as f32 * scale;
    [
        m(0).to_bits(),
        m(1).to_bits(),
        m(2).to_bits(),
        1.0f32.to_bits(),
    ]
}

#[inline(always)]
fn read_texel(bytes: &[u8], n: u32) -> Option<u128> {
    let src = bytes.get(..n as usize)?;
    let mut buf = [0u8; 16];
    buf[..src.len()].copy_from_slice(src);
    Some(u128::from_le_bytes(buf))
}

#[inline(always)]
fn extract(texel: u128, shift: u32, bits: u32) -> u32 {
    ((texel >> shift) & ((1u128 << bits) - 1)) as u32
}

#[inline(always)]
fn max_unsigned(bits: u32) -> u32 {
    if bits >= 32 {
        u32::MAX
    } else {
        (1u32 << bits) - 1
    }
}

#[inline(always)]
fn decode_channel(kind: ChannelKind, raw: u32, bits: u32) -> u32 {
    match kind {
        ChannelKind::Float if bits == 32 => raw,
        ChannelKind::Float => half_to_f32_bits(raw),
        ChannelKind::Uint => raw,
        ChannelKind::Sint => sign_extend(raw, bits) as u32,
        ChannelKind::Unorm => (raw as f32 / max_unsigned(bits) as f32).to_bits(),
        ChannelKind::Snorm => {
            let max = max_unsigned(bits - 1) as f32;
            (sign_extend(raw, bits) as f32 / max).max(-1.0).to_bits()
        }
    }
}

#[inline(always)]
fn sign_extend(raw: u32, bits: u32) -> i32 {
    if bits >= 32 {
        raw as i32
    } else {
        ((raw << (32 - bits)) as i32) >> (32 - bits)
    }
}

fn encode_channel(kind: ChannelKind, v: u32, bits: u32) -> u32 {
    match kind {
        ChannelKind::Float if bits == 32 => v,
        ChannelKind::Float => f32_bits_to_half(v),
        ChannelKind::Uint => v.min(max_unsigned(bits)),
        ChannelKind::Sint => {
            let hi = max_unsigned(bits - 1) as i32;
            let lo = -hi - 1;
            ((v as i32).clamp(lo, hi) as u32) & max_unsigned(bits)
        }
        ChannelKind::Unorm => {
            let x = f32::from_bits(v);
            let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
            (x * max_unsigned(bits) as f32).round_ties_even() as u32
        }
        ChannelKind::Snorm => {
            let x = f32::from_bits(v);
            let x = if x.is_nan() { 0.0 } else { x.clamp(-1.0, 1.0) };
            let scaled = (x * max_unsigned(bits - 1) as f32).round_ties_even() as i32;
            (scaled as u32) & max_unsigned(bits)
        }
    }
}

/// f32 bits → f16 bits in the low 16 bits (FS §3.2.2: round toward zero).
fn f32_bits_to_half(v: u32) -> u32 {
    crate::sem::convert::f32tof16(f32::from_bits(v)) & 0xFFFF
}

/// f16 bits (low 16) → f32 bits, exact.
#[inline(always)]
fn half_to_f32_bits(raw: u32) -> u32 {
    crate::sem::convert::f16tof32(raw & 0xFFFF).to_bits()
}

/// Unsigned 11- or 10-bit float (5-bit exponent, bias 15, 6 or 5 mantissa
/// bits) → f32 bits. Format-only rule, not an instruction: lives here.
#[inline(always)]
fn small_float_to_f32(raw: u32, bits: u32) -> u32 {
    let mant_bits = bits - 5;
    let exp = raw >> mant_bits;
    let mant = raw & ((1 << mant_bits) - 1);
    match exp {
        0 if mant == 0 => 0,
        0 => (mant as f32 * (2.0f32).powi(-14 - mant_bits as i32)).to_bits(),
        31 if mant == 0 => f32::INFINITY.to_bits(),
        31 => 0x7FC0_0000,
        _ => ((exp + 127 - 15) << 23) | (mant << (23 - mant_bits)),
    }
}

/// f32 bits → unsigned 11- or 10-bit float with round toward zero, negative
/// and NaN handling per FS §3.2.2 (negatives → 0, finite overflow → max).
fn f32_to_small_float(v: u32, bits: u32) -> u32 {
    let mant_bits = bits - 5;
    let x = f32::from_bits(v);
    if x.is_nan() {
        return (31 << mant_bits) | 1;
    }
    if x <= 0.0 {
        return 0;
    }
    if x.is_infinite() {
        return 31 << mant_bits;
    }
    let e = ((v >> 23) & 0xFF) as i32 - 127;
    let m = v & 0x7F_FFFF;
    if e > 15 {
        return (30 << mant_bits) | ((1 << mant_bits) - 1);
    }
    if e >= -14 {
        return (((e + 15) as u32) << mant_bits) | (m >> (23 - mant_bits));
    }
    let shift = (-14 - e) as u32 + (23 - mant_bits);
    if shift >= 32 || e == -127 {
        return 0;
    }
    (0x80_0000 | m) >> shift
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn straight_line_decodes_match_the_channel_walk() {
        // The specialised entries' formats, and one decoded straight but
        // fixed by no entry.
        let formats = crate::runtime::sampling::SPECIALISED_FORMATS
            .into_iter()
            .chain([Format::R16G16Unorm]);
        let mut x = 0x2545_F491u32;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for f in formats {
            let n = f.bytes() as usize;
            // Every value of every 16-bit window (each channel of up to 16
            // bits walks all its codes), the rest random; then random texels.
            for start in 0..n.saturating_sub(1) {
                for v in 0..=u16::MAX {
                    let mut b: Vec<u8> = (0..n).map(|_| next() as u8).collect();
                    b[start..start + 2].copy_from_slice(&v.to_le_bytes());
                    assert_eq!(f.decode(&b), f.load_inline(&b), "{f:?} {b:?}");
                }
            }
            for _ in 0..100_000 {
                let b: Vec<u8> = (0..n).map(|_| next() as u8).collect();
                assert_eq!(f.decode(&b), f.load_inline(&b), "{f:?} {b:?}");
            }
            assert_eq!(f.decode(&[0u8; 16][..n]), f.load_inline(&[0u8; 16][..n]));
        }
    }

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn names_round_trip_and_sizes() {
        for (name, fmt) in NAMES {
            assert_eq!(Format::from_dxgi_name(name), Some(*fmt));
            assert_eq!(fmt.dxgi_name(), *name);
        }
        assert_eq!(
            Format::from_dxgi_name("DXGI_FORMAT_R32_UINT"),
            Some(Format::R32Uint)
        );
        assert_eq!(Format::from_dxgi_name("R9_NOPE"), None);
        assert_eq!(Format::R32G32B32A32Float.bytes(), 16);
        assert_eq!(Format::R10G10B10A2Unorm.bytes(), 4);
        assert_eq!(Format::R11G11B10Float.bytes(), 4);
        assert_eq!(Format::R16Float.bytes(), 2);
        assert_eq!(Format::R8Uint.bytes(), 1);
    }

    #[test]
    fn unorm_store_clamps_rounds_and_zeroes_nan() {
        let t = Format::R8G8B8A8Unorm.store([f(0.5), f(-3.0), f(f32::NAN), f(7.0)]);
        assert_eq!(&t[..4], &[128, 0, 0, 255]);
        let t = Format::R8Unorm.store([f(1.0 / 255.0 * 3.49), 0, 0, 0]);
        assert_eq!(t[0], 3);
    }

    #[test]
    fn snorm_round_trip_and_minus_one_clamp() {
        let t = Format::R8Snorm.store([f(-1.0), 0, 0, 0]);
        assert_eq!(t[0], 0x81);
        assert_eq!(Format::R8Snorm.load(&[0x80]), [f(-1.0), 0, 0, f(1.0)]);
        assert_eq!(Format::R8Snorm.load(&[0x7F])[0], f(1.0));
    }

    #[test]
    fn bgra_swaps_red_and_blue() {
        let t = Format::B8G8R8A8Unorm.store([f(1.0), 0, 0, f(1.0)]);
        assert_eq!(&t[..4], &[0, 0, 255, 255]);
        assert_eq!(
            Format::B8G8R8A8Unorm.load(&[255, 0, 0, 0]),
            [0, 0, f(1.0), 0]
        );
    }

    #[test]
    fn integer_stores_clamp() {
        let t = Format::R8Uint.store([300, 0, 0, 0]);
        assert_eq!(t[0], 255);
        let t = Format::R16G16Sint.store([(-40000i32) as u32, 5, 0, 0]);
        assert_eq!(&t[..4], &[0x00, 0x80, 5, 0]);
        assert_eq!(
            Format::R16G16Sint.load(&t[..4]),
            [(-32768i32) as u32, 5, 0, 1]
        );
    }

    #[test]
    fn packed_10_10_10_2() {
        let t = Format::R10G10B10A2Uint.store([1023, 1, 2, 3]);
        let word = u32::from_le_bytes([t[0], t[1], t[2], t[3]]);
        assert_eq!(word, 1023 | (1 << 10) | (2 << 20) | (3 << 30));
        assert_eq!(Format::R10G10B10A2Uint.load(&t[..4]), [1023, 1, 2, 3]);
    }

    #[test]
    fn r11g11b10_float_round_trip_and_clamps() {
        let t = Format::R11G11B10Float.store([f(1.0), f(-2.0), f(1.0e9), 0]);
        let back = Format::R11G11B10Float.load(&t[..4]);
        assert_eq!(back[0], f(1.0));
        assert_eq!(back[1], 0);
        assert_eq!(back[2], f(64512.0));
        assert_eq!(back[3], f(1.0));
    }

    #[test]
    fn missing_components_and_short_input_defaults() {
        assert_eq!(Format::R32Uint.load(&[1, 0, 0, 0]), [1, 0, 0, 1]);
        assert_eq!(Format::R32Float.load(&[0, 0]), [0, 0, 0, f(1.0)]);
    }

    #[test]
    fn shared_exponent_depth_and_srgb_reads() {
        // r = 256, g = 128, b = 0 mantissas with e = 16: m * 2^(16 - 24).
        let word: u32 = 256 | (128 << 9) | (16 << 27);
        assert_eq!(
            Format::R9G9B9E5Sharedexp.load(&word.to_le_bytes()),
            [f(1.0), f(0.5), 0, f(1.0)]
        );
        assert_eq!(
            Format::D32Float.load(&0.25f32.to_le_bytes()),
            [f(0.25), 0, 0, f(1.0)]
        );
        // 255 stays 1.0 (up to rounding of the power), 0 stays 0, alpha is linear.
        let v = Format::B8G8R8A8UnormSrgb.load(&[0, 0, 255, 51]);
        assert!((f32::from_bits(v[0]) - 1.0).abs() < 1e-6);
        assert_eq!(v[2], 0);
        assert_eq!(v[3], f(0.2));
        assert_eq!(Format::Bc3Unorm.bytes(), 16);
        assert_eq!(Format::Bc1Unorm.row_bytes(5), 16);
        assert_eq!(Format::R32G32B32A32Float.zero_texel(), [0; 4]);
        assert_eq!(Format::Bc4Unorm.zero_texel(), [0, 0, 0, f(1.0)]);
    }
}
