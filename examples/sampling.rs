//! Texture-sampling throughput of pixel shaders through the batch API:
//! pixels per second on the interpreter and the JIT for a few sampling
//! pixel shaders over a grid of 2x2 quads, 64 quads per batch (the way a
//! rasterizer calls [`Shader::run_batch`]).
//!
//! ```sh
//! cargo run --release --example sampling [-- [FILTER] [--pixels N] [--interp-pixels N]]
//! ```
//!
//! In: the shaders of [`CASES`] (assembly), a mipmapped texture per case
//! and a sampler state. Out: one line per case and engine with
//! pixels per CPU second (this thread's), and the JIT/interpreter ratio; before the timing, the two
//! engines' outputs are compared bit for bit over the interpreter's
//! pixels (a mismatch stops the program). Invariant: both engines run
//! the same batches on the same bindings; only `run_batch` is timed.

use sm5jit::runtime::{
    AddressMode, ComparisonFunc, Filter, Format, SamplerDesc, TextureDim, TextureView,
};
use sm5jit::{BatchInputs, Bindings, EngineKind, Shader, Slot, View};

/// Pixels per batch: 64 quads.
const BATCH: usize = 256;

/// One benchmark: a pixel shader, its texture format and its sampler.
struct Case {
    name: &'static str,
    format: Format,
    sampler: fn() -> SamplerDesc,
    /// Coordinate scale: texture coordinate = pixel uv * scale.
    scale: f32,
    ps: &'static str,
}

const HEAD: &str = "ps_5_0
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_input_ps linear v0.xy
dcl_output o0.xyzw
dcl_temps 4
";

fn trilinear_wrap() -> SamplerDesc {
    SamplerDesc::new(Filter::LINEAR, AddressMode::Wrap)
}

fn point_clamp() -> SamplerDesc {
    SamplerDesc::new(Filter::POINT, AddressMode::Clamp)
}

fn shadow() -> SamplerDesc {
    SamplerDesc {
        comparison: ComparisonFunc::LessEqual,
        ..SamplerDesc::new(Filter::LINEAR, AddressMode::Clamp)
    }
}

/// The cases; `{HEAD}` is prepended to each `ps`.
const CASES: &[Case] = &[
    Case {
        name: "tex-trilinear-rgba8",
        format: Format::R8G8B8A8Unorm,
        sampler: trilinear_wrap,
        scale: 3.0,
        ps: "sample_indexable(texture2d)(float,float,float,float) r0.xyzw, v0.xyxx, t0.xyzw, s0
mov o0.xyzw, r0.xyzw
ret
",
    },
    Case {
        name: "blur9-rgba8",
        format: Format::R8G8B8A8Unorm,
        sampler: trilinear_wrap,
        scale: 1.0,
        ps: "sample_l_aoffimmi_indexable(-1,-1,0)(texture2d)(float,float,float,float) r0.xyzw, v0.xyxx, t0.xyzw, s0, l(0)
sample_l_aoffimmi_indexable(0,-1,0)(texture2d)(float,float,float,float) r1.xyzw, v0.xyxx, t0.xyzw, s0, l(0)
add r0.xyzw, r0.xyzw, r1.xyzw
sample_l_aoffimmi_indexable(1,-1,0)(texture2d)(float,float,float,float) r1.xyzw, v0.xyxx, t0.xyzw, s0, l(0)
add r0.xyzw, r0.xyzw, r1.xyzw
sample_l_aoffimmi_indexable(-1,0,0)(texture2d)(float,float,float,float) r1.xyzw, v0.xyxx, t0.xyzw, s0, l(0)
add r0.xyzw, r0.xyzw, r1.xyzw
sample_l_indexable(texture2d)(float,float,float,float) r1.xyzw, v0.xyxx, t0.xyzw, s0, l(0)
add r0.xyzw, r0.xyzw, r1.xyzw
sample_l_aoffimmi_indexable(1,0,0)(texture2d)(float,float,float,float) r1.xyzw, v0.xyxx, t0.xyzw, s0, l(0)
add r0.xyzw, r0.xyzw, r1.xyzw
sample_l_aoffimmi_indexable(-1,1,0)(texture2d)(float,float,float,float) r1.xyzw, v0.xyxx, t0.xyzw, s0, l(0)
add r0.xyzw, r0.xyzw, r1.xyzw
sample_l_aoffimmi_indexable(0,1,0)(texture2d)(float,float,float,float) r1.xyzw, v0.xyxx, t0.xyzw, s0, l(0)
add r0.xyzw, r0.xyzw, r1.xyzw
sample_l_aoffimmi_indexable(1,1,0)(texture2d)(float,float,float,float) r1.xyzw, v0.xyxx, t0.xyzw, s0, l(0)
add r0.xyzw, r0.xyzw, r1.xyzw
mul o0.xyzw, r0.xyzw, l(0.111111, 0.111111, 0.111111, 0.111111)
ret
",
    },
    Case {
        name: "shadow16-r32f",
        format: Format::R32Float,
        sampler: shadow,
        scale: 1.0,
        ps: "mov r0.x, l(0)
mov r2.z, l(0)
loop
  ige r2.w, r2.z, l(16)
  breakc_nz r2.w
  itof r3.x, r2.z
  mad r1.xy, r3.xxxx, l(0.002, 0.001, 0, 0), v0.xyxx
  sample_c_lz_indexable(texture2d)(float,float,float,float) r1.z, r1.xyxx, t0.xxxx, s0, l(0.5)
  add r0.x, r0.x, r1.z
  iadd r2.z, r2.z, l(1)
endloop
mul o0.xyzw, r0.xxxx, l(0.0625, 0.0625, 0.0625, 0.0625)
ret
",
    },
    Case {
        name: "point-r8",
        format: Format::R8Unorm,
        sampler: point_clamp,
        scale: 1.0,
        ps: "sample_l_indexable(texture2d)(float,float,float,float) r0.xyzw, v0.xyxx, t0.xyzw, s0, l(0)
mov o0.xyzw, r0.xyzw
ret
",
    },
];

/// A full mip chain of a `size`-square texture with pseudo-random texels.
fn texture(format: Format, size: u32) -> (TextureView, Vec<u8>) {
    let mips = 32 - size.leading_zeros();
    let view = TextureView::packed(TextureDim::Tex2D, format, [size, size, 1], mips);
    let len = view.size_bytes() as usize;
    let mut x = 0x1234_5678u32;
    let bytes = (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect::<Vec<u8>>();
    let bytes = if format == Format::R32Float {
        // Depth-like values in [0, 1).
        bytes
            .chunks(4)
            .flat_map(|c| ((c[0] as f32) / 256.0).to_le_bytes())
            .collect()
    } else {
        bytes
    };
    (view, bytes)
}

/// The inputs of a `side`-square grid: v0 = (u, v) * scale per pixel, in quads.
fn grid(side: u32, scale: f32) -> Vec<u32> {
    let mut data = Vec::with_capacity((side * side) as usize * 4);
    for qy in (0..side).step_by(2) {
        for qx in (0..side).step_by(2) {
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let u = ((qx + dx) as f32 + 0.5) / side as f32 * scale;
                let v = ((qy + dy) as f32 + 0.5) / side as f32 * scale;
                data.extend([u.to_bits(), v.to_bits(), 0, 0]);
            }
        }
    }
    data
}

/// This thread's CPU time in seconds (the machine is shared: wall time
/// would count other processes' time).
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec to write.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// Runs every batch of `data` (`pixels` of them); returns CPU seconds and the outputs.
fn run(shader: &Shader, b: &mut Bindings, data: &[u32], pixels: usize) -> (f64, Vec<[u32; 4]>) {
    let mut out = Vec::with_capacity(pixels);
    let t = cpu_seconds();
    for first in (0..pixels).step_by(BATCH) {
        let n = BATCH.min(pixels - first);
        let inputs = BatchInputs::new(n, 1, &data[first * 4..(first + n) * 4]);
        let r = shader.run_batch(b, &inputs).expect("batch runs");
        out.extend((0..n).map(|i| r.output(i, 0).unwrap_or([0; 4])));
    }
    (cpu_seconds() - t, out)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |name: &str, default: u32| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1)?.parse().ok())
            .unwrap_or(default)
    };
    let side = value("--pixels", 1024);
    let interp_side = value("--interp-pixels", 128);
    let filter = args.first().filter(|a| !a.starts_with("--")).cloned();
    for case in CASES {
        if filter
            .as_ref()
            .is_some_and(|f| !case.name.contains(f.as_str()))
        {
            continue;
        }
        let text = format!("{HEAD}{}", case.ps);
        let jit = Shader::from_asm(&text, EngineKind::Jit).expect("the JIT compiles the case");
        let interp = Shader::from_asm(&text, EngineKind::Interpreter).expect("the case is valid");
        let (view, bytes) = texture(case.format, 256);
        let mut b = Bindings::new();
        b.srv(Slot::new(0), &bytes, View::texture(view));
        b.sampler(Slot::new(0), (case.sampler)());
        let small = grid(interp_side, case.scale);
        let n_small = (interp_side * interp_side) as usize;
        let (ti, want) = run(&interp, &mut b, &small, n_small);
        let (_, got) = run(&jit, &mut b, &small, n_small);
        if let Some(i) = (0..n_small).find(|&i| want[i] != got[i]) {
            panic!(
                "{}: pixel {i}: interpreter {:08x?}, JIT {:08x?}",
                case.name, want[i], got[i]
            );
        }
        let big = grid(side, case.scale);
        let n_big = (side * side) as usize;
        let (tj, _) = run(&jit, &mut b, &big, n_big);
        let ip = n_small as f64 / ti;
        let jp = n_big as f64 / tj;
        println!(
            "{:<22} interp {:>8.3} Mpix/s  jit {:>8.3} Mpix/s  ratio {:>6.1}x",
            case.name,
            ip / 1e6,
            jp / 1e6,
            jp / ip
        );
    }
}
