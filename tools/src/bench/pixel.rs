//! The pixel benchmark kernels: a full-screen draw of one `ps_5_0` program
//! over a render target, as 2x2 quads with interpolated inputs, on the
//! batch API; a native Rust baseline of the same shading; a checker.
//!
//! In: a [`PixelKernel`] and a render-target size. Out: a [`PixelProblem`]
//! (textures with their mips, samplers, `cb0`, and every pixel's input
//! registers, made by running [`FULLSCREEN_VS`] on its three vertices and
//! [`Interpolator`] per pixel), the image an engine or the native baseline
//! draws (RGBA32F words in *quad order*: quad rows top to bottom, quads
//! left to right, lanes top-left, top-right, bottom-left, bottom-right),
//! and timings ([`time_pixel_engine`], [`time_pixel_native`]). Invariant:
//! a time is only returned after the same image (or, for the interpreter,
//! the same leading rows) passed the kernel's [`ImageTolerance`] against
//! the native image; interpolation happens once, outside every timed
//! region (timed: the batch calls and the copy of `o0` into the target).
//!
//! Workers: a frame is cut into batches of [`BATCH_QUADS`] quads, handed
//! out to `threads` scoped threads in order; each thread binds the shared
//! textures, samplers and constants in its own [`Bindings`] (no copies:
//! read-only slices of the problem) and writes its batches' disjoint slices
//! of the target.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use sm5jit::interpolate::{Interpolator, Pixel};
use sm5jit::reflect::{ComponentType, SignatureElement};
use sm5jit::{
    AddressMode, BatchInputs, BatchResult, BatchRunner, Bindings, ComparisonFunc, CompileOptions,
    DispatchConfig, EngineKind, Filter, FilterMode, Format, LaneResult, SamplerDesc, Shader, Slot,
    TextureDim, TextureView, Tier, View,
};

use super::{median_ms, process_cpu};

/// The vertex shader of every pixel kernel: a full-screen triangle from
/// `SV_VertexID`, `TEXCOORD1` = uv of the pixel.
pub const FULLSCREEN_VS: &str = include_str!("../../benches/kernels/fullscreen_vs.asm");

/// Quads per batch call (256 pixels), what a tiled rasterizer hands over.
pub const BATCH_QUADS: usize = 64;

/// Timed frames stop at `--runs` or once this much time has been timed
/// (at least one frame): a slow engine at 1920x1080 takes seconds per frame.
pub const TIMING_BUDGET: Duration = Duration::from_secs(10);

/// Largest render-target side.
pub const MAX_SIDE: u32 = 8192;

/// How an image is compared with the native one, channel by channel (as
/// f32): within `abs` or `rel * max(|a|, |b|)`, except at most `outliers`
/// (a fraction of all channels). All zero: bit for bit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImageTolerance {
    pub rel: f32,
    pub abs: f32,
    pub outliers: f64,
}

impl ImageTolerance {
    pub const EXACT: ImageTolerance = ImageTolerance {
        rel: 0.0,
        abs: 0.0,
        outliers: 0.0,
    };
}

/// One texture bound to a pixel kernel: 2D, packed mips (as
/// [`TextureView::packed`] lays them out).
#[derive(Clone, Debug)]
pub struct Texture {
    pub slot: u32,
    pub format: Format,
    pub width: u32,
    pub height: u32,
    pub mips: u32,
    pub data: Vec<u8>,
}

impl Texture {
    pub fn view(&self) -> TextureView {
        TextureView::packed(
            TextureDim::Tex2D,
            self.format,
            [self.width, self.height, 1],
            self.mips,
        )
    }
}

/// One sampler: its state, and whether the D3D filter is a comparison
/// filter (`sample_c` goes through one).
#[derive(Clone, Copy, Debug)]
pub struct Sampler {
    pub slot: u32,
    pub desc: SamplerDesc,
    pub comparison: bool,
}

/// A pixel kernel's draw, ready to shade.
#[derive(Clone, Debug)]
pub struct PixelProblem {
    pub width: u32,
    pub height: u32,
    pub textures: Vec<Texture>,
    pub samplers: Vec<Sampler>,
    /// `cb0` words (a multiple of 4).
    pub constants: Vec<u32>,
    /// Input registers per pixel.
    pub registers: u32,
    /// Every pixel's input registers, quad order.
    pub inputs: Vec<u32>,
}

impl PixelProblem {
    pub fn pixels(&self) -> usize {
        self.width as usize * self.height as usize
    }

    pub fn quads(&self) -> usize {
        self.pixels() / 4
    }

    /// Register `reg` of pixel `i` (quad order).
    fn input(&self, i: usize, reg: u32) -> [f32; 4] {
        let at = (i * self.registers as usize + reg as usize) * 4;
        std::array::from_fn(|c| f32::from_bits(self.inputs[at + c]))
    }

    /// `cb0` as bytes.
    pub fn cb_bytes(&self) -> Vec<u8> {
        self.constants
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect()
    }

    fn constant(&self, reg: usize) -> [f32; 4] {
        std::array::from_fn(|c| f32::from_bits(self.constants[reg * 4 + c]))
    }

    /// Pixel (x, y) of quad-order index `i`.
    pub fn pixel_of(&self, i: usize) -> (u32, u32) {
        pixel_of(self.width, i)
    }
}

/// Pixel (x, y) of quad-order index `i` in a target `width` wide.
pub fn pixel_of(width: u32, i: usize) -> (u32, u32) {
    let per_row = (width / 2).max(1) as usize;
    let (q, lane) = (i / 4, i % 4);
    let (qx, qy) = ((q % per_row) as u32, (q / per_row) as u32);
    (2 * qx + (lane % 2) as u32, 2 * qy + (lane / 2) as u32)
}

/// RGBA words in quad order → rows top to bottom (what a render target
/// holds).
pub fn quad_to_rows(width: u32, height: u32, quad: &[u32]) -> Vec<u32> {
    let mut rows = vec![0u32; quad.len()];
    let n = (width as usize * height as usize).min(quad.len() / 4);
    for i in 0..n {
        let (x, y) = pixel_of(width, i);
        let at = (y as usize * width as usize + x as usize) * 4;
        rows[at..at + 4].copy_from_slice(&quad[i * 4..i * 4 + 4]);
    }
    rows
}

/// Rows → quad order (the inverse of [`quad_to_rows`]).
pub fn rows_to_quad(width: u32, height: u32, rows: &[u32]) -> Vec<u32> {
    let mut quad = vec![0u32; rows.len()];
    let n = (width as usize * height as usize).min(rows.len() / 4);
    for i in 0..n {
        let (x, y) = pixel_of(width, i);
        let at = (y as usize * width as usize + x as usize) * 4;
        quad[i * 4..i * 4 + 4].copy_from_slice(&rows[at..at + 4]);
    }
    quad
}

/// A native baseline: the image (RGBA32F words, quad order).
pub type PixelBaseline = fn(&PixelProblem) -> Vec<u32>;

/// A kernel's textures, samplers and `cb0` words.
pub type Resources = (Vec<Texture>, Vec<Sampler>, Vec<u32>);

/// One pixel kernel.
pub struct PixelKernel {
    pub name: &'static str,
    pub what: &'static str,
    /// What bounds it, one line.
    pub limit: &'static str,
    /// `ps_5_0` assembly (its vertex shader is [`FULLSCREEN_VS`]).
    pub ps: &'static str,
    /// True for the sampling-heavy kernels, false for ALU only.
    pub samples: bool,
    /// Textures, samplers and constants for a `width` x `height` target.
    pub resources: fn(u32, u32) -> Resources,
    pub native: PixelBaseline,
    pub tolerance: ImageTolerance,
    /// lavapipe's image against the native one.
    pub peer_tolerance: ImageTolerance,
}

/// The render-target format of every pixel kernel (what the peer draws into).
pub const TARGET_FORMAT: Format = Format::R32G32B32A32Float;

/// Default render target and the tests' size.
pub const BENCH_SIZE: [u32; 2] = [1920, 1080];
pub const TEST_SIZE: [u32; 2] = [64, 36];

/// Target size for `--size N`: N pixels wide, 16:9, both even, 2..=MAX_SIDE.
pub fn size_for(width: u32) -> [u32; 2] {
    let w = (width.clamp(2, MAX_SIDE) + 1) & !1;
    let h = ((u64::from(w) * 9 / 16) as u32 + 1) & !1;
    [w, h.max(2)]
}

impl PixelKernel {
    /// The problem at `width` x `height` (even sides, at most MAX_SIDE).
    pub fn problem(&self, width: u32, height: u32) -> Result<PixelProblem, String> {
        if width % 2 != 0 || height % 2 != 0 || width == 0 || height == 0 {
            return Err(format!("{width}x{height}: sides must be even and non-zero"));
        }
        if width > MAX_SIDE || height > MAX_SIDE {
            return Err(format!("{width}x{height}: at most {MAX_SIDE} per side"));
        }
        let (textures, samplers, constants) = (self.resources)(width, height);
        let (registers, inputs) = interpolate_fullscreen(self.ps, width, height)?;
        Ok(PixelProblem {
            width,
            height,
            textures,
            samplers,
            constants,
            registers,
            inputs,
        })
    }

    /// Compares `got` (quad order, possibly only the first pixels) with
    /// the native image; the message names the pixel and channel.
    pub fn check(&self, p: &PixelProblem, native: &[u32], got: &[u32]) -> Result<(), String> {
        check_image(self.name, self.tolerance, p.width, native, got)
    }
}

/// Whether `have` passes for `want` (f32 bits) under `tol`.
fn close(tol: ImageTolerance, want: u32, have: u32) -> bool {
    let (a, b) = (f32::from_bits(want), f32::from_bits(have));
    if want == have || (a.is_nan() && b.is_nan()) {
        return true;
    }
    let diff = (a - b).abs();
    diff <= tol.abs || diff <= tol.rel * a.abs().max(b.abs())
}

/// Compares the first `got.len()` words of the native image `native`
/// (quad order, `width` wide) with `got` under `tol`.
pub fn check_image(
    name: &str,
    tol: ImageTolerance,
    width: u32,
    native: &[u32],
    got: &[u32],
) -> Result<(), String> {
    if got.len() > native.len() || got.len() % 4 != 0 {
        return Err(format!(
            "{name}: {} words for an image of {}",
            got.len(),
            native.len()
        ));
    }
    let mut outside = 0usize;
    let mut first = None;
    for (i, (&w, &h)) in native.iter().zip(got).enumerate() {
        if !close(tol, w, h) {
            outside += 1;
            first.get_or_insert(i);
        }
    }
    let allowed = (tol.outliers * got.len() as f64).floor() as usize;
    match first {
        Some(i) if outside > allowed => {
            let (x, y) = pixel_of(width, i / 4);
            Err(format!(
                "{name}: pixel ({x}, {y}) channel {}: native {} (0x{:08x}), got {} (0x{:08x}); \
                 {outside} of {} channels outside the tolerance (at most {allowed} allowed)",
                "rgba".as_bytes()[i % 4] as char,
                f32::from_bits(native[i]),
                native[i],
                f32::from_bits(got[i]),
                got[i],
                got.len()
            ))
        }
        _ => Ok(()),
    }
}

// Interpolation ---------------------------------------------------------------

/// Runs [`FULLSCREEN_VS`] on its three vertices (interpreter) and
/// interpolates its outputs for every pixel of the target, as `ps` reads
/// them: (input registers per pixel, the inputs in quad order).
pub fn interpolate_fullscreen(
    ps: &str,
    width: u32,
    height: u32,
) -> Result<(u32, Vec<u32>), String> {
    let vs = Shader::from_asm(FULLSCREEN_VS, EngineKind::Interpreter).map_err(|e| e.to_string())?;
    let ps = Shader::from_asm(ps, EngineKind::Interpreter).map_err(|e| e.to_string())?;
    let ids = [0u32, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0];
    let out = vs
        .run_batch(&mut Bindings::new(), &BatchInputs::new(3, 1, &ids))
        .map_err(|e| e.to_string())?;
    let lerp = Interpolator::new(vs.reflect(), ps.reflect()).map_err(|e| e.to_string())?;
    let screen: [[f64; 2]; 3] = std::array::from_fn(|v| {
        let p = out.output(v, 0).unwrap_or_default().map(f32::from_bits);
        let (x, y) = (f64::from(p[0] / p[3]), f64::from(p[1] / p[3]));
        [
            (x + 1.0) * 0.5 * f64::from(width),
            (1.0 - y) * 0.5 * f64::from(height),
        ]
    });
    let edge = |a: [f64; 2], b: [f64; 2], p: [f64; 2]| {
        (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
    };
    let area = edge(screen[0], screen[1], screen[2]);
    if area == 0.0 {
        return Err("the full-screen triangle is degenerate".into());
    }
    let pixels = width as usize * height as usize;
    let mut data = Vec::with_capacity(pixels * lerp.registers() as usize * 4);
    for i in 0..pixels {
        let (x, y) = pixel_of(width, i);
        let p = [f64::from(x) + 0.5, f64::from(y) + 0.5];
        let bary = [
            (edge(screen[1], screen[2], p) / area) as f32,
            (edge(screen[2], screen[0], p) / area) as f32,
            (edge(screen[0], screen[1], p) / area) as f32,
        ];
        let px = Pixel {
            x: p[0] as f32,
            y: p[1] as f32,
            bary,
            front_face: true,
            primitive_id: 0,
            sample_index: 0,
        };
        lerp.push_pixel(&out, [0, 1, 2], &px, &mut data);
    }
    Ok((lerp.registers(), data))
}

// Running on an engine ----------------------------------------------------------

/// Compiles a kernel's pixel shader for `engine` (JIT tier `tier`),
/// bypassing the in-process shader cache so every compile is timed in full.
pub fn compile(k: &PixelKernel, engine: EngineKind, tier: Tier) -> Result<Shader, String> {
    let options = CompileOptions {
        cache: false,
        ..CompileOptions::tier(tier)
    };
    Shader::from_asm_with(k.ps, engine, &options).map_err(|e| format!("{}: {e}", k.name))
}

/// The problem's textures, samplers and `cb0` bound in a fresh [`Bindings`]
/// (shared, read-only: nothing is copied).
pub fn bind<'a>(p: &'a PixelProblem, cb: &'a [u8]) -> Bindings<'a> {
    let mut b = Bindings::new();
    for t in &p.textures {
        b.srv(Slot::new(t.slot), &t.data, View::texture(t.view()));
    }
    for s in &p.samplers {
        b.sampler(Slot::new(s.slot), s.desc);
    }
    if !cb.is_empty() {
        b.cb(Slot::new(0), cb);
    }
    b
}

/// Shades batch after batch from `next` into its slice of the target.
fn shade_batches<'t>(
    runner: &BatchRunner,
    p: &PixelProblem,
    next: &Mutex<impl Iterator<Item = (usize, &'t mut [u32])>>,
) -> Result<(), String> {
    let regs = p.registers as usize * 4;
    let mut r = BatchResult::new(Vec::new(), 0);
    loop {
        let item = next.lock().map_err(|_| "a worker panicked")?.next();
        let Some((batch, out)) = item else {
            return Ok(());
        };
        let first = batch * BATCH_QUADS * 4;
        let count = out.len() / 4;
        let inputs = BatchInputs::new(
            count,
            p.registers,
            &p.inputs[first * regs..(first + count) * regs],
        );
        runner
            .run_into(&inputs, &mut r)
            .map_err(|e| e.to_string())?;
        let n = r.registers.len();
        let o0 = r.registers.iter().position(|&x| x == 0).unwrap_or(0);
        for (i, px) in out.chunks_exact_mut(4).enumerate() {
            if r.lanes[i] == LaneResult::Written {
                px.copy_from_slice(&r.values[i * n + o0]);
            }
        }
    }
}

/// Shades the first `pixels` pixels (a multiple of 4) of `p` into `out`
/// (quad order) on `threads` workers.
pub fn draw(
    shader: &Shader,
    p: &PixelProblem,
    pixels: usize,
    threads: usize,
    out: &mut [u32],
) -> Result<(), String> {
    let cb = p.cb_bytes();
    // One bindings object and one runner shared by every worker: the
    // textures are read in place, the resource table is built once.
    let b = bind(p, &cb);
    let config = DispatchConfig {
        threads: 1,
        budget: super::BENCH_BUDGET,
    };
    let runner = shader
        .batch_runner_with(&b, &config)
        .map_err(|e| e.to_string())?;
    let target = &mut out[..pixels * 4];
    let next = Mutex::new(target.chunks_mut(BATCH_QUADS * 16).enumerate());
    if threads <= 1 {
        return shade_batches(&runner, p, &next);
    }
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|_| s.spawn(|| shade_batches(&runner, p, &next)))
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|_| Err("a worker panicked".into())))
            .collect::<Result<Vec<()>, String>>()
            .map(|_| ())
    })
}

/// What an engine took on a pixel problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PixelTiming {
    pub compile_ms: f64,
    /// Median time of one frame (or of the region), ms.
    pub frame_ms: f64,
    /// Median process CPU time of one frame, ms ([`process_cpu`]: with one
    /// worker the frame's own cost, with N the sum over the workers).
    pub cpu_ms: f64,
    /// Pixels shaded per frame.
    pub pixels: usize,
}

impl PixelTiming {
    pub fn pixels_per_s(&self) -> f64 {
        per_second(self.pixels, self.frame_ms)
    }
}

/// Pixels per second at `ms` per frame.
pub fn per_second(pixels: usize, ms: f64) -> f64 {
    if ms > 0.0 {
        pixels as f64 / (ms / 1e3)
    } else {
        0.0
    }
}

/// How [`time_pixel_engine`] runs: engine, JIT tier, workers, the pixels
/// of a frame (the first ones, whole quads) and the timed runs.
#[derive(Clone, Copy, Debug)]
pub struct EngineRun {
    pub engine: EngineKind,
    pub tier: Tier,
    pub threads: usize,
    pub pixels: usize,
    pub runs: usize,
}

/// Times `runs` compiles and `runs` frames (fewer once [`TIMING_BUDGET`]
/// is spent) of the first `pixels` pixels (whole quads) on `threads`
/// workers, after one frame checked against `native` (and, on tier auto,
/// once tier 1 is in).
pub fn time_pixel_engine(
    k: &PixelKernel,
    p: &PixelProblem,
    native: &[u32],
    how: &EngineRun,
) -> Result<PixelTiming, String> {
    let EngineRun {
        engine,
        tier,
        threads,
        pixels,
        runs,
    } = *how;
    let runs = runs.max(1);
    let pixels = (pixels.min(p.pixels()) / 4) * 4;
    let mut compiles = Vec::new();
    let mut shader = None;
    for _ in 0..runs {
        let start = Instant::now();
        let s = compile(k, engine, tier)?;
        compiles.push(start.elapsed());
        shader = Some(s);
    }
    let shader = shader.ok_or("no shader")?;
    let mut out = vec![0u32; pixels * 4];
    draw(&shader, p, pixels, threads, &mut out)?;
    k.check(p, native, &out)
        .map_err(|m| format!("{engine} output differs from native: {m}"))?;
    let warm = Instant::now();
    while engine == EngineKind::Jit
        && tier == Tier::Auto
        && shader.tier() != Some(1)
        && warm.elapsed() < Duration::from_secs(20)
    {
        draw(&shader, p, pixels, threads, &mut out)?;
    }
    let mut frames: Vec<Duration> = Vec::new();
    let mut cpu = Vec::new();
    while frames.len() < runs && frames.iter().sum::<Duration>() < TIMING_BUDGET {
        let (start, cpu0) = (Instant::now(), process_cpu());
        draw(&shader, p, pixels, threads, &mut out)?;
        frames.push(start.elapsed());
        cpu.push(process_cpu().saturating_sub(cpu0));
    }
    Ok(PixelTiming {
        compile_ms: median_ms(&mut compiles),
        frame_ms: median_ms(&mut frames),
        cpu_ms: median_ms(&mut cpu),
        pixels,
    })
}

/// Runs the native baseline `runs` times (fewer once [`TIMING_BUDGET`] is
/// spent); (median ms, median CPU ms, its image).
pub fn time_pixel_native(k: &PixelKernel, p: &PixelProblem, runs: usize) -> (f64, f64, Vec<u32>) {
    let mut samples: Vec<Duration> = Vec::new();
    let mut cpu = Vec::new();
    let mut image = Vec::new();
    while samples.len() < runs.max(1) && samples.iter().sum::<Duration>() < TIMING_BUDGET {
        let (start, cpu0) = (Instant::now(), process_cpu());
        image = std::hint::black_box((k.native)(std::hint::black_box(p)));
        samples.push(start.elapsed());
        cpu.push(process_cpu().saturating_sub(cpu0));
    }
    (median_ms(&mut samples), median_ms(&mut cpu), image)
}

// Native sampling ------------------------------------------------------------------
//
// Written from the functional spec, not from the engines: texel-space
// coordinates in fixed point with 8 fractional bits (round to nearest
// even), bilinear weights and the trilinear mip weight in 1/256 steps,
// texel centres at half-integers, the isotropic LOD log2 of the longer
// scaled gradient (coarse: top-right - top-left, bottom-left - top-left).

fn fixed(x: f32) -> i64 {
    if x.is_nan() {
        return 0;
    }
    let limit = (1i64 << 40) as f64;
    (f64::from(x) * 256.0)
        .clamp(-limit, limit)
        .round_ties_even() as i64
}

/// A texture's mips as (byte offset, width, height), texels of `bpp` bytes.
struct Mips<'a> {
    t: &'a Texture,
    levels: Vec<(usize, u32, u32)>,
    bpp: usize,
}

impl<'a> Mips<'a> {
    fn new(t: &'a Texture) -> Mips<'a> {
        let bpp = t.format.bytes() as usize;
        let (mut off, mut w, mut h) = (0usize, t.width, t.height);
        let mut levels = Vec::new();
        for _ in 0..t.mips.max(1) {
            levels.push((off, w, h));
            off += w as usize * h as usize * bpp;
            w = (w / 2).max(1);
            h = (h / 2).max(1);
        }
        Mips { t, levels, bpp }
    }

    fn texel(&self, level: usize, x: u32, y: u32) -> [f32; 4] {
        let (off, w, _) = self.levels[level];
        let at = off + (y as usize * w as usize + x as usize) * self.bpp;
        let b = &self.t.data[at..at + self.bpp];
        match self.t.format {
            Format::R32Float => [f32::from_le_bytes([b[0], b[1], b[2], b[3]]), 0.0, 0.0, 1.0],
            _ => std::array::from_fn(|c| f32::from(b[c]) / 255.0),
        }
    }

    /// Bilinear taps at `level`: ((x0, x1, wx), (y0, y1, wy)) after
    /// addressing, with texel offset `off`.
    fn taps(
        &self,
        level: usize,
        uv: [f32; 2],
        off: [i32; 2],
        mode: AddressMode,
    ) -> ([u32; 2], f32, [u32; 2], f32) {
        let (_, w, h) = self.levels[level];
        let axis = |u: f32, size: u32, o: i32| {
            let f = fixed(u * size as f32 - 0.5);
            let i0 = (f >> 8) + i64::from(o);
            let wt = (f & 255) as f32 / 256.0;
            let n = i64::from(size);
            let a = |i: i64| match mode {
                AddressMode::Wrap => i.rem_euclid(n) as u32,
                _ => i.clamp(0, n - 1) as u32,
            };
            ([a(i0), a(i0 + 1)], wt)
        };
        let (xs, wx) = axis(uv[0], w, off[0]);
        let (ys, wy) = axis(uv[1], h, off[1]);
        (xs, wx, ys, wy)
    }

    fn bilinear(&self, level: usize, uv: [f32; 2], off: [i32; 2], mode: AddressMode) -> [f32; 4] {
        let (xs, wx, ys, wy) = self.taps(level, uv, off, mode);
        let t = |x, y| self.texel(level, x, y);
        let (a, b, c, d) = (
            t(xs[0], ys[0]),
            t(xs[1], ys[0]),
            t(xs[0], ys[1]),
            t(xs[1], ys[1]),
        );
        std::array::from_fn(|k| {
            (a[k] * (1.0 - wx) + b[k] * wx) * (1.0 - wy) + (c[k] * (1.0 - wx) + d[k] * wx) * wy
        })
    }

    /// Bilinear percentage-closer: `reference <= texel` per tap, filtered.
    fn compare(&self, uv: [f32; 2], off: [i32; 2], reference: f32) -> f32 {
        let (xs, wx, ys, wy) = self.taps(0, uv, off, AddressMode::Clamp);
        let t = |x, y| f32::from(u8::from(reference <= self.texel(0, x, y)[0]));
        let (a, b, c, d) = (
            t(xs[0], ys[0]),
            t(xs[1], ys[0]),
            t(xs[0], ys[1]),
            t(xs[1], ys[1]),
        );
        (a * (1.0 - wx) + b * wx) * (1.0 - wy) + (c * (1.0 - wx) + d * wx) * wy
    }

    /// The LOD of a quad whose lanes have coordinates `c`.
    fn quad_lod(&self, c: &[[f32; 2]; 4]) -> f32 {
        let (_, w, h) = self.levels[0];
        let len = |g: [f32; 2]| {
            let (a, b) = (g[0] * w as f32, g[1] * h as f32);
            (a * a + b * b).sqrt()
        };
        let dx = [c[1][0] - c[0][0], c[1][1] - c[0][1]];
        let dy = [c[2][0] - c[0][0], c[2][1] - c[0][1]];
        len(dx).max(len(dy)).log2()
    }

    /// Trilinear sample at `lod`.
    fn trilinear(&self, uv: [f32; 2], lod: f32, mode: AddressMode) -> [f32; 4] {
        let last = self.levels.len() - 1;
        let l = if lod.is_nan() {
            0.0
        } else {
            lod.clamp(0.0, last as f32)
        };
        let f = fixed(l);
        let level0 = ((f >> 8) as usize).min(last);
        let wt = (f & 255) as f32 / 256.0;
        let a = self.bilinear(level0, uv, [0, 0], mode);
        if wt == 0.0 || level0 == last {
            return a;
        }
        let b = self.bilinear(level0 + 1, uv, [0, 0], mode);
        std::array::from_fn(|k| a[k] * (1.0 - wt) + b[k] * wt)
    }
}

/// Correctly rounded f32 operations the engines define that way.
fn rsq(x: f32) -> f32 {
    (1.0 / f64::from(x).sqrt()) as f32
}

fn log2(x: f32) -> f32 {
    f64::from(x).log2() as f32
}

fn exp2(x: f32) -> f32 {
    f64::from(x).exp2() as f32
}

type V3 = [f32; 3];

fn dp3(a: V3, b: V3) -> f32 {
    (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]
}

fn scale(v: V3, s: f32) -> V3 {
    v.map(|x| x * s)
}

fn bits(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// Shades every quad of `p` with `f(quad's uv, pixel index) -> colour`.
fn per_quad(p: &PixelProblem, mut f: impl FnMut(&[[f32; 2]; 4], usize) -> [f32; 4]) -> Vec<u32> {
    let mut out = Vec::with_capacity(p.pixels() * 4);
    for q in 0..p.quads() {
        let uv: [[f32; 2]; 4] = std::array::from_fn(|l| {
            let v = p.input(4 * q + l, 1);
            [v[0], v[1]]
        });
        for lane in 0..4 {
            out.extend(bits(f(&uv, lane)));
        }
    }
    out
}

// Textures ---------------------------------------------------------------------------

/// A small deterministic generator (xorshift32).
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// RGBA8 mip chain from mip 0 (each level the rounded mean of 2x2).
fn rgba8_mips(width: u32, height: u32, base: Vec<u8>) -> (u32, Vec<u8>) {
    let mut data = base;
    let (mut w, mut h, mut start) = (width as usize, height as usize, 0usize);
    let mut mips = 1;
    while w > 1 || h > 1 {
        let (nw, nh) = ((w / 2).max(1), (h / 2).max(1));
        let mut next = Vec::with_capacity(nw * nh * 4);
        for y in 0..nh {
            for x in 0..nw {
                for c in 0..4 {
                    let t = |xx: usize, yy: usize| {
                        u32::from(data[start + ((yy.min(h - 1)) * w + xx.min(w - 1)) * 4 + c])
                    };
                    let s = t(2 * x, 2 * y)
                        + t(2 * x + 1, 2 * y)
                        + t(2 * x, 2 * y + 1)
                        + t(2 * x + 1, 2 * y + 1);
                    next.push(((s + 2) / 4) as u8);
                }
            }
        }
        start = data.len();
        data.extend(next);
        (w, h) = (nw, nh);
        mips += 1;
    }
    (mips, data)
}

fn unorm8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

const LIT_TEXTURE: u32 = 512;

/// Albedo: coloured checks (32 texels) with a gradient and speckle.
fn albedo_texture() -> Texture {
    let n = LIT_TEXTURE;
    let mut rng = Rng(11);
    let mut base = Vec::with_capacity((n * n * 4) as usize);
    for y in 0..n {
        for x in 0..n {
            let check = ((x / 32 + y / 32) & 1) == 0;
            let g = x as f32 / n as f32;
            let s = 0.85 + 0.15 * rng.unit();
            let c = if check {
                [0.8 * s, 0.3 + 0.4 * g, 0.2 * s]
            } else {
                [0.2 * s, 0.6 * s, 0.9 - 0.5 * g]
            };
            base.extend([unorm8(c[0]), unorm8(c[1]), unorm8(c[2]), 255]);
        }
    }
    let (mips, data) = rgba8_mips(n, n, base);
    Texture {
        slot: 0,
        format: Format::R8G8B8A8Unorm,
        width: n,
        height: n,
        mips,
        data,
    }
}

/// Tangent-space normal map: a random tilt per 16-texel cell.
fn normal_texture() -> Texture {
    let n = LIT_TEXTURE;
    let cells = (n / 16) as usize;
    let mut rng = Rng(12);
    let tilt: Vec<[f32; 2]> = (0..cells * cells)
        .map(|_| [rng.unit() - 0.5, rng.unit() - 0.5])
        .collect();
    let mut base = Vec::with_capacity((n * n * 4) as usize);
    for y in 0..n {
        for x in 0..n {
            let t = tilt[(y / 16) as usize * cells + (x / 16) as usize];
            let len = (t[0] * t[0] + t[1] * t[1] + 1.0).sqrt();
            let v = [t[0] / len, t[1] / len, 1.0 / len];
            base.extend([
                unorm8(v[0] * 0.5 + 0.5),
                unorm8(v[1] * 0.5 + 0.5),
                unorm8(v[2] * 0.5 + 0.5),
                255,
            ]);
        }
    }
    let (mips, data) = rgba8_mips(n, n, base);
    Texture {
        slot: 1,
        format: Format::R8G8B8A8Unorm,
        width: n,
        height: n,
        mips,
        data,
    }
}

fn trilinear_wrap(slot: u32) -> Sampler {
    Sampler {
        slot,
        desc: SamplerDesc::new(Filter::LINEAR, AddressMode::Wrap),
        comparison: false,
    }
}

fn f32s(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

// 1. lit --------------------------------------------------------------------------

const LIT_CB: [f32; 36] = [
    8.0, 4.5, 16.0, 9.0, // tile, plane size
    -8.0, -4.5, 16.0, 0.1, // plane origin, specular power, ambient
    0.0, 0.0, 10.0, 0.05, // camera, attenuation
    -4.0, 2.0, 3.0, 1.0, // point light
    5.0, -1.0, 2.0, 1.0, // point light
    0.3, 0.5, 0.812_404, 0.0, // directional light
    1.0, 0.9, 0.8, 0.5, // colours, specular strength
    0.3, 0.5, 1.0, 0.3, //
    0.4, 0.4, 0.35, 0.2, //
];

fn lit_resources(_w: u32, _h: u32) -> Resources {
    (
        vec![albedo_texture(), normal_texture()],
        vec![trilinear_wrap(0)],
        f32s(&LIT_CB),
    )
}

fn lit_native(p: &PixelProblem) -> Vec<u32> {
    let albedo = Mips::new(&p.textures[0]);
    let normal = Mips::new(&p.textures[1]);
    let c = |r| p.constant(r);
    let (c0, c1, c2) = (c(0), c(1), c(2));
    let lights: [([f32; 4], [f32; 4]); 3] = std::array::from_fn(|i| (c(3 + i), c(6 + i)));
    let mut lod = (0.0, 0.0);
    per_quad(p, |uv, lane| {
        let tc: [[f32; 2]; 4] = std::array::from_fn(|l| [uv[l][0] * c0[0], uv[l][1] * c0[1]]);
        if lane == 0 {
            lod = (albedo.quad_lod(&tc), normal.quad_lod(&tc));
        }
        let t = tc[lane];
        let a = albedo.trilinear(t, lod.0, AddressMode::Wrap);
        let nm = normal.trilinear(t, lod.1, AddressMode::Wrap);
        let n: V3 = std::array::from_fn(|k| nm[k] * 2.0 + -1.0);
        let n = scale(n, rsq(dp3(n, n)));
        let pos = [
            uv[lane][0] * c0[2] + c1[0],
            uv[lane][1] * c0[3] + c1[1],
            0.0,
        ];
        let v: V3 = std::array::from_fn(|k| -pos[k] + c2[k]);
        let v = scale(v, rsq(dp3(v, v)));
        let mut col: V3 = std::array::from_fn(|k| a[k] * c1[3]);
        for (lp, lc) in &lights {
            let l: V3 = std::array::from_fn(|k| -pos[k] * lp[3] + lp[k]);
            let d2 = dp3(l, l);
            let l = scale(l, rsq(d2));
            let att = 1.0 / ((d2 * lp[3]) * c2[3] + 1.0);
            let ndl = dp3(n, l).clamp(0.0, 1.0);
            let h: V3 = std::array::from_fn(|k| v[k] + l[k]);
            let h = scale(h, rsq(dp3(h, h)));
            let ndh = dp3(n, h).clamp(0.0, 1.0);
            let spec = exp2(log2(ndh) * c1[2]) * lc[3];
            for k in 0..3 {
                col[k] += ((a[k] * ndl + spec) * lc[k]) * att;
            }
        }
        [col[0], col[1], col[2], a[3]]
    })
}

// 2. blur -------------------------------------------------------------------------

const BLUR_WEIGHTS: [f32; 9] = [
    0.0625, 0.125, 0.0625, 0.125, 0.25, 0.125, 0.0625, 0.125, 0.0625,
];
const BLUR_OFFSETS: [[i32; 2]; 9] = [
    [-1, -1],
    [0, -1],
    [1, -1],
    [-1, 0],
    [0, 0],
    [1, 0],
    [-1, 1],
    [0, 1],
    [1, 1],
];

fn blur_resources(w: u32, h: u32) -> Resources {
    let mut rng = Rng(21);
    let data = (0..w as usize * h as usize * 4)
        .map(|_| (rng.next() >> 24) as u8)
        .collect();
    let tex = Texture {
        slot: 0,
        format: Format::R8G8B8A8Unorm,
        width: w,
        height: h,
        mips: 1,
        data,
    };
    let sampler = Sampler {
        slot: 0,
        desc: SamplerDesc::new(Filter::LINEAR, AddressMode::Clamp),
        comparison: false,
    };
    let mut cb = BLUR_WEIGHTS.to_vec();
    cb.resize(12, 0.0);
    (vec![tex], vec![sampler], f32s(&cb))
}

fn blur_native(p: &PixelProblem) -> Vec<u32> {
    let t = Mips::new(&p.textures[0]);
    let wts: Vec<f32> = (0..9).map(|i| p.constant(i / 4)[i % 4]).collect();
    per_quad(p, |uv, lane| {
        let mut acc = [0.0f32; 4];
        for (i, (off, w)) in BLUR_OFFSETS.iter().zip(&wts).enumerate() {
            let s = t.bilinear(0, uv[lane], *off, AddressMode::Clamp);
            for k in 0..4 {
                acc[k] = if i == 0 { s[k] * w } else { s[k] * w + acc[k] };
            }
        }
        acc
    })
}

// 3. shadow -------------------------------------------------------------------------

const SHADOW_MAP: u32 = 1024;
const SHADOW_CB: [f32; 8] = [1.0, 1.0, 0.0, 0.0, 0.3, 0.2, 0.25, 0.0];

/// The 16 tap offsets in shadow-map uv: texels -2..1 on each axis, x
/// fastest.
fn shadow_offsets() -> [[f32; 2]; 16] {
    std::array::from_fn(|i| {
        let texel = 1.0 / SHADOW_MAP as f32;
        [(i % 4) as f32 - 2.0, (i / 4) as f32 - 2.0].map(|t| t * texel)
    })
}

fn shadow_resources(_w: u32, _h: u32) -> Resources {
    let n = SHADOW_MAP as usize;
    let mut rng = Rng(31);
    let discs: Vec<[f32; 4]> = (0..24)
        .map(|_| {
            [
                rng.unit() * n as f32,
                rng.unit() * n as f32,
                20.0 + 100.0 * rng.unit(),
                0.1 + 0.5 * rng.unit(),
            ]
        })
        .collect();
    let mut data = Vec::with_capacity(n * n * 4);
    for y in 0..n {
        for x in 0..n {
            let mut d = 1.0f32;
            for c in &discs {
                let (dx, dy) = (x as f32 + 0.5 - c[0], y as f32 + 0.5 - c[1]);
                if dx * dx + dy * dy < c[2] * c[2] {
                    d = d.min(c[3]);
                }
            }
            data.extend(d.to_le_bytes());
        }
    }
    let tex = Texture {
        slot: 0,
        format: Format::R32Float,
        width: SHADOW_MAP,
        height: SHADOW_MAP,
        mips: 1,
        data,
    };
    let sampler = Sampler {
        slot: 0,
        desc: SamplerDesc {
            filter: Filter {
                min: FilterMode::Linear,
                mag: FilterMode::Linear,
                mip: FilterMode::Point,
                anisotropic: false,
            },
            comparison: ComparisonFunc::LessEqual,
            ..SamplerDesc::new(Filter::LINEAR, AddressMode::Clamp)
        },
        comparison: true,
    };
    let mut cb = SHADOW_CB.to_vec();
    cb.extend(shadow_offsets().iter().flatten());
    (vec![tex], vec![sampler], f32s(&cb))
}

fn shadow_native(p: &PixelProblem) -> Vec<u32> {
    let t = Mips::new(&p.textures[0]);
    let (c0, c1) = (p.constant(0), p.constant(1));
    per_quad(p, |uv, lane| {
        let [u, v] = uv[lane];
        let tc = [u * c0[0] + c0[2], v * c0[1] + c0[3]];
        let reference = (u * c1[0] + v * c1[1]) + c1[2];
        let mut sum = 0.0f32;
        for i in 0..16 {
            let off = p.constant(2 + i / 2);
            let o = if i % 2 == 0 {
                [off[0], off[1]]
            } else {
                [off[2], off[3]]
            };
            let s = t.compare([tc[0] + o[0], tc[1] + o[1]], [0, 0], reference);
            sum = if i == 0 { s } else { sum + s };
        }
        let s = sum * 0.0625;
        [s, s, s, 1.0]
    })
}

// 4. noise ----------------------------------------------------------------------------

const NOISE_FREQUENCY: f32 = 8.0;
const NOISE_OCTAVES: u32 = 8;

fn noise_resources(_w: u32, _h: u32) -> Resources {
    (
        Vec::new(),
        Vec::new(),
        vec![NOISE_FREQUENCY.to_bits(), NOISE_OCTAVES, 0, 0],
    )
}

/// The shader's corner hash: a value in [0, 1) with 24 bits.
fn noise_hash(x: i32, y: i32) -> f32 {
    let mut n = (x as u32)
        .wrapping_mul(374_761_393)
        .wrapping_add((y as u32).wrapping_mul(668_265_263));
    n ^= n >> 13;
    n = n.wrapping_mul(1_274_126_177);
    n ^= n >> 16;
    ((n >> 8) as f32) * f32::from_bits(0x3380_0000)
}

/// The shader's ftoi: truncate, saturate, NaN to 0.
fn ftoi(x: f32) -> i32 {
    x as i32
}

fn noise_value(u: f32, v: f32, freq: f32, octaves: u32) -> f32 {
    let (mut px, mut py) = (u * freq, v * freq);
    let (mut sum, mut amp) = (0.0f32, 0.5f32);
    for _ in 0..octaves {
        let (ix, iy) = (px.floor(), py.floor());
        let (fx, fy) = (px + -ix, py + -iy);
        let (xi, yi) = (ftoi(ix), ftoi(iy));
        let h = [
            noise_hash(xi, yi),
            noise_hash(xi.wrapping_add(1), yi),
            noise_hash(xi, yi.wrapping_add(1)),
            noise_hash(xi.wrapping_add(1), yi.wrapping_add(1)),
        ];
        let sx = ((fx * -2.0 + 3.0) * fx) * fx;
        let sy = ((fy * -2.0 + 3.0) * fy) * fy;
        let a = (h[1] + -h[0]) * sx + h[0];
        let b = (h[3] + -h[2]) * sx + h[2];
        let n = (b + -a) * sy + a;
        sum += n * amp;
        amp *= 0.5;
        px = px * 2.03 + 1.7;
        py = py * 2.03 + 9.2;
    }
    sum
}

fn noise_native(p: &PixelProblem) -> Vec<u32> {
    let freq = f32::from_bits(p.constants[0]);
    let octaves = p.constants[1];
    let mut out = Vec::with_capacity(p.pixels() * 4);
    for i in 0..p.pixels() {
        let uv = p.input(i, 1);
        let n = noise_value(uv[0], uv[1], freq, octaves);
        out.extend(bits([n, n * n, -n + 1.0, 1.0]));
    }
    out
}

// The table ------------------------------------------------------------------------------

/// Sampled kernels against native: the engines' filtering arithmetic and
/// the 1/256 steps can land one step apart from ours on a few channels.
const SAMPLED: ImageTolerance = ImageTolerance {
    rel: 1e-4,
    abs: 1e-4,
    outliers: 1e-3,
};

/// lavapipe: its own filtering precision and LOD approximation, and fused
/// `mad`.
const PEER_SAMPLED: ImageTolerance = ImageTolerance {
    rel: 0.02,
    abs: 0.02,
    outliers: 0.01,
};

pub static PIXEL_KERNELS: [PixelKernel; 4] = [
    PixelKernel {
        name: "lit",
        what: "albedo + normal map (RGBA8, 10 mips, trilinear, wrap), ambient + 2 point + 1 directional light, Blinn-Phong",
        limit: "two trilinear samples (16 texels) and ~100 ALU ops per pixel",
        ps: include_str!("../../benches/kernels/lit_ps.asm"),
        samples: true,
        resources: lit_resources,
        native: lit_native,
        tolerance: SAMPLED,
        peer_tolerance: PEER_SAMPLED,
    },
    PixelKernel {
        name: "blur9",
        what: "3x3 (9-tap) weighted blur of an RGBA8 texture the size of the target, immediate offsets",
        limit: "nine bilinear samples per pixel, a memory-bound texture read",
        ps: include_str!("../../benches/kernels/blur_ps.asm"),
        samples: true,
        resources: blur_resources,
        native: blur_native,
        tolerance: SAMPLED,
        peer_tolerance: PEER_SAMPLED,
    },
    PixelKernel {
        name: "shadow16",
        what: "16 sample_c (a 4x4 grid of offsets from cb0) of a 1024x1024 R32_FLOAT shadow map, bilinear PCF, LESS_EQUAL",
        limit: "sixteen comparison samples (64 texel compares) per pixel",
        ps: include_str!("../../benches/kernels/shadow_ps.asm"),
        samples: true,
        resources: shadow_resources,
        native: shadow_native,
        tolerance: SAMPLED,
        peer_tolerance: PEER_SAMPLED,
    },
    PixelKernel {
        name: "noise",
        what: "8-octave fractal value noise with an integer hash, in a loop; no textures",
        limit: "ALU: ~25 integer and float vector ops per octave",
        ps: include_str!("../../benches/kernels/noise_ps.asm"),
        samples: false,
        resources: noise_resources,
        native: noise_native,
        tolerance: ImageTolerance::EXACT,
        // A fused mad moves a few cell boundaries of the higher octaves.
        peer_tolerance: ImageTolerance {
            rel: 1e-3,
            abs: 1e-3,
            outliers: 0.01,
        },
    },
];

/// The pixel kernel called `name`.
pub fn pixel_kernel(name: &str) -> Option<&'static PixelKernel> {
    PIXEL_KERNELS.iter().find(|k| k.name == name)
}

// Peer files ------------------------------------------------------------------------------

/// A signature chunk (ISGN/OSGN layout: 24-byte elements, then names) for
/// the elements that have a register. Outputs store 0 as the "never
/// written" mask, inputs their mask as the "used" mask; untyped elements
/// are float; SV_Target is system value 0, as fxc writes it.
pub fn signature_chunk(elements: &[SignatureElement], output: bool) -> Vec<u8> {
    let els: Vec<&SignatureElement> = elements.iter().filter(|e| e.register.is_some()).collect();
    let table = 8 + 24 * els.len();
    let mut names = Vec::new();
    let mut out = Vec::new();
    out.extend((els.len() as u32).to_le_bytes());
    out.extend(8u32.to_le_bytes());
    for e in &els {
        let name_at = (table + names.len()) as u32;
        names.extend(e.semantic.as_bytes());
        names.push(0);
        // Assembly carries no types: an untyped element is float.
        let ty = match e.component_type {
            ComponentType::Uint => 1u32,
            ComponentType::Sint => 2,
            ComponentType::Float | ComponentType::Unknown => 3,
        };
        // Containers store SV_Target, SV_Depth, ... (D3D_NAME 64 and up)
        // as 0, named by the semantic alone.
        let sv = if e.system_value.0 >= 64 {
            0
        } else {
            e.system_value.0
        };
        let rw = if output { 0 } else { e.mask };
        let packed = u32::from(e.mask) | (u32::from(rw) << 8);
        for w in [
            name_at,
            e.semantic_index,
            sv,
            ty,
            e.register.unwrap_or(0),
            packed,
        ] {
            out.extend(w.to_le_bytes());
        }
    }
    out.extend(names);
    while out.len() % 4 != 0 {
        out.push(0);
    }
    out
}

/// A DXBC container of `asm` with input and output signatures (what a
/// graphics pipeline links by).
pub fn dxbc_with_signatures(asm: &str) -> Result<Vec<u8>, String> {
    let program = sm5jit::asm::parse_program(asm).map_err(|e| e.to_string())?;
    let shader = Shader::new(&program, EngineKind::Interpreter).map_err(|e| e.to_string())?;
    let r = shader.reflect();
    let isgn = signature_chunk(&r.inputs, false);
    let osgn = signature_chunk(&r.outputs, true);
    sm5jit::dxbc::write_dxbc(&program, Some(&isgn), Some(&osgn)).map_err(|e| e.to_string())
}

/// DXGI_FORMAT numbers of the formats the kernels use.
pub fn dxgi_number(f: Format) -> u32 {
    match f {
        Format::R32G32B32A32Float => 2,
        Format::R8G8B8A8Unorm => 28,
        Format::R32Float => 41,
        _ => 0,
    }
}

/// D3D12_FILTER of a sampler.
pub fn d3d12_filter(s: &Sampler) -> u32 {
    let m = |f: FilterMode| u32::from(f == FilterMode::Linear);
    let f = s.desc.filter;
    let base = (m(f.min) << 4) | (m(f.mag) << 2) | m(f.mip);
    base | if s.comparison { 0x80 } else { 0 }
}

/// D3D12_TEXTURE_ADDRESS_MODE.
pub fn d3d12_address(a: AddressMode) -> u32 {
    match a {
        AddressMode::Wrap => 1,
        AddressMode::Mirror => 2,
        AddressMode::Clamp => 3,
        AddressMode::Border => 4,
        AddressMode::MirrorOnce => 5,
    }
}

/// D3D12_COMPARISON_FUNC.
pub fn d3d12_comparison(c: ComparisonFunc) -> u32 {
    match c {
        ComparisonFunc::Never => 1,
        ComparisonFunc::Less => 2,
        ComparisonFunc::Equal => 3,
        ComparisonFunc::LessEqual => 4,
        ComparisonFunc::Greater => 5,
        ComparisonFunc::NotEqual => 6,
        ComparisonFunc::GreaterEqual => 7,
        ComparisonFunc::Always => 8,
    }
}

/// The files `scripts/vkd3d-draw` reads for kernel `k` at `p`'s size, as
/// (file name, bytes); `K.args` (one argument per line) names the others
/// under `dir` and asks for the render target in `K.rt.out`.
pub fn peer_files(
    k: &PixelKernel,
    p: &PixelProblem,
    dir: &std::path::Path,
) -> Result<Vec<(String, Vec<u8>)>, String> {
    let path = |f: &str| dir.join(f).display().to_string();
    let name = k.name;
    let mut files = vec![
        (
            format!("{name}.vs.dxbc"),
            dxbc_with_signatures(FULLSCREEN_VS)?,
        ),
        (format!("{name}.ps.dxbc"), dxbc_with_signatures(k.ps)?),
    ];
    let mut args = vec![
        "--size".to_string(),
        p.width.to_string(),
        p.height.to_string(),
        "--vs".into(),
        path(&format!("{name}.vs.dxbc")),
        "--ps".into(),
        path(&format!("{name}.ps.dxbc")),
        "--rt-format".into(),
        dxgi_number(TARGET_FORMAT).to_string(),
    ];
    // Vulkan compares only against depth formats: a shadow map read
    // through a comparison sampler becomes a depth resource there.
    let compares = p.samplers.iter().any(|s| s.comparison);
    for t in &p.textures {
        let file = format!("{name}.t{}.bin", t.slot);
        let depth = if compares && t.format == Format::R32Float {
            "depth:"
        } else {
            ""
        };
        args.extend([
            "--texture".into(),
            format!(
                "{depth}t{}:{}:{}:{}:{}:{}",
                t.slot,
                dxgi_number(t.format),
                t.width,
                t.height,
                t.mips,
                path(&file)
            ),
        ]);
        files.push((file, t.data.clone()));
    }
    for s in &p.samplers {
        let d = &s.desc;
        args.extend([
            "--sampler".into(),
            format!(
                "s{}:{}:{}:{}:{}:{}",
                s.slot,
                d3d12_filter(s),
                d3d12_address(d.address_u),
                d3d12_address(d.address_v),
                d3d12_address(d.address_w),
                d3d12_comparison(d.comparison)
            ),
        ]);
    }
    if !p.constants.is_empty() {
        let file = format!("{name}.b0.bin");
        args.extend(["--cbv".into(), format!("b0:{}", path(&file))]);
        files.push((file, p.cb_bytes()));
    }
    args.extend(["--out".into(), path(&format!("{name}.rt.out"))]);
    let mut text = args.join("\n");
    text.push('\n');
    files.push((format!("{name}.args"), text.into_bytes()));
    Ok(files)
}

/// Checks the render target another implementation wrote (`bytes`: RGBA32F
/// rows top to bottom) against the native image under the peer tolerance.
pub fn peer_check(
    k: &PixelKernel,
    p: &PixelProblem,
    native: &[u32],
    bytes: &[u8],
) -> Result<(), String> {
    let want = p.pixels() * 16;
    if bytes.len() != want {
        return Err(format!(
            "{}: the render target has {} bytes, expected {want} ({}x{} RGBA32F)",
            k.name,
            bytes.len(),
            p.width,
            p.height
        ));
    }
    let rows = super::kernels::words_of(bytes);
    let quad = rows_to_quad(p.width, p.height, &rows);
    check_image(k.name, k.peer_tolerance, p.width, native, &quad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quad_order_round_trips_and_names_pixels() {
        assert_eq!(pixel_of(8, 0), (0, 0));
        assert_eq!(pixel_of(8, 3), (1, 1));
        assert_eq!(pixel_of(8, 4), (2, 0));
        assert_eq!(pixel_of(8, 17), (1, 2));
        let rows: Vec<u32> = (0..8 * 4 * 4).collect();
        let q = rows_to_quad(8, 4, &rows);
        assert_eq!(quad_to_rows(8, 4, &q), rows);
        assert_eq!(size_for(1920), [1920, 1080]);
        assert_eq!(size_for(65), [66, 38]);
    }

    #[test]
    fn interpolated_uv_is_the_pixel_centre() {
        let k = pixel_kernel("noise").unwrap();
        let p = k.problem(16, 8).unwrap();
        for i in [0usize, 5, 77, 127] {
            let (x, y) = p.pixel_of(i);
            let uv = p.input(i, 1);
            assert!((uv[0] - (x as f32 + 0.5) / 16.0).abs() < 1e-5, "{uv:?}");
            assert!((uv[1] - (y as f32 + 0.5) / 8.0).abs() < 1e-5, "{uv:?}");
        }
    }

    #[test]
    fn the_checker_allows_only_the_stated_outliers() {
        let tol = ImageTolerance {
            rel: 0.0,
            abs: 0.01,
            outliers: 0.25,
        };
        let want = bits([1.0, 2.0, 3.0, 4.0]).to_vec();
        let mut got = bits([1.005, 2.0, 3.0, 4.0]).to_vec();
        assert_eq!(check_image("k", tol, 2, &want, &got), Ok(()));
        got[1] = 9.0f32.to_bits();
        assert_eq!(check_image("k", tol, 2, &want, &got), Ok(()));
        got[2] = 9.0f32.to_bits();
        let e = check_image("k", tol, 2, &want, &got).unwrap_err();
        assert!(e.contains("pixel (0, 0) channel g"), "{e}");
        assert!(check_image("k", ImageTolerance::EXACT, 2, &want, &want).is_ok());
    }

    #[test]
    fn mips_halve_down_to_one_texel() {
        let (mips, data) = rgba8_mips(4, 2, vec![200; 32]);
        assert_eq!(mips, 3);
        assert_eq!(data.len(), (8 + 2 + 1) * 4);
        assert!(data.iter().all(|&b| b == 200));
        let t = albedo_texture();
        assert_eq!(t.mips, 10);
        assert_eq!(t.data.len() as u64, t.view().size_bytes());
    }

    #[test]
    fn signatures_parse_back() {
        let bytes = dxbc_with_signatures(FULLSCREEN_VS).unwrap();
        let s = sm5jit::dxbc::read_dxbc(&bytes, &sm5jit::dxbc::ReadOptions::default()).unwrap();
        let vs = Shader::from_decoded(&s.program, Some(&s.info), EngineKind::Interpreter).unwrap();
        let out = &vs.reflect().outputs;
        assert_eq!(out[0].semantic, "SV_Position");
        assert_eq!(out[1].semantic, "TEXCOORD");
        assert_eq!((out[1].semantic_index, out[1].register), (1, Some(1)));
        assert_eq!(vs.reflect().inputs[0].semantic, "SV_VertexID");
    }

    #[test]
    fn noise_hash_is_the_shaders() {
        // n = 0: x = y = 0.
        assert_eq!(noise_hash(0, 0), 0.0);
        let v = noise_value(0.3, 0.7, 8.0, 8);
        assert!((0.0..1.0).contains(&v), "{v}");
    }
}
