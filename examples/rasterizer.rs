//! A software rasterizer driven through sm5jit's batch API on every core:
//! a procedural torus of 16,384 triangles, normal-mapped, textured with
//! mipmapped textures generated here, lit by two lights, depth-tested,
//! written as a PNG, with its frame time at 1 worker and at N workers.
//!
//! ```sh
//! cargo run --release --example rasterizer -- [OUT.png] [--size WxH] [--threads N] [--frames K]
//! ```
//!
//! Defaults: `target/rasterizer.png`, 1024x768, all cores, best of 3
//! frames per worker count (frames at 1 and N workers alternate).
//!
//! In: the shaders `examples/shaders/raster_vs.asm` (vs_5_0: world and
//! view-projection transforms) and `raster_ps.asm` (ps_5_0: two texture
//! samples with implicit LOD, tangent-space normal mapping, two
//! directional lights with Lambert and Blinn-Phong terms), the
//! [`Scene`] (a torus mesh, two 256x256 RGBA8 textures with 9 mips each,
//! camera and lights), an image size and a worker count. Out: an RGBA8
//! image and its depth buffer, identical for every worker count (and on
//! both engines).
//!
//! The frame: the vertices run as vertex batches (one per worker, through
//! one shared [`sm5jit::BatchRunner`]); triangles are set up in screen
//! space (back faces culled) and binned into 32x32 tiles; the workers
//! claim tiles and, per tile, walk each binned triangle in 2x2 quads with
//! edge functions, depth-test every covered pixel against the tile's
//! depth buffer (`less`, early: the shader writes no depth) and queue the
//! quads with a passing pixel (the other lanes become helpers, with
//! extrapolated inputs from [`sm5jit::interpolate::Interpolator`]); a
//! queue of [`BATCH_QUADS`] quads runs as one pixel batch through the
//! same runner, and its `SV_Target` values are written in queue order
//! (a later, nearer triangle wins, as the depth test decided). Tiles never
//! share pixels, so the image does not depend on which worker drew what.

use std::sync::atomic::{AtomicUsize, Ordering};

use sm5jit::interpolate::{Interpolator, Pixel};
use sm5jit::runtime::{Format, TextureDim, TextureView};
use sm5jit::{
    AddressMode, BatchInputs, BatchResult, BatchRunner, Bindings, EngineKind, Error, Filter,
    LaneResult, SamplerDesc, Shader, Slot, View,
};

/// The vertex shader.
pub const VS: &str = include_str!("shaders/raster_vs.asm");
/// The pixel shader.
pub const PS: &str = include_str!("shaders/raster_ps.asm");

/// The clear colour (RGBA8).
pub const BACKGROUND: [u8; 4] = [18, 20, 32, 255];
/// Tile edge in pixels (even: tiles are whole quads).
pub const TILE: u32 = 32;
/// Quads per pixel batch.
pub const BATCH_QUADS: usize = 64;
/// Texture size (square, power of two) and its mip count.
const TEX: u32 = 256;
const TEX_MIPS: u32 = 9;

/// A 3-vector.
type V3 = [f32; 3];

fn normalize(a: V3) -> V3 {
    let l = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

/// Row-major 4x4 matrices (`m[row][col]`, column vectors).
type M4 = [[f32; 4]; 4];

fn mul(a: &M4, b: &M4) -> M4 {
    std::array::from_fn(|r| std::array::from_fn(|c| (0..4).map(|k| a[r][k] * b[k][c]).sum()))
}

fn rotation_x(t: f32) -> M4 {
    let (s, c) = t.sin_cos();
    [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, c, -s, 0.0],
        [0.0, s, c, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

fn rotation_y(t: f32) -> M4 {
    let (s, c) = t.sin_cos();
    [
        [c, 0.0, s, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [-s, 0.0, c, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]
}

/// A D3D perspective projection (depth 0 at `near`, 1 at `far`) looking
/// down -z from `eye`.
fn view_projection(eye: V3, fov_y: f32, aspect: f32, near: f32, far: f32) -> M4 {
    let f = 1.0 / (fov_y / 2.0).tan();
    let q = far / (near - far);
    let proj = [
        [f / aspect, 0.0, 0.0, 0.0],
        [0.0, f, 0.0, 0.0],
        [0.0, 0.0, q, q * near],
        [0.0, 0.0, -1.0, 0.0],
    ];
    let view = [
        [1.0, 0.0, 0.0, -eye[0]],
        [0.0, 1.0, 0.0, -eye[1]],
        [0.0, 0.0, 1.0, -eye[2]],
        [0.0, 0.0, 0.0, 1.0],
    ];
    mul(&proj, &view)
}

/// A torus around the z axis: `rings` segments around the axis, `sides`
/// around the tube; each vertex is position, normal, tangent (+ sign) and
/// texture coordinates, as `raster_vs.asm` reads them (4 registers).
pub struct Mesh {
    pub vertices: Vec<[f32; 16]>,
    pub triangles: Vec<[u32; 3]>,
}

impl Mesh {
    pub fn torus(rings: u32, sides: u32, major: f32, minor: f32) -> Mesh {
        let tau = std::f32::consts::TAU;
        let mut vertices = Vec::new();
        for i in 0..=rings {
            let u = i as f32 / rings as f32;
            let (su, cu) = (u * tau).sin_cos();
            for j in 0..=sides {
                let v = j as f32 / sides as f32;
                let (sv, cv) = (v * tau).sin_cos();
                let n = [cu * cv, su * cv, sv];
                let p = [
                    (major + minor * cv) * cu,
                    (major + minor * cv) * su,
                    minor * sv,
                ];
                // Along increasing u (around the axis).
                let t = [-su, cu, 0.0];
                vertices.push([
                    p[0],
                    p[1],
                    p[2],
                    1.0,
                    n[0],
                    n[1],
                    n[2],
                    0.0,
                    t[0],
                    t[1],
                    t[2],
                    1.0,
                    4.0 * u,
                    v,
                    0.0,
                    0.0,
                ]);
            }
        }
        let at = |i: u32, j: u32| i * (sides + 1) + j;
        let mut triangles = Vec::new();
        for i in 0..rings {
            for j in 0..sides {
                let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
                triangles.push([a, b, c]);
                triangles.push([a, c, d]);
            }
        }
        Mesh {
            vertices,
            triangles,
        }
    }
}

/// A mipmapped RGBA8 texture: level 0 from `texel(x, y)`, each further
/// level the 2x2 box average of the one above (`size` a power of two,
/// `mips` at most its log2 + 1), packed as
/// [`TextureView::packed`] lays them out.
fn mipmapped(size: u32, mips: u32, texel: impl Fn(u32, u32) -> [u8; 4]) -> (Vec<u8>, TextureView) {
    let view = TextureView::packed(
        TextureDim::Tex2D,
        Format::R8G8B8A8Unorm,
        [size, size, 1],
        mips,
    );
    let mut level: Vec<[u8; 4]> = (0..size * size)
        .map(|i| texel(i % size, i / size))
        .collect();
    let mut data = Vec::with_capacity(view.size_bytes() as usize);
    let mut s = size;
    for m in 0..mips {
        data.extend(level.iter().flatten());
        if m + 1 == mips {
            break;
        }
        let half = s / 2;
        level = (0..half * half)
            .map(|i| {
                let (x, y) = (2 * (i % half), 2 * (i / half));
                let at = |dx: u32, dy: u32| level[((y + dy) * s + x + dx) as usize];
                std::array::from_fn(|c| {
                    let sum: u32 = [at(0, 0), at(1, 0), at(0, 1), at(1, 1)]
                        .iter()
                        .map(|t| u32::from(t[c]))
                        .sum();
                    ((sum + 2) / 4) as u8
                })
            })
            .collect();
        s = half;
    }
    assert_eq!(data.len() as u64, view.size_bytes());
    (data, view)
}

/// Albedo: warm tiles with darker grout, every other tile a second tone.
fn albedo(x: u32, y: u32) -> [u8; 4] {
    let (tx, ty) = (x / 32, y / 32);
    let (gx, gy) = (x % 32, y % 32);
    if gx < 2 || gy < 2 {
        return [60, 52, 48, 255];
    }
    let speck = ((x * 7 + y * 13) % 11) as u8 * 3;
    if (tx + ty) % 2 == 0 {
        [200 - speck, 120 - speck, 60, 255]
    } else {
        [70, 130 - speck, 170 - speck, 255]
    }
}

/// Normal map: a bevel at each tile's grout and a dome in its middle,
/// tangent-space normals stored as `n * 0.5 + 0.5`.
fn normal_map(x: u32, y: u32) -> [u8; 4] {
    let (fx, fy) = ((x % 32) as f32 - 15.5, (y % 32) as f32 - 15.5);
    let (mut nx, mut ny) = (0.0f32, 0.0f32);
    let edge = fx.abs().max(fy.abs());
    if edge > 12.0 {
        if fx.abs() > fy.abs() {
            nx = 0.6 * fx.signum();
        } else {
            ny = 0.6 * fy.signum();
        }
    } else {
        let r2 = fx * fx + fy * fy;
        if r2 < 64.0 {
            nx = fx / 12.0;
            ny = fy / 12.0;
        }
    }
    let n = normalize([nx, ny, 1.0]);
    let enc = |v: f32| ((v * 0.5 + 0.5) * 255.0).round() as u8;
    [enc(n[0]), enc(n[1]), enc(n[2]), 255]
}

/// Everything a frame draws.
pub struct Scene {
    pub mesh: Mesh,
    albedo: (Vec<u8>, TextureView),
    normals: (Vec<u8>, TextureView),
    vs_cb: Vec<u8>,
    ps_cb: Vec<u8>,
}

fn cb_bytes(rows: &[[f32; 4]]) -> Vec<u8> {
    rows.iter()
        .flatten()
        .flat_map(|v| v.to_le_bytes())
        .collect()
}

impl Scene {
    /// The torus with `rings` x `sides` quads (two triangles each), seen
    /// by a `width`:`height` camera.
    pub fn new(rings: u32, sides: u32, width: u32, height: u32) -> Scene {
        let eye = [0.0, 0.0, 3.4];
        let world = mul(&rotation_y(0.45), &rotation_x(-0.95));
        let vp = view_projection(eye, 0.9, width as f32 / height as f32, 0.5, 10.0);
        let mut vs_rows = vp.to_vec();
        vs_rows.extend_from_slice(&world[..3]);
        let l1 = normalize([0.6, 0.7, 0.9]);
        let l2 = normalize([-0.8, -0.3, 0.4]);
        let ps_rows = [
            [eye[0], eye[1], eye[2], 40.0],
            [0.12, 0.12, 0.16, 0.0],
            [l1[0], l1[1], l1[2], 0.0],
            [0.95, 0.9, 0.8, 0.0],
            [l2[0], l2[1], l2[2], 0.0],
            [0.25, 0.35, 0.6, 0.0],
        ];
        Scene {
            mesh: Mesh::torus(rings, sides, 1.0, 0.42),
            albedo: mipmapped(TEX, TEX_MIPS, albedo),
            normals: mipmapped(TEX, TEX_MIPS, normal_map),
            vs_cb: cb_bytes(&vs_rows),
            ps_cb: cb_bytes(&ps_rows),
        }
    }

    /// The full-size scene: 128 x 64 quads, 16,384 triangles.
    pub fn full(width: u32, height: u32) -> Scene {
        Scene::new(128, 64, width, height)
    }
}

/// Builds both programs with `engine`.
pub fn shaders(engine: EngineKind) -> Result<(Shader, Shader), Error> {
    Ok((Shader::from_asm(VS, engine)?, Shader::from_asm(PS, engine)?))
}

/// A triangle set up in screen space.
#[derive(Clone, Copy)]
pub struct Setup {
    pub verts: [usize; 3],
    pub screen: [[f32; 2]; 3],
    /// z / w per vertex (depth, interpolated linearly on screen).
    pub depth: [f32; 3],
    pub id: u32,
}

/// Twice the signed area of (a, b, p).
fn edge(a: [f32; 2], b: [f32; 2], p: [f32; 2]) -> f32 {
    (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0])
}

impl Setup {
    /// Screen barycentrics of `p` (sum 1, all >= 0 inside).
    pub fn barycentric(&self, p: [f32; 2]) -> [f32; 3] {
        let t = self.screen;
        let area = edge(t[0], t[1], t[2]);
        [
            edge(t[1], t[2], p) / area,
            edge(t[2], t[0], p) / area,
            edge(t[0], t[1], p) / area,
        ]
    }

    /// The depth at barycentrics `b`.
    pub fn depth_at(&self, b: [f32; 3]) -> f32 {
        b[0] * self.depth[0] + b[1] * self.depth[1] + b[2] * self.depth[2]
    }

    /// Pixel bounds `[x0, x1) x [y0, y1)` of the triangle inside the image.
    fn bounds(&self, width: u32, height: u32) -> [u32; 4] {
        let t = self.screen;
        let lo = |k: usize| t.iter().map(|p| p[k]).fold(f32::MAX, f32::min);
        let hi = |k: usize| t.iter().map(|p| p[k]).fold(f32::MIN, f32::max);
        let clamp = |v: f32, max: u32| (v.max(0.0) as u32).min(max);
        [
            clamp(lo(0).floor(), width),
            clamp(hi(0).floor() + 1.0, width),
            clamp(lo(1).floor(), height),
            clamp(hi(1).floor() + 1.0, height),
        ]
    }
}

/// Whether barycentrics `b` are inside the triangle (edges included).
pub fn inside(b: [f32; 3]) -> bool {
    b.iter().all(|&v| v >= 0.0)
}

/// Runs the vertices through `vs` in `workers` batches at once; returns
/// one result holding every vertex, in order.
fn shade_vertices(vs: &Shader, scene: &Scene, workers: usize) -> Result<BatchResult, Error> {
    let data: Vec<u32> = scene
        .mesh
        .vertices
        .iter()
        .flatten()
        .map(|v| v.to_bits())
        .collect();
    let mut b = Bindings::new();
    b.cb(Slot::new(0), &scene.vs_cb);
    let runner = vs.batch_runner(&b)?;
    let count = scene.mesh.vertices.len();
    // At least 4,096 vertices per batch: fewer are not worth a thread.
    let per = count.div_ceil(workers.max(1)).max(4096);
    let parts: Vec<Result<BatchResult, Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..count)
            .step_by(per.max(1))
            .map(|first| {
                let (runner, data) = (&runner, &data);
                s.spawn(move || {
                    let n = per.min(count - first);
                    runner.run(&BatchInputs::new(n, 4, &data[first * 16..(first + n) * 16]))
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("vertex worker"))
            .collect()
    });
    let mut all: Option<BatchResult> = None;
    for part in parts {
        let part = part?;
        match &mut all {
            None => all = Some(part),
            Some(a) => {
                a.values.extend_from_slice(&part.values);
                a.lanes.extend_from_slice(&part.lanes);
                a.special_values.extend_from_slice(&part.special_values);
            }
        }
    }
    Ok(all.unwrap_or_else(|| BatchResult::new(vs.output_registers().to_vec(), 0)))
}

/// Screen-space setup of every front-facing triangle with all vertices in
/// front of the camera.
fn setup(scene: &Scene, vs: &Shader, vs_out: &BatchResult, width: u32, height: u32) -> Vec<Setup> {
    let position = vs
        .reflect()
        .output_named("SV_Position", 0)
        .and_then(|e| e.register)
        .unwrap_or(0);
    let clip: Vec<[f32; 4]> = (0..vs_out.count())
        .map(|i| {
            vs_out
                .output(i, position)
                .unwrap_or_default()
                .map(f32::from_bits)
        })
        .collect();
    let mut out = Vec::new();
    for (id, tri) in scene.mesh.triangles.iter().enumerate() {
        let verts = tri.map(|v| v as usize);
        let c = verts.map(|v| clip[v]);
        if c.iter().any(|p| p[3] <= 0.0) {
            continue;
        }
        let screen = c.map(|p| {
            [
                (p[0] / p[3] + 1.0) * 0.5 * width as f32,
                (1.0 - p[1] / p[3]) * 0.5 * height as f32,
            ]
        });
        // Counter-clockwise in object space is clockwise on a y-down screen.
        if edge(screen[0], screen[1], screen[2]) >= 0.0 {
            continue;
        }
        out.push(Setup {
            verts,
            screen,
            depth: c.map(|p| p[2] / p[3]),
            id: id as u32,
        });
    }
    out
}

/// The triangles overlapping each tile, in draw order.
fn bin(tris: &[Setup], width: u32, height: u32) -> Vec<Vec<u32>> {
    let (tx, ty) = (width.div_ceil(TILE), height.div_ceil(TILE));
    let mut bins = vec![Vec::new(); (tx * ty) as usize];
    for (k, t) in tris.iter().enumerate() {
        let [x0, x1, y0, y1] = t.bounds(width, height);
        if x0 >= x1 || y0 >= y1 {
            continue;
        }
        for by in y0 / TILE..=(y1 - 1) / TILE {
            for bx in x0 / TILE..=(x1 - 1) / TILE {
                bins[(by * tx + bx) as usize].push(k as u32);
            }
        }
    }
    bins
}

/// One tile's colours and depths, row-major over the tile.
struct TileOut {
    index: usize,
    /// Pixel-shader invocations run: (all lanes, written lanes).
    lanes: (usize, usize),
    rgba: Vec<[u8; 4]>,
    depth: Vec<f32>,
}

/// A worker's queue of quads waiting for one pixel batch.
#[derive(Default)]
struct Queue {
    data: Vec<u32>,
    helpers: Vec<bool>,
    /// Tile-local pixel index per lane.
    pixels: Vec<u32>,
    /// Lanes run and lanes written so far.
    lanes: (usize, usize),
    out: Option<BatchResult>,
}

impl Queue {
    /// Shades the queued quads and writes their colours.
    fn flush(
        &mut self,
        runner: &BatchRunner,
        regs: u32,
        rgba: &mut [[u8; 4]],
    ) -> Result<(), Error> {
        if self.pixels.is_empty() {
            return Ok(());
        }
        let out = self
            .out
            .get_or_insert_with(|| BatchResult::new(Vec::new(), 0));
        let inputs =
            BatchInputs::new(self.pixels.len(), regs, &self.data).with_helpers(&self.helpers);
        runner.run_into(&inputs, out)?;
        self.lanes.0 += self.pixels.len();
        for (i, &p) in self.pixels.iter().enumerate() {
            if out.lanes[i] != LaneResult::Written {
                continue;
            }
            self.lanes.1 += 1;
            if let Some(c) = out.by_semantic(i, "SV_Target", 0) {
                rgba[p as usize] =
                    c.map(|v| (f32::from_bits(v).clamp(0.0, 1.0) * 255.0).round() as u8);
            }
        }
        self.data.clear();
        self.helpers.clear();
        self.pixels.clear();
        Ok(())
    }
}

/// What the tile workers share.
struct Frame<'a> {
    runner: &'a BatchRunner<'a>,
    lerp: &'a Interpolator,
    vs_out: &'a BatchResult,
    tris: &'a [Setup],
    bins: &'a [Vec<u32>],
    width: u32,
    height: u32,
}

impl Frame<'_> {
    /// Draws tile `index`: every binned triangle in order, depth-tested.
    fn tile(&self, index: usize, q: &mut Queue) -> Result<TileOut, Error> {
        let tiles_x = self.width.div_ceil(TILE);
        let (ox, oy) = (
            (index as u32 % tiles_x) * TILE,
            (index as u32 / tiles_x) * TILE,
        );
        let (tw, th) = (TILE.min(self.width - ox), TILE.min(self.height - oy));
        let mut rgba = vec![BACKGROUND; (TILE * TILE) as usize];
        let mut depth = vec![1.0f32; (TILE * TILE) as usize];
        let regs = self.lerp.registers();
        for &k in &self.bins[index] {
            let t = &self.tris[k as usize];
            let [x0, x1, y0, y1] = t.bounds(self.width, self.height);
            let (x0, y0) = (x0.max(ox) & !1, y0.max(oy) & !1);
            let (x1, y1) = (x1.min(ox + tw), y1.min(oy + th));
            for qy in (y0..y1).step_by(2) {
                for qx in (x0..x1).step_by(2) {
                    let lanes = [(qx, qy), (qx + 1, qy), (qx, qy + 1), (qx + 1, qy + 1)];
                    let mut live = [false; 4];
                    let mut bary = [[0.0f32; 3]; 4];
                    for (l, &(x, y)) in lanes.iter().enumerate() {
                        bary[l] = t.barycentric([x as f32 + 0.5, y as f32 + 0.5]);
                        if !inside(bary[l]) {
                            continue;
                        }
                        let at = ((y - oy) * TILE + (x - ox)) as usize;
                        let z = t.depth_at(bary[l]);
                        if z < depth[at] {
                            depth[at] = z;
                            live[l] = true;
                        }
                    }
                    if !live.contains(&true) {
                        continue;
                    }
                    for (l, &(x, y)) in lanes.iter().enumerate() {
                        let px = Pixel {
                            x: x as f32 + 0.5,
                            y: y as f32 + 0.5,
                            bary: bary[l],
                            front_face: true,
                            primitive_id: t.id,
                            sample_index: 0,
                        };
                        self.lerp.push_pixel(self.vs_out, t.verts, &px, &mut q.data);
                        q.helpers.push(!live[l]);
                        // Quads never cross tiles: both are even-aligned.
                        q.pixels.push((y - oy) * TILE + (x - ox));
                    }
                    if q.pixels.len() >= 4 * BATCH_QUADS {
                        q.flush(self.runner, regs, &mut rgba)?;
                    }
                }
            }
        }
        q.flush(self.runner, regs, &mut rgba)?;
        let lanes = std::mem::take(&mut q.lanes);
        Ok(TileOut {
            index,
            lanes,
            rgba,
            depth,
        })
    }
}

/// A rendered frame.
pub struct Image {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
    /// z / w of the nearest drawn surface per pixel (1.0: nothing drawn).
    pub depth: Vec<f32>,
    /// Front-facing triangles drawn.
    pub triangles: usize,
    /// Pixel-shader invocations: all lanes (helpers included) and the
    /// written ones (covered pixels that passed the depth test when
    /// drawn, overdraw included).
    pub invocations: (usize, usize),
}

/// Copies one row of tiles into its band of the image (`depth.len() /
/// width` rows).
fn resolve_band(tiles: &[Option<TileOut>], rgba: &mut [u8], depth: &mut [f32], width: u32) {
    let rows = depth.len() / width as usize;
    for (k, tile) in tiles.iter().enumerate() {
        let Some(tile) = tile else { continue };
        let ox = k * TILE as usize;
        let w = (TILE as usize).min(width as usize - ox);
        for y in 0..rows {
            let src = y * TILE as usize;
            let dst = y * width as usize + ox;
            depth[dst..dst + w].copy_from_slice(&tile.depth[src..src + w]);
            for (x, c) in tile.rgba[src..src + w].iter().enumerate() {
                rgba[(dst + x) * 4..(dst + x) * 4 + 4].copy_from_slice(c);
            }
        }
    }
}

/// Draws `scene` into a `width` x `height` image (both even) with
/// `workers` threads.
pub fn render(
    vs: &Shader,
    ps: &Shader,
    scene: &Scene,
    width: u32,
    height: u32,
    workers: usize,
) -> Result<Image, Error> {
    assert!(
        width % 2 == 0 && height % 2 == 0 && width > 0 && height > 0,
        "the image is made of whole 2x2 quads"
    );
    let workers = workers.max(1);
    let lerp = Interpolator::new(vs.reflect(), ps.reflect()).map_err(|e| {
        Error::Runtime(sm5jit::RuntimeError::InvalidProgram {
            inst_index: None,
            reason: e.to_string(),
        })
    })?;
    let vs_out = shade_vertices(vs, scene, workers)?;
    let tris = setup(scene, vs, &vs_out, width, height);
    let bins = bin(&tris, width, height);
    let mut b = Bindings::new();
    let sampler = SamplerDesc::new(Filter::LINEAR, AddressMode::Wrap);
    b.cb(Slot::new(0), &scene.ps_cb)
        .srv(Slot::new(0), &scene.albedo.0, View::Texture(scene.albedo.1))
        .srv(
            Slot::new(1),
            &scene.normals.0,
            View::Texture(scene.normals.1),
        )
        .sampler(Slot::new(0), sampler);
    let runner = ps.batch_runner(&b)?;
    let frame = Frame {
        runner: &runner,
        lerp: &lerp,
        vs_out: &vs_out,
        tris: &tris,
        bins: &bins,
        width,
        height,
    };
    let next = AtomicUsize::new(0);
    let done: Vec<Result<Vec<TileOut>, Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                let (frame, next) = (&frame, &next);
                s.spawn(move || {
                    let mut q = Queue::default();
                    let mut mine = Vec::new();
                    loop {
                        let index = next.fetch_add(1, Ordering::Relaxed);
                        if index >= frame.bins.len() {
                            return Ok(mine);
                        }
                        mine.push(frame.tile(index, &mut q)?);
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("tile worker"))
            .collect()
    });
    let mut tiles: Vec<Option<TileOut>> = (0..bins.len()).map(|_| None).collect();
    let mut invocations = (0, 0);
    for tile in done
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?
        .into_iter()
        .flatten()
    {
        invocations.0 += tile.lanes.0;
        invocations.1 += tile.lanes.1;
        let index = tile.index;
        tiles[index] = Some(tile);
    }
    let mut rgba = vec![0u8; (width * height * 4) as usize];
    let mut depth = vec![1.0f32; (width * height) as usize];
    // Copy the tiles into the image, one band of tile rows per worker.
    let bands: Vec<_> = rgba
        .chunks_mut((width * TILE * 4) as usize)
        .zip(depth.chunks_mut((width * TILE) as usize))
        .enumerate()
        .collect();
    let per = bands.len().div_ceil(workers);
    let tiles_x = width.div_ceil(TILE) as usize;
    std::thread::scope(|s| {
        let mut bands = bands.into_iter().peekable();
        while bands.peek().is_some() {
            let mine: Vec<_> = bands.by_ref().take(per).collect();
            let tiles = &tiles;
            s.spawn(move || {
                for (row, (rgba, depth)) in mine {
                    let row_tiles = &tiles[row * tiles_x..(row + 1) * tiles_x];
                    resolve_band(row_tiles, rgba, depth, width);
                }
            });
        }
    });
    Ok(Image {
        width,
        height,
        rgba,
        depth,
        triangles: tris.len(),
        invocations,
    })
}

/// The screen-space triangles of a frame (for tests: what the depth test
/// saw).
pub fn setup_triangles(
    vs: &Shader,
    scene: &Scene,
    width: u32,
    height: u32,
) -> Result<Vec<Setup>, Error> {
    let vs_out = shade_vertices(vs, scene, 1)?;
    Ok(setup(scene, vs, &vs_out, width, height))
}

/// Writes an 8-bit RGBA image to `path` as a PNG file.
fn write_png(path: &str, image: &Image) -> Result<(), Box<dyn std::error::Error>> {
    let file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let mut encoder = png::Encoder::new(file, image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&image.rgba)?;
    writer.finish()?;
    Ok(())
}

/// Command-line options.
struct Options {
    path: String,
    width: u32,
    height: u32,
    threads: usize,
    frames: usize,
}

fn options() -> Result<Options, String> {
    let mut o = Options {
        path: concat!(env!("CARGO_MANIFEST_DIR"), "/target/rasterizer.png").to_string(),
        width: 1024,
        height: 768,
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        frames: 3,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "--size" => {
                let v = value("--size")?;
                let (w, h) = v.split_once('x').ok_or("--size WxH")?;
                o.width = w.parse::<u32>().map_err(|e| e.to_string())? & !1;
                o.height = h.parse::<u32>().map_err(|e| e.to_string())? & !1;
            }
            "--threads" => o.threads = value("--threads")?.parse().map_err(|_| "--threads N")?,
            "--frames" => o.frames = value("--frames")?.parse().map_err(|_| "--frames K")?,
            _ if a.starts_with("--") => return Err(format!("unknown option {a}")),
            _ => o.path = a,
        }
    }
    if o.width == 0 || o.height == 0 || o.threads == 0 || o.frames == 0 {
        return Err("size, threads and frames must be positive".into());
    }
    Ok(o)
}

/// The best frame time at 1 worker and at `o.threads` workers, frames at
/// the two counts alternating (so a change of machine load hits both), and
/// the last image of each.
fn timed(vs: &Shader, ps: &Shader, scene: &Scene, o: &Options) -> Result<[(f64, Image); 2], Error> {
    let mut best = [f64::MAX; 2];
    let mut images = [None, None];
    for _ in 0..o.frames {
        for (k, workers) in [1, o.threads].into_iter().enumerate() {
            let start = std::time::Instant::now();
            let img = render(vs, ps, scene, o.width, o.height, workers)?;
            best[k] = best[k].min(start.elapsed().as_secs_f64());
            images[k] = Some(img);
        }
    }
    let [a, b] = images.map(|i| i.expect("frames >= 1"));
    Ok([(best[0], a), (best[1], b)])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let o = options()?;
    let (vs, ps) = shaders(EngineKind::Jit)?;
    let scene = Scene::full(o.width, o.height);
    // A first frame compiles tier 1 in the background; wait for it so
    // both timings run the same code.
    let warm = render(&vs, &ps, &scene, o.width, o.height, o.threads)?;
    let start = std::time::Instant::now();
    while (vs.tier() != Some(1) || ps.tier() != Some(1)) && start.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let [(one, image), (many, image_n)] = timed(&vs, &ps, &scene, &o)?;
    assert!(
        image.rgba == image_n.rgba && image.rgba == warm.rgba,
        "the image depends on the worker count"
    );
    write_png(&o.path, &image)?;
    let drawn = image.depth.iter().filter(|&&z| z < 1.0).count();
    println!(
        "{} triangles ({} front-facing), {}x{}, {drawn} pixels covered -> {}",
        scene.mesh.triangles.len(),
        image.triangles,
        o.width,
        o.height,
        o.path
    );
    let (lanes, written) = image.invocations;
    println!("pixel shader per frame: {lanes} invocations (helpers included), {written} written");
    let rate = |s: f64| {
        format!(
            "{:.2} M covered pixels/s, {:.2} M invocations/s",
            drawn as f64 / s / 1e6,
            lanes as f64 / s / 1e6
        )
    };
    println!("1 worker:  {:.1} ms/frame, {}", one * 1e3, rate(one));
    println!(
        "{} workers: {:.1} ms/frame, {}, {:.2}x one worker",
        o.threads,
        many * 1e3,
        rate(many),
        one / many
    );
    Ok(())
}
