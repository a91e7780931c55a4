//! The DirectXTex GPU BC7 compressor run through sm5jit: a procedural test
//! image, the four compute passes, decoding and PSNR.
//!
//! In: the corpus directory holding the fxc-compiled DirectXTex shaders
//! (`realworld/directxtex_BC7Encode_{TryMode456CS,TryMode137CS,TryMode02CS,
//! EncodeBlockCS}/shader.dxbc`), an engine choice and an RGBA8 image.
//! Out: the image's BC7 blocks (16 bytes each, row-major by block), their
//! decoding through sm5jit's own BC7 decoder (`runtime::bc`) and the PSNR
//! between the two images.
//!
//! The host side does what DirectXTex's `GPUCompressBC::Compress` does for
//! BC7 with 3-subset modes enabled: blocks go in batches of at most 64; per
//! batch the constant buffer `cbCS` holds (tex_width, num_block_x, format =
//! 98 (DXGI_FORMAT_BC7_UNORM), mode_id, start_block_id, num_total_blocks,
//! alpha_weight = 1.0, reserved), and the passes are TryMode456
//! (`ceil(n/4)` groups, writes state A), TryMode137 for modes 1, 3, 7 and
//! TryMode02 for modes 0, 2 (`n` groups each, reading the previous state
//! from t1 and writing the other buffer to u0, ping-pong), then EncodeBlock
//! (`ceil(n/4)` groups) from the last state into the output blocks. The
//! texture is t0 (R8G8B8A8_UNORM, one mip), the state buffers are
//! structured buffers of `uint4` with one element per block.
//!
//! Invariant: both engines see exactly the same bindings and dispatches, so
//! their blocks must be byte-identical.

use std::error::Error;
use std::path::Path;
use std::time::{Duration, Instant};

use sm5jit::dxbc::{read_dxbc, ReadOptions};
use sm5jit::interp::Interpreter;
use sm5jit::jit::JitShader;
use sm5jit::runtime::{
    bc, Bindings, BufferKind, BufferView, DispatchOptions, Format, Slot, TextureView, View,
};

/// DXGI_FORMAT_BC7_UNORM, the `g_format` the compressor passes.
pub const DXGI_FORMAT_BC7_UNORM: u32 = 98;
/// Blocks per batch (DirectXTex's `MAX_BLOCK_BATCH`).
pub const MAX_BLOCK_BATCH: u32 = 64;
/// Bytes per BC7 block and per state element (`uint4`).
pub const BLOCK_BYTES: usize = 16;
/// The shader directories, in pass order.
pub const SHADERS: [&str; 4] = [
    "directxtex_BC7Encode_TryMode456CS",
    "directxtex_BC7Encode_TryMode137CS",
    "directxtex_BC7Encode_TryMode02CS",
    "directxtex_BC7Encode_EncodeBlockCS",
];
/// Instruction budget per thread group. TryMode137/02 run 64 threads
/// through a partition search per group; the default budget is meant to
/// stop runaway loops, not real work of this size.
const BUDGET: u64 = 1 << 30;

/// An RGBA8 image, rows top to bottom, 4 bytes per pixel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

/// Which engine runs the passes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Jit,
    Interp,
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Jit => "jit",
            Engine::Interp => "interp",
        })
    }
}

/// One pass's compiled shader.
enum Pass {
    Jit(JitShader),
    Interp(Box<Interpreter>),
}

impl Pass {
    fn dispatch(&self, b: &mut Bindings, groups: u32) -> Result<(), Box<dyn Error>> {
        let o = DispatchOptions { budget: BUDGET };
        match self {
            Pass::Jit(s) => s.dispatch(b, [groups, 1, 1], &o)?,
            Pass::Interp(s) => s.dispatch(b, [groups, 1, 1], &o)?,
        };
        Ok(())
    }
}

/// The four passes, loaded and compiled for one engine.
pub struct Encoder {
    passes: Vec<Pass>,
    /// Time spent reading, decoding and compiling the four shaders.
    pub prepare_time: Duration,
}

/// The corpus beside the checkout (`../shared/corpus`).
pub fn default_corpus() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

impl Encoder {
    /// Reads the four shaders from `corpus` and prepares them for `engine`.
    pub fn new(corpus: &Path, engine: Engine) -> Result<Encoder, Box<dyn Error>> {
        let start = Instant::now();
        let mut passes = Vec::new();
        for name in SHADERS {
            let path = corpus.join("realworld").join(name).join("shader.dxbc");
            let bytes =
                std::fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))?;
            let shader = read_dxbc(&bytes, &ReadOptions::default())
                .map_err(|e| format!("{}: {e}", path.display()))?;
            let pass = match engine {
                Engine::Jit => Pass::Jit(
                    JitShader::compile(&shader.program)
                        .map_err(|e| format!("{}: {e}", path.display()))?,
                ),
                Engine::Interp => Pass::Interp(Box::new(
                    Interpreter::new(&shader.program)
                        .map_err(|e| format!("{}: {e}", path.display()))?,
                )),
            };
            passes.push(pass);
        }
        Ok(Encoder {
            passes,
            prepare_time: start.elapsed(),
        })
    }

    /// Compresses `image` to BC7 blocks (row-major by block, 16 bytes each).
    pub fn compress(&self, image: &Image) -> Result<Vec<u8>, Box<dyn Error>> {
        self.compress_traced(image, &mut |_, _| {})
    }

    /// [`Encoder::compress`], handing each pass's output buffer to `trace`
    /// with the pass's name (`"456"`, `"mode 1"`, ... `"encode"`).
    pub fn compress_traced(
        &self,
        image: &Image,
        trace: &mut dyn FnMut(&str, &[u8]),
    ) -> Result<Vec<u8>, Box<dyn Error>> {
        let blocks_x = image.width.div_ceil(4).max(1);
        let blocks_y = image.height.div_ceil(4).max(1);
        let total = blocks_x * blocks_y;
        let state = || vec![0u8; total as usize * BLOCK_BYTES];
        let (mut current, mut next, mut output) = (state(), state(), state());
        let texture = View::Texture(TextureView::tex2d(
            Format::R8G8B8A8Unorm,
            image.width,
            image.height,
        ));
        let blocks = View::Buffer(BufferView {
            kind: BufferKind::Structured {
                stride: BLOCK_BYTES as u32,
            },
            first_element: 0,
            num_elements: u64::from(total),
        });
        let mut start = 0;
        while start < total {
            let n = (total - start).min(MAX_BLOCK_BATCH);
            let quarter = n.div_ceil(4).max(1);
            let cb = |mode: u32| constants(image.width, blocks_x, mode, start, total);
            // TryMode456 writes the first state; t1 is unused.
            {
                let cb = cb(0);
                let mut b = Bindings::new();
                b.srv(Slot::new(0), &image.rgba, texture)
                    .uav(Slot::new(0), &mut current, blocks)
                    .cb(Slot::new(0), &cb);
                self.passes[0].dispatch(&mut b, quarter)?;
            }
            trace("456", &current);
            // Modes 1, 3, 7 then 0, 2: each reads the last state, writes the other.
            for (pass, mode) in [(1, 1), (1, 3), (1, 7), (2, 0), (2, 2)] {
                let cb = cb(mode);
                let mut b = Bindings::new();
                b.srv(Slot::new(0), &image.rgba, texture)
                    .srv(Slot::new(1), &current, blocks)
                    .uav(Slot::new(0), &mut next, blocks)
                    .cb(Slot::new(0), &cb);
                self.passes[pass].dispatch(&mut b, n)?;
                drop(b);
                std::mem::swap(&mut current, &mut next);
                trace(&format!("mode {mode}"), &current);
            }
            {
                let cb = cb(0);
                let mut b = Bindings::new();
                b.srv(Slot::new(0), &image.rgba, texture)
                    .srv(Slot::new(1), &current, blocks)
                    .uav(Slot::new(0), &mut output, blocks)
                    .cb(Slot::new(0), &cb);
                self.passes[3].dispatch(&mut b, quarter)?;
            }
            trace("encode", &output);
            start += n;
        }
        Ok(output)
    }
}

/// The `cbCS` constant buffer: 8 DWORDs.
fn constants(tex_width: u32, blocks_x: u32, mode: u32, start: u32, total: u32) -> Vec<u8> {
    let alpha_weight = 1.0f32.to_bits();
    [
        tex_width,
        blocks_x,
        DXGI_FORMAT_BC7_UNORM,
        mode,
        start,
        total,
        alpha_weight,
        0,
    ]
    .iter()
    .flat_map(|w| w.to_le_bytes())
    .collect()
}

/// Decodes BC7 `blocks` (as [`Encoder::compress`] lays them out) with
/// sm5jit's decoder into a `width` x `height` image.
pub fn decode(blocks: &[u8], width: u32, height: u32) -> Image {
    let blocks_x = width.div_ceil(4).max(1) as usize;
    let mut rgba = vec![0u8; width as usize * height as usize * 4];
    for (i, block) in blocks.chunks_exact(BLOCK_BYTES).enumerate() {
        let Some(texels) = bc::decode_block(Format::Bc7Unorm, block) else {
            continue;
        };
        let (bx, by) = ((i % blocks_x) * 4, (i / blocks_x) * 4);
        for (t, texel) in texels.iter().enumerate() {
            let (x, y) = (bx + t % 4, by + t / 4);
            if x >= width as usize || y >= height as usize {
                continue;
            }
            let at = (y * width as usize + x) * 4;
            for c in 0..4 {
                rgba[at + c] = unorm8(f32::from_bits(texel[c]));
            }
        }
    }
    Image {
        width,
        height,
        rgba,
    }
}

fn unorm8(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// PSNR in dB over all four channels (infinite for identical images).
pub fn psnr(a: &Image, b: &Image) -> f64 {
    assert_eq!((a.width, a.height), (b.width, b.height));
    let sum: u64 = a
        .rgba
        .iter()
        .zip(&b.rgba)
        .map(|(&x, &y)| {
            let d = i64::from(x) - i64::from(y);
            (d * d) as u64
        })
        .sum();
    let mse = sum as f64 / a.rgba.len() as f64;
    if mse == 0.0 {
        return f64::INFINITY;
    }
    10.0 * (255.0f64 * 255.0 / mse).log10()
}

/// The BC7 mode of each block (8 for the reserved mode), counted.
pub fn mode_histogram(blocks: &[u8]) -> [usize; 9] {
    let mut h = [0; 9];
    for block in blocks.chunks_exact(BLOCK_BYTES) {
        h[(block[0].trailing_zeros() as usize).min(8)] += 1;
    }
    h
}

/// A procedural RGBA8 test image: smooth gradients, hard-edged shapes,
/// thin stripes, a colour wheel-like band and an alpha ramp, all from
/// integer arithmetic (identical on every host).
pub fn test_image(width: u32, height: u32) -> Image {
    let mut rgba = Vec::with_capacity(width as usize * height as usize * 4);
    for y in 0..height {
        for x in 0..width {
            rgba.extend_from_slice(&test_pixel(x, y, width.max(1), height.max(1)));
        }
    }
    Image {
        width,
        height,
        rgba,
    }
}

fn test_pixel(x: u32, y: u32, w: u32, h: u32) -> [u8; 4] {
    let ramp = |v: u32, n: u32| (v * 255 / (n - 1).max(1)) as u8;
    // Background: red across, green down, blue a triangle wave.
    let tri = |v: u32, period: u32| {
        let p = v % period;
        let half = period / 2;
        (if p < half { p } else { period - p } * 255 / half) as u8
    };
    let mut px = [ramp(x, w), ramp(y, h), tri(x + y, 48), 255];
    // A filled disc with a hard edge.
    let (cx, cy, r) = (w as i64 / 3, h as i64 / 3, (w.min(h) / 5) as i64);
    let (dx, dy) = (x as i64 - cx, y as i64 - cy);
    if dx * dx + dy * dy <= r * r {
        px = [240, 200, 40, 255];
    }
    // Thin vertical stripes in the right third, upper half.
    if x >= 2 * w / 3 && y < h / 2 {
        px = if (x / 2) % 2 == 0 {
            [20, 30, 160, 255]
        } else {
            [230, 230, 230, 255]
        };
    }
    // A band of six hues along the bottom, fading towards white.
    if y >= h - h / 6 {
        const HUES: [[u8; 3]; 6] = [
            [255, 0, 0],
            [255, 255, 0],
            [0, 255, 0],
            [0, 255, 255],
            [0, 0, 255],
            [255, 0, 255],
        ];
        let fade = ramp(y - (h - h / 6), h / 6 + 1);
        let hue = HUES[(x * 6 / w).min(5) as usize];
        px = [hue[0], hue[1], hue[2], 255];
        for c in &mut px[..3] {
            *c = *c / 2 + fade / 2;
        }
    }
    // Alpha ramp in the left half of the lower middle band.
    if x < w / 2 && y >= h / 2 && y < h - h / 6 {
        px[3] = ramp(x, w / 2);
    }
    px
}
