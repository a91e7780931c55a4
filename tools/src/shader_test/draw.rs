//! Draws: input assembly, the vertex batch, rasterization, the pixel batch
//! and the output merger of a `.shader_test` draw.
//!
//! In: the file's [`State`] (shaders, vertex buffers, input layout,
//! targets, bindings) and a topology. Out: the render targets (and depth
//! buffer, UAVs) written as D3D11 would. Invariant: the pipeline follows
//! §5.3 and §8 of the format page: viewport (0, 0, W, H) over the smallest
//! target, no culling, clockwise front faces, no blending, pixel centres,
//! 2x2 quads with helper lanes, attributes matched by semantic and
//! interpolated as the pixel shader declares (perspective-correct unless
//! `noperspective`, constant from the first vertex), shader depth
//! (`oDepth`/`oDepthGE`/`oDepthLE`, clamped to [0, 1]) replacing the
//! interpolated depth, `vCoverage` = the samples the pass covers, and
//! `oMask` ANDed with that coverage and the sample mask before the depth
//! test and the target writes. Anything it cannot do
//! is an [`Outcome::Skip`] naming the feature, never a silent wrong image.

use super::exec::{bind, uniform_bytes, Outcome, State};
use super::raster::{standard_positions, Lane, Raster, WindowVertex};
use super::resource::{self, Resource};
use super::shaders::{sv, At, Interp, Loaded};
use sm5jit::dxbc::SignatureElement;
use sm5jit::{BatchInputs, Bindings, ComparisonFunc, Format, LaneResult};

/// How vertices make triangles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Topology {
    /// `draw quad`: the built-in big triangle.
    Quad,
    List,
    Strip,
}

/// Creates render target 0 (640x480 RGBA32F of zeros) when neither a
/// render target 0 nor a depth buffer exists.
pub fn default_target(st: &mut State) {
    if st.rtvs.is_empty() && st.dsv.is_none() {
        st.rtvs
            .insert(0, Resource::target(Format::R32G32B32A32Float, 640, 480));
    }
}

/// One vertex after the vertex shader: its output registers by index.
struct VertexOut {
    regs: Vec<(u32, [u32; 4])>,
}

impl VertexOut {
    fn reg(&self, r: u32) -> [u32; 4] {
        self.regs
            .iter()
            .find(|(n, _)| *n == r)
            .map(|(_, v)| *v)
            .unwrap_or([0; 4])
    }
}

/// Runs a draw of `count` vertices and `instances` instances.
pub fn draw(st: &mut State, topo: Topology, count: u32, instances: u32) -> Result<(), Outcome> {
    default_target(st);
    if topo == Topology::Quad {
        let data: Vec<u32> = [-2.0f32, -2.0, -2.0, 4.0, 4.0, -2.0]
            .iter()
            .map(|f| f.to_bits())
            .collect();
        let vb = super::script::ResourceDesc {
            kind: super::script::ResKind::Vb,
            slot: 0,
            format: None,
            shape: None,
            levels: 1,
            data,
        };
        st.vbs.insert(0, Resource::new(&vb)?);
        st.layout = vec![super::script::LayoutElement {
            slot: 0,
            format: "r32g32-float".into(),
            semantic: "position".into(),
            index: 0,
        }];
    }
    if st.vs.is_none() && st.builtin_vs.is_none() {
        st.builtin_vs = Some(Loaded::builtin_vertex(st.engine));
    }
    let verts = run_vertices(st, count, instances)?;
    let ps = st.ps.as_ref().ok_or("draw: no pixel shader")?;
    ps.get().map_err(|e| format!("pixel shader: {e}"))?;
    let vs = st
        .vs
        .as_ref()
        .or(st.builtin_vs.as_ref())
        .ok_or("draw: no vertex shader")?;
    let pos_reg = vs
        .outputs
        .iter()
        .find(|e| e.system_value == sv::POSITION)
        .map(|e| e.register)
        .ok_or("draw: the vertex shader writes no SV_Position")?;
    let vs_outputs = vs.outputs.clone();
    let tris = triangles(topo, count, instances);
    let (w, h, samples) = viewport(st);
    let positions = standard_positions(samples);
    for (prim, tri) in tris.iter().enumerate() {
        let mut wv = [WindowVertex {
            x: 0.0,
            y: 0.0,
            z: 0.0,
            inv_w: 1.0,
        }; 3];
        for (k, &vi) in tri.iter().enumerate() {
            let p = verts[vi].reg(pos_reg).map(|b| f64::from(f32::from_bits(b)));
            if p[3].is_nan() || p[3] <= 0.0 {
                return Err(Outcome::Skip(
                    "a vertex with clip w <= 0 (clipping against the near plane)".into(),
                ));
            }
            wv[k] = WindowVertex {
                x: (p[0] / p[3] + 1.0) * 0.5 * f64::from(w),
                y: (1.0 - p[1] / p[3]) * 0.5 * f64::from(h),
                z: p[2] / p[3],
                inv_w: 1.0 / p[3],
            };
        }
        let Some(raster) = Raster::new(wv, w, h, &positions) else {
            continue;
        };
        let prim_in_instance = prim % tris_per_instance(topo, count).max(1);
        let outs = [&verts[tri[0]], &verts[tri[1]], &verts[tri[2]]];
        shade(
            st,
            &raster,
            &outs,
            &vs_outputs,
            prim_in_instance as u32,
            &positions,
        )?;
    }
    Ok(())
}

fn tris_per_instance(topo: Topology, count: u32) -> usize {
    match topo {
        Topology::Quad => 1,
        Topology::List => count as usize / 3,
        Topology::Strip => count.saturating_sub(2) as usize,
    }
}

/// Vertex indices (into the vertex batch) of every triangle.
fn triangles(topo: Topology, count: u32, instances: u32) -> Vec<[usize; 3]> {
    let n = count as usize;
    let mut out = Vec::new();
    for inst in 0..instances as usize {
        let base = inst * n;
        match topo {
            Topology::Quad | Topology::List => {
                for t in 0..n / 3 {
                    out.push([base + 3 * t, base + 3 * t + 1, base + 3 * t + 2]);
                }
            }
            Topology::Strip => {
                for t in 0..n.saturating_sub(2) {
                    let tri = if t % 2 == 0 {
                        [t, t + 1, t + 2]
                    } else {
                        [t + 1, t, t + 2]
                    };
                    out.push(tri.map(|i| base + i));
                }
            }
        }
    }
    out
}

/// Width, height (the smallest bound target) and samples per pixel.
fn viewport(st: &State) -> (u32, u32, u32) {
    let sizes = st.rtvs.values().chain(st.dsv.iter());
    let w = sizes.clone().map(|r| r.size().0).min().unwrap_or(0);
    let h = sizes.clone().map(|r| r.size().1).min().unwrap_or(0);
    let samples = sizes.map(Resource::samples).max().unwrap_or(1);
    (w, h, samples)
}

fn run_vertices(st: &mut State, count: u32, instances: u32) -> Result<Vec<VertexOut>, Outcome> {
    let vs = st
        .vs
        .as_ref()
        .or(st.builtin_vs.as_ref())
        .ok_or("draw: no vertex shader")?;
    let shader = vs.get().map_err(|e| format!("vertex shader: {e}"))?;
    let regs = vs.input_registers().max(1);
    let total = count as usize * instances as usize;
    if total > 1 << 20 {
        return Err(format!("draw: {total} vertices is too many").into());
    }
    let mut data = vec![0u32; total * regs as usize * 4];
    let strides = strides(&st.layout)?;
    for inst in 0..instances {
        for vid in 0..count {
            let at = ((inst * count + vid) * regs) as usize * 4;
            for e in &vs.inputs {
                let value = match e.system_value {
                    sv::VERTEX_ID => [vid, 0, 0, 0],
                    sv::INSTANCE_ID => [inst, 0, 0, 0],
                    0 => fetch(st, &strides, e, vid)?,
                    other => return Err(format!("vertex input system value {other}").into()),
                };
                place(&mut data[at..at + regs as usize * 4], e, value);
            }
        }
    }
    let cb = uniform_bytes(st);
    let mut b = Bindings::new();
    if !cb.is_empty() {
        b.cb(sm5jit::Slot::new(0), &cb);
    }
    let result = shader
        .run_batch(&b, &BatchInputs::new(total, regs, &data))
        .map_err(|e| format!("vertex shader: {e}"))?;
    Ok((0..total)
        .map(|i| VertexOut {
            regs: result.outputs(i).unwrap_or_default(),
        })
        .collect())
}

/// Each layout element's byte offset in its slot, and each slot's stride.
struct Strides {
    offsets: Vec<u32>,
    stride: std::collections::BTreeMap<u32, u32>,
}

fn strides(layout: &[super::script::LayoutElement]) -> Result<Strides, String> {
    let mut s = Strides {
        offsets: Vec::new(),
        stride: Default::default(),
    };
    for e in layout {
        let f = resource::format(&e.format).ok_or(format!("unknown format `{}`", e.format))?;
        let at = s.stride.entry(e.slot).or_insert(0);
        s.offsets.push(*at);
        *at += f.bytes();
    }
    Ok(s)
}

/// The value of input element `e` for vertex `vid` (IA fetch, with
/// missing components read as the format's defaults 0, 0, 0, 1).
fn fetch(st: &State, s: &Strides, e: &SignatureElement, vid: u32) -> Result<[u32; 4], String> {
    let (k, le) = st
        .layout
        .iter()
        .enumerate()
        .find(|(_, l)| l.semantic.eq_ignore_ascii_case(&e.name) && l.index == e.semantic_index)
        .or_else(|| {
            // A blob without signatures: v{r} reads layout element r.
            let r: usize = e.name.strip_prefix("__reg")?.parse().ok()?;
            st.layout.get(r).map(|l| (r, l))
        })
        .ok_or(format!(
            "the input layout has no {}{} for the vertex shader",
            e.name, e.semantic_index
        ))?;
    let f = resource::format(&le.format).ok_or(format!("unknown format `{}`", le.format))?;
    let vb = st
        .vbs
        .get(&le.slot)
        .ok_or(format!("no vertex buffer {}", le.slot))?;
    let at = vid as usize * s.stride[&le.slot] as usize + s.offsets[k] as usize;
    // Past the end of a vertex buffer reads zeros (D3D11 IA rule).
    Ok(match vb.data.get(at..at + f.bytes() as usize) {
        Some(bytes) => f.load(bytes),
        None => [0; 4],
    })
}

/// Puts `value` into the components of `e.register` its mask names: the
/// k-th set bit takes component k.
fn place(regs: &mut [u32], e: &SignatureElement, value: [u32; 4]) {
    let base = e.register as usize * 4;
    let mut k = 0;
    for c in 0..4 {
        if e.mask & (1 << c) != 0 {
            if let Some(slot) = regs.get_mut(base + c) {
                *slot = value[k];
            }
            k += 1;
        }
    }
}

/// The components of a vertex output element as a list (mask order).
fn take(out: &VertexOut, e: &SignatureElement) -> [u32; 4] {
    let r = out.reg(e.register);
    let mut v = [0u32; 4];
    let mut k = 0;
    for (c, value) in r.iter().enumerate() {
        if e.mask & (1 << c) != 0 {
            v[k] = *value;
            k += 1;
        }
    }
    v
}

/// How each pixel-shader input element is fed.
enum Source {
    /// `SV_Position`, evaluated where its declaration says.
    Position(At),
    FrontFace,
    PrimitiveId,
    SampleIndex,
    /// A vertex output element, and its interpolation.
    Attribute(SignatureElement, Interp),
    Zero,
}

fn sources(
    ps: &Loaded,
    vs_outputs: &[SignatureElement],
) -> Result<Vec<(SignatureElement, Source)>, Outcome> {
    let mut out = Vec::new();
    for e in &ps.inputs {
        if e.register == u32::MAX {
            continue;
        }
        let src = match e.system_value {
            sv::POSITION => Source::Position(match ps.interp_of(e.register) {
                Interp::Perspective(at) | Interp::NoPerspective(at) => at,
                Interp::Constant => At::Center,
            }),
            sv::IS_FRONT_FACE => Source::FrontFace,
            sv::PRIMITIVE_ID => Source::PrimitiveId,
            sv::SAMPLE_INDEX => Source::SampleIndex,
            0 => match vs_outputs.iter().find(|o| {
                o.name.eq_ignore_ascii_case(&e.name) && o.semantic_index == e.semantic_index
            }) {
                Some(o) => Source::Attribute(o.clone(), ps.interp_of(e.register)),
                // D3D11 leaves unwritten inputs undefined; vkd3d's tests
                // read them as zero.
                None => Source::Zero,
            },
            other => {
                return Err(Outcome::Skip(format!(
                    "pixel input system value {other} ({})",
                    e.name
                )))
            }
        };
        out.push((e.clone(), src));
    }
    Ok(out)
}

fn shade(
    st: &mut State,
    raster: &Raster,
    verts: &[&VertexOut; 3],
    vs_outputs: &[SignatureElement],
    prim: u32,
    positions: &[(f64, f64)],
) -> Result<(), Outcome> {
    let ps = st.ps.as_ref().ok_or("draw: no pixel shader")?;
    let shader = ps.get().map_err(|e| format!("pixel shader: {e}"))?;
    let srcs = sources(ps, vs_outputs)?;
    let regs = ps.input_registers().max(1);
    let samples = positions.len() as u32;
    let all = if samples >= 32 {
        u32::MAX
    } else {
        (1 << samples) - 1
    };
    let per_sample = samples > 1
        && srcs.iter().any(|(_, s)| {
            matches!(s, Source::SampleIndex | Source::Position(At::Sample))
                || matches!(
                    s,
                    Source::Attribute(
                        _,
                        Interp::Perspective(At::Sample) | Interp::NoPerspective(At::Sample)
                    )
                )
        });
    let passes: Vec<Option<u32>> = if per_sample {
        (0..samples).map(Some).collect()
    } else {
        vec![None]
    };
    for pass in passes {
        // Lanes of this pass: pixel frequency covers any sample, sample
        // frequency covers sample `s`.
        let covered = |l: &Lane| match pass {
            None => l.coverage != 0,
            Some(s) => l.coverage & (1 << s) != 0,
        };
        let quads: Vec<&[Lane; 4]> = raster
            .quads
            .iter()
            .filter(|q| q.iter().any(covered))
            .collect();
        if quads.is_empty() {
            continue;
        }
        let n = quads.len() * 4;
        let mut data = vec![0u32; n * regs as usize * 4];
        let mut helpers = vec![false; n];
        let mut coverage = vec![0u32; n];
        for (qi, q) in quads.iter().enumerate() {
            for (li, lane) in q.iter().enumerate() {
                let i = qi * 4 + li;
                helpers[i] = !covered(lane);
                coverage[i] = pass_coverage(lane, pass);
                let at = i * regs as usize * 4;
                let regs_out = &mut data[at..at + regs as usize * 4];
                let px = f64::from(lane.x);
                let py = f64::from(lane.y);
                let centre = (px + 0.5, py + 0.5);
                let sample_pos =
                    pass.map(|s| (px + positions[s as usize].0, py + positions[s as usize].1));
                let centroid = if lane.coverage == all || lane.coverage == 0 {
                    centre
                } else {
                    let s = lane.coverage.trailing_zeros() as usize;
                    (px + positions[s].0, py + positions[s].1)
                };
                // Centre and centroid stay where they are in a sample-rate
                // pass; only `sample` attributes move to the sample.
                let point = |at: &At| match at {
                    At::Center => centre,
                    At::Centroid => centroid,
                    At::Sample => sample_pos.unwrap_or(centre),
                };
                for (e, src) in &srcs {
                    let value = match src {
                        Source::Position(at) => {
                            let (x, y) = point(at);
                            let z = raster.depth(x, y) as f32;
                            let w = raster.clip_w(x, y) as f32;
                            [x as f32, y as f32, z, w].map(f32::to_bits)
                        }
                        Source::FrontFace => [if raster.front_face { u32::MAX } else { 0 }; 4],
                        Source::PrimitiveId => [prim; 4],
                        Source::SampleIndex => [pass.unwrap_or(0); 4],
                        Source::Zero => [0; 4],
                        Source::Attribute(o, mode) => {
                            let vals = verts.map(|v| take(v, o));
                            match mode {
                                Interp::Constant => vals[0],
                                Interp::Perspective(at) => {
                                    let (x, y) = point(at);
                                    mix(&vals, raster.weights(x, y).perspective)
                                }
                                Interp::NoPerspective(at) => {
                                    let (x, y) = point(at);
                                    mix(&vals, raster.weights(x, y).linear)
                                }
                            }
                        }
                    };
                    place(regs_out, e, value);
                }
            }
        }
        let result = {
            let cb = uniform_bytes(st);
            let mut b = Bindings::new();
            bind(
                &mut b,
                &st.srvs,
                &mut st.uavs,
                &st.samplers,
                &cb,
                ps.program.as_ref(),
            );
            let inputs = BatchInputs::new(n, regs, &data)
                .with_helpers(&helpers)
                .with_coverage(&coverage)
                .with_sample_count(samples);
            shader
                .run_batch(&b, &inputs)
                .map_err(|e| format!("pixel shader: {e}"))?
        };
        let targets: Vec<(u32, u32)> = ps
            .outputs
            .iter()
            .filter(|e| e.system_value == sv::TARGET || e.name.eq_ignore_ascii_case("SV_Target"))
            .map(|e| (e.semantic_index, e.register))
            .collect();
        for (qi, q) in quads.iter().enumerate() {
            for (li, lane) in q.iter().enumerate() {
                let i = qi * 4 + li;
                if result.lanes[i] != LaneResult::Written {
                    continue;
                }
                // oMask narrows the samples like the sample mask does.
                let mut mask =
                    coverage[i] & st.sample_mask & result.coverage_mask(i).unwrap_or(u32::MAX);
                if let Some(dsv) = st.dsv.as_mut() {
                    let depth = match result.depth(i) {
                        Some(z) => Depth::Shader(z),
                        None => Depth::Interpolated(raster),
                    };
                    mask = depth_test(dsv, depth, lane, positions, mask, st.depth_func);
                }
                for &(rt, reg) in &targets {
                    let Some(value) = result.output(i, reg) else {
                        continue;
                    };
                    let Some(target) = st.rtvs.get_mut(&rt) else {
                        continue;
                    };
                    for s in 0..target.samples() {
                        if mask & (1 << s) != 0 {
                            target.write(lane.x, lane.y, s, value);
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// The samples of `lane` a pass covers (what the shader reads as
/// `vCoverage`): all of them at pixel frequency, sample `s` alone in the
/// sample-rate pass for `s`.
fn pass_coverage(lane: &Lane, pass: Option<u32>) -> u32 {
    match pass {
        None => lane.coverage,
        Some(s) => lane.coverage & (1 << s),
    }
}

/// Where a lane's depth comes from.
#[derive(Clone, Copy)]
enum Depth<'a> {
    /// The triangle's z at each sample.
    Interpolated(&'a Raster),
    /// `oDepth` (or `oDepthGE`/`oDepthLE`): one value for every sample.
    Shader(f32),
}

/// The depth test and write of one lane; returns the samples that pass.
fn depth_test(
    dsv: &mut Resource,
    depth: Depth,
    lane: &Lane,
    positions: &[(f64, f64)],
    mask: u32,
    func: ComparisonFunc,
) -> u32 {
    let mut pass = 0;
    for s in 0..dsv.samples() {
        if mask & (1 << s) == 0 {
            continue;
        }
        let z = match depth {
            Depth::Interpolated(raster) => {
                let (ox, oy) = positions.get(s as usize).copied().unwrap_or((0.5, 0.5));
                raster.depth(f64::from(lane.x) + ox, f64::from(lane.y) + oy) as f32
            }
            Depth::Shader(z) => z,
        };
        // The viewport's depth range is [0, 1]; D3D11 clamps shader depth
        // to it too (a NaN becomes 0).
        let z = if z.is_nan() { 0.0 } else { z.clamp(0.0, 1.0) };
        // Each sample of a multisampled depth buffer is tested on its own.
        let old = dsv.dword(lane.x, lane.y, s).map_or(0.0, f32::from_bits);
        if func.test(z, old) {
            pass |= 1 << s;
            dsv.write(lane.x, lane.y, s, [z.to_bits(), 0, 0, 0]);
        }
    }
    pass
}

/// Interpolates three attribute values with weights `w` (in f64, rounded
/// once to f32).
fn mix(vals: &[[u32; 4]; 3], w: [f64; 3]) -> [u32; 4] {
    let mut out = [0u32; 4];
    for (c, o) in out.iter_mut().enumerate() {
        if vals[0][c] == vals[1][c] && vals[1][c] == vals[2][c] {
            // A flat attribute stays exact (and ±inf does not become NaN).
            *o = vals[0][c];
            continue;
        }
        let v: f64 = (0..3)
            .map(|i| w[i] * f64::from(f32::from_bits(vals[i][c])))
            .sum();
        *o = (v as f32).to_bits();
    }
    out
}
