//! The showcase `sm5jit run` runs with no arguments — a Mandelbrot set
//! computed by an SM5 compute shader (`examples/showcase.asm`) —
//! driven through the public embedding API and written as a PNG.
//!
//! ```sh
//! cargo run --release --example showcase [-- OUT.png [WIDTH HEIGHT]]
//! ```
//!
//! In: the shader text, an image size and the iteration limit. Out: one
//! iteration count per pixel (from the shader's raw UAV), coloured into
//! RGB and encoded by the `png` crate ([`encode_png`]). The same functions are run by
//! the `embed` integration tests, which check the image.

use std::time::Instant;

use sm5jit::{Bindings, EngineKind, Error, Shader, Slot, View};

/// The shader: cb0[0] = (width, height, max_iter, -), cb0[1] = (x of the
/// first pixel centre, y of it, dx, dy); u0 = one u32 count per pixel.
pub const SHADER: &str = include_str!("showcase.asm");

/// The complex-plane window the image shows.
pub const WINDOW: (f32, f32, f32, f32) = (-2.2, -1.2, 0.8, 1.2);

/// The constant buffer for a `width` x `height` image of [`WINDOW`].
pub fn constants(width: u32, height: u32, max_iter: u32) -> [u32; 8] {
    let (x0, y0, x1, y1) = WINDOW;
    let dx = (x1 - x0) / width as f32;
    let dy = (y1 - y0) / height as f32;
    [
        width,
        height,
        max_iter,
        0,
        (x0 + dx / 2.0).to_bits(),
        (y0 + dy / 2.0).to_bits(),
        dx.to_bits(),
        dy.to_bits(),
    ]
}

/// Runs the shader over a `width` x `height` image; returns the iteration
/// count of every pixel, row by row.
pub fn render(shader: &Shader, width: u32, height: u32, max_iter: u32) -> Result<Vec<u32>, Error> {
    let cb: Vec<u8> = constants(width, height, max_iter)
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let pixels = u64::from(width) * u64::from(height);
    let mut counts = vec![0u8; pixels as usize * 4];
    let mut b = Bindings::new();
    b.cb(Slot::new(0), &cb)
        .uav(Slot::new(0), &mut counts, View::raw(0, pixels));
    let [gx, gy, _] = shader.thread_group_size();
    shader.dispatch(&mut b, [width.div_ceil(gx), height.div_ceil(gy), 1])?;
    drop(b);
    Ok(counts
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

/// Colours iteration counts: black inside the set, a blue-orange-white
/// ramp outside, brighter the longer a point took to escape.
pub fn colorize(counts: &[u32], max_iter: u32) -> Vec<u8> {
    let mut rgb = Vec::with_capacity(counts.len() * 3);
    for &c in counts {
        if c >= max_iter {
            rgb.extend_from_slice(&[0, 0, 0]);
            continue;
        }
        let t = (f64::from(c) / f64::from(max_iter.max(1))).sqrt();
        let ramp = |a: f64, b: f64, c: f64| {
            let v = 255.0 * (a * t + b * t * t + c * t * t * t);
            v.clamp(0.0, 255.0) as u8
        };
        rgb.extend_from_slice(&[
            ramp(0.0, 3.0, -1.2),
            ramp(0.6, 1.4, -0.6),
            ramp(2.2, -2.6, 1.2),
        ]);
    }
    rgb
}

/// An 8-bit RGB image (`rgb` holds `3 * width * height` bytes) as a PNG file.
pub fn encode_png(width: u32, height: u32, rgb: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgb)?;
    writer.finish()?;
    Ok(out)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = args
        .first()
        .cloned()
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/target/showcase.png").into());
    let size = |i: usize, default: u32| {
        args.get(i).map_or(Ok(default), |s| {
            s.parse::<u32>()
                .ok()
                .filter(|&v| (1..=8192).contains(&v))
                .ok_or_else(|| format!("size {s:?} is not a number in 1..=8192"))
        })
    };
    if let Err(e) = run(&out, size(1, 1000), size(2, 800)) {
        eprintln!("showcase: {e}");
        std::process::exit(1);
    }
}

fn run(out: &str, width: Result<u32, String>, height: Result<u32, String>) -> Result<(), String> {
    let (width, height) = (width?, height?);
    let max_iter = 256;
    let t = Instant::now();
    let shader = Shader::from_asm(SHADER, EngineKind::Jit).map_err(|e| e.to_string())?;
    let compiled = t.elapsed();
    let t = Instant::now();
    let counts = render(&shader, width, height, max_iter).map_err(|e| e.to_string())?;
    let ran = t.elapsed();
    let rgb = colorize(&counts, max_iter);
    let bytes = encode_png(width, height, &rgb).map_err(|e| e.to_string())?;
    std::fs::write(out, bytes).map_err(|e| format!("{out}: {e}"))?;
    println!(
        "wrote {out}: {width}x{height}, up to {max_iter} iterations; compile {:.2} ms, dispatch {:.2} ms",
        compiled.as_secs_f64() * 1e3,
        ran.as_secs_f64() * 1e3
    );
    Ok(())
}
