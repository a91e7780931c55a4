//! Block-compressed texture decoding: BC1–BC7.
//!
//! In: one 4x4 block's bytes (8 for BC1/BC4, 16 otherwise) and its format.
//! Out: the 16 texels in row-major order (texel `y * 4 + x`) as the four
//! shader DWORDs a load returns (f32 bits; sRGB formats already linear).
//! Invariant: every bit pattern decodes without panicking; BC7 blocks with
//! the reserved mode (first byte 0) decode to transparent black, as the
//! format description says. Rules: BC1–BC5 endpoints are expanded to float
//! (`c / 31`, `c / 63`, `c / 255`, signed `max(c / 127, -1)`) and blended in
//! float with weights 1/3, 2/3 (BC1 three-colour mode: 1/2 and transparent
//! black) and k/7 or k/5 (BC4/BC5 alpha-style blocks); BC7 blends 8-bit
//! endpoints with the format's 6-bit weights and `(a*(64-w) + b*w + 32) >> 6`;
//! BC6H unquantises its endpoints to 16 bits, blends them the same way and
//! scales the result to a half float (`* 31 / 64`, signed `* 31 / 32`);
//! reserved BC6H modes decode to (0, 0, 0, 1).

use super::format::srgb_to_linear;
use super::Format;

/// One decoded block: 16 texels, row-major.
pub type Block = [[u32; 4]; 16];

/// Decodes a block of `format`; `None` for non-BC formats or short input.
pub fn decode_block(format: Format, bytes: &[u8]) -> Option<Block> {
    use Format::*;
    let n = format.block_bytes()? as usize;
    let b = bytes.get(..n)?;
    let mut texels = match format {
        Bc1Unorm | Bc1UnormSrgb => colour_block(b, true, None),
        Bc2Unorm | Bc2UnormSrgb => {
            let alpha = explicit_alpha(&b[..8]);
            colour_block(&b[8..], false, Some(alpha))
        }
        Bc3Unorm | Bc3UnormSrgb => {
            let alpha = ramp_block(&b[..8], false);
            colour_block(&b[8..], false, Some(alpha))
        }
        Bc4Unorm | Bc4Snorm => {
            let r = ramp_block(b, format == Bc4Snorm);
            std::array::from_fn(|i| [r[i], 0.0, 0.0, 1.0])
        }
        Bc5Unorm | Bc5Snorm => {
            let signed = format == Bc5Snorm;
            let r = ramp_block(&b[..8], signed);
            let g = ramp_block(&b[8..], signed);
            std::array::from_fn(|i| [r[i], g[i], 0.0, 1.0])
        }
        Bc7Unorm | Bc7UnormSrgb => bc7_block(b),
        Bc6hUf16 | Bc6hSf16 => return Some(bc6h_block(b, format == Bc6hSf16)),
        _ => return None,
    };
    if format.is_srgb() {
        for t in texels.iter_mut() {
            for c in t.iter_mut().take(3) {
                *c = srgb_to_linear(*c);
            }
        }
    }
    Some(texels.map(|t| t.map(f32::to_bits)))
}

fn u16_at(b: &[u8], i: usize) -> u32 {
    u32::from(b[i]) | (u32::from(b[i + 1]) << 8)
}

fn u32_at(b: &[u8], i: usize) -> u32 {
    u16_at(b, i) | (u16_at(b, i + 2) << 16)
}

/// A 5:6:5 colour as floats.
fn rgb565(c: u32) -> [f32; 3] {
    [
        ((c >> 11) & 31) as f32 / 31.0,
        ((c >> 5) & 63) as f32 / 63.0,
        (c & 31) as f32 / 31.0,
    ]
}

fn mix(a: [f32; 3], b: [f32; 3], wa: f32, wb: f32, d: f32) -> [f32; 3] {
    std::array::from_fn(|k| (a[k] * wa + b[k] * wb) / d)
}

/// The BC1 colour part (also in BC2/BC3, where it is always four-colour
/// and `alpha` supplies the alpha channel).
fn colour_block(b: &[u8], bc1: bool, alpha: Option<[f32; 16]>) -> [[f32; 4]; 16] {
    let (c0, c1) = (u16_at(b, 0), u16_at(b, 2));
    let (e0, e1) = (rgb565(c0), rgb565(c1));
    let three = bc1 && c0 <= c1;
    let palette: [[f32; 4]; 4] = {
        let rgba = |c: [f32; 3], a: f32| [c[0], c[1], c[2], a];
        if three {
            [
                rgba(e0, 1.0),
                rgba(e1, 1.0),
                rgba(mix(e0, e1, 1.0, 1.0, 2.0), 1.0),
                [0.0; 4],
            ]
        } else {
            [
                rgba(e0, 1.0),
                rgba(e1, 1.0),
                rgba(mix(e0, e1, 2.0, 1.0, 3.0), 1.0),
                rgba(mix(e0, e1, 1.0, 2.0, 3.0), 1.0),
            ]
        }
    };
    let idx = u32_at(b, 4);
    std::array::from_fn(|i| {
        let mut t = palette[((idx >> (2 * i)) & 3) as usize];
        if let Some(a) = alpha {
            t[3] = a[i];
        }
        t
    })
}

/// BC2 alpha: 4 bits per texel, `a / 15`.
fn explicit_alpha(b: &[u8]) -> [f32; 16] {
    std::array::from_fn(|i| {
        let byte = b[i / 2];
        let nib = if i % 2 == 0 { byte & 15 } else { byte >> 4 };
        f32::from(nib) / 15.0
    })
}

/// A BC3-alpha / BC4 / BC5 channel block: two endpoints and 3-bit indices.
fn ramp_block(b: &[u8], signed: bool) -> [f32; 16] {
    let value = |x: u8| {
        if signed {
            (f32::from(x as i8) / 127.0).max(-1.0)
        } else {
            f32::from(x) / 255.0
        }
    };
    let ordered = if signed {
        (b[0] as i8) > (b[1] as i8)
    } else {
        b[0] > b[1]
    };
    let (r0, r1) = (value(b[0]), value(b[1]));
    let (lo, hi) = if signed { (-1.0, 1.0) } else { (0.0, 1.0) };
    let palette: [f32; 8] = std::array::from_fn(|k| match k {
        0 => r0,
        1 => r1,
        _ if ordered => ((8 - k) as f32 * r0 + (k - 1) as f32 * r1) / 7.0,
        6 => lo,
        7 => hi,
        _ => ((6 - k) as f32 * r0 + (k - 1) as f32 * r1) / 5.0,
    });
    let mut bits: u64 = 0;
    for (k, &x) in b[2..8].iter().enumerate() {
        bits |= u64::from(x) << (8 * k);
    }
    std::array::from_fn(|i| palette[((bits >> (3 * i)) & 7) as usize])
}

// ---------------------------------------------------------------------------
// BC7
// ---------------------------------------------------------------------------

/// Per-mode layout: subsets, partition bits, rotation bits, index-selection
/// bit, colour bits, alpha bits, endpoint p-bits, shared p-bits, index bits,
/// secondary index bits.
#[derive(Clone, Copy)]
struct Bc7Mode {
    subsets: usize,
    partition_bits: u32,
    rotation_bits: u32,
    selector_bits: u32,
    colour_bits: u32,
    alpha_bits: u32,
    endpoint_pbits: bool,
    shared_pbits: bool,
    index_bits: u32,
    index2_bits: u32,
}

const fn mode(v: [u32; 10]) -> Bc7Mode {
    Bc7Mode {
        subsets: v[0] as usize,
        partition_bits: v[1],
        rotation_bits: v[2],
        selector_bits: v[3],
        colour_bits: v[4],
        alpha_bits: v[5],
        endpoint_pbits: v[6] != 0,
        shared_pbits: v[7] != 0,
        index_bits: v[8],
        index2_bits: v[9],
    }
}

const BC7_MODES: [Bc7Mode; 8] = [
    mode([3, 4, 0, 0, 4, 0, 1, 0, 3, 0]),
    mode([2, 6, 0, 0, 6, 0, 0, 1, 3, 0]),
    mode([3, 6, 0, 0, 5, 0, 0, 0, 2, 0]),
    mode([2, 6, 0, 0, 7, 0, 1, 0, 2, 0]),
    mode([1, 0, 2, 1, 5, 6, 0, 0, 2, 3]),
    mode([1, 0, 2, 0, 7, 8, 0, 0, 2, 2]),
    mode([1, 0, 0, 0, 7, 7, 1, 0, 4, 0]),
    mode([2, 6, 0, 0, 5, 5, 1, 0, 2, 0]),
];

/// Two-subset partitions: bit `i` is the subset of texel `i`.
const PARTITIONS2: [u16; 64] = [
    0xCCCC, 0x8888, 0xEEEE, 0xECC8, 0xC880, 0xFEEC, 0xFEC8, 0xEC80, 0xC800, 0xFFEC, 0xFE80, 0xE800,
    0xFFE8, 0xFF00, 0xFFF0, 0xF000, 0xF710, 0x008E, 0x7100, 0x08CE, 0x008C, 0x7310, 0x3100, 0x8CCE,
    0x088C, 0x3110, 0x6666, 0x366C, 0x17E8, 0x0FF0, 0x718E, 0x399C, 0xAAAA, 0xF0F0, 0x5A5A, 0x33CC,
    0x3C3C, 0x55AA, 0x9696, 0xA55A, 0x73CE, 0x13C8, 0x324C, 0x3BDC, 0x6996, 0xC33C, 0x9966, 0x0660,
    0x0272, 0x04E4, 0x4E40, 0x2720, 0xC936, 0x936C, 0x39C6, 0x639C, 0x9336, 0x9CC6, 0x817E, 0xE718,
    0xCCF0, 0x0FCC, 0x7744, 0xEE22,
];

/// Three-subset partitions: bits `2i..2i+2` are the subset of texel `i`.
const PARTITIONS3: [u32; 64] = [
    0xAA685050, 0x6A5A5040, 0x5A5A4200, 0x5450A0A8, 0xA5A50000, 0xA0A05050, 0x5555A0A0, 0x5A5A5050,
    0xAA550000, 0xAA555500, 0xAAAA5500, 0x90909090, 0x94949494, 0xA4A4A4A4, 0xA9A59450, 0x2A0A4250,
    0xA5945040, 0x0A425054, 0xA5A5A500, 0x55A0A0A0, 0xA8A85454, 0x6A6A4040, 0xA4A45000, 0x1A1A0500,
    0x0050A4A4, 0xAAA59090, 0x14696914, 0x69691400, 0xA08585A0, 0xAA821414, 0x50A4A450, 0x6A5A0200,
    0xA9A58000, 0x5090A0A8, 0xA8A09050, 0x24242424, 0x00AA5500, 0x24924924, 0x24499224, 0x50A50A50,
    0x500AA550, 0xAAAA4444, 0x66660000, 0xA5A0A5A0, 0x50A050A0, 0x69286928, 0x44AAAA44, 0x66666600,
    0xAA444444, 0x54A854A8, 0x95809580, 0x96969600, 0xA85454A8, 0x80959580, 0xAA141414, 0x96960000,
    0xAAAA1414, 0xA05050A0, 0xA0A5A5A0, 0x96000000, 0x40804080, 0xA9A8A9A8, 0xAAAAAA44, 0x2A4A5254,
];

/// Anchor texel of subset 1 in the two-subset partitions.
const ANCHOR2: [u8; 64] = [
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 2, 8, 2, 2, 8, 8, 15, 2, 8,
    2, 2, 8, 8, 2, 2, 15, 15, 6, 8, 2, 8, 15, 15, 2, 8, 2, 2, 2, 15, 15, 6, 6, 2, 6, 8, 15, 15, 2,
    2, 15, 15, 15, 15, 15, 2, 2, 15,
];

/// Anchor texels of subsets 1 and 2 in the three-subset partitions.
const ANCHOR3: [[u8; 2]; 64] = [
    [3, 15],
    [3, 8],
    [15, 8],
    [15, 3],
    [8, 15],
    [3, 15],
    [15, 3],
    [15, 8],
    [8, 15],
    [8, 15],
    [6, 15],
    [6, 15],
    [6, 15],
    [5, 15],
    [3, 15],
    [3, 8],
    [3, 15],
    [3, 8],
    [8, 15],
    [15, 3],
    [3, 15],
    [3, 8],
    [6, 15],
    [10, 8],
    [5, 3],
    [8, 15],
    [8, 6],
    [6, 10],
    [8, 15],
    [5, 15],
    [15, 10],
    [15, 8],
    [8, 15],
    [15, 3],
    [3, 15],
    [5, 10],
    [6, 10],
    [10, 8],
    [8, 9],
    [15, 10],
    [15, 6],
    [3, 15],
    [15, 8],
    [5, 15],
    [15, 3],
    [15, 6],
    [15, 6],
    [15, 8],
    [3, 15],
    [15, 3],
    [5, 15],
    [5, 15],
    [5, 15],
    [8, 15],
    [5, 15],
    [10, 15],
    [5, 15],
    [10, 15],
    [8, 15],
    [13, 15],
    [15, 3],
    [12, 15],
    [3, 15],
    [3, 8],
];

const WEIGHTS2: [u32; 4] = [0, 21, 43, 64];
const WEIGHTS3: [u32; 8] = [0, 9, 18, 27, 37, 46, 55, 64];
const WEIGHTS4: [u32; 16] = [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64];

/// Reads bits LSB-first from a 128-bit block.
struct Bits {
    block: u128,
    at: u32,
}

impl Bits {
    fn take(&mut self, n: u32) -> u32 {
        if n == 0 || self.at >= 128 {
            return 0;
        }
        let v = (self.block >> self.at) & ((1u128 << n) - 1);
        self.at += n;
        v as u32
    }
}

fn subset_of(m: &Bc7Mode, partition: usize, texel: usize) -> usize {
    match m.subsets {
        2 => usize::from((PARTITIONS2[partition] >> texel) & 1 != 0),
        3 => ((PARTITIONS3[partition] >> (2 * texel)) & 3) as usize,
        _ => 0,
    }
}

fn is_anchor(m: &Bc7Mode, partition: usize, texel: usize) -> bool {
    texel == 0
        || match m.subsets {
            2 => usize::from(ANCHOR2[partition]) == texel,
            3 => ANCHOR3[partition].iter().any(|&a| usize::from(a) == texel),
            _ => false,
        }
}

fn weight(bits: u32, index: u32) -> u32 {
    match bits {
        2 => WEIGHTS2[(index & 3) as usize],
        3 => WEIGHTS3[(index & 7) as usize],
        _ => WEIGHTS4[(index & 15) as usize],
    }
}

/// Expands an endpoint of `bits` bits (p-bit included) to 8 bits.
fn expand(v: u32, bits: u32) -> u32 {
    if bits == 0 || bits >= 8 {
        return v & 255;
    }
    let v = v << (8 - bits);
    v | (v >> bits)
}

fn read_indices(r: &mut Bits, m: &Bc7Mode, partition: usize, bits: u32) -> [u32; 16] {
    std::array::from_fn(|i| {
        let n = if is_anchor(m, partition, i) {
            bits - 1
        } else {
            bits
        };
        r.take(n)
    })
}

fn bc7_block(b: &[u8]) -> [[f32; 4]; 16] {
    let mut raw = [0u8; 16];
    raw.copy_from_slice(&b[..16]);
    let block = u128::from_le_bytes(raw);
    let mode_index = block.trailing_zeros() as usize;
    let Some(m) = BC7_MODES.get(mode_index) else {
        return [[0.0; 4]; 16];
    };
    let mut r = Bits {
        block,
        at: mode_index as u32 + 1,
    };
    let partition = r.take(m.partition_bits) as usize;
    let rotation = r.take(m.rotation_bits);
    let selector = r.take(m.selector_bits);
    let n = m.subsets * 2;
    // endpoints[e][channel], e = 2 * subset + (0 | 1)
    let mut ep = [[0u32; 4]; 6];
    for c in 0..3 {
        for e in ep.iter_mut().take(n) {
            e[c] = r.take(m.colour_bits);
        }
    }
    for e in ep.iter_mut().take(n) {
        e[3] = if m.alpha_bits > 0 {
            r.take(m.alpha_bits)
        } else {
            255
        };
    }
    let (cbits, abits) = if m.endpoint_pbits || m.shared_pbits {
        (
            m.colour_bits + 1,
            m.alpha_bits + u32::from(m.alpha_bits > 0),
        )
    } else {
        (m.colour_bits, m.alpha_bits)
    };
    if m.endpoint_pbits || m.shared_pbits {
        let count = if m.endpoint_pbits { n } else { m.subsets };
        let mut p = [0u32; 6];
        for x in p.iter_mut().take(count) {
            *x = r.take(1);
        }
        for (k, e) in ep.iter_mut().enumerate().take(n) {
            let pb = if m.endpoint_pbits { p[k] } else { p[k / 2] };
            for v in e.iter_mut().take(3) {
                *v = (*v << 1) | pb;
            }
            if m.alpha_bits > 0 {
                e[3] = (e[3] << 1) | pb;
            }
        }
    }
    for e in ep.iter_mut().take(n) {
        for v in e.iter_mut().take(3) {
            *v = expand(*v, cbits);
        }
        if m.alpha_bits > 0 {
            e[3] = expand(e[3], abits);
        }
    }
    let idx1 = read_indices(&mut r, m, partition, m.index_bits);
    let idx2 = if m.index2_bits > 0 {
        read_indices(&mut r, m, 0, m.index2_bits)
    } else {
        idx1
    };
    std::array::from_fn(|i| {
        let s = subset_of(m, partition, i);
        let (e0, e1) = (ep[2 * s], ep[2 * s + 1]);
        let (ci, cb, ai, ab) = if m.index2_bits == 0 {
            (idx1[i], m.index_bits, idx1[i], m.index_bits)
        } else if selector == 0 {
            (idx1[i], m.index_bits, idx2[i], m.index2_bits)
        } else {
            (idx2[i], m.index2_bits, idx1[i], m.index_bits)
        };
        let lerp = |c: usize, w: u32| ((e0[c] * (64 - w) + e1[c] * w + 32) >> 6) as u8;
        let mut t = [
            lerp(0, weight(cb, ci)),
            lerp(1, weight(cb, ci)),
            lerp(2, weight(cb, ci)),
            lerp(3, weight(ab, ai)),
        ];
        match rotation {
            1 => t.swap(0, 3),
            2 => t.swap(1, 3),
            3 => t.swap(2, 3),
            _ => {}
        }
        t.map(|x| f32::from(x) / 255.0)
    })
}

// ---------------------------------------------------------------------------
// BC6H
// ---------------------------------------------------------------------------

/// One BC6H mode: its mode code, regions, whether endpoints 1..3 are
/// deltas from endpoint 0, index bits, endpoint-0 bits, per-channel bits
/// of the other endpoints, and the header bit layout.
struct Bc6Mode {
    code: u32,
    regions: usize,
    transformed: bool,
    index_bits: u32,
    base_bits: u32,
    delta_bits: [u32; 3],
    /// Header fields in bit order: `m` mode, `d` shape, `rw`..`bz`
    /// endpoint w/x/y/z channel r/g/b; `a-b` is a bit range (descending
    /// when a > b), a lone number one bit.
    layout: &'static str,
}

const fn bc6(
    code: u32,
    regions: usize,
    transformed: bool,
    base_bits: u32,
    delta_bits: [u32; 3],
    layout: &'static str,
) -> Bc6Mode {
    Bc6Mode {
        code,
        regions,
        transformed,
        index_bits: if regions == 2 { 3 } else { 4 },
        base_bits,
        delta_bits,
        layout,
    }
}

const BC6_MODES: [Bc6Mode; 14] = [
    bc6(0x00, 2, true, 10, [5, 5, 5], "m0-1 gy4 by4 bz4 rw0-9 gw0-9 bw0-9 rx0-4 gz4 gy0-3 gx0-4 bz0 gz0-3 bx0-4 bz1 by0-3 ry0-4 bz2 rz0-4 bz3 d0-4"),
    bc6(0x01, 2, true, 7, [6, 6, 6], "m0-1 gy5 gz4 gz5 rw0-6 bz0 bz1 by4 gw0-6 by5 bz2 gy4 bw0-6 bz3 bz5 bz4 rx0-5 gy0-3 gx0-5 gz0-3 bx0-5 by0-3 ry0-5 rz0-5 d0-4"),
    bc6(0x02, 2, true, 11, [5, 4, 4], "m0-4 rw0-9 gw0-9 bw0-9 rx0-4 rw10 gy0-3 gx0-3 gw10 bz0 gz0-3 bx0-3 bw10 bz1 by0-3 ry0-4 bz2 rz0-4 bz3 d0-4"),
    bc6(0x06, 2, true, 11, [4, 5, 4], "m0-4 rw0-9 gw0-9 bw0-9 rx0-3 rw10 gz4 gy0-3 gx0-4 gw10 gz0-3 bx0-3 bw10 bz1 by0-3 ry0-3 bz0 bz2 rz0-3 gy4 bz3 d0-4"),
    bc6(0x0a, 2, true, 11, [4, 4, 5], "m0-4 rw0-9 gw0-9 bw0-9 rx0-3 rw10 by4 gy0-3 gx0-3 gw10 bz0 gz0-3 bx0-4 bw10 by0-3 ry0-3 bz1 bz2 rz0-3 bz4 bz3 d0-4"),
    bc6(0x0e, 2, true, 9, [5, 5, 5], "m0-4 rw0-8 by4 gw0-8 gy4 bw0-8 bz4 rx0-4 gz4 gy0-3 gx0-4 bz0 gz0-3 bx0-4 bz1 by0-3 ry0-4 bz2 rz0-4 bz3 d0-4"),
    bc6(0x12, 2, true, 8, [6, 5, 5], "m0-4 rw0-7 gz4 by4 gw0-7 bz2 gy4 bw0-7 bz3 bz4 rx0-5 gy0-3 gx0-4 bz0 gz0-3 bx0-4 bz1 by0-3 ry0-5 rz0-5 d0-4"),
    bc6(0x16, 2, true, 8, [5, 6, 5], "m0-4 rw0-7 bz0 by4 gw0-7 gy5 gy4 bw0-7 gz5 bz4 rx0-4 gz4 gy0-3 gx0-5 gz0-3 bx0-4 bz1 by0-3 ry0-4 bz2 rz0-4 bz3 d0-4"),
    bc6(0x1a, 2, true, 8, [5, 5, 6], "m0-4 rw0-7 bz1 by4 gw0-7 by5 gy4 bw0-7 bz5 bz4 rx0-4 gz4 gy0-3 gx0-4 bz0 gz0-3 bx0-5 by0-3 ry0-4 bz2 rz0-4 bz3 d0-4"),
    bc6(0x1e, 2, false, 6, [6, 6, 6], "m0-4 rw0-5 gz4 bz0 bz1 by4 gw0-5 gy5 by5 bz2 gy4 bw0-5 gz5 bz3 bz5 bz4 rx0-5 gy0-3 gx0-5 gz0-3 bx0-5 by0-3 ry0-5 rz0-5 d0-4"),
    bc6(0x03, 1, false, 10, [10, 10, 10], "m0-4 rw0-9 gw0-9 bw0-9 rx0-9 gx0-9 bx0-9"),
    bc6(0x07, 1, true, 11, [9, 9, 9], "m0-4 rw0-9 gw0-9 bw0-9 rx0-8 rw10 gx0-8 gw10 bx0-8 bw10"),
    bc6(0x0b, 1, true, 12, [8, 8, 8], "m0-4 rw0-9 gw0-9 bw0-9 rx0-7 rw11 rw10 gx0-7 gw11 gw10 bx0-7 bw11 bw10"),
    bc6(0x0f, 1, true, 16, [4, 4, 4], "m0-4 rw0-9 gw0-9 bw0-9 rx0-3 rw15-10 gx0-3 gw15-10 bx0-3 bw15-10"),
];

fn sign_extend(v: i32, bits: u32) -> i32 {
    if bits == 0 || bits >= 32 {
        return v;
    }
    let shift = 32 - bits;
    (v << shift) >> shift
}

/// Reads the header fields of `layout`: endpoints `[w, x, y, z][channel]`
/// and the shape.
fn bc6_header(r: &mut Bits, layout: &str) -> ([[i32; 3]; 4], usize) {
    let mut ep = [[0i32; 3]; 4];
    let mut shape = 0usize;
    for token in layout.split(' ') {
        let split = token
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(token.len());
        let (name, range) = token.split_at(split);
        let (a, b) = match range.split_once('-') {
            Some((a, b)) => (a.parse().unwrap_or(0), b.parse().unwrap_or(0)),
            None => {
                let v: u32 = range.parse().unwrap_or(0);
                (v, v)
            }
        };
        let bits: Vec<u32> = if a <= b {
            (a..=b).collect()
        } else {
            (b..=a).rev().collect()
        };
        let target = name.as_bytes();
        for bit in bits {
            let v = r.take(1);
            match target {
                [b'd'] => shape |= (v as usize) << bit,
                [ch @ (b'r' | b'g' | b'b'), e @ (b'w' | b'x' | b'y' | b'z')] => {
                    let c = match ch {
                        b'r' => 0,
                        b'g' => 1,
                        _ => 2,
                    };
                    let k = usize::from(e - b'w');
                    ep[k][c] |= (v as i32) << bit;
                }
                _ => {}
            }
        }
    }
    (ep, shape)
}

fn bc6_unquantize(v: i32, bits: u32, signed: bool) -> i32 {
    if signed {
        if bits >= 16 {
            return v;
        }
        let (neg, c) = (v < 0, v.abs());
        let q = if c == 0 {
            0
        } else if c >= (1 << (bits - 1)) - 1 {
            0x7FFF
        } else {
            ((c << 15) + 0x4000) >> (bits - 1)
        };
        if neg {
            -q
        } else {
            q
        }
    } else if bits >= 15 {
        v
    } else if v == 0 {
        0
    } else if v == (1 << bits) - 1 {
        0xFFFF
    } else {
        ((v << 16) + 0x8000) >> bits
    }
}

/// Scales an interpolated 16-bit value to half-float bits.
fn bc6_finish(v: i32, signed: bool) -> u32 {
    if !signed {
        return ((v * 31) >> 6) as u32 & 0xFFFF;
    }
    if v < 0 {
        0x8000 | ((((-v) * 31) >> 5) as u32 & 0x7FFF)
    } else {
        ((v * 31) >> 5) as u32 & 0x7FFF
    }
}

fn bc6h_block(b: &[u8], signed: bool) -> Block {
    let mut raw = [0u8; 16];
    raw.copy_from_slice(&b[..16]);
    let block = u128::from_le_bytes(raw);
    let low = (block & 3) as u32;
    let code = if low < 2 { low } else { (block & 31) as u32 };
    let one = 1.0f32.to_bits();
    let Some(m) = BC6_MODES.iter().find(|m| m.code == code) else {
        return [[0, 0, 0, one]; 16];
    };
    let mut r = Bits { block, at: 0 };
    let (mut ep, shape) = bc6_header(&mut r, m.layout);
    let shape = shape & 31;
    let wmask = (1i32 << m.base_bits) - 1;
    for c in 0..3 {
        if signed {
            ep[0][c] = sign_extend(ep[0][c], m.base_bits);
        }
        let base = ep[0][c];
        for e in ep.iter_mut().skip(1) {
            if signed || m.transformed {
                e[c] = sign_extend(e[c], m.delta_bits[c]);
            }
            if m.transformed {
                // Wrapping add of the delta to endpoint 0.
                e[c] = e[c].wrapping_add(base) & wmask;
                if signed {
                    e[c] = sign_extend(e[c], m.base_bits);
                }
            }
        }
    }
    // `ep[0]` was used as the base above and is unquantised with the rest.
    let ep = ep.map(|e| e.map(|v| bc6_unquantize(v, m.base_bits, signed)));
    r.at = if m.regions == 2 { 82 } else { 65 };
    let anchor = |i: usize| i == 0 || (m.regions == 2 && usize::from(ANCHOR2[shape]) == i);
    let indices: [u32; 16] = std::array::from_fn(|i| {
        let n = if anchor(i) {
            m.index_bits - 1
        } else {
            m.index_bits
        };
        r.take(n)
    });
    std::array::from_fn(|i| {
        let region = if m.regions == 2 {
            usize::from((PARTITIONS2[shape] >> i) & 1 != 0)
        } else {
            0
        };
        let (a, b) = (ep[2 * region], ep[2 * region + 1]);
        let w = weight(m.index_bits, indices[i]) as i32;
        let mix = |c: usize| {
            let v = (a[c] * (64 - w) + b[c] * w + 32) >> 6;
            crate::sem::convert::f16tof32(bc6_finish(v, signed)).to_bits()
        };
        [mix(0), mix(1), mix(2), one]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(b: Block, i: usize) -> [f32; 4] {
        b[i].map(f32::from_bits)
    }

    #[test]
    fn bc1_four_and_three_colour_modes() {
        // c0 = white, c1 = black, indices 0,1,2,3 in the first row.
        let b = [0xFF, 0xFF, 0x00, 0x00, 0b1110_0100, 0, 0, 0];
        let t = decode_block(Format::Bc1Unorm, &b).unwrap();
        assert_eq!(f(t, 0), [1.0, 1.0, 1.0, 1.0]);
        assert_eq!(f(t, 1), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(f(t, 2)[0], 2.0 / 3.0);
        assert_eq!(f(t, 3)[1], 1.0 / 3.0);
        // c0 <= c1: index 3 is transparent black, index 2 the midpoint.
        let b = [0x00, 0x00, 0xFF, 0xFF, 0b1110_0100, 0, 0, 0];
        let t = decode_block(Format::Bc1Unorm, &b).unwrap();
        assert_eq!(f(t, 2), [0.5, 0.5, 0.5, 1.0]);
        assert_eq!(f(t, 3), [0.0; 4]);
    }

    #[test]
    fn bc4_signed_and_six_value_ramp() {
        // r0 = 0 <= r1 = 255: six-value mode, index 6 = 0, 7 = 1.
        let b = [0, 255, 0b1111_0110, 0b0000_0001, 0, 0, 0, 0];
        let t = decode_block(Format::Bc4Unorm, &b).unwrap();
        assert_eq!(f(t, 0)[0], 0.0);
        assert_eq!(f(t, 1)[0], 0.0);
        assert_eq!(f(t, 2)[0], 1.0);
        let b = [0x80, 0x7F, 0, 0, 0, 0, 0, 0];
        let t = decode_block(Format::Bc4Snorm, &b).unwrap();
        assert_eq!(f(t, 0), [-1.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn bc7_reserved_mode_is_transparent_black() {
        let t = decode_block(Format::Bc7Unorm, &[0; 16]).unwrap();
        assert!(t.iter().all(|x| *x == [0; 4]));
        // A reserved BC6H mode (code 0x13) decodes to opaque black.
        let mut b6 = [0u8; 16];
        b6[0] = 0x13;
        let t = decode_block(Format::Bc6hUf16, &b6).unwrap();
        assert_eq!(t[5], [0, 0, 0, 1.0f32.to_bits()]);
        assert!(decode_block(Format::Bc1Unorm, &[0; 4]).is_none());
    }

    #[test]
    fn bc6h_delta_endpoints_wrap_and_scale() {
        // Mode 0x0f: one region, 16-bit base, 4-bit deltas. rw = 0x1000
        // (rw12 sits at bit 42), rx delta = 0xF = -1 → 0x0FFF. UF16:
        // 0x1000 * 31 >> 6 = 0x07C0 = 2^-14 * 1984/1024 and 0x0FFF → 0x07BF.
        // SF16: 0x1000 * 31 >> 5 = 0x0F80 = 2^-12 * 1920/1024.
        let mut block: u128 = 0x0F;
        block |= 1 << 42;
        block |= 0xF << 35;
        block |= 15 << 68;
        let b = block.to_le_bytes();
        let t = decode_block(Format::Bc6hUf16, &b).unwrap();
        let scale = 2f32.powi(-14) / 1024.0;
        assert_eq!(f(t, 0), [1984.0 * scale, 0.0, 0.0, 1.0]);
        assert_eq!(f(t, 1)[0], 1983.0 * scale);
        let t = decode_block(Format::Bc6hSf16, &b).unwrap();
        assert_eq!(f(t, 0)[0], 1920.0 * 2f32.powi(-12) / 1024.0);
    }

    #[test]
    fn bc7_two_subsets_with_shared_pbits_and_anchor() {
        // Mode 1 (bit 1), partition 0 (columns 2-3 are subset 1, anchor
        // texel 15). Subset 1 endpoints: 0 and 63 (6 bits) per channel with
        // shared p-bit 1 → 7-bit 1 and 127 → 8-bit 2 and 255. Subset 0 is
        // all zero with p-bit 0. Texel 2 index 7 (weight 64) → 255; texel 15
        // (anchor, 2 bits) index 3 (weight 27) → (2*37 + 255*27 + 32) >> 6
        // = 6991 >> 6 = 109.
        let mut block: u128 = 0b10;
        for c in 0..3u32 {
            block |= 63u128 << (26 + 24 * c);
        }
        block |= 1 << 81; // shared p-bit of subset 1
        block |= 7 << 87; // texel 2
        block |= 3 << 126; // texel 15
        let t = decode_block(Format::Bc7Unorm, &block.to_le_bytes()).unwrap();
        assert_eq!(f(t, 0), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(f(t, 2), [1.0; 4]);
        let v = 109.0 / 255.0;
        assert_eq!(f(t, 15), [v, v, v, 1.0]);
        // Texel 3 (subset 1, index 0) is endpoint 0: 2/255.
        assert_eq!(f(t, 3)[0], 2.0 / 255.0);
    }
}
