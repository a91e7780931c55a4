//! The benchmark kernels: SM5 assembly, the problem it runs on, a native
//! Rust baseline of the same algorithm, and a checker.
//!
//! In: a kernel name and a problem size. Out: a [`Problem`] (the resources
//! an engine binds, the dispatch, the thread count, the UAVs to compare)
//! and the native baseline's result for it. Invariant: every kernel's
//! output after one dispatch equals the native output word for word, except
//! the kernels with a stated [`Tolerance`]; sizes are clamped to what the
//! kernel supports (multiples of its group size, at most [`MAX_SIZE`]) so a
//! size from the command line never allocates without bound.
//!
//! The native functions do the same float operations in the same order as
//! the assembly (a `mad` is an unrounded-then-rounded multiply and add, as
//! Rust's `a * b + c` without `mul_add`), so the float kernels saxpy,
//! mandelbrot and matmul are compared exactly too; their synthetic inputs
//! keep every value far from the denormal range the shader flushes.

use crate::case::spec::ResourceKindSpec;
use crate::case::{Resource, SlotClass, SlotRef};

/// Largest problem size any kernel accepts (elements, pixels per side or bodies).
pub const MAX_SIZE: u32 = 1 << 24;

/// How an engine's output is compared with the native output.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    /// Every word equal.
    Exact,
    /// Every word read as an f32 within `rel * max(|a|, |b|)` or `abs` of
    /// the native value (NaN only matches NaN).
    Float { rel: f32, abs: f32 },
    /// At most this fraction of the words may differ (a peer that fuses
    /// `mad` may move a Mandelbrot pixel's escape by an iteration).
    Fraction(f64),
}

/// A plain Rust function computing a kernel's outputs: it reads `inputs`
/// and updates `outputs` in place, which hold the initial words of the UAVs
/// in [`Problem::outputs`] order, as a bound UAV does for an engine. Both
/// are decoded before any clock starts: an engine reads the bound bytes in
/// place, so decoding is no part of the work a baseline is timed on.
pub type Baseline = fn(&Inputs, &mut [Vec<u32>]);

/// The words of every bound slot that is not an output (SRVs, `cb0`),
/// decoded once.
#[derive(Clone, Debug, Default)]
pub struct Inputs {
    slots: Vec<(SlotRef, Vec<u32>)>,
}

impl Inputs {
    /// The words bound at `slot` (empty if unbound).
    pub fn words(&self, slot: &str) -> &[u32] {
        let Some(want) = SlotRef::parse(slot, 0) else {
            return &[];
        };
        self.slots
            .iter()
            .find(|(s, _)| *s == want)
            .map_or(&[], |(_, w)| w.as_slice())
    }

    /// The constant buffer's words (empty if none).
    pub fn constants(&self) -> &[u32] {
        self.words("cb0")
    }
}

/// One benchmark kernel.
pub struct Kernel {
    /// Short name used on the command line (`saxpy`).
    pub name: &'static str,
    /// What it computes, one line.
    pub what: &'static str,
    /// What bounds its speed in the interpreter, one line.
    pub limit: &'static str,
    /// `cs_5_0` assembly in fxc's dialect.
    pub asm: &'static str,
    /// The size used by `sm5jit bench` and the criterion benches.
    pub bench_size: u32,
    /// A small size for the tests.
    pub test_size: u32,
    /// Sizes are rounded up to a multiple of this.
    pub granule: u32,
    /// Builds the problem for a (rounded, clamped) size.
    pub build: fn(u32) -> Problem,
    /// The native baseline: the output words of each UAV in
    /// [`Problem::outputs`] order.
    pub native: Baseline,
    /// The fastest plain Rust loop for the same output where it is a
    /// different algorithm from the shader's (a running sum instead of the
    /// tree, plain counters instead of atomics): the "limit" column.
    pub plain: Option<Baseline>,
    pub tolerance: Tolerance,
    /// How another implementation's output is compared (vkd3d turns `mad`
    /// into a fused multiply-add, so float kernels differ in the last bits).
    pub peer_tolerance: Tolerance,
}

/// A problem instance: what to bind and how to dispatch.
#[derive(Clone, Debug)]
pub struct Problem {
    pub size: u32,
    pub groups: [u32; 3],
    /// Invocations the dispatch runs (for threads per second).
    pub threads: u64,
    /// Every bound slot with its initial contents; `cb0` last, if any.
    pub resources: Vec<Resource>,
    /// The UAVs whose contents are compared.
    pub outputs: Vec<SlotRef>,
}

impl Problem {
    /// The words of the resource bound at `slot` (empty if unbound).
    pub fn words(&self, slot: &str) -> Vec<u32> {
        let Some(want) = SlotRef::parse(slot, 0) else {
            return Vec::new();
        };
        self.resources
            .iter()
            .find(|r| r.slot == want)
            .map_or_else(Vec::new, |r| words_of(&r.data))
    }

    /// The constant buffer's words (empty if none).
    pub fn constants(&self) -> Vec<u32> {
        self.words("cb0")
    }

    /// The inputs a native baseline reads: every slot but the outputs.
    pub fn inputs(&self) -> Inputs {
        let slots = self
            .resources
            .iter()
            .filter(|r| !self.outputs.contains(&r.slot))
            .map(|r| (r.slot, words_of(&r.data)))
            .collect();
        Inputs { slots }
    }

    /// The output words of `resources` (after a dispatch), in output order.
    pub fn outputs_of(&self, resources: &[Resource]) -> Vec<Vec<u32>> {
        self.outputs
            .iter()
            .map(|s| {
                resources
                    .iter()
                    .find(|r| r.slot == *s)
                    .map_or_else(Vec::new, |r| words_of(&r.data))
            })
            .collect()
    }
}

/// Little-endian words of `bytes` (a trailing partial word is dropped).
pub fn words_of(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// A buffer resource at `slot` holding `words`.
fn buffer(slot: &str, kind: ResourceKindSpec, stride: u32, words: &[u32]) -> Resource {
    let mut data = bytes_of(words);
    let element = match kind {
        ResourceKindSpec::Structured => stride.max(1),
        _ => 4,
    };
    if kind == ResourceKindSpec::Constant {
        data.resize(data.len().div_ceil(16) * 16, 0);
    }
    let num_elements = u32::try_from(data.len() / element as usize).unwrap_or(u32::MAX);
    Resource {
        slot: SlotRef::parse(slot, 0).unwrap_or(SlotRef {
            class: SlotClass::Uav,
            index: 0,
            space: 0,
        }),
        kind,
        stride: if kind == ResourceKindSpec::Structured {
            stride
        } else {
            0
        },
        format: None,
        width: 0,
        height: 0,
        first_element: 0,
        num_elements,
        data,
        counter: None,
    }
}

fn raw(slot: &str, words: &[u32]) -> Resource {
    buffer(slot, ResourceKindSpec::Raw, 0, words)
}

fn structured(slot: &str, stride: u32, words: &[u32]) -> Resource {
    buffer(slot, ResourceKindSpec::Structured, stride, words)
}

fn constants(words: &[u32]) -> Resource {
    buffer("cb0", ResourceKindSpec::Constant, 0, words)
}

fn slot(name: &str) -> SlotRef {
    SlotRef::parse(name, 0).unwrap_or(SlotRef {
        class: SlotClass::Uav,
        index: 0,
        space: 0,
    })
}

/// A small deterministic generator (xorshift32) for synthetic inputs.
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

    /// A float in [lo, hi) with 24 random bits.
    fn float(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next() >> 8) as f32 / (1u32 << 24) as f32;
        lo + (hi - lo) * unit
    }
}

fn floats(n: usize, seed: u32, lo: f32, hi: f32) -> Vec<u32> {
    let mut rng = Rng(seed);
    (0..n).map(|_| rng.float(lo, hi).to_bits()).collect()
}

fn ints(n: usize, seed: u32) -> Vec<u32> {
    let mut rng = Rng(seed);
    (0..n).map(|_| rng.next()).collect()
}

fn f(w: u32) -> f32 {
    f32::from_bits(w)
}

fn groups_for(n: u32, per_group: u32) -> u32 {
    n.div_ceil(per_group).max(1)
}

// 1. saxpy -----------------------------------------------------------------

fn saxpy_build(n: u32) -> Problem {
    let a = 1.5f32;
    Problem {
        size: n,
        groups: [groups_for(n, 64), 1, 1],
        threads: u64::from(groups_for(n, 64)) * 64,
        resources: vec![
            structured("t0", 4, &floats(n as usize, 1, -1.0, 1.0)),
            structured("u0", 4, &floats(n as usize, 2, -1.0, 1.0)),
            constants(&[a.to_bits(), n]),
        ],
        outputs: vec![slot("u0")],
    }
}

fn saxpy_native(i: &Inputs, out: &mut [Vec<u32>]) {
    let a = f(i.constants()[0]);
    for (yi, xi) in out[0].iter_mut().zip(i.words("t0")) {
        *yi = (a * f(*xi) + f(*yi)).to_bits();
    }
}

// 2. mandelbrot ------------------------------------------------------------

const MANDEL_ITERS: u32 = 256;

fn mandel_build(side: u32) -> Problem {
    let (x0, y0) = (-2.0f32, -1.25f32);
    let step = 2.5f32 / side as f32;
    let g = groups_for(side, 8);
    Problem {
        size: side,
        groups: [g, g, 1],
        threads: u64::from(g * 8) * u64::from(g * 8),
        resources: vec![
            raw("u0", &vec![0; (side as usize) * (side as usize)]),
            constants(&[
                side,
                side,
                MANDEL_ITERS,
                0,
                x0.to_bits(),
                y0.to_bits(),
                step.to_bits(),
                step.to_bits(),
            ]),
        ],
        outputs: vec![slot("u0")],
    }
}

/// Escape iterations of one point, in the shader's operation order.
fn mandel_point(cx: f32, cy: f32, max: u32) -> u32 {
    let (mut zx, mut zy) = (0.0f32, 0.0f32);
    let mut i = 0;
    while i < max {
        let (x2, y2) = (zx * zx, zy * zy);
        if 4.0 < x2 + y2 {
            break;
        }
        zy = (zx + zx) * zy + cy;
        zx = (x2 - y2) + cx;
        i += 1;
    }
    i
}

fn mandel_native(i: &Inputs, out: &mut [Vec<u32>]) {
    let c = i.constants();
    let (w, h, max) = (c[0], c[1], c[2]);
    let (x0, y0, dx, dy) = (f(c[4]), f(c[5]), f(c[6]), f(c[7]));
    let rows = out[0].chunks_exact_mut((w as usize).max(1));
    for (y, row) in (0..h).zip(rows) {
        let cy = y as f32 * dy + y0;
        for (x, cell) in (0..w).zip(row.iter_mut()) {
            *cell = mandel_point(x as f32 * dx + x0, cy, max);
        }
    }
}

// 3. reduction and 4. scan -------------------------------------------------

fn blocks_build(n: u32, out_words: usize, seed: u32) -> Problem {
    Problem {
        size: n,
        groups: [n / 256, 1, 1],
        threads: u64::from(n),
        resources: vec![
            raw("t0", &ints(n as usize, seed)),
            raw("u0", &vec![0; out_words]),
        ],
        outputs: vec![slot("u0")],
    }
}

fn reduce_build(n: u32) -> Problem {
    blocks_build(n, (n / 256) as usize, 3)
}

/// A group barrier in a native baseline: the shared array is written out
/// to memory here, as the shader's `sync_g_t` makes it visible to the
/// group's other threads. Without it the compiler sees that one thread
/// owns the array and may keep it in registers across steps: reduce's
/// tree then compiled to the plain sum (its time at or under the
/// "limit" column), not the shader's algorithm.
fn barrier(shared: &mut [u32; 256]) {
    std::hint::black_box(shared);
}

/// The shader's algorithm: each block copied to a shared array, then a
/// tree of halving steps (`a[i] += a[i + s]` for `i < s`), as the barriers
/// order them.
fn reduce_native(i: &Inputs, out: &mut [Vec<u32>]) {
    let mut shared = [0u32; 256];
    for (sum, b) in out[0].iter_mut().zip(i.words("t0").chunks_exact(256)) {
        shared.copy_from_slice(b);
        barrier(&mut shared);
        let mut s = 128;
        while s > 0 {
            let (lo, hi) = shared.split_at_mut(s);
            for (x, y) in lo.iter_mut().zip(&hi[..s]) {
                *x = x.wrapping_add(*y);
            }
            barrier(&mut shared);
            s >>= 1;
        }
        *sum = shared[0];
    }
}

/// The limit: a running sum of each block.
fn reduce_plain(i: &Inputs, out: &mut [Vec<u32>]) {
    for (sum, b) in out[0].iter_mut().zip(i.words("t0").chunks(256)) {
        *sum = b.iter().fold(0u32, |s, &v| s.wrapping_add(v));
    }
}

fn scan_build(n: u32) -> Problem {
    blocks_build(n, n as usize, 4)
}

/// The shader's algorithm (Hillis-Steele): each thread's running value
/// adds the shared word `off` places back, then every thread stores its
/// value, for `off` = 1, 2, 4, ..., 128.
fn scan_native(i: &Inputs, out: &mut [Vec<u32>]) {
    let mut shared = [0u32; 256];
    let blocks = i.words("t0").chunks_exact(256);
    for (block, own) in blocks.zip(out[0].chunks_exact_mut(256)) {
        shared.copy_from_slice(block);
        own.copy_from_slice(block);
        barrier(&mut shared);
        let mut off = 1;
        while off < 256 {
            for i in off..256 {
                own[i] = own[i].wrapping_add(shared[i - off]);
            }
            shared.copy_from_slice(own);
            barrier(&mut shared);
            off <<= 1;
        }
    }
}

/// The limit: a running sum of each block.
fn scan_plain(i: &Inputs, out: &mut [Vec<u32>]) {
    let blocks = i.words("t0").chunks(256);
    for (block, o) in blocks.zip(out[0].chunks_mut(256)) {
        let mut sum = 0u32;
        for (&v, o) in block.iter().zip(o) {
            sum = sum.wrapping_add(v);
            *o = sum;
        }
    }
}

// 5. matmul ----------------------------------------------------------------

fn matmul_build(n: u32) -> Problem {
    let cells = (n as usize) * (n as usize);
    Problem {
        size: n,
        groups: [n / 16, n / 16, 1],
        threads: u64::from(n) * u64::from(n),
        resources: vec![
            structured("t0", 4, &floats(cells, 5, -1.0, 1.0)),
            structured("t1", 4, &floats(cells, 6, -1.0, 1.0)),
            structured("u0", 4, &vec![0; cells]),
            constants(&[n]),
        ],
        outputs: vec![slot("u0")],
    }
}

fn matmul_native(i: &Inputs, out: &mut [Vec<u32>]) {
    let n = i.constants()[0] as usize;
    let (a, b) = (i.words("t0"), i.words("t1"));
    for (row, cells) in out[0].chunks_mut(n.max(1)).enumerate() {
        let a_row = &a[row * n..row * n + n];
        for (col, cell) in cells.iter_mut().enumerate() {
            let mut acc = 0.0f32;
            for (k, &ak) in a_row.iter().enumerate() {
                acc += f(ak) * f(b[k * n + col]);
            }
            *cell = acc.to_bits();
        }
    }
}

// 6. histogram -------------------------------------------------------------

fn histogram_build(n: u32) -> Problem {
    Problem {
        size: n,
        groups: [groups_for(n, 64), 1, 1],
        threads: u64::from(groups_for(n, 64)) * 64,
        resources: vec![
            raw("t0", &ints(n as usize, 7)),
            raw("u0", &[0; 256]),
            constants(&[n]),
        ],
        outputs: vec![slot("u0")],
    }
}

/// The shader's work done the way a CPU programmer would with other groups
/// running at the same time: per group of 64 words, counters in the group,
/// then one atomic add to the shared bins per counter used.
fn histogram_native(i: &Inputs, out: &mut [Vec<u32>]) {
    use std::sync::atomic::{AtomicU32, Ordering};
    let bins: Vec<AtomicU32> = out[0].iter().map(|&b| AtomicU32::new(b)).collect();
    let mut local = [0u32; 256];
    for group in i.words("t0").chunks(64) {
        for &v in group {
            local[(v & 255) as usize] += 1;
        }
        for &v in group {
            let b = (v & 255) as usize;
            if local[b] != 0 {
                bins[b].fetch_add(local[b], Ordering::Relaxed);
                local[b] = 0;
            }
        }
    }
    for (o, b) in out[0].iter_mut().zip(bins) {
        *o = b.into_inner();
    }
}

/// The limit: plain counters on one thread.
fn histogram_plain(i: &Inputs, out: &mut [Vec<u32>]) {
    let bins = &mut out[0];
    for &v in i.words("t0") {
        bins[(v & 255) as usize] += 1;
    }
}

// 7. nbody (bgfx cs_update_instances) --------------------------------------

const NBODY_CONSTANTS: [f32; 4] = [0.01, 0.0, 0.3, 0.999];
const NBODY_MAX_ACCEL: f32 = 30.0;

fn nbody_build(bodies: u32) -> Problem {
    let pos = |seed| -> Vec<u32> {
        let mut rng = Rng(seed);
        (0..bodies)
            .flat_map(|_| {
                let p = [rng.float(-10.0, 10.0), rng.float(-10.0, 10.0)];
                [p[0], p[1], rng.float(-10.0, 10.0), 1.0].map(f32::to_bits)
            })
            .collect()
    };
    let [dt, _, soft, damp] = NBODY_CONSTANTS;
    // One block: every body feels the first 512. With more blocks fxc's code
    // races (a thread stores the next block into g0 before the others have
    // read the current one: there is no barrier at the end of the loop).
    let mut cb = vec![dt.to_bits(), 1, soft.to_bits(), damp.to_bits()];
    cb.extend([0; 4]);
    cb.extend([0, 0, NBODY_MAX_ACCEL.to_bits(), 0]);
    let words = (bodies as usize) * 4;
    Problem {
        size: bodies,
        groups: [bodies / 512, 1, 1],
        threads: u64::from(bodies),
        resources: vec![
            structured("t0", 16, &pos(8)),
            structured("t1", 16, &pos(9)),
            structured("u2", 16, &vec![0; words]),
            structured("u3", 16, &vec![0; words]),
            constants(&cb),
        ],
        outputs: vec![slot("u2"), slot("u3")],
    }
}

type V3 = [f32; 3];

fn dp3(a: V3, b: V3) -> f32 {
    (a[0] * b[0] + a[1] * b[1]) + a[2] * b[2]
}

/// The acceleration on `me` from every body of `cur`, in the shader's order.
fn nbody_accel(me: V3, cur: &[V3], soft2: f32) -> V3 {
    let mut acc = [0.0f32; 3];
    for p in cur {
        let d = [p[0] - me[0], p[1] - me[1], p[2] - me[2]];
        let d2 = dp3(d, d);
        let inv = 1.0 / ((d2 * (d2 * d2)).sqrt() + 0.1);
        let s = soft2 * inv;
        for c in 0..3 {
            acc[c] += s * d[c];
        }
    }
    acc
}

fn nbody_native(i: &Inputs, out: &mut [Vec<u32>]) {
    let c = i.constants();
    let (dt, soft, damp, max_acc) = (f(c[0]), f(c[2]), f(c[3]), f(c[10]));
    let blocks = (c[1] as usize).saturating_mul(512);
    let v3 = |w: &[u32]| [f(w[0]), f(w[1]), f(w[2])];
    let prev: Vec<V3> = i.words("t0").chunks_exact(4).map(v3).collect();
    let cur: Vec<V3> = i.words("t1").chunks_exact(4).map(v3).collect();
    let [out_prev, out_cur] = out else {
        return;
    };
    let outs = out_prev
        .chunks_exact_mut(4)
        .zip(out_cur.chunks_exact_mut(4));
    for ((me, old), (o_prev, o_cur)) in cur.iter().zip(&prev).zip(outs) {
        let acc = nbody_accel(*me, &cur[..blocks.min(cur.len())], soft * soft);
        let mut a = [0.0f32; 3];
        for k in 0..3 {
            a[k] = (old[k] - me[k]) * damp + acc[k];
        }
        let len2 = dp3(a, a);
        let len = len2.sqrt();
        let w = ((len * f(0x3eaa_aaab)).min(1.0).log2() * 0.25).exp2();
        if 0.0 < len {
            let scale = len.min(max_acc);
            a = a.map(|v| scale * ((1.0 / len2.sqrt()) * v));
        }
        o_prev.copy_from_slice(&[me[0], me[1], me[2], 0.0].map(f32::to_bits));
        let mut next = [0.0f32; 4];
        for k in 0..3 {
            next[k] = a[k] * dt + (me[k] * 2.0 - old[k]);
        }
        next[3] = w;
        o_cur.copy_from_slice(&next.map(f32::to_bits));
    }
}

// The table ----------------------------------------------------------------

/// Every kernel, in the benchmark issue's order.
pub static KERNELS: [Kernel; 7] = [
    Kernel {
        name: "saxpy",
        what: "y = a*x + y over structured buffers of f32",
        limit: "memory: two loads and a store per thread; dispatch overhead per thread",
        asm: include_str!("../../benches/kernels/saxpy.asm"),
        bench_size: 1 << 18,
        test_size: 1000,
        granule: 1,
        build: saxpy_build,
        native: saxpy_native,
        plain: None,
        tolerance: Tolerance::Exact,
        peer_tolerance: Tolerance::Float {
            rel: 1e-6,
            abs: 1e-6,
        },
    },
    Kernel {
        name: "mandelbrot",
        what: "escape iterations (at most 256) of one pixel per thread",
        limit: "ALU: a divergent loop of 12 instructions per iteration",
        asm: include_str!("../../benches/kernels/mandelbrot.asm"),
        bench_size: 128,
        test_size: 20,
        granule: 1,
        build: mandel_build,
        native: mandel_native,
        plain: None,
        tolerance: Tolerance::Exact,
        peer_tolerance: Tolerance::Fraction(0.01),
    },
    Kernel {
        name: "reduce",
        what: "sum of each block of 256 u32 in TGSM, a barrier per halving",
        limit: "barriers: 9 per group, each a pass over 256 threads",
        asm: include_str!("../../benches/kernels/reduce.asm"),
        bench_size: 1 << 16,
        test_size: 1024,
        granule: 256,
        build: reduce_build,
        native: reduce_native,
        plain: Some(reduce_plain),
        tolerance: Tolerance::Exact,
        peer_tolerance: Tolerance::Exact,
    },
    Kernel {
        name: "scan",
        what: "inclusive prefix sum of each block of 256 u32 in TGSM (Hillis-Steele)",
        limit: "barriers: 17 per group; TGSM loads and stores",
        asm: include_str!("../../benches/kernels/scan.asm"),
        bench_size: 1 << 16,
        test_size: 1024,
        granule: 256,
        build: scan_build,
        native: scan_native,
        plain: Some(scan_plain),
        tolerance: Tolerance::Exact,
        peer_tolerance: Tolerance::Exact,
    },
    Kernel {
        name: "matmul",
        what: "n x n f32 matrix product in 16x16 tiles staged through TGSM",
        limit: "ALU and TGSM loads: a 16-step inner loop per tile and thread",
        asm: include_str!("../../benches/kernels/matmul.asm"),
        bench_size: 128,
        test_size: 32,
        granule: 16,
        build: matmul_build,
        native: matmul_native,
        plain: None,
        tolerance: Tolerance::Exact,
        peer_tolerance: Tolerance::Float {
            rel: 1e-4,
            abs: 1e-4,
        },
    },
    Kernel {
        name: "histogram",
        what: "256-bin histogram of u32 words with atomic_iadd on a raw UAV",
        limit: "atomics: one per thread, all on 256 words",
        asm: include_str!("../../benches/kernels/histogram.asm"),
        bench_size: 1 << 18,
        test_size: 1000,
        granule: 1,
        build: histogram_build,
        native: histogram_native,
        plain: Some(histogram_plain),
        tolerance: Tolerance::Exact,
        peer_tolerance: Tolerance::Exact,
    },
    Kernel {
        name: "nbody",
        what:
            "bgfx cs_update_instances: one n-body step, each body pulled by the first 512, via TGSM",
        limit: "ALU: sqrt and div in a 512-step inner loop per thread",
        asm: include_str!("../../benches/kernels/nbody.asm"),
        bench_size: 2048,
        test_size: 1024,
        granule: 512,
        build: nbody_build,
        native: nbody_native,
        plain: None,
        // log2/exp2/rsq are correctly rounded in sm5jit but not in Rust's
        // libm; the difference reaches the last few bits of the outputs.
        tolerance: Tolerance::Float {
            rel: 1e-5,
            abs: 1e-6,
        },
        peer_tolerance: Tolerance::Float {
            rel: 1e-4,
            abs: 1e-5,
        },
    },
];

/// The kernel called `name`.
pub fn kernel(name: &str) -> Option<&'static Kernel> {
    KERNELS.iter().find(|k| k.name == name)
}

impl Kernel {
    /// `size` rounded up to the granule and clamped to `granule..=MAX_SIZE`.
    pub fn fit_size(&self, size: u32) -> u32 {
        let g = self.granule.max(1);
        let max = MAX_SIZE / g * g;
        size.clamp(1, max).div_ceil(g) * g
    }

    /// The native baseline's outputs for `p`.
    pub fn native_outputs(&self, p: &Problem) -> Vec<Vec<u32>> {
        run_baseline(self.native, p)
    }

    /// The problem at `size` (rounded with [`Kernel::fit_size`]).
    pub fn problem(&self, size: u32) -> Problem {
        (self.build)(self.fit_size(size))
    }

    /// Compares an engine's outputs with the native ones; the message names
    /// the output slot and the first differing word.
    pub fn check(&self, p: &Problem, native: &[Vec<u32>], got: &[Vec<u32>]) -> Result<(), String> {
        self.check_with(self.tolerance, p, native, got)
    }

    /// [`Kernel::check`] under tolerance `tol`.
    pub fn check_with(
        &self,
        tol: Tolerance,
        p: &Problem,
        native: &[Vec<u32>],
        got: &[Vec<u32>],
    ) -> Result<(), String> {
        for ((slot, want), have) in p.outputs.iter().zip(native).zip(got) {
            let name = format!("u{}", slot.index);
            if want.len() != have.len() {
                return Err(format!(
                    "{}: {name} has {} words, the native output {}",
                    self.name,
                    have.len(),
                    want.len()
                ));
            }
            let differ = |(&w, &h): (&u32, &u32)| !same(tol, w, h);
            if let Tolerance::Fraction(most) = tol {
                let n = want.iter().zip(have).filter(|&x| differ(x)).count();
                if n as f64 > most * want.len() as f64 {
                    return Err(format!(
                        "{}: {name}: {n} of {} words differ (at most {most} allowed)",
                        self.name,
                        want.len()
                    ));
                }
                continue;
            }
            if let Some(i) = want.iter().zip(have).position(differ) {
                return Err(format!(
                    "{}: {name} word {i}: native 0x{:08x} ({}), engine 0x{:08x} ({})",
                    self.name,
                    want[i],
                    f(want[i]),
                    have[i],
                    f(have[i])
                ));
            }
        }
        if native.len() != got.len() || native.len() != p.outputs.len() {
            return Err(format!("{}: output count differs", self.name));
        }
        Ok(())
    }
}

/// Runs `f` on `p`'s inputs and initial outputs; returns the outputs.
pub fn run_baseline(f: Baseline, p: &Problem) -> Vec<Vec<u32>> {
    let mut out = p.outputs_of(&p.resources);
    f(&p.inputs(), &mut out);
    out
}

/// Whether `have` passes for `want` under `tol` (word by word).
fn same(tol: Tolerance, want: u32, have: u32) -> bool {
    match tol {
        Tolerance::Exact | Tolerance::Fraction(_) => want == have,
        Tolerance::Float { rel, abs } => {
            let (a, b) = (f(want), f(have));
            if a.is_nan() || b.is_nan() {
                return a.is_nan() && b.is_nan();
            }
            let diff = (a - b).abs();
            want == have || diff <= abs || diff <= rel * a.abs().max(b.abs())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_round_up_and_clamp() {
        let reduce = kernel("reduce").unwrap();
        assert_eq!(reduce.fit_size(1), 256);
        assert_eq!(reduce.fit_size(257), 512);
        assert_eq!(reduce.fit_size(u32::MAX), MAX_SIZE);
        assert_eq!(kernel("saxpy").unwrap().fit_size(0), 1);
    }

    #[test]
    fn every_kernel_assembles_and_validates() {
        for k in &KERNELS {
            let p = sm5jit::asm::parse_program(k.asm).unwrap_or_else(|e| panic!("{}: {e}", k.name));
            sm5jit::validate::validate(&p).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        }
    }

    #[test]
    fn reduce_and_scan_store_their_tgsm_before_reading_it() {
        // Their groups then run without clearing TGSM (the runner reads
        // this fact); matmul and nbody store theirs inside a loop.
        for (name, first) in [
            ("reduce", true),
            ("scan", true),
            ("matmul", false),
            ("nbody", false),
        ] {
            let k = kernel(name).unwrap();
            let p = sm5jit::asm::parse_program(k.asm).unwrap();
            let prepared = sm5jit::analysis::prepare(&p).unwrap();
            assert_eq!(prepared.tgsm_written_first, first, "{name}");
        }
    }

    #[test]
    fn natives_compute_known_values() {
        let p = kernel("histogram").unwrap().problem(100);
        let bins = run_baseline(histogram_native, &p).remove(0);
        assert_eq!(bins.iter().sum::<u32>(), 100);
        let p = kernel("scan").unwrap().problem(256);
        let input = p.inputs().words("t0").to_vec();
        let out = run_baseline(scan_native, &p).remove(0);
        assert_eq!(out[0], input[0]);
        assert_eq!(
            out[2],
            input[0].wrapping_add(input[1]).wrapping_add(input[2])
        );
        let sums = run_baseline(reduce_native, &kernel("reduce").unwrap().problem(512)).remove(0);
        assert_eq!(sums.len(), 2);
        assert_eq!(mandel_point(0.0, 0.0, 256), 256);
        assert_eq!(mandel_point(2.0, 2.0, 256), 1);
    }

    #[test]
    fn checker_names_the_first_difference() {
        let k = kernel("saxpy").unwrap();
        let p = k.problem(4);
        let want = k.native_outputs(&p);
        assert_eq!(k.check(&p, &want, &want), Ok(()));
        let mut bad = want.clone();
        bad[0][2] ^= 1;
        let msg = k.check(&p, &want, &bad).unwrap_err();
        assert!(msg.contains("u0 word 2"), "{msg}");
        let nbody = kernel("nbody").unwrap();
        assert!(same(
            nbody.tolerance,
            1.0f32.to_bits(),
            1.000_001f32.to_bits()
        ));
        assert!(!same(nbody.tolerance, 1.0f32.to_bits(), 1.001f32.to_bits()));
        let m = kernel("mandelbrot").unwrap();
        let p = m.problem(10);
        let want = vec![vec![5u32; 100]];
        let mut got = want.clone();
        got[0][7] = 6;
        assert!(m.check(&p, &want, &got).is_err());
        assert_eq!(m.check_with(m.peer_tolerance, &p, &want, &got), Ok(()));
        got[0][8] = 6;
        assert!(m.check_with(m.peer_tolerance, &p, &want, &got).is_err());
    }
}
