//! Random texture-sampling pixel shaders, run as pixel batches on the
//! interpreter and the JIT and compared bit for bit.
//!
//! In: a seed. Out: a [`SamplingProgram`] (ps_5_0 assembly sampling one
//! texture through two samplers, the texture's view and bytes, the two
//! sampler states, the batch's inputs) and, from [`compare_sampling`],
//! `Ok` or the first difference between the engines. Invariant: every
//! program validates; the texture's dimension, format, size, mips, the
//! sampler states (filters, per-axis address modes, border colour,
//! comparison, LOD bias and range) and the coordinates (per pixel:
//! ordinary values, negative, huge, infinite, NaN and denormal ones) are
//! random, and each sampling instruction writes its own output register,
//! so every result of every lane is compared. Both engines get the same
//! bindings; the JIT's specialised entries and its general path both run
//! (same address mode on every axis or not, formats with and without a
//! specialised decode).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::rng::Rng;
use sm5jit::interp::Interpreter;
use sm5jit::ir::Program;
use sm5jit::jit::{CompileOptions, JitShader, Tier};
use sm5jit::runtime::batch::BatchInputs;
use sm5jit::runtime::{
    AddressMode, Bindings, ComparisonFunc, DispatchOptions, Filter, FilterMode, Format,
    SamplerDesc, Slot, TextureDim, TextureView, View,
};

/// Formats a sampled texture may have (float-returning: UNORM, SNORM,
/// FLOAT, sRGB and BC).
pub const FORMATS: &[Format] = &[
    Format::R8G8B8A8Unorm,
    Format::R8G8B8A8UnormSrgb,
    Format::B8G8R8A8Unorm,
    Format::B8G8R8A8UnormSrgb,
    Format::R8Unorm,
    Format::R8G8Unorm,
    Format::R16G16B16A16Float,
    Format::R32Float,
    Format::R32G32B32A32Float,
    Format::R11G11B10Float,
    Format::R8G8B8A8Snorm,
    Format::R16G16Unorm,
    Format::R10G10B10A2Unorm,
    Format::Bc1Unorm,
    Format::Bc1UnormSrgb,
    Format::Bc2Unorm,
    Format::Bc3Unorm,
    Format::Bc4Unorm,
    Format::Bc4Snorm,
    Format::Bc5Unorm,
    Format::Bc6hUf16,
    Format::Bc6hSf16,
    Format::Bc7Unorm,
    Format::Bc7UnormSrgb,
];

const ADDRESS: [AddressMode; 5] = [
    AddressMode::Wrap,
    AddressMode::Mirror,
    AddressMode::Clamp,
    AddressMode::Border,
    AddressMode::MirrorOnce,
];

/// The texture dimensions generated: (view, declaration keyword).
const DIMS: [(TextureDim, &str); 5] = [
    (TextureDim::Tex2D, "texture2d"),
    (TextureDim::Tex2D, "texture2d"),
    (TextureDim::Tex2DArray, "texture2darray"),
    (TextureDim::TexCube, "texturecube"),
    (TextureDim::Tex3D, "texture3d"),
];

/// Pixels per row of the batch's image.
const WIDTH: u32 = 8;

/// A generated sampling program and everything it runs with.
#[derive(Clone, Debug)]
pub struct SamplingProgram {
    pub seed: u64,
    pub text: String,
    pub program: Program,
    pub view: TextureView,
    pub bytes: Vec<u8>,
    /// s0 (default mode) and s1 (comparison mode).
    pub samplers: [SamplerDesc; 2],
    /// Invocations (whole quads).
    pub count: usize,
    /// v0 (position) and v1, v2 (random values) per invocation.
    pub data: Vec<u32>,
    pub helpers: Vec<bool>,
    /// The mnemonics of the sampling instructions, in program order.
    pub ops: Vec<&'static str>,
}

/// What the coverage line counts: `inst:sample`, `format:BC7_UNORM`,
/// `address:wrap`, `filter:linear`, `dim:texturecube`.
pub fn coverage(p: &SamplingProgram, into: &mut BTreeMap<String, u64>) {
    let mut add = |k: String| *into.entry(k).or_default() += 1;
    for op in &p.ops {
        add(format!("inst:{op}"));
    }
    add(format!("format:{}", p.view.format.dxgi_name()));
    for s in &p.samplers {
        for a in s.address() {
            add(format!("address:{}", address_name(a)));
        }
        let f = s.filter;
        let name = if f.anisotropic {
            "anisotropic"
        } else if (f.min, f.mag, f.mip)
            == (FilterMode::Linear, FilterMode::Linear, FilterMode::Linear)
        {
            "trilinear"
        } else if (f.min, f.mag) == (FilterMode::Linear, FilterMode::Linear) {
            "bilinear"
        } else if (f.min, f.mag, f.mip) == (FilterMode::Point, FilterMode::Point, FilterMode::Point)
        {
            "point"
        } else {
            "mixed"
        };
        add(format!("filter:{name}"));
    }
    let dim = DIMS
        .iter()
        .find(|(d, _)| *d == p.view.dim)
        .map_or("?", |(_, k)| k);
    add(format!("dim:{dim}"));
}

fn address_name(a: AddressMode) -> &'static str {
    match a {
        AddressMode::Wrap => "wrap",
        AddressMode::Mirror => "mirror",
        AddressMode::Clamp => "clamp",
        AddressMode::Border => "border",
        AddressMode::MirrorOnce => "mirror_once",
    }
}

/// A quad's smooth coordinates: a base per component and its steps to
/// the right and down the quad (small, so the quad's LOD lies between
/// the mips of the small fuzz textures).
fn quad_ramp(rng: &mut Rng) -> ([f32; 4], [f32; 4], [f32; 4]) {
    let steps = [0.0, 0.015625, 0.03, 0.07, 0.1, 0.3, -0.05];
    let base = std::array::from_fn(|_| rng.below(6001) as f32 / 1000.0 - 3.0);
    let dx = std::array::from_fn(|_| rng.pick(&steps));
    let dy = std::array::from_fn(|_| rng.pick(&steps));
    (base, dx, dy)
}

/// A float that is sometimes an edge value: NaN, ±∞, huge, negative,
/// denormal, zero of either sign; otherwise ordinary in [-1.5, 2.5].
fn value(rng: &mut Rng) -> f32 {
    match rng.below(16) {
        0 => f32::NAN,
        1 => f32::INFINITY,
        2 => f32::NEG_INFINITY,
        3 => 1.0e30 * if rng.chance(1, 2) { 1.0 } else { -1.0 },
        4 => f32::from_bits(rng.range(1, 0x7F_FFFF)),
        5 => -0.0,
        6 => -(rng.below(1000) as f32) / 100.0,
        _ => rng.below(4001) as f32 / 1000.0 - 1.5,
    }
}

fn filter(rng: &mut Rng) -> Filter {
    let mode = |rng: &mut Rng| {
        if rng.chance(1, 2) {
            FilterMode::Point
        } else {
            FilterMode::Linear
        }
    };
    match rng.below(4) {
        0 => Filter::POINT,
        1 => Filter::LINEAR,
        _ => Filter {
            min: mode(rng),
            mag: mode(rng),
            mip: mode(rng),
            anisotropic: rng.chance(1, 6),
        },
    }
}

/// Formats the JIT's vector sampling path reads (`jit/texvec.rs`).
const VECTOR_FORMATS: [Format; 3] = [
    Format::R8G8B8A8Unorm,
    Format::B8G8R8A8Unorm,
    Format::R32Float,
];

/// A sampler; with `vector`, one the JIT's vector path takes (clamp or
/// wrap on u and v), the rest random: filters (so mip blending and the
/// min/mag switch), LOD bias and clamps.
fn sampler(rng: &mut Rng, vector: bool) -> SamplerDesc {
    let s = any_sampler(rng);
    if !vector {
        return s;
    }
    let mode = |rng: &mut Rng| rng.pick(&[AddressMode::Clamp, AddressMode::Wrap]);
    SamplerDesc {
        address_u: mode(rng),
        address_v: mode(rng),
        ..s
    }
}

fn any_sampler(rng: &mut Rng) -> SamplerDesc {
    let one = rng.pick(&ADDRESS);
    // Half the samplers use one mode on every axis (the specialised entries).
    let mode = |rng: &mut Rng| {
        if rng.chance(1, 2) {
            one
        } else {
            rng.pick(&ADDRESS)
        }
    };
    let border = std::array::from_fn(|_| {
        if rng.chance(1, 12) {
            f32::NAN
        } else {
            rng.below(5) as f32 / 4.0
        }
    });
    let (min_lod, max_lod) = match rng.below(3) {
        0 => (f32::MIN, f32::MAX),
        1 => (rng.below(3) as f32 * 0.5, rng.range(1, 8) as f32 * 0.5),
        _ => (0.0, 0.0),
    };
    SamplerDesc {
        filter: filter(rng),
        address_u: mode(rng),
        address_v: mode(rng),
        address_w: mode(rng),
        border_color: border,
        comparison: rng.pick(&ComparisonFunc::ALL),
        mip_lod_bias: if rng.chance(1, 3) {
            (rng.below(9) as f32 - 4.0) / 2.0
        } else {
            0.0
        },
        min_lod,
        max_lod,
        max_anisotropy: 1,
    }
}

/// The texture: dimension, format, size and mips at random; random bytes
/// (so float formats hold NaNs and infinities too, and every BC block
/// mode appears). With `vector`, a 2D texture in a format the JIT's
/// vector sampling path reads.
fn texture(rng: &mut Rng, vector: bool) -> (TextureView, &'static str, Vec<u8>) {
    let (dim, keyword) = if vector {
        (TextureDim::Tex2D, "texture2d")
    } else {
        rng.pick(&DIMS)
    };
    let format = if vector {
        rng.pick(&VECTOR_FORMATS)
    } else {
        rng.pick(FORMATS)
    };
    let side = |rng: &mut Rng| rng.range(1, 9);
    let (w, h) = (side(rng), side(rng));
    let (w, h, layers) = match dim {
        TextureDim::TexCube => (w, w, 6),
        TextureDim::Tex2DArray => (w, h, rng.range(1, 3)),
        TextureDim::Tex3D => (w, h, rng.range(1, 4)),
        _ => (w, h, 1),
    };
    let full = 32
        - w.max(h)
            .max(if dim == TextureDim::Tex3D { layers } else { 1 })
            .leading_zeros();
    let mips = rng.range(1, full);
    let view = TextureView::packed(dim, format, [w, h, layers], mips);
    let len = view.size_bytes() as usize;
    let bytes = (0..len).map(|_| rng.next_u32() as u8).collect();
    (view, keyword, bytes)
}

/// One sampling instruction writing `dst` (an `oN` register); returns its mnemonic.
fn instruction(rng: &mut Rng, dim: TextureDim, dst: &str, t: &mut String) -> &'static str {
    let cube = dim == TextureDim::TexCube;
    let gathers = matches!(
        dim,
        TextureDim::Tex2D | TextureDim::Tex2DArray | TextureDim::TexCube
    );
    let offsets = !cube && rng.chance(1, 3);
    let aoff = if offsets {
        let o = |rng: &mut Rng| rng.below(16) as i32 - 8;
        format!("_aoffimmi({},{},{})", o(rng), o(rng), o(rng))
    } else {
        String::new()
    };
    let c = "r0.xyzw";
    let sw = rng.pick(&["xyzw", "yxwz", "xxxx", "wzyx"]);
    let t0 = format!("t0.{sw}");
    let chan = rng.pick(&['x', 'y', 'z', 'w']);
    let mut choices = vec![
        "sample",
        "sample_b",
        "sample_l",
        "sample_d",
        "resinfo",
        "lod",
        "sample_l_s",
    ];
    if !cube {
        choices.push("ld");
    }
    if dim != TextureDim::Tex3D {
        choices.extend(["sample_c", "sample_c_lz"]);
    }
    if gathers {
        choices.extend(["gather4", "gather4_c"]);
        if !cube {
            choices.extend(["gather4_po", "gather4_po_c"]);
        }
    }
    let op = rng.pick(&choices);
    let line = match op {
        "sample" => format!("sample{aoff} {dst}, {c}, {t0}, s0"),
        "sample_b" => format!("sample_b{aoff} {dst}, {c}, {t0}, s0, r1.x"),
        "sample_l" => format!("sample_l{aoff} {dst}, {c}, {t0}, s0, r1.y"),
        "sample_d" => format!("sample_d{aoff} {dst}, {c}, {t0}, s0, r1.xyzw, r2.xyzw"),
        "sample_c" => format!("sample_c{aoff} {dst}, {c}, {t0}, s1, r1.z"),
        "sample_c_lz" => format!("sample_c_lz{aoff} {dst}, {c}, {t0}, s1, r1.w"),
        "sample_l_s" => format!("sample_l_s{aoff} {dst}, r5.x, {c}, {t0}, s0, r1.y"),
        "ld" => format!("ld{aoff} {dst}, r3.xyzw, {t0}"),
        "resinfo" => format!("resinfo {dst}, r3.w, {t0}"),
        "lod" => format!("lod {dst}, {c}, {t0}, s0"),
        "gather4" => format!("gather4{aoff} {dst}, {c}, {t0}, s0.{chan}"),
        "gather4_c" => format!("gather4_c{aoff} {dst}, {c}, {t0}, s1.x, r1.z"),
        "gather4_po" => format!("gather4_po {dst}, {c}, r4.xyzw, {t0}, s0.{chan}"),
        _ => format!("gather4_po_c {dst}, {c}, r4.xyzw, {t0}, s1.x, r1.w"),
    };
    let _ = writeln!(t, "{line}");
    op
}

/// Generates the program and batch of `seed`.
pub fn generate_sampling(seed: u64) -> SamplingProgram {
    let mut rng = Rng::new(seed ^ 0x5341_4D50_4C45);
    // A quarter of the programs have the shape of the JIT's vector
    // sampling path; its other checks (coordinates in range, the form)
    // still vary per lane and instruction.
    let vector = rng.chance(1, 4);
    let (view, keyword, bytes) = texture(&mut rng, vector);
    let samplers = [sampler(&mut rng, vector), sampler(&mut rng, vector)];
    let n = rng.range(1, 4) as usize;
    let mut t = format!(
        "ps_5_0\ndcl_sampler s0, mode_default\ndcl_sampler s1, mode_comparison\n\
         dcl_resource_{keyword} (float,float,float,float) t0\n\
         dcl_input_ps_siv linear noperspective v0.xy, position\n\
         dcl_input_ps linear v1.xyzw\ndcl_input_ps linear v2.xyzw\n"
    );
    for k in 0..n {
        let _ = writeln!(t, "dcl_output o{k}.xyzw");
    }
    // r0: coordinates (scaled position plus a per-pixel value, so quads
    // have gradients); r1: bias, LOD, references; r2: ddy; r3: integer
    // texel coordinates and mip; r4: gather offsets.
    let scale = if vector && rng.chance(1, 2) {
        "0"
    } else {
        rng.pick(&["0.0625", "0.25", "1.5", "-0.5", "0"])
    };
    t.push_str("dcl_temps 6\n");
    let _ = writeln!(
        t,
        "mad r0.xyzw, v0.xyxy, l({scale}, {scale}, {scale}, 1), v1.xyzw"
    );
    t.push_str(
        "mov r1.xyzw, v2.xyzw\nmul r2.xyzw, v2.wzyx, l(0.5, 0.25, 2.0, 1.0)\n\
         ftoi r3.xyzw, v2.xyzw\nftoi r4.xyzw, v1.wzyx\n",
    );
    let ops = (0..n)
        .map(|k| instruction(&mut rng, view.dim, &format!("o{k}.xyzw"), &mut t))
        .collect();
    t.push_str("ret\n");
    let quads = rng.range(1, 3) as usize;
    let count = 4 * quads;
    let mut data = Vec::with_capacity(count * 12);
    let mut helpers = Vec::with_capacity(count);
    // Vector-shaped programs give most quads smooth coordinates (v1 a
    // base plus small steps across the quad), whose LODs fall between
    // the mips, so that levels are blended; the rest stay random.
    let mut smooth = None;
    for inv in 0..count {
        let (q, lane) = ((inv / 4) as u32, (inv % 4) as u32);
        let x = 2 * (q % (WIDTH / 2)) + (lane & 1);
        let y = 2 * (q / (WIDTH / 2)) + (lane >> 1);
        data.extend([x as f32 + 0.5, y as f32 + 0.5, 0.0, 0.0].map(f32::to_bits));
        if lane == 0 {
            smooth = (vector && rng.chance(3, 4)).then(|| quad_ramp(&mut rng));
        }
        for c in 0..8 {
            let v = match smooth {
                Some((base, dx, dy)) if c < 4 => {
                    base[c] + (lane & 1) as f32 * dx[c] + (lane >> 1) as f32 * dy[c]
                }
                _ => value(&mut rng),
            };
            data.push(v.to_bits());
        }
        helpers.push(rng.chance(1, 8));
    }
    let program = sm5jit::asm::parse_program(&t)
        .unwrap_or_else(|e| panic!("generated sampling program does not parse: {e}\n{t}"));
    SamplingProgram {
        seed,
        text: t,
        program,
        view,
        bytes,
        samplers,
        count,
        data,
        helpers,
        ops,
    }
}

/// Runs `p` on the interpreter and on the JIT's two tiers (tier 1 has
/// the vector sampling path, tier 0 calls the shim for every texture
/// instruction); `Err` names the first difference (lane fates or any
/// output bit).
pub fn compare_sampling(p: &SamplingProgram) -> Result<(), String> {
    sm5jit::validate::validate(&p.program).map_err(|e| format!("invalid: {e}"))?;
    let inputs = BatchInputs::new(p.count, 3, &p.data).with_helpers(&p.helpers);
    let o = DispatchOptions::default();
    let interp = Interpreter::new(&p.program).map_err(|e| e.to_string())?;
    let mut b = Bindings::new();
    b.srv(Slot::new(0), &p.bytes, View::Texture(p.view));
    b.sampler(Slot::new(0), p.samplers[0]);
    b.sampler(Slot::new(1), p.samplers[1]);
    let ri = interp
        .run_batch(&b, &inputs, &o)
        .map_err(|e| e.to_string())?;
    for tier in [Tier::Zero, Tier::One] {
        let jit = JitShader::compile_with(&p.program, &CompileOptions::tier(tier))
            .map_err(|e| e.to_string())?;
        let rj = jit.run_batch(&b, &inputs, &o).map_err(|e| e.to_string())?;
        if ri.lanes != rj.lanes {
            return Err(format!(
                "lanes: interpreter {:?}, JIT {tier:?} {:?}",
                ri.lanes, rj.lanes
            ));
        }
        for inv in 0..p.count {
            let (a, j) = (ri.outputs(inv), rj.outputs(inv));
            if a != j {
                return Err(format!(
                    "sampling pixel {inv}: interpreter {a:08x?}, JIT {tier:?} {j:08x?}"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_validate_and_the_engines_agree() {
        let mut cov = BTreeMap::new();
        for seed in 1..=150 {
            let p = generate_sampling(seed);
            sm5jit::validate::validate(&p.program)
                .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.text));
            assert_eq!(generate_sampling(seed).text, p.text, "deterministic");
            if let Err(e) = compare_sampling(&p) {
                panic!(
                    "seed {seed}: {e}\n{}\n{:?}\n{:?}",
                    p.text, p.view, p.samplers
                );
            }
            coverage(&p, &mut cov);
        }
        for k in [
            "inst:sample_d",
            "inst:gather4_po_c",
            "address:mirror_once",
            "dim:texturecube",
        ] {
            assert!(cov.contains_key(k), "{k} never generated: {cov:?}");
        }
    }
}
