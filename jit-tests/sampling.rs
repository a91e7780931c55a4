//! Texture sampling on both engines (each test runs once on the
//! interpreter and once on the JIT, `sampling::interp::*` and
//! `sampling::jit::*`), with expected values worked out by hand from the D3D11 rules (`docs/semantics.md`,
//! "Sampling"): point and linear filtering with 8-bit fixed-point weights,
//! address modes and border colour, mip selection, gather order,
//! comparisons, sRGB and BC decoding, cube faces, texture loads and
//! queries, and the real-world shaders that sample.

use std::cell::Cell;
use std::path::PathBuf;

use sm5jit::interp::Interpreter;
use sm5jit::ir::{Program, ResourceDim};
use sm5jit::jit::JitShader;
use sm5jit::runtime::{
    AddressMode, Bindings, BufferKind, BufferView, ComparisonFunc, DispatchOptions, Filter,
    FilterMode, Format, RuntimeError, SamplerDesc, Slot, TextureDim, TextureView, View,
};

/// The engine the hand-derived tests run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Engine {
    Interp,
    Jit,
}

thread_local! {
    static ENGINE: Cell<Engine> = const { Cell::new(Engine::Interp) };
}

/// One `#[test]` per engine for each listed case.
macro_rules! on_both_engines {
    ($($name:ident),* $(,)?) => {
        mod interp {
            $(#[test]
            fn $name() {
                super::ENGINE.set(super::Engine::Interp);
                super::$name();
            })*
        }
        mod jit {
            $(#[test]
            fn $name() {
                super::ENGINE.set(super::Engine::Jit);
                super::$name();
            })*
        }
    };
}

on_both_engines!(
    point_sampling_picks_the_texel_containing_the_coordinate,
    linear_weights_are_quantised_to_8_fractional_bits,
    bilinear_in_two_dimensions,
    every_address_mode_and_the_border_colour,
    sample_l_selects_and_blends_mips,
    sample_d_takes_the_lod_from_the_gradients,
    gather_returns_the_footprint_counter_clockwise_from_bottom_left,
    comparison_sampling_and_gather,
    srgb_texels_are_decoded_to_linear,
    bc1_bc3_and_bc7_blocks,
    bc6h_single_region_block,
    ld_out_of_range_reads_zero_with_format_defaults,
    cube_faces_and_cube_arrays,
    arrays_round_the_slice_and_3d_filters_in_depth,
    resinfo_sampleinfo_and_multisample_loads,
);

fn parse(text: &str) -> Program {
    sm5jit::asm::parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn floats_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words_bytes(v: &[u32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// A texture bound at t#`slot`.
struct Tex {
    slot: u32,
    data: Vec<u8>,
    view: TextureView,
}

fn tex(slot: u32, data: Vec<u8>, view: TextureView) -> Tex {
    Tex { slot, data, view }
}

/// Runs a one-thread compute shader; `body` stores its results into u0
/// (64 DWORDs), which is returned.
fn run(decls: &str, body: &str, texes: &[Tex], samplers: &[(u32, SamplerDesc)]) -> Vec<u32> {
    try_run(decls, body, texes, samplers).unwrap_or_else(|e| panic!("{e}"))
}

fn try_run(
    decls: &str,
    body: &str,
    texes: &[Tex],
    samplers: &[(u32, SamplerDesc)],
) -> Result<Vec<u32>, RuntimeError> {
    let text = format!(
        "cs_5_0\ndcl_uav_raw u0\n{decls}\ndcl_temps 4\ndcl_thread_group 1, 1, 1\n{body}\nret\n"
    );
    let program = parse(&text);
    let mut out = vec![0u8; 256];
    {
        let mut b = Bindings::new();
        b.uav(Slot::new(0), &mut out, raw_view(64));
        for t in texes {
            b.srv(Slot::new(t.slot), &t.data, View::Texture(t.view));
        }
        for (slot, s) in samplers {
            b.sampler(Slot::new(*slot), *s);
        }
        let o = DispatchOptions::default();
        match ENGINE.get() {
            Engine::Interp => Interpreter::new(&program)?.dispatch(&mut b, [1, 1, 1], &o)?,
            Engine::Jit => JitShader::compile(&program)
                .unwrap_or_else(|e| panic!("{e}\n{text}"))
                .dispatch(&mut b, [1, 1, 1], &o)?,
        };
    }
    Ok(out
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// A raw buffer view of `dwords` DWORDs.
fn raw_view(dwords: u64) -> View {
    View::Buffer(BufferView {
        kind: BufferKind::Raw,
        first_element: 0,
        num_elements: dwords,
    })
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

fn as_f(words: &[u32]) -> Vec<f32> {
    words.iter().map(|w| f32::from_bits(*w)).collect()
}

fn point(address: AddressMode) -> SamplerDesc {
    SamplerDesc::new(Filter::POINT, address)
}

const T2D: &str =
    "dcl_sampler s0, mode_default\ndcl_resource_texture2d (float,float,float,float) t0";

fn point_sampling_picks_the_texel_containing_the_coordinate() {
    // 2x2: row 0 = 0, 1; row 1 = 2, 3. (0.25, 0.75) lies in texel (0, 1).
    let t = tex(
        0,
        floats_bytes(&[0.0, 1.0, 2.0, 3.0]),
        TextureView::tex2d(Format::R32Float, 2, 2),
    );
    let out = run(
        T2D,
        "sample_l r0.xyzw, l(0.25, 0.75, 0, 0), t0.xyzw, s0, l(0)
         store_raw u0.xyzw, l(0), r0.xyzw
         sample_l r0.xyzw, l(0.9, 0.1, 0, 0), t0.xyzw, s0, l(0)
         store_raw u0.x, l(16), r0.x",
        &[t],
        &[(0, point(AddressMode::Clamp))],
    );
    // R32_FLOAT: missing g, b read 0 and alpha 1.
    assert_eq!(&out[0..4], &[f(2.0), 0, 0, f(1.0)]);
    assert_eq!(out[4], f(1.0));
}

fn linear_weights_are_quantised_to_8_fractional_bits() {
    // 4x1 = 0, 256, 512, 768. u = 0.45: u*4 - 0.5 = 1.3, which is 332.8/256
    // and rounds to 333/256: texels 1 and 2 with weights 179/256 and 77/256,
    // so 256*179/256 + 512*77/256 = 179 + 154 = 333 (unquantised: 332.8).
    let t = tex(
        0,
        floats_bytes(&[0.0, 256.0, 512.0, 768.0]),
        TextureView::tex2d(Format::R32Float, 4, 1),
    );
    let s = SamplerDesc::new(Filter::LINEAR, AddressMode::Clamp);
    let out = run(
        T2D,
        "sample_l r0.x, l(0.45, 0.5, 0, 0), t0.xyzw, s0, l(0)
         sample_l r0.y, l(0.5, 0.5, 0, 0), t0.yxzw, s0, l(0)
         store_raw u0.xy, l(0), r0.xyxx",
        &[t],
        &[(0, s)],
    );
    assert_eq!(f32::from_bits(out[0]), 333.0);
    // u = 0.5: 1.5 → texels 1 and 2 half each = 384 (r0.y takes the
    // swizzle's second component, x).
    assert_eq!(f32::from_bits(out[1]), 384.0);
}

fn bilinear_in_two_dimensions() {
    // 2x2 = 0, 1 / 2, 3; the centre (0.5, 0.5) weighs all four by 1/4 = 1.5.
    // (0.375, 0.5): x = 0.25 → weights 3/4, 1/4 on columns, 1/2 on rows:
    // (0*0.75 + 1*0.25)/2 + (2*0.75 + 3*0.25)/2 = 0.125 + 1.125 = 1.25.
    let t = tex(
        0,
        floats_bytes(&[0.0, 1.0, 2.0, 3.0]),
        TextureView::tex2d(Format::R32Float, 2, 2),
    );
    let out = run(
        T2D,
        "sample_l r0.x, l(0.5, 0.5, 0, 0), t0.xyzw, s0, l(0)
         sample_l r0.y, l(0.375, 0.5, 0, 0), t0.yxzw, s0, l(0)
         store_raw u0.xy, l(0), r0.xyxx",
        &[t],
        &[(0, SamplerDesc::new(Filter::LINEAR, AddressMode::Clamp))],
    );
    assert_eq!(as_f(&out[0..2]), vec![1.5, 1.25]);
}

fn every_address_mode_and_the_border_colour() {
    // 4x1 = 10, 20, 30, 40. u = -0.375 is texel -1.5 → index -2; u = 1.375
    // is texel 5.5 → index 5 (point sampling).
    //   wrap: -2 → 2, 5 → 1; mirror: -2 → 1, 5 → 2; clamp: 0, 3;
    //   mirror_once: -2 → 1, 5 → 3; border: the border colour.
    let cases = [
        (AddressMode::Wrap, [30.0, 20.0]),
        (AddressMode::Mirror, [20.0, 30.0]),
        (AddressMode::Clamp, [10.0, 40.0]),
        (AddressMode::MirrorOnce, [20.0, 40.0]),
        (AddressMode::Border, [0.5, 0.5]),
    ];
    for (mode, expected) in cases {
        let t = tex(
            0,
            floats_bytes(&[10.0, 20.0, 30.0, 40.0]),
            TextureView::tex2d(Format::R32Float, 4, 1),
        );
        let s = SamplerDesc {
            border_color: [0.5, 0.25, 0.125, 0.75],
            ..point(mode)
        };
        let out = run(
            T2D,
            "sample_l r0.xyzw, l(-0.375, 0.5, 0, 0), t0.xyzw, s0, l(0)
             store_raw u0.xyzw, l(0), r0.xyzw
             sample_l r1.xyzw, l(1.375, 0.5, 0, 0), t0.xyzw, s0, l(0)
             store_raw u0.xyzw, l(16), r1.xyzw",
            &[t],
            &[(0, s)],
        );
        let got = as_f(&out[0..8]);
        assert_eq!([got[0], got[4]], expected, "{mode:?}");
        if mode == AddressMode::Border {
            assert_eq!(&got[0..4], &[0.5, 0.25, 0.125, 0.75]);
        }
    }
}

/// A 4x4 R32_FLOAT texture with 3 mips: mip 0 = 1.0, mip 1 = 2.0, mip 2 = 4.0.
fn mipped() -> Tex {
    let mut v = vec![1.0f32; 16];
    v.extend([2.0f32; 4]);
    v.push(4.0);
    let view = TextureView {
        mip_levels: 3,
        ..TextureView::tex2d(Format::R32Float, 4, 4)
    };
    tex(0, floats_bytes(&v), view)
}

fn sample_l_selects_and_blends_mips() {
    let point_mip = SamplerDesc {
        filter: Filter {
            mip: FilterMode::Point,
            ..Filter::LINEAR
        },
        ..SamplerDesc::default()
    };
    let body = "sample_l r0.x, l(0.5, 0.5, 0, 0), t0.xyzw, s0, l(1.4)
         sample_l r0.y, l(0.5, 0.5, 0, 0), t0.yxzw, s0, l(1.6)
         sample_l r0.z, l(0.5, 0.5, 0, 0), t0.zyxw, s0, l(-1.0)
         sample_l r0.w, l(0.5, 0.5, 0, 0), t0.wyzx, s0, l(7.0)
         store_raw u0.xyzw, l(0), r0.xyzw
         sample_l r1.x, l(0.5, 0.5, 0, 0), t0.xyzw, s1, l(1.25)
         sample_l r1.y, l(0.5, 0.5, 0, 0), t0.yxzw, s2, l(0)
         sample_l r1.z, l(0.5, 0.5, 0, 0), t0.zyxw, s3, l(2.0)
         store_raw u0.xyz, l(16), r1.xyzx";
    let decls = "dcl_sampler s0, mode_default\ndcl_sampler s1, mode_default\ndcl_sampler s2, mode_default\ndcl_sampler s3, mode_default\ndcl_resource_texture2d (float,float,float,float) t0";
    let out = run(
        decls,
        body,
        &[mipped()],
        &[
            (0, point_mip),
            // Linear mip: 1.25 → 2 * 0.75 + 4 * 0.25 = 2.5.
            (1, SamplerDesc::default()),
            // The sampler bias moves LOD 0 to 1.
            (
                2,
                SamplerDesc {
                    mip_lod_bias: 1.0,
                    ..point_mip
                },
            ),
            // max_lod 0 keeps LOD 2 on mip 0.
            (
                3,
                SamplerDesc {
                    max_lod: 0.0,
                    ..point_mip
                },
            ),
        ],
    );
    // Point mip: floor(LOD + 0.5): 1.4 → 1, 1.6 → 2; -1 → 0; 7 → last (2).
    assert_eq!(as_f(&out[0..4]), vec![2.0, 4.0, 1.0, 4.0]);
    assert_eq!(as_f(&out[4..7]), vec![2.5, 2.0, 1.0]);
}

fn sample_d_takes_the_lod_from_the_gradients() {
    // 4x4 mip 0: |ddx| = 0.5 texture widths = 2 texels → LOD 1; 1.0 → 4
    // texels → LOD 2; 0.25 on both axes → 1 texel → LOD 0.
    let out = run(
        T2D,
        "sample_d r0.x, l(0.5, 0.5, 0, 0), t0.xyzw, s0, l(0.5, 0, 0, 0), l(0, 0, 0, 0)
         sample_d r0.y, l(0.5, 0.5, 0, 0), t0.yxzw, s0, l(0, 0, 0, 0), l(0, 1.0, 0, 0)
         sample_d r0.z, l(0.5, 0.5, 0, 0), t0.zyxw, s0, l(0.25, 0, 0, 0), l(0, 0.25, 0, 0)
         store_raw u0.xyz, l(0), r0.xyzx",
        &[mipped()],
        &[(0, SamplerDesc::default())],
    );
    assert_eq!(as_f(&out[0..3]), vec![2.0, 4.0, 1.0]);
}

fn gather_returns_the_footprint_counter_clockwise_from_bottom_left() {
    // 2x2 R32G32_UINT, texel (x, y) = (k, 10k) with k = 1, 2 / 3, 4.
    // At the centre the footprint is u0 = 0, u1 = 1, v0 = 0, v1 = 1:
    // (u0,v1), (u1,v1), (u1,v0), (u0,v0) = 3, 4, 2, 1.
    let data = words_bytes(&[1, 10, 2, 20, 3, 30, 4, 40]);
    let view = TextureView::tex2d(Format::R32G32Uint, 2, 2);
    let decls = "dcl_sampler s0, mode_default\ndcl_resource_texture2d (uint,uint,uint,uint) t0";
    let out = run(
        decls,
        "gather4 r0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0.x
         store_raw u0.xyzw, l(0), r0.xyzw
         gather4 r0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0.y
         store_raw u0.xyzw, l(16), r0.xyzw
         gather4 r0.xyzw, l(0.5, 0.5, 0, 0), t0.wzyx, s0.x
         store_raw u0.xyzw, l(32), r0.xyzw
         gather4_po r0.xyzw, l(0.5, 0.5, 0, 0), l(1, 0, 0, 0), t0.xyzw, s0.x
         store_raw u0.xyzw, l(48), r0.xyzw
         gather4_aoffimmi(-1,0,0) r0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0.x
         store_raw u0.xyzw, l(64), r0.xyzw
         gather4_po r0.xyzw, l(0.5, 0.5, 0, 0), l(65, 0, 0, 0), t0.xyzw, s0.x
         store_raw u0.xyzw, l(80), r0.xyzw",
        &[tex(0, data, view)],
        &[(0, point(AddressMode::Clamp))],
    );
    assert_eq!(&out[0..4], &[3, 4, 2, 1]);
    assert_eq!(&out[4..8], &[30, 40, 20, 10], "s0.y gathers green");
    assert_eq!(&out[8..12], &[1, 2, 4, 3], "the resource swizzle reorders");
    // Offset +1: columns 1 and 2, clamped to 1.
    assert_eq!(&out[12..16], &[4, 4, 2, 2]);
    // Offset -1: columns -1 (clamped to 0) and 0.
    assert_eq!(&out[16..20], &[3, 3, 1, 1]);
    // Only the low 6 bits of a gather4_po offset count: 65 acts as 1.
    assert_eq!(&out[20..24], &[4, 4, 2, 2]);
}

fn comparison_sampling_and_gather() {
    // 2x1 = 0.25, 0.75 (D32_FLOAT).
    let t = || {
        tex(
            0,
            floats_bytes(&[0.25, 0.75]),
            TextureView::tex2d(Format::D32Float, 2, 1),
        )
    };
    let decls = "dcl_sampler s0, mode_comparison\ndcl_sampler s1, mode_comparison\ndcl_resource_texture2d (float,float,float,float) t0";
    let less = SamplerDesc {
        comparison: ComparisonFunc::Less,
        ..point(AddressMode::Clamp)
    };
    let lequal_linear = SamplerDesc {
        comparison: ComparisonFunc::LessEqual,
        ..SamplerDesc::new(Filter::LINEAR, AddressMode::Clamp)
    };
    let out = run(
        decls,
        "sample_c_lz r0.x, l(0.25, 0.5, 0, 0), t0.xxxx, s0, l(0.5)
         sample_c_lz r0.y, l(0.75, 0.5, 0, 0), t0.xxxx, s0, l(0.5)
         sample_c_lz r0.z, l(0.5, 0.5, 0, 0), t0.xxxx, s1, l(0.5)
         store_raw u0.xyz, l(0), r0.xyzx
         gather4_c r1.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0.x, l(0.5)
         store_raw u0.xyzw, l(16), r1.xyzw",
        &[t()],
        &[(0, less), (1, lequal_linear)],
    );
    // 0.5 < 0.25 fails, 0.5 < 0.75 passes; linear at the middle blends
    // fail (texel 0) and pass (texel 1) half each.
    assert_eq!(as_f(&out[0..3]), vec![0.0, 1.0, 0.5]);
    // Footprint (u0,v1), (u1,v1), (u1,v0), (u0,v0) with v clamped to row 0:
    // texels 0.25, 0.75, 0.75, 0.25 → 0.5 < t: 0, 1, 1, 0.
    assert_eq!(as_f(&out[4..8]), vec![0.0, 1.0, 1.0, 0.0]);
}

fn srgb_texels_are_decoded_to_linear() {
    // (0, 10, 188, 128): 10/255 = 0.0392 ≤ 0.04045 → /12.92 = 0.0030353;
    // 188/255 = 0.737255 → ((0.737255 + 0.055)/1.055)^2.4 = 0.75095^2.4
    // = exp(2.4 * ln 0.75095) = exp(-0.68739) = 0.50289; alpha stays 128/255.
    let t = tex(
        0,
        vec![0, 10, 188, 128],
        TextureView::tex2d(Format::R8G8B8A8UnormSrgb, 1, 1),
    );
    let out = run(
        T2D,
        "ld r0.xyzw, l(0, 0, 0, 0), t0.xyzw
         store_raw u0.xyzw, l(0), r0.xyzw",
        &[t],
        &[],
    );
    let v = as_f(&out[0..4]);
    assert_eq!(v[0], 0.0);
    assert!((v[1] - 0.003_035_3).abs() < 1e-6, "{v:?}");
    assert!((v[2] - 0.502_89).abs() < 1e-4, "{v:?}");
    assert_eq!(v[3], 128.0 / 255.0);
}

fn bc1_bc3_and_bc7_blocks() {
    // BC1: c0 = 0xF800 (red) > c1 = 0x001F (blue), every index 2:
    // (2 * red + blue) / 3 = (2/3, 0, 1/3, 1).
    let bc1 = vec![0x00, 0xF8, 0x1F, 0x00, 0xAA, 0xAA, 0xAA, 0xAA];
    // BC3: alpha endpoints 255 > 0 (eight-value ramp), texel 0 index 2 =
    // (6*255 + 0)/7 → 6/7, texel 1 index 0 = 1.0; colour white, index 0.
    let bc3 = vec![
        255, 0, 0b010, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0x00, 0x00, 0, 0, 0, 0,
    ];
    // BC7 mode 6 (bit 6): RGBA endpoints 0 and 127 (7 bits), p-bits 0 and 1
    // → 8-bit endpoints 0 and 255; 4-bit indices (anchor texel 0: 3 bits).
    // Texel 1 index 15 (weight 64) → 255; texel 2 index 8 (weight 34) →
    // (255*34 + 32) >> 6 = 135.
    let mut block: u128 = 1 << 6;
    for k in 0..4u32 {
        block |= 127u128 << (14 + 14 * k); // R1, G1, B1, A1
    }
    block |= 1u128 << 64; // p-bit of endpoint 1
    block |= 15u128 << 68; // texel 1
    block |= 8u128 << 72; // texel 2
    let bc7 = block.to_le_bytes().to_vec();
    let decls = "dcl_resource_texture2d (float,float,float,float) t0\ndcl_resource_texture2d (float,float,float,float) t1\ndcl_resource_texture2d (float,float,float,float) t2";
    let out = run(
        decls,
        "ld r0.xyzw, l(1, 1, 0, 0), t0.xyzw
         store_raw u0.xyzw, l(0), r0.xyzw
         ld r0.xyzw, l(0, 0, 0, 0), t1.xyzw
         store_raw u0.xyzw, l(16), r0.xyzw
         ld r0.xyzw, l(1, 0, 0, 0), t1.xyzw
         store_raw u0.xyzw, l(32), r0.xyzw
         ld r0.xyzw, l(0, 0, 0, 0), t2.xyzw
         store_raw u0.xyzw, l(48), r0.xyzw
         ld r0.xyzw, l(1, 0, 0, 0), t2.xyzw
         store_raw u0.xyzw, l(64), r0.xyzw
         ld r0.xyzw, l(2, 0, 0, 0), t2.xyzw
         store_raw u0.xyzw, l(80), r0.xyzw",
        &[
            tex(0, bc1, TextureView::tex2d(Format::Bc1Unorm, 4, 4)),
            tex(1, bc3, TextureView::tex2d(Format::Bc3Unorm, 4, 4)),
            tex(2, bc7, TextureView::tex2d(Format::Bc7Unorm, 4, 4)),
        ],
        &[],
    );
    let v = as_f(&out[0..24]);
    assert_eq!(&v[0..4], &[2.0 / 3.0, 0.0, 1.0 / 3.0, 1.0]);
    assert_eq!(&v[4..8], &[1.0, 1.0, 1.0, 6.0 / 7.0]);
    assert_eq!(v[11], 1.0);
    assert_eq!(&v[12..16], &[0.0; 4]);
    assert_eq!(&v[16..20], &[1.0; 4]);
    assert_eq!(&v[20..24], &[135.0 / 255.0; 4]);
}

fn bc6h_single_region_block() {
    // Mode 0x03 (5 mode bits 00011): one region, 10-bit endpoints, no
    // deltas. Endpoint 0 = (0, 0, 0), endpoint 1 = (1023, 1023, 1023);
    // 4-bit indices from bit 65 (texel 0 is the anchor: 3 bits).
    // Unquantise: 0 → 0, 1023 (the maximum) → 0xFFFF. Texel 1 index 15
    // (weight 64) → 0xFFFF → (0xFFFF * 31) >> 6 = 0x7BFF = 65504.0;
    // texel 2 index 8 (weight 34) → (0xFFFF*34 + 32) >> 6 = 2228222 >> 6
    // = 34815 → (34815 * 31) >> 6 = 1079265 >> 6 = 16863 = 0x41DF
    // = 2^1 * (1 + 479/1024) = 2.935546875.
    let mut block: u128 = 0b00011;
    for k in 0..3u32 {
        block |= 1023u128 << (35 + 10 * k); // rx, gx, bx
    }
    block |= 15u128 << 68;
    block |= 8u128 << 72;
    let t = tex(
        0,
        block.to_le_bytes().to_vec(),
        TextureView::tex2d(Format::Bc6hUf16, 4, 4),
    );
    let out = run(
        "dcl_resource_texture2d (float,float,float,float) t0",
        "ld r0.xyzw, l(0, 0, 0, 0), t0.xyzw
         store_raw u0.xyzw, l(0), r0.xyzw
         ld r0.xyzw, l(1, 0, 0, 0), t0.xyzw
         store_raw u0.xyzw, l(16), r0.xyzw
         ld r0.xyzw, l(2, 0, 0, 0), t0.xyzw
         store_raw u0.xyzw, l(32), r0.xyzw",
        &[t],
        &[],
    );
    assert_eq!(as_f(&out[0..4]), vec![0.0, 0.0, 0.0, 1.0]);
    assert_eq!(as_f(&out[4..8]), vec![65504.0, 65504.0, 65504.0, 1.0]);
    assert_eq!(
        as_f(&out[8..12]),
        vec![2.935_546_9, 2.935_546_9, 2.935_546_9, 1.0]
    );
}

fn ld_out_of_range_reads_zero_with_format_defaults() {
    let rgba = tex(
        0,
        floats_bytes(&[1.0, 2.0, 3.0, 4.0]),
        TextureView::tex2d(Format::R32G32B32A32Float, 1, 1),
    );
    let rg = tex(
        1,
        words_bytes(&[7, 8, 9, 10]),
        TextureView::tex2d(Format::R32G32Uint, 2, 1),
    );
    let decls = "dcl_resource_texture2d (float,float,float,float) t0\ndcl_resource_texture2d (uint,uint,uint,uint) t1";
    let out = run(
        decls,
        "ld r0.xyzw, l(1, 0, 0, 0), t0.xyzw
         store_raw u0.xyzw, l(0), r0.xyzw
         ld r0.xyzw, l(0, 0, 0, 1), t0.xyzw
         store_raw u0.xyzw, l(16), r0.xyzw
         ld r0.xyzw, l(2, 0, 0, 0), t1.xyzw
         store_raw u0.xyzw, l(32), r0.xyzw
         ld r0.xyzw, l(-1, 0, 0, 0), t1.xyzw
         store_raw u0.xyzw, l(48), r0.xyzw
         ld_aoffimmi(1,0,0) r0.xyzw, l(0, 0, 0, 0), t1.xyzw
         store_raw u0.xyzw, l(64), r0.xyzw",
        &[rgba, rg],
        &[],
    );
    assert_eq!(&out[0..4], &[0; 4], "all four channels exist: all zero");
    assert_eq!(&out[4..8], &[0; 4], "mip 1 does not exist");
    assert_eq!(&out[8..12], &[0, 0, 0, 1], "R32G32_UINT lacks b and a");
    assert_eq!(&out[12..16], &[0, 0, 0, 1]);
    assert_eq!(
        &out[16..20],
        &[9, 10, 0, 1],
        "the immediate offset moves to x = 1"
    );
}

fn cube_faces_and_cube_arrays() {
    // Two cubes of 1x1 faces; slice s holds the value s.
    let vals: Vec<f32> = (0..12).map(|s| s as f32).collect();
    let cube = TextureView::packed(TextureDim::TexCube, Format::R32Float, [1, 1, 6], 1);
    let array = TextureView::packed(TextureDim::TexCubeArray, Format::R32Float, [1, 1, 12], 1);
    let decls = "dcl_sampler s0, mode_default\ndcl_resource_texturecube (float,float,float,float) t0\ndcl_resource_texturecubearray (float,float,float,float) t1";
    let out = run(
        decls,
        "sample_l r0.x, l(1.0, 0, 0, 0), t0.xyzw, s0, l(0)
         sample_l r0.y, l(-1.0, 0.5, 0, 0), t0.yxzw, s0, l(0)
         sample_l r0.z, l(0, 1.0, 0, 0), t0.zyxw, s0, l(0)
         sample_l r0.w, l(0.5, -0.9, 0.2, 0), t0.wyzx, s0, l(0)
         store_raw u0.xyzw, l(0), r0.xyzw
         sample_l r1.x, l(0, 0, 1.0, 0), t0.xyzw, s0, l(0)
         sample_l r1.y, l(0.1, 0.2, -3.0, 0), t0.yxzw, s0, l(0)
         sample_l r1.z, l(0, 0, -1.0, 1.0), t1.zyxw, s0, l(0)
         sample_l r1.w, l(0, 0, -1.0, 7.0), t1.wyzx, s0, l(0)
         store_raw u0.xyzw, l(16), r1.xyzw",
        &[
            tex(0, floats_bytes(&vals[..6]), cube),
            tex(1, floats_bytes(&vals), array),
        ],
        &[(0, SamplerDesc::default())],
    );
    // +X, -X, +Y, -Y (|y| largest), +Z, -Z; cube 1 face -Z = slice 11; the
    // cube index 7 clamps to the last cube.
    assert_eq!(
        as_f(&out[0..8]),
        vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 11.0, 11.0]
    );
}

fn arrays_round_the_slice_and_3d_filters_in_depth() {
    // 1D array of 3 one-texel slices = 0, 1, 2: slice 1.5 rounds to 2, 0.5 to 0.
    let arr = TextureView::packed(TextureDim::Tex1DArray, Format::R32Float, [1, 1, 3], 1);
    // 3D 1x1x2 = 0, 8: linear at w = 0.25 → depth 0.25*2 - 0.5 = 0 → 0;
    // w = 0.625 → 1.25 - 0.5 = 0.75 → 0.25 * 0 + 0.75 * 8 = 6.
    let vol = TextureView::packed(TextureDim::Tex3D, Format::R32Float, [1, 1, 2], 1);
    let decls = "dcl_sampler s0, mode_default\ndcl_resource_texture1darray (float,float,float,float) t0\ndcl_resource_texture3d (float,float,float,float) t1";
    let out = run(
        decls,
        "sample_l r0.x, l(0.5, 1.5, 0, 0), t0.xyzw, s0, l(0)
         sample_l r0.y, l(0.5, 0.5, 0, 0), t0.yxzw, s0, l(0)
         sample_l r0.z, l(0.5, 0.5, 0.25, 0), t1.zyxw, s0, l(0)
         sample_l r0.w, l(0.5, 0.5, 0.625, 0), t1.wyzx, s0, l(0)
         store_raw u0.xyzw, l(0), r0.xyzw",
        &[
            tex(0, floats_bytes(&[0.0, 1.0, 2.0]), arr),
            tex(1, floats_bytes(&[0.0, 8.0]), vol),
        ],
        &[(0, SamplerDesc::default())],
    );
    assert_eq!(as_f(&out[0..4]), vec![2.0, 0.0, 0.0, 6.0]);
}

fn resinfo_sampleinfo_and_multisample_loads() {
    let cube = TextureView::packed(TextureDim::TexCubeArray, Format::R32Float, [8, 8, 12], 4);
    let ms = TextureView::packed(
        TextureDim::Tex2DMS { samples: 4 },
        Format::R32Uint,
        [2, 1, 1],
        1,
    );
    let cube_bytes = vec![0u8; cube.size_bytes() as usize];
    let ms_data = words_bytes(&[10, 11, 20, 21, 30, 31, 40, 41]);
    let decls = "dcl_resource_texturecubearray (float,float,float,float) t0\ndcl_resource_texture2dms(4) (uint,uint,uint,uint) t1";
    let out = run(
        decls,
        "resinfo_uint r0.xyzw, l(1), t0.xyzw
         store_raw u0.xyzw, l(0), r0.xyzw
         sampleinfo_uint r0.x, t1.x
         ld2dms r0.y, l(1, 0, 0, 0), t1.yxzw, l(2)
         ld2dms r0.z, l(1, 0, 0, 0), t1.zyxw, l(4)
         resinfo_uint r0.w, l(0), t1.xyzw
         store_raw u0.xyzw, l(16), r0.xyzw",
        &[tex(0, cube_bytes, cube), tex(1, ms_data, ms)],
        &[],
    );
    // Cube array at mip 1: 4x4, 12 faces = 2 cubes, 4 mips.
    assert_eq!(&out[0..4], &[4, 4, 2, 4]);
    // 4 samples; sample s of texel x is in slice s: sample 2 of x = 1 is
    // word 2*2 + 1 = 31; sample 4 does not exist; one mip.
    assert_eq!(&out[4..8], &[4, 31, 0, 1]);
}

/// The interpreter runs unvalidated programs and stops where a thread
/// reaches the op; the JIT validates first, and the validator refuses
/// implicit-LOD ops in compute programs.
#[test]
fn implicit_lod_is_rejected_in_compute() {
    let err = try_run(
        T2D,
        "sample r0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0\nstore_raw u0.xyzw, l(0), r0.xyzw",
        &[mipped()],
        &[],
    )
    .unwrap_err();
    assert!(
        matches!(
            err,
            RuntimeError::InvalidProgram {
                inst_index: Some(0),
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn implicit_lod_in_a_branch_no_thread_takes_does_nothing() {
    let out = run(
        T2D,
        "mov r1.x, l(0)
         if_nz r1.x
           sample r0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0
         endif
         mov r0.x, l(7)
         store_raw u0.x, l(0), r0.x",
        &[mipped()],
        &[],
    );
    assert_eq!(out[0], 7);
}

#[test]
fn implicit_lod_in_compute_does_not_compile_in_the_jit() {
    let text = format!(
        "cs_5_0\ndcl_uav_raw u0\n{T2D}\ndcl_temps 1\ndcl_thread_group 1, 1, 1\nsample r0.xyzw, l(0.5, 0.5, 0, 0), t0.xyzw, s0\nret\n"
    );
    let e = JitShader::compile(&parse(&text)).unwrap_err();
    assert!(
        matches!(e, sm5jit::jit::JitError::Validation(_)) && e.to_string().contains("sample"),
        "{e}"
    );
}

#[test]
fn implicit_lod_uses_the_bias_in_a_pixel() {
    let text = "ps_5_0
        dcl_sampler s0, mode_default
        dcl_resource_texture2d (float,float,float,float) t0
        dcl_input_ps linear v0.xy
        dcl_output o0.xyzw
        sample_b o0.xyzw, v0.xyxx, t0.xyzw, s0, l(1.0)
        ret";
    let interp = Interpreter::new(&parse(text)).unwrap();
    let t = mipped();
    let mut b = Bindings::new();
    b.srv(Slot::new(0), &t.data, View::Texture(t.view));
    let point_mip = SamplerDesc {
        filter: Filter {
            mip: FilterMode::Point,
            ..Filter::LINEAR
        },
        ..SamplerDesc::default()
    };
    b.sampler(Slot::new(0), point_mip);
    let inv = interp
        .run_invocation(
            &mut b,
            &[(0, [f(0.5), f(0.5), 0, 0])],
            &DispatchOptions::default(),
        )
        .unwrap();
    // Derivatives are 0 in a single invocation: the LOD is the bias, 1 → mip 1.
    assert_eq!(inv.outputs[0], (0, [f(2.0), 0, 0, f(1.0)]));
}

fn texture_view(dim: ResourceDim) -> TextureView {
    let (d, layers) = match dim {
        ResourceDim::Texture1D => (TextureDim::Tex1D, 1),
        ResourceDim::Texture1DArray => (TextureDim::Tex1DArray, 2),
        ResourceDim::Texture2DArray => (TextureDim::Tex2DArray, 2),
        ResourceDim::Texture3D => (TextureDim::Tex3D, 2),
        ResourceDim::TextureCube => (TextureDim::TexCube, 6),
        ResourceDim::TextureCubeArray => (TextureDim::TexCubeArray, 12),
        _ => (TextureDim::Tex2D, 1),
    };
    TextureView::packed(d, Format::R8G8B8A8Unorm, [8, 8, layers], 4)
}

#[test]
fn realworld_sampling_shaders_run_a_group() {
    use sm5jit::analysis::ResKind;
    let root = crate::corpus_dir().join("realworld");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    dirs.sort();
    let mut sampled = 0;
    for dir in dirs {
        let bytes = std::fs::read(dir.join("shader.dxbc")).unwrap();
        let program = sm5jit::dxbc::read_dxbc(&bytes, &sm5jit::dxbc::ReadOptions::default())
            .unwrap()
            .program;
        let samples = program
            .insts
            .iter()
            .any(|i| i.opcode.class() == sm5jit::ir::OpClass::Sample);
        if !samples {
            continue;
        }
        let interp = Interpreter::new(&program).unwrap();
        let p = interp.prepared();
        let views: Vec<(Slot, View, usize)> = p
            .srvs
            .iter()
            .chain(&p.uavs)
            .map(|d| {
                let slot = Slot {
                    space: d.space,
                    index: d.lower,
                };
                let view = match d.kind {
                    ResKind::Raw => View::Buffer(BufferView {
                        kind: BufferKind::Raw,
                        first_element: 0,
                        num_elements: 256,
                    }),
                    ResKind::Structured { stride } => View::Buffer(BufferView {
                        kind: BufferKind::Structured { stride },
                        first_element: 0,
                        num_elements: 64,
                    }),
                    ResKind::Typed {
                        dim: ResourceDim::Buffer,
                        ..
                    } => View::Buffer(BufferView {
                        kind: BufferKind::Typed(Format::R32G32B32A32Float),
                        first_element: 0,
                        num_elements: 64,
                    }),
                    ResKind::Typed { dim, .. } => View::Texture(texture_view(dim)),
                };
                let n = view.required_bytes() as usize;
                (slot, view, n)
            })
            .collect();
        let n_srv = p.srvs.len();
        // Non-zero texels (a ramp) so filtering has something to blend.
        let srv_mem: Vec<Vec<u8>> = views[..n_srv]
            .iter()
            .map(|(_, _, n)| (0..*n).map(|k| (k * 37 % 251) as u8).collect())
            .collect();
        let mut uav_mem: Vec<Vec<u8>> = views[n_srv..]
            .iter()
            .map(|(_, _, n)| vec![0u8; *n])
            .collect();
        let cb = vec![0u8; 4096 * 16];
        let mut b = Bindings::new();
        for c in &p.cbs {
            b.cb(
                Slot {
                    space: c.space,
                    index: c.lower,
                },
                &cb,
            );
        }
        for ((slot, view, _), mem) in views[..n_srv].iter().zip(&srv_mem) {
            b.srv(*slot, mem, *view);
        }
        for ((slot, view, _), mem) in views[n_srv..].iter().zip(uav_mem.iter_mut()) {
            b.uav_with_counter(*slot, mem, *view, 0);
        }
        for k in 0..16 {
            b.sampler(
                Slot::new(k),
                SamplerDesc::new(Filter::LINEAR, AddressMode::Wrap),
            );
        }
        let o = DispatchOptions { budget: 1 << 22 };
        match interp.dispatch(&mut b, [1, 1, 1], &o) {
            Ok(stats) => assert!(stats.instructions > 0, "{}", dir.display()),
            Err(RuntimeError::BudgetExhausted { .. }) => {}
            Err(e) => panic!("{}: {e}", dir.display()),
        }
        sampled += 1;
    }
    assert!(sampled >= 10, "only {sampled} real-world shaders sample");
}

/// One configuration of [`vector_path_gives_the_interpreters_bits`]: the
/// texture (format, size, extra bytes per row) and the sampler.
struct VecCase {
    format: Format,
    size: (u32, u32),
    pad: u64,
    sampler: SamplerDesc,
}

/// Coordinates for 64 lanes: values on texel centres and edges, the
/// edges of the vector path's range (|u * size * 256| = 2^30), NaN,
/// infinities, huge, negative and denormal values, and random ones.
fn vector_coords(round: u32, size: (u32, u32)) -> Vec<f32> {
    let edge = |n: u32| (1u64 << 22) as f32 / n as f32;
    let specials = [
        0.0,
        -0.0,
        0.5,
        1.0,
        0.999_999_9,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        1e30,
        -1e30,
        f32::from_bits(1),
        -f32::from_bits(0x0007_0000),
        edge(size.0),
        edge(size.0) * 0.999_999,
        -edge(size.0) * 1.000_001,
        edge(size.1),
        1.0 / size.0 as f32,
        0.5 / size.1 as f32,
    ];
    let mut next = xorshift(0x9E37_79B9u32.wrapping_mul(round + 1));
    (0..128)
        .map(|k| {
            let r = next();
            // Round 0 puts specials in a few lanes only, so most batches
            // take the vector path; later rounds mix more in.
            if (round > 0 || k % 23 == 5) && r % (4 - round.min(3)) == 0 {
                specials[(r >> 8) as usize % specials.len()]
            } else {
                (r >> 8) as f32 / (1u32 << 24) as f32 * 5.0 - 2.0
            }
        })
        .collect()
}

/// The vector sampling path (`jit/texvec.rs`: 2D, one level, point or
/// bilinear, clamp or wrap, RGBA8/BGRA8) and the shim it falls back to
/// give the interpreter's bits for every lane, with idle lanes in the
/// batches, immediate offsets, resource swizzles and every LOD source
/// that cannot change a one-level choice; the textures and samplers the
/// vector path does not take (other formats; unequal min/mag filters,
/// whose choice follows these per-lane LODs) are compared as well.
#[test]
fn vector_path_gives_the_interpreters_bits() {
    let text = "cs_5_0
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_raw t1
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 4
dcl_thread_group 64, 1, 1
ishl r0.x, vThreadIDInGroupFlattened.x, l(3)
ld_raw r1.xy, r0.x, t1.xyxx
ishl r0.y, vThreadIDInGroupFlattened.x, l(6)
sample_l r2.xyzw, r1.xyxx, t0.xyzw, s0, l(0)
store_raw u0.xyzw, r0.y, r2.xyzw
sample_l_aoffimmi(-1,2,0) r2.xyzw, r1.xyxx, t0.zyxw, s0, l(2.5)
iadd r0.z, r0.y, l(16)
store_raw u0.xyzw, r0.z, r2.xyzw
sample_d_aoffimmi(3,-4,0) r2.xyzw, r1.yxyy, t0.wzyx, s0, l(1.0, 0, 0, 0), l(0, 7.0, 0, 0)
iadd r0.z, r0.y, l(32)
store_raw u0.xyzw, r0.z, r2.xyzw
and r0.w, vThreadIDInGroupFlattened.x, l(5)
if_nz r0.w
  sample_l r2.xyzw, r1.xyxx, t0.xyzw, s0, l(-1)
  iadd r0.z, r0.y, l(48)
  store_raw u0.xyzw, r0.z, r2.xyzw
endif
ret
";
    let (jit, interp) = tier1_and_interpreter(text);
    let clamp = |f| SamplerDesc::new(f, AddressMode::Clamp);
    let mixed = Filter {
        min: FilterMode::Linear,
        mag: FilterMode::Point,
        mip: FilterMode::Point,
        anisotropic: false,
    };
    let mut cases = Vec::new();
    for format in [Format::R8G8B8A8Unorm, Format::B8G8R8A8Unorm] {
        for size in [(1, 1), (3, 5), (16, 16), (64, 7)] {
            for filter in [Filter::POINT, Filter::LINEAR] {
                for (pad, address) in [(0, AddressMode::Clamp), (12, AddressMode::Wrap)] {
                    cases.push(VecCase {
                        format,
                        size,
                        pad,
                        sampler: SamplerDesc::new(filter, address),
                    });
                }
            }
        }
    }
    // What the vector path leaves to the shim.
    for (format, sampler) in [
        (
            Format::R8G8B8A8Unorm,
            SamplerDesc::new(Filter::LINEAR, AddressMode::Mirror),
        ),
        (Format::R8G8B8A8Unorm, clamp(mixed)),
        (Format::R8G8B8A8UnormSrgb, clamp(Filter::LINEAR)),
        (Format::R8G8Unorm, clamp(Filter::POINT)),
    ] {
        cases.push(VecCase {
            format,
            size: (16, 16),
            pad: 0,
            sampler,
        });
    }
    for (n, case) in cases.iter().enumerate() {
        let (w, h) = case.size;
        let base = TextureView::tex2d(case.format, w, h);
        let view = TextureView {
            row_pitch: base.row_pitch + case.pad,
            slice_pitch: (base.row_pitch + case.pad) * u64::from(h),
            ..base
        };
        let mut seed = 7 + n as u32;
        let texels: Vec<u8> = (0..view.slice_pitch)
            .map(|_| {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (seed >> 16) as u8
            })
            .collect();
        for round in 0..4 {
            let coords = floats_bytes(&vector_coords(round, case.size));
            let run = |jit_engine: bool| {
                let mut out = vec![0u8; 64 * 64];
                let mut b = Bindings::new();
                b.uav(Slot::new(0), &mut out, raw_view(64 * 16));
                b.srv(Slot::new(0), &texels, View::Texture(view));
                b.srv(Slot::new(1), &coords, raw_view(128));
                b.sampler(Slot::new(0), case.sampler);
                let o = DispatchOptions::default();
                if jit_engine {
                    jit.dispatch(&mut b, [1, 1, 1], &o).expect("jit");
                } else {
                    interp.dispatch(&mut b, [1, 1, 1], &o).expect("interpreter");
                }
                drop(b);
                out
            };
            let (want, got) = (run(false), run(true));
            if let Some((i, a, b)) = first_difference(&want, &got) {
                panic!(
                    "{:?} {w}x{h} pad {} {:?}, round {round}: word {i} (lane {}), interpreter {a:#010x}, JIT {b:#010x}",
                    case.format,
                    case.pad,
                    case.sampler.filter,
                    i / 16,
                );
            }
        }
    }
}

/// `text` compiled on tier 1 (uncached) and prepared for the interpreter.
fn tier1_and_interpreter(text: &str) -> (JitShader, Interpreter) {
    use sm5jit::jit::{CompileOptions, Tier};
    let program = parse(text);
    let jit = JitShader::compile_with(
        &program,
        &CompileOptions {
            cache: false,
            ..CompileOptions::tier(Tier::One)
        },
    )
    .expect("compile");
    let interp = Interpreter::new(&program).expect("prepare");
    (jit, interp)
}

/// A xorshift32 generator from `seed` (non-zero).
fn xorshift(mut seed: u32) -> impl FnMut() -> u32 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    }
}

/// The first DWORD at which `want` and `got` differ: its index and both
/// values.
fn first_difference(want: &[u8], got: &[u8]) -> Option<(usize, u32, u32)> {
    let word = |v: &[u8], i: usize| {
        u32::from_le_bytes([v[4 * i], v[4 * i + 1], v[4 * i + 2], v[4 * i + 3]])
    };
    (0..want.len() / 4)
        .find(|&i| want[4 * i..4 * i + 4] != got[4 * i..4 * i + 4])
        .map(|i| (i, word(want, i), word(got, i)))
}

/// Floats whose comparisons the float mode could change or that sit on
/// the edges of the order: zeros of both signs, denormals of both signs,
/// the smallest normals, infinities, NaNs of both signs and payloads.
const COMPARE_SPECIALS: [u32; 14] = [
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x0040_0000,
    0x807F_FFFF,
    0x0080_0000,
    0x8080_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_0000,
    0xFFC0_0001,
    0x7F80_0001,
    0x3F80_0000,
];

/// The comparison forms' vector path (`jit/texvec.rs`, R32_FLOAT) and
/// the shim it falls back to give the interpreter's bits for every
/// comparison function, point and bilinear filtering, immediate offsets
/// and idle lanes, with texels and references that include zeros of both
/// signs, denormals (which the generated code's DAZ mode must not turn
/// into zeros), infinities and NaNs; an R32_FLOAT view with wrap
/// addressing (left to the shim) is compared as well.
#[test]
fn vector_compare_path_gives_the_interpreters_bits() {
    let text = "cs_5_0
dcl_sampler s0, mode_comparison
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_raw t1
dcl_uav_raw u0
dcl_input vThreadIDInGroupFlattened
dcl_temps 4
dcl_thread_group 64, 1, 1
ishl r0.x, vThreadIDInGroupFlattened.x, l(4)
ld_raw r1.xyz, r0.x, t1.xyzx
ishl r0.y, vThreadIDInGroupFlattened.x, l(5)
sample_c_lz r2.x, r1.xyxx, t0.xxxx, s0, r1.z
sample_c_lz_aoffimmi(-1,2,0) r2.yzw, r1.yxyy, t0.xxyz, s0, r1.z
store_raw u0.xyzw, r0.y, r2.xyzw
and r0.w, vThreadIDInGroupFlattened.x, l(6)
mov r2.xyzw, l(7, 7, 7, 7)
if_nz r0.w
  sample_c_lz r2.xyzw, r1.xyxx, t0.xyzw, s0, r1.z
endif
iadd r0.z, r0.y, l(16)
store_raw u0.xyzw, r0.z, r2.xyzw
ret
";
    let (jit, interp) = tier1_and_interpreter(text);
    let mut next = xorshift(0x2545_F491);
    for (size, pad) in [((1, 1), 0), ((5, 3), 8), ((16, 16), 0)] {
        let (w, h) = size;
        let base = TextureView::tex2d(Format::R32Float, w, h);
        let view = TextureView {
            row_pitch: base.row_pitch + pad,
            slice_pitch: (base.row_pitch + pad) * u64::from(h),
            ..base
        };
        // A texel in four is special; the others are in [0, 1).
        let texels: Vec<u32> = (0..view.slice_pitch / 4)
            .map(|_| match next() {
                r if r % 4 == 0 => COMPARE_SPECIALS[(r >> 8) as usize % COMPARE_SPECIALS.len()],
                r => ((r >> 8) as f32 / (1u32 << 24) as f32).to_bits(),
            })
            .collect();
        let texel_bytes = words_bytes(&texels);
        for round in 0..4 {
            let coords = vector_coords(round, size);
            // Per lane: u, v, the reference (a special, one of the
            // texels, or a value in [0, 1)), and an unused word.
            let mut lanes = Vec::with_capacity(64 * 4);
            for lane in 0..64 {
                let reference = match next() % 3 {
                    0 => COMPARE_SPECIALS[next() as usize % COMPARE_SPECIALS.len()],
                    1 => texels[next() as usize % texels.len()],
                    _ => ((next() >> 8) as f32 / (1u32 << 24) as f32).to_bits(),
                };
                lanes.extend([
                    coords[2 * lane].to_bits(),
                    coords[2 * lane + 1].to_bits(),
                    reference,
                    0,
                ]);
            }
            let lane_bytes = words_bytes(&lanes);
            for func in ComparisonFunc::ALL {
                for (filter, address) in [
                    (Filter::POINT, AddressMode::Clamp),
                    (Filter::LINEAR, AddressMode::Clamp),
                    (Filter::LINEAR, AddressMode::Wrap),
                ] {
                    let sampler = SamplerDesc {
                        comparison: func,
                        ..SamplerDesc::new(filter, address)
                    };
                    let run = |jit_engine: bool| {
                        let mut out = vec![0u8; 64 * 32];
                        let mut b = Bindings::new();
                        b.uav(Slot::new(0), &mut out, raw_view(64 * 8));
                        b.srv(Slot::new(0), &texel_bytes, View::Texture(view));
                        b.srv(Slot::new(1), &lane_bytes, raw_view(64 * 4));
                        b.sampler(Slot::new(0), sampler);
                        let o = DispatchOptions::default();
                        if jit_engine {
                            jit.dispatch(&mut b, [1, 1, 1], &o).expect("jit");
                        } else {
                            interp.dispatch(&mut b, [1, 1, 1], &o).expect("interpreter");
                        }
                        drop(b);
                        out
                    };
                    let (want, got) = (run(false), run(true));
                    if let Some((i, a, b)) = first_difference(&want, &got) {
                        panic!(
                            "{w}x{h} pad {pad} {func:?} {filter:?} {address:?}, round {round}: word {i} (lane {}, reference {:#010x}), interpreter {a:#010x}, JIT {b:#010x}",
                            i / 8,
                            lanes[4 * (i / 8) + 2],
                        );
                    }
                }
            }
        }
    }
}

/// Pixel batches through [`tier1_and_interpreter`]: `count` pixels in
/// quads, v1 of each given by `v1(pixel)`, results as DWORDs (pixel by
/// pixel, output by output).
fn pixel_batch_both(
    text: &str,
    tex: &Tex,
    sampler: SamplerDesc,
    v1: &[[f32; 4]],
) -> (Vec<u32>, Vec<u32>) {
    use sm5jit::runtime::batch::BatchInputs;
    let (jit, interp) = tier1_and_interpreter(text);
    let data: Vec<u32> = v1
        .iter()
        .flat_map(|v| [0, 0, 0, 0].into_iter().chain(v.map(f32::to_bits)))
        .collect();
    let inputs = BatchInputs::new(v1.len(), 2, &data);
    let mut b = Bindings::new();
    b.srv(Slot::new(tex.slot), &tex.data, View::Texture(tex.view));
    b.sampler(Slot::new(0), sampler);
    let o = DispatchOptions::default();
    let words = |r: sm5jit::runtime::batch::BatchResult| -> Vec<u32> {
        (0..v1.len())
            .flat_map(|i| r.outputs(i).unwrap_or_default())
            .flat_map(|(_, v)| v)
            .collect()
    };
    let i = interp.run_batch(&b, &inputs, &o).expect("interpreter");
    let j = jit.run_batch(&b, &inputs, &o).expect("jit");
    (words(i), words(j))
}

/// A quad's v1 values: `base` at the top-left pixel, `dx` added across
/// and `dy` down.
fn quad(base: [f32; 4], dx: [f32; 4], dy: [f32; 4]) -> [[f32; 4]; 4] {
    std::array::from_fn(|l| {
        let (x, y) = ((l & 1) as f32, (l >> 1) as f32);
        std::array::from_fn(|c| base[c] + x * dx[c] + y * dy[c])
    })
}

/// Trilinear filtering in a pixel quad, worked by hand: a 2x2 texture
/// whose level 0 is all 64 and level 1 all 192, point-filtered within
/// each level (one tap of weight 1) and blended between them. A
/// horizontal step of 1/sqrt(2) texture widths is sqrt(2) texels of
/// level 0: LOD 0.5, weight 128/256 on level 1.
#[test]
fn implicit_lod_blends_two_mips_in_a_pixel_quad() {
    let text = "ps_5_0
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps linear v1.xy
dcl_output o0.xyzw
sample o0.xyzw, v1.xyxx, t0.xyzw, s0
ret
";
    let view = TextureView {
        mip_levels: 2,
        ..TextureView::tex2d(Format::R8G8B8A8Unorm, 2, 2)
    };
    let mut data = vec![64u8; 16];
    data.extend([192u8; 4]);
    let t = tex(0, data, view);
    let sampler = SamplerDesc::new(
        Filter {
            min: FilterMode::Point,
            mag: FilterMode::Point,
            mip: FilterMode::Linear,
            anisotropic: false,
        },
        AddressMode::Wrap,
    );
    let step = std::f32::consts::FRAC_1_SQRT_2;
    let v1: Vec<[f32; 4]> = [
        quad(
            [0.25, 0.25, 0.0, 0.0],
            [step, 0.0, 0.0, 0.0],
            [0.0, 0.1, 0.0, 0.0],
        ),
        // A step of half a texel: magnified, level 0 alone.
        quad(
            [0.25, 0.25, 0.0, 0.0],
            [0.25, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 0.0],
        ),
    ]
    .concat();
    let (want, got) = pixel_batch_both(text, &t, sampler, &v1);
    assert_eq!(want, got, "interpreter against JIT");
    let blended = (64.0f32 / 255.0) * (1.0 - 0.5) + (192.0f32 / 255.0) * 0.5;
    for p in 0..8 {
        let expect = if p < 4 { blended } else { 64.0 / 255.0 };
        assert_eq!(got[4 * p], expect.to_bits(), "pixel {p}");
    }
}

/// The vector sampling path with mips (`jit/texvec.rs`: each quad's
/// levels chosen from its gradient LOD, two levels blended, wrap or
/// clamp addressing) gives the interpreter's bits: smooth quads whose
/// LODs run from magnification past the last level, non-power-of-two
/// sizes (wrap by division), coordinates far outside the texture,
/// immediate offsets, a swizzle, a sample in divergent flow (idle lanes
/// and a wholly idle quad), and samplers with LOD bias and clamps.
#[test]
fn mipped_vector_path_gives_the_interpreters_bits() {
    let text = "ps_5_0
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps linear v1.xyzw
dcl_output o0.xyzw
dcl_output o1.xyzw
dcl_temps 1
sample o0.xyzw, v1.xyxx, t0.xyzw, s0
mov o1.xyzw, l(0, 0, 0, 0)
lt r0.x, v1.z, l(0.5)
if_nz r0.x
  sample_aoffimmi(1,-2,0) o1.xyzw, v1.yxyy, t0.zyxw, s0
endif
ret
";
    let trilinear = Filter::LINEAR;
    let point_mip = Filter {
        mip: FilterMode::Point,
        ..Filter::LINEAR
    };
    let min_only = Filter {
        min: FilterMode::Linear,
        mag: FilterMode::Point,
        mip: FilterMode::Linear,
        anisotropic: false,
    };
    let mut samplers = Vec::new();
    for filter in [trilinear, point_mip, min_only, Filter::POINT] {
        for (u, v) in [
            (AddressMode::Wrap, AddressMode::Wrap),
            (AddressMode::Clamp, AddressMode::Wrap),
            (AddressMode::Clamp, AddressMode::Clamp),
        ] {
            samplers.push(SamplerDesc {
                address_u: u,
                address_v: v,
                ..SamplerDesc::new(filter, AddressMode::Clamp)
            });
        }
    }
    samplers.push(SamplerDesc {
        mip_lod_bias: 0.75,
        min_lod: 1.0,
        max_lod: 2.5,
        ..SamplerDesc::new(trilinear, AddressMode::Wrap)
    });
    let steps = [0.0, 0.01, 0.03, 0.07, 0.13, 0.4, -0.06, 1.7];
    let mut next = xorshift(0x0051_A7E5);
    let mut pick = |n: usize| (next() >> 8) as usize % n;
    for (format, size, mips) in [
        (Format::R8G8B8A8Unorm, (16, 16), 5),
        (Format::B8G8R8A8Unorm, (13, 7), 4),
        (Format::R8G8B8A8Unorm, (64, 3), 7),
    ] {
        let view = TextureView {
            mip_levels: mips,
            ..TextureView::tex2d(format, size.0, size.1)
        };
        let n = view.size_bytes() as usize;
        let data: Vec<u8> = (0..n).map(|k| (k * 97 % 253) as u8).collect();
        let t = tex(0, data, view);
        for (s, sampler) in samplers.iter().enumerate() {
            for round in 0..6 {
                let quads: Vec<[[f32; 4]; 4]> = (0..6)
                    .map(|q| {
                        let far = if q == 5 { 300.0 } else { 0.0 };
                        let base = std::array::from_fn(|c| match c {
                            2 => (q % 3) as f32 * 0.4,
                            _ => (pick(4001) as f32 / 1000.0 - 2.0) + far * (c as f32 - 0.5),
                        });
                        let dx = std::array::from_fn(|_| steps[pick(steps.len())]);
                        let dy = std::array::from_fn(|_| steps[pick(steps.len())]);
                        quad(base, dx, dy)
                    })
                    .collect();
                let v1 = quads.concat();
                let (want, got) = pixel_batch_both(text, &t, *sampler, &v1);
                if let Some(i) = (0..want.len()).find(|&i| want[i] != got[i]) {
                    panic!(
                        "{format:?} {size:?} sampler {s} round {round}: word {i} (pixel {}), interpreter {:#010x}, JIT {:#010x}",
                        i / 8,
                        want[i],
                        got[i]
                    );
                }
            }
        }
    }
}

/// Quads with equal gradients, batch after batch (`sample::quad_mips`
/// reuses a quad's mip choice for the next quad with the same
/// gradients): the same gradients through different textures, samplers
/// and two sampling instructions of one texture, each set of bindings
/// after another on this thread. A choice reused for other bindings or
/// another instruction (a stale level address, another filter's levels)
/// would change the bits.
#[test]
fn repeated_gradients_across_batches_and_bindings_give_the_interpreters_bits() {
    let text = "ps_5_0
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps linear v1.xyzw
dcl_output o0.xyzw
dcl_output o1.xyzw
sample o0.xyzw, v1.xyxx, t0.xyzw, s0
sample o1.xyzw, v1.zwzz, t0.xyzw, s0
ret
";
    let samplers = [
        SamplerDesc::new(Filter::LINEAR, AddressMode::Wrap),
        SamplerDesc::new(
            Filter {
                mip: FilterMode::Point,
                ..Filter::LINEAR
            },
            AddressMode::Clamp,
        ),
        SamplerDesc {
            mip_lod_bias: 1.25,
            ..SamplerDesc::new(Filter::LINEAR, AddressMode::Wrap)
        },
    ];
    let mut next = xorshift(0x00C0_FFEE);
    for (k, (format, size, mips)) in [
        (Format::R8G8B8A8Unorm, (16, 16), 5),
        (Format::B8G8R8A8Unorm, (16, 16), 5),
        (Format::R8G8B8A8Unorm, (32, 8), 6),
    ]
    .into_iter()
    .enumerate()
    {
        let view = TextureView {
            mip_levels: mips,
            ..TextureView::tex2d(format, size.0, size.1)
        };
        let n = view.size_bytes() as usize;
        let data: Vec<u8> = (0..n).map(|i| (i * (31 + 8 * k) % 251) as u8).collect();
        let t = tex(0, data, view);
        for (s, sampler) in samplers.iter().enumerate() {
            // Two gradients, the same for every set of bindings: o0's
            // coordinates step by one, o1's by the other, in every quad.
            let (d0, d1) = (0.13, 0.045);
            let v1: Vec<[f32; 4]> = (0..24)
                .flat_map(|_| {
                    let base = std::array::from_fn(|_| (next() >> 8) as f32 / 65536.0 - 64.0);
                    quad(base, [d0, 0.0, d1, 0.0], [0.0, d0, 0.0, d1])
                })
                .collect();
            let (want, got) = pixel_batch_both(text, &t, *sampler, &v1);
            assert_eq!(want.len(), 24 * 4 * 8, "two outputs of 24 quads");
            if let Some(i) = (0..want.len()).find(|&i| want[i] != got[i]) {
                panic!(
                    "texture {k} sampler {s}: word {i} (pixel {}), interpreter {:#010x}, JIT {:#010x}",
                    i / 8,
                    want[i],
                    got[i]
                );
            }
        }
    }
}
