//! A small software rasterizer driven through [`Shader::run_batch`]: a
//! vs_5_0 program transforms the vertices, each triangle is rasterized in
//! 2x2 quads, and a ps_5_0 program shades the pixels.
//!
//! ```sh
//! cargo run --release --example rasterizer [-- OUT.png [WIDTH HEIGHT]]
//! ```
//!
//! Without OUT.png the image goes to `target/rasterizer.png`.
//!
//! In: the [`TRIANGLES`] (object-space positions and vertex colours), the
//! [`TRANSFORM`] constants and an image size. Out: an RGBA8 image
//! (background [`BACKGROUND`], triangles drawn in order with
//! interpolated colours) written as a PNG by the `png` crate. The
//! whole embedding loop: load both shaders, reflect them (the vertex
//! shader's input registers, the pixel shader's interpolation modes),
//! bind the constant buffer, run the vertices as one batch, interpolate
//! their outputs per pixel with [`sm5jit::interpolate::Interpolator`]
//! (linked by semantic, perspective-correct for `linear` inputs), shade
//! the pixels in quads and read `SV_Target0` from the batch result. Per
//! triangle: edge functions over the bounding box, visited in 2x2 quads;
//! quads with no covered pixel are skipped, uncovered pixels of a touched
//! quad run as helper lanes. The same functions are run by the `embed`
//! integration tests, which probe the image.

use sm5jit::interpolate::{Interpolator, Pixel};
use sm5jit::{BatchInputs, BatchResult, Bindings, EngineKind, Error, LaneResult, Shader, Slot};

/// o0 = (v0.xy * cb0[0].xy + cb0[0].zw, v0.zw) (the position), o1 = v1
/// (the colour, `TEXCOORD1`).
pub const VS: &str = "vs_5_0
dcl_constantbuffer CB0[1], immediateIndexed
dcl_input v0.xyzw
dcl_input v1.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
mad o0.xy, v0.xyxx, cb0[0].xyxx, cb0[0].zwzz
mov o0.zw, v0.zzzw
mov o1.xyzw, v1.xyzw
ret
";

/// o0 = saturate(v1): the interpolated colour (`TEXCOORD1`); v0 is the
/// pixel's `SV_Position`.
pub const PS: &str = "ps_5_0
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_input_ps linear v1.xyzw
dcl_output o0.xyzw
mov_sat o0.xyzw, v1.xyzw
ret
";

/// A vertex: object-space position (x, y) and RGB colour.
pub type Vertex = ([f32; 2], [f32; 3]);

/// Three triangles, drawn in this order (later ones on top).
pub const TRIANGLES: [[Vertex; 3]; 3] = [
    [
        ([-0.9, -0.8], [1.0, 0.0, 0.0]),
        ([-0.1, -0.8], [0.0, 1.0, 0.0]),
        ([-0.5, 0.6], [0.0, 0.0, 1.0]),
    ],
    [
        ([0.1, 0.7], [1.0, 1.0, 0.0]),
        ([0.9, 0.7], [0.0, 1.0, 1.0]),
        ([0.5, -0.7], [1.0, 0.0, 1.0]),
    ],
    [
        ([-0.3, -0.2], [1.0, 1.0, 1.0]),
        ([0.3, -0.2], [0.2, 0.2, 0.2]),
        ([0.0, 0.4], [1.0, 0.5, 0.0]),
    ],
];

/// cb0[0]: scale (x, y) and offset (x, y) from object space to clip space.
pub const TRANSFORM: [f32; 4] = [1.0, 1.1, 0.0, -0.05];

/// The clear colour (RGBA8).
pub const BACKGROUND: [u8; 4] = [24, 24, 40, 255];

/// Clip-space x, y to pixel coordinates (pixel centres at +0.5).
pub fn to_screen(clip: [f32; 2], width: u32, height: u32) -> [f32; 2] {
    [
        (clip[0] + 1.0) * 0.5 * width as f32,
        (1.0 - clip[1]) * 0.5 * height as f32,
    ]
}

fn bits(v: &[f32]) -> impl Iterator<Item = u32> + '_ {
    v.iter().map(|f| f.to_bits())
}

/// The vertex batch: every vertex through `vs` (its input registers from
/// the reflection), and each vertex's screen position.
fn shade_vertices(
    vs: &Shader,
    width: u32,
    height: u32,
) -> Result<(BatchResult, Vec<[f32; 2]>), Error> {
    let r = vs.reflect();
    let registers = r
        .inputs
        .iter()
        .filter_map(|e| e.register)
        .max()
        .map_or(0, |m| m + 1);
    let data: Vec<u32> = TRIANGLES
        .iter()
        .flatten()
        .flat_map(|(p, c)| {
            let v = [p[0], p[1], 0.5, 1.0, c[0], c[1], c[2], 1.0];
            bits(&v).collect::<Vec<_>>()
        })
        .collect();
    let count = data.len() / (4 * registers as usize);
    let cb: Vec<u8> = bits(&TRANSFORM).flat_map(u32::to_le_bytes).collect();
    let mut b = Bindings::new();
    b.cb(Slot::new(r.constant_buffers[0].slot), &cb);
    let out = vs.run_batch(&b, &BatchInputs::new(count, registers, &data))?;
    let position = r
        .output_named("SV_Position", 0)
        .and_then(|e| e.register)
        .unwrap_or(0);
    let screen = (0..count)
        .map(|i| {
            let p = out
                .output(i, position)
                .unwrap_or_default()
                .map(f32::from_bits);
            to_screen([p[0] / p[3], p[1] / p[3]], width, height)
        })
        .collect();
    Ok((out, screen))
}

/// Twice the signed area of (a, b, p): positive when p is to one side of
/// the edge a -> b.
fn edge(a: [f32; 2], b: [f32; 2], p: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

/// Barycentric weights of pixel centre `p` in the triangle (sum 1; all
/// non-negative inside), or `None` for a degenerate triangle.
pub fn barycentric(t: [[f32; 2]; 3], p: [f32; 2]) -> Option<[f32; 3]> {
    let area = edge(t[0], t[1], t[2]);
    if area == 0.0 {
        return None;
    }
    Some([
        edge(t[1], t[2], p) / area,
        edge(t[2], t[0], p) / area,
        edge(t[0], t[1], p) / area,
    ])
}

/// One triangle to draw: the vertex invocations and their screen positions.
struct Triangle {
    verts: [usize; 3],
    screen: [[f32; 2]; 3],
    id: u32,
}

/// Rasterizes one triangle into `image` with `ps`.
fn draw_triangle(
    ps: &Shader,
    lerp: &Interpolator,
    vs_out: &BatchResult,
    tri: &Triangle,
    image: &mut [u8],
    width: u32,
    height: u32,
) -> Result<(), Error> {
    let t = tri.screen;
    let (lo, hi) = t
        .iter()
        .fold(([f32::MAX; 2], [f32::MIN; 2]), |(lo, hi), p| {
            (
                [lo[0].min(p[0]), lo[1].min(p[1])],
                [hi[0].max(p[0]), hi[1].max(p[1])],
            )
        });
    // Quads start on even pixels; the image size is even (checked by `render`).
    let clampi = |v: f32, max: u32| (v.floor().max(0.0) as u32).min(max);
    let (x0, y0) = (clampi(lo[0], width) & !1, clampi(lo[1], height) & !1);
    let (x1, y1) = (clampi(hi[0] + 1.0, width), clampi(hi[1] + 1.0, height));
    let front_face = edge(t[0], t[1], t[2]) < 0.0;
    let mut data = Vec::new();
    let mut helpers = Vec::new();
    let mut pixels = Vec::new();
    for qy in (y0..y1).step_by(2) {
        for qx in (x0..x1).step_by(2) {
            let lanes = [(qx, qy), (qx + 1, qy), (qx, qy + 1), (qx + 1, qy + 1)];
            let mut quad = Vec::with_capacity(4);
            for (x, y) in lanes {
                let p = [x as f32 + 0.5, y as f32 + 0.5];
                let Some(bary) = barycentric(t, p) else {
                    return Ok(());
                };
                quad.push((x, y, bary));
            }
            let inside = |b: &[f32; 3]| b.iter().all(|&v| v >= 0.0);
            if !quad.iter().any(|q| inside(&q.2)) {
                continue;
            }
            for (x, y, bary) in quad {
                // Helper lanes get extrapolated attributes, as on a GPU.
                let px = Pixel {
                    x: x as f32 + 0.5,
                    y: y as f32 + 0.5,
                    bary,
                    front_face,
                    primitive_id: tri.id,
                    sample_index: 0,
                };
                lerp.push_pixel(vs_out, tri.verts, &px, &mut data);
                helpers.push(!inside(&bary));
                pixels.push((x, y));
            }
        }
    }
    if pixels.is_empty() {
        return Ok(());
    }
    let inputs = BatchInputs::new(pixels.len(), lerp.registers(), &data).with_helpers(&helpers);
    let out = ps.run_batch(&Bindings::new(), &inputs)?;
    for (i, &(x, y)) in pixels.iter().enumerate() {
        if out.lanes[i] != LaneResult::Written {
            continue;
        }
        let Some(c) = out.by_semantic(i, "SV_Target", 0) else {
            continue;
        };
        let at = (y as usize * width as usize + x as usize) * 4;
        for (k, v) in c.iter().enumerate() {
            image[at + k] = (f32::from_bits(*v).clamp(0.0, 1.0) * 255.0).round() as u8;
        }
    }
    Ok(())
}

/// Draws [`TRIANGLES`] into a `width` x `height` RGBA8 image (rows top to
/// bottom). Width and height must be even and non-zero.
pub fn render(vs: &Shader, ps: &Shader, width: u32, height: u32) -> Result<Vec<u8>, Error> {
    assert!(
        width % 2 == 0 && height % 2 == 0 && width > 0 && height > 0,
        "the image is made of whole 2x2 quads"
    );
    let mut image: Vec<u8> = BACKGROUND
        .iter()
        .copied()
        .cycle()
        .take(width as usize * height as usize * 4)
        .collect();
    let lerp = Interpolator::new(vs.reflect(), ps.reflect()).map_err(|e| {
        Error::Runtime(sm5jit::RuntimeError::InvalidProgram {
            inst_index: None,
            reason: e.to_string(),
        })
    })?;
    let (vs_out, screen) = shade_vertices(vs, width, height)?;
    for (id, first) in (0..screen.len()).step_by(3).enumerate() {
        let tri = Triangle {
            verts: [first, first + 1, first + 2],
            screen: [screen[first], screen[first + 1], screen[first + 2]],
            id: id as u32,
        };
        draw_triangle(ps, &lerp, &vs_out, &tri, &mut image, width, height)?;
    }
    Ok(image)
}

/// Builds both programs with `engine`.
pub fn shaders(engine: EngineKind) -> Result<(Shader, Shader), Error> {
    Ok((Shader::from_asm(VS, engine)?, Shader::from_asm(PS, engine)?))
}

/// Writes an 8-bit RGBA image to `path` as a PNG file.
fn write_png(
    path: &str,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> Result<(), Box<dyn std::error::Error>> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgba)?;
    writer.finish()?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // Like the other examples, the default output goes under target/, never
    // into the checkout.
    let default = concat!(env!("CARGO_MANIFEST_DIR"), "/target/rasterizer.png");
    let path = args.first().map_or(default, |s| s.as_str());
    let size = |i: usize, d: u32| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (width, height) = (size(1, 320) & !1, size(2, 240) & !1);
    if width == 0 || height == 0 {
        return Err("width and height must be at least 2".into());
    }
    let (vs, ps) = shaders(EngineKind::Jit)?;
    let start = std::time::Instant::now();
    let image = render(&vs, &ps, width, height)?;
    let took = start.elapsed();
    write_png(path, width, height, &image)?;
    println!(
        "{} triangles, {width}x{height}, {:.1} ms -> {path}",
        TRIANGLES.len(),
        took.as_secs_f64() * 1e3
    );
    Ok(())
}
