//! The C ABI's plain structs and their conversion into runtime views.
//!
//! In: `#[repr(C)]` structs filled by C code (`include/sm5jit.h` declares
//! the same layouts), each starting with `struct_size`. Out: the runtime's
//! [`View`] and [`SamplerDesc`], or a message saying which field is wrong.
//! Invariant: every enum value and format number is checked; nothing the
//! C side passes is trusted to be in range.

use crate::runtime::{
    AddressMode, BufferKind, BufferView, ComparisonFunc, Filter, FilterMode, Format, SamplerDesc,
    TextureDim, TextureView, View,
};

/// `sm5jit_buffer_view`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CBufferView {
    pub struct_size: u32,
    /// `SM5JIT_BUFFER_RAW` (0), `_STRUCTURED` (1) or `_TYPED` (2).
    pub kind: u32,
    /// Structure stride in bytes (structured only).
    pub stride: u32,
    /// DXGI_FORMAT number (typed only).
    pub format: u32,
    pub first_element: u64,
    pub num_elements: u64,
}

/// `sm5jit_texture_view`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CTextureView {
    pub struct_size: u32,
    /// `SM5JIT_TEXTURE_1D` (0) ... `SM5JIT_TEXTURE_2DMS_ARRAY` (8).
    pub dim: u32,
    pub format: u32,
    /// Samples per texel for the multisampled dimensions (ignored otherwise).
    pub samples: u32,
    pub width: u32,
    pub height: u32,
    pub depth_or_array: u32,
    pub mip_levels: u32,
    pub row_pitch: u64,
    pub slice_pitch: u64,
}

/// `sm5jit_sampler_desc`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CSamplerDesc {
    pub struct_size: u32,
    /// 0 point, 1 linear.
    pub min_filter: u32,
    pub mag_filter: u32,
    pub mip_filter: u32,
    /// Non-zero: anisotropic (filtered as linear).
    pub anisotropic: u32,
    /// 1 wrap, 2 mirror, 3 clamp, 4 border, 5 mirror once (D3D11 values).
    pub address_u: u32,
    pub address_v: u32,
    pub address_w: u32,
    /// 1 never ... 8 always (D3D11_COMPARISON_FUNC values).
    pub comparison: u32,
    pub max_anisotropy: u32,
    pub border_color: [f32; 4],
    pub mip_lod_bias: f32,
    pub min_lod: f32,
    pub max_lod: f32,
}

/// `sm5jit_dispatch_options`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CDispatchOptions {
    pub struct_size: u32,
    /// 0: one worker per core.
    pub threads: u32,
    /// 0: the default instruction budget per group.
    pub budget: u64,
}

/// Checks the `struct_size` a C caller wrote.
pub fn check_size(name: &str, got: u32, want: usize) -> Result<(), String> {
    if got as usize == want {
        Ok(())
    } else {
        Err(format!(
            "{name}.struct_size is {got}, expected {want} (sizeof(struct {name}) of this library)"
        ))
    }
}

/// DXGI_FORMAT numbers of the formats the runtime reads and writes.
const DXGI: &[(u32, Format)] = &[
    (2, Format::R32G32B32A32Float),
    (3, Format::R32G32B32A32Uint),
    (4, Format::R32G32B32A32Sint),
    (6, Format::R32G32B32Float),
    (7, Format::R32G32B32Uint),
    (8, Format::R32G32B32Sint),
    (10, Format::R16G16B16A16Float),
    (11, Format::R16G16B16A16Unorm),
    (12, Format::R16G16B16A16Uint),
    (13, Format::R16G16B16A16Snorm),
    (14, Format::R16G16B16A16Sint),
    (16, Format::R32G32Float),
    (17, Format::R32G32Uint),
    (18, Format::R32G32Sint),
    (24, Format::R10G10B10A2Unorm),
    (25, Format::R10G10B10A2Uint),
    (26, Format::R11G11B10Float),
    (28, Format::R8G8B8A8Unorm),
    (29, Format::R8G8B8A8UnormSrgb),
    (30, Format::R8G8B8A8Uint),
    (31, Format::R8G8B8A8Snorm),
    (32, Format::R8G8B8A8Sint),
    (34, Format::R16G16Float),
    (35, Format::R16G16Unorm),
    (36, Format::R16G16Uint),
    (37, Format::R16G16Snorm),
    (38, Format::R16G16Sint),
    (40, Format::D32Float),
    (41, Format::R32Float),
    (42, Format::R32Uint),
    (43, Format::R32Sint),
    (49, Format::R8G8Unorm),
    (50, Format::R8G8Uint),
    (51, Format::R8G8Snorm),
    (52, Format::R8G8Sint),
    (54, Format::R16Float),
    (56, Format::R16Unorm),
    (57, Format::R16Uint),
    (58, Format::R16Snorm),
    (59, Format::R16Sint),
    (61, Format::R8Unorm),
    (62, Format::R8Uint),
    (63, Format::R8Snorm),
    (64, Format::R8Sint),
    (67, Format::R9G9B9E5Sharedexp),
    (71, Format::Bc1Unorm),
    (72, Format::Bc1UnormSrgb),
    (74, Format::Bc2Unorm),
    (75, Format::Bc2UnormSrgb),
    (77, Format::Bc3Unorm),
    (78, Format::Bc3UnormSrgb),
    (80, Format::Bc4Unorm),
    (81, Format::Bc4Snorm),
    (83, Format::Bc5Unorm),
    (84, Format::Bc5Snorm),
    (87, Format::B8G8R8A8Unorm),
    (91, Format::B8G8R8A8UnormSrgb),
    (95, Format::Bc6hUf16),
    (96, Format::Bc6hSf16),
    (98, Format::Bc7Unorm),
    (99, Format::Bc7UnormSrgb),
];

/// The format with DXGI_FORMAT number `n`.
pub fn format(n: u32) -> Result<Format, String> {
    DXGI.iter()
        .find(|(v, _)| *v == n)
        .map(|(_, f)| *f)
        .ok_or_else(|| format!("DXGI_FORMAT {n} is not a format sm5jit supports"))
}

/// The DXGI_FORMAT number of `f`.
pub fn format_number(f: Format) -> Option<u32> {
    DXGI.iter().find(|(_, g)| *g == f).map(|(n, _)| *n)
}

/// `sm5jit_compile_options`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CCompileOptions {
    pub struct_size: u32,
    /// `SM5JIT_TIER_0` (0), `SM5JIT_TIER_1` (1) or `SM5JIT_TIER_AUTO` (2).
    pub tier: u32,
    /// Nonzero: use the in-process cache.
    pub cache: u32,
    pub _pad: u32,
    /// Batch calls before tier-up on auto (0: at once).
    pub tier_up_after: u64,
}

/// JIT compile options from their C description.
pub fn compile_options(o: &CCompileOptions) -> Result<crate::jit::CompileOptions, String> {
    use crate::jit::Tier;
    let tier = match o.tier {
        0 => Tier::Zero,
        1 => Tier::One,
        2 => Tier::Auto,
        t => {
            return Err(format!(
                "tier {t} is not SM5JIT_TIER_0 (0), SM5JIT_TIER_1 (1) or SM5JIT_TIER_AUTO (2)"
            ))
        }
    };
    Ok(crate::jit::CompileOptions {
        tier,
        tier_up_after: o.tier_up_after,
        cache: o.cache != 0,
    })
}

/// A buffer view from its C description.
pub fn buffer_view(v: &CBufferView) -> Result<View, String> {
    check_size(
        "sm5jit_buffer_view",
        v.struct_size,
        size_of::<CBufferView>(),
    )?;
    let kind = match v.kind {
        0 => BufferKind::Raw,
        1 if v.stride == 0 || v.stride % 4 != 0 => {
            return Err(format!(
                "structured stride {} is not a positive multiple of 4",
                v.stride
            ))
        }
        1 => BufferKind::Structured { stride: v.stride },
        2 => BufferKind::Typed(format(v.format)?),
        k => {
            return Err(format!(
                "buffer kind {k} is not RAW (0), STRUCTURED (1) or TYPED (2)"
            ))
        }
    };
    Ok(View::Buffer(BufferView {
        kind,
        first_element: v.first_element,
        num_elements: v.num_elements,
    }))
}

/// A texture view from its C description.
pub fn texture_view(v: &CTextureView) -> Result<View, String> {
    check_size(
        "sm5jit_texture_view",
        v.struct_size,
        size_of::<CTextureView>(),
    )?;
    let samples = v.samples;
    let dim = match v.dim {
        0 => TextureDim::Tex1D,
        1 => TextureDim::Tex1DArray,
        2 => TextureDim::Tex2D,
        3 => TextureDim::Tex2DArray,
        4 => TextureDim::Tex3D,
        5 => TextureDim::TexCube,
        6 => TextureDim::TexCubeArray,
        7 => TextureDim::Tex2DMS { samples },
        8 => TextureDim::Tex2DMSArray { samples },
        d => return Err(format!("texture dimension {d} is not 0..=8")),
    };
    Ok(View::Texture(TextureView {
        dim,
        format: format(v.format)?,
        width: v.width,
        height: v.height,
        depth_or_array: v.depth_or_array,
        mip_levels: v.mip_levels,
        row_pitch: v.row_pitch,
        slice_pitch: v.slice_pitch,
    }))
}

fn filter_mode(name: &str, v: u32) -> Result<FilterMode, String> {
    match v {
        0 => Ok(FilterMode::Point),
        1 => Ok(FilterMode::Linear),
        _ => Err(format!("{name} {v} is not POINT (0) or LINEAR (1)")),
    }
}

fn address_mode(name: &str, v: u32) -> Result<AddressMode, String> {
    Ok(match v {
        1 => AddressMode::Wrap,
        2 => AddressMode::Mirror,
        3 => AddressMode::Clamp,
        4 => AddressMode::Border,
        5 => AddressMode::MirrorOnce,
        _ => return Err(format!("{name} {v} is not a D3D11 address mode (1..=5)")),
    })
}

fn comparison(v: u32) -> Result<ComparisonFunc, String> {
    use ComparisonFunc::*;
    const ALL: [ComparisonFunc; 8] = [
        Never,
        Less,
        Equal,
        LessEqual,
        Greater,
        NotEqual,
        GreaterEqual,
        Always,
    ];
    v.checked_sub(1)
        .and_then(|i| ALL.get(i as usize).copied())
        .ok_or_else(|| format!("comparison {v} is not a D3D11 comparison (1..=8)"))
}

/// A sampler state from its C description.
pub fn sampler(v: &CSamplerDesc) -> Result<SamplerDesc, String> {
    check_size(
        "sm5jit_sampler_desc",
        v.struct_size,
        size_of::<CSamplerDesc>(),
    )?;
    Ok(SamplerDesc {
        filter: Filter {
            min: filter_mode("min_filter", v.min_filter)?,
            mag: filter_mode("mag_filter", v.mag_filter)?,
            mip: filter_mode("mip_filter", v.mip_filter)?,
            anisotropic: v.anisotropic != 0,
        },
        address_u: address_mode("address_u", v.address_u)?,
        address_v: address_mode("address_v", v.address_v)?,
        address_w: address_mode("address_w", v.address_w)?,
        border_color: v.border_color,
        comparison: comparison(v.comparison)?,
        mip_lod_bias: v.mip_lod_bias,
        min_lod: v.min_lod,
        max_lod: v.max_lod,
        max_anisotropy: v.max_anisotropy,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dxgi_numbers_are_unique_and_named_consistently() {
        for (i, (n, f)) in DXGI.iter().enumerate() {
            assert!(DXGI[i + 1..].iter().all(|(m, g)| m != n && g != f));
            assert_eq!(format_number(*f), Some(*n));
        }
        assert_eq!(format(41), Ok(Format::R32Float));
        assert_eq!(format(28), Ok(Format::R8G8B8A8Unorm));
        assert!(format(0).is_err());
    }

    #[test]
    fn layouts_match_the_header() {
        assert_eq!(size_of::<CBufferView>(), 32);
        assert_eq!(size_of::<CTextureView>(), 48);
        assert_eq!(size_of::<CSamplerDesc>(), 68);
        assert_eq!(size_of::<CDispatchOptions>(), 16);
    }

    #[test]
    fn bad_fields_are_named() {
        let v = CBufferView {
            struct_size: 32,
            kind: 1,
            stride: 6,
            format: 0,
            first_element: 0,
            num_elements: 1,
        };
        assert!(buffer_view(&v).unwrap_err().contains("stride 6"));
        let v = CBufferView {
            struct_size: 24,
            ..v
        };
        assert!(buffer_view(&v).unwrap_err().contains("struct_size is 24"));
        let v = CBufferView {
            struct_size: 32,
            kind: 9,
            ..v
        };
        assert!(buffer_view(&v).unwrap_err().contains("kind 9"));
        assert_eq!(comparison(8), Ok(ComparisonFunc::Always));
        assert!(comparison(0).is_err());
    }
}
