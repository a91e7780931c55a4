//! Interpolation helpers for a rasterizer: from a vertex shader's outputs
//! and a pixel's barycentrics to a pixel shader's batch inputs, following
//! the declared interpolation modes.
//!
//! In: the reflections of a vertex and a pixel shader (linked by semantic
//! name and index, as D3D links stages), a vertex batch's
//! [`BatchResult`], and per pixel (or per sample) a [`Pixel`]: its
//! position, the screen-space barycentrics of the three vertices there,
//! the facing, primitive id and sample index. Out: the pixel's input
//! registers (`v0..v(registers-1)`, four DWORDs each, unused registers and
//! components 0) appended to a `Vec<u32>` laid out as
//! [`BatchInputs`](crate::BatchInputs) wants. Invariants: `constant`
//! inputs take the provoking (first) vertex's bits unchanged; `linear`
//! (perspective) inputs are `sum(b_i a_i / w_i) / sum(b_i / w_i)` with
//! `w_i` the vertex's `SV_Position.w`; `noperspective` inputs are `sum(b_i
//! a_i)`; centroid and sample modes are evaluated at the barycentrics the
//! caller passes (the caller picks the centroid or sample position).
//! `SV_Position` is `(x, y, z, 1/w)` with `z` interpolated without
//! perspective and `1/w` the interpolated reciprocal; `SV_IsFrontFace` is
//! `0xFFFFFFFF` or 0; `SV_PrimitiveID`, `SV_SampleIndex` come from the
//! [`Pixel`]; `SV_RenderTargetArrayIndex`/`SV_ViewportArrayIndex` take the
//! provoking vertex's output (0 when the vertex shader writes none).

use crate::reflect::{Interpolation, Reflection, SystemValue};
use crate::runtime::BatchResult;

/// Where one pixel-shader input element gets its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Source {
    /// A vertex-shader output register.
    Varying(u32),
    Position,
    FrontFace,
    PrimitiveId,
    SampleIndex,
    /// A system value the vertex shader does not write: 0.
    Zero,
}

/// One pixel input element: register, components, mode and source.
#[derive(Clone, Copy, Debug)]
struct Link {
    reg: u32,
    mask: u8,
    mode: Interpolation,
    source: Source,
}

/// One pixel (or sample) to shade.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pixel {
    /// Screen position (pixel centres at `.5`, or the sample position).
    pub x: f32,
    pub y: f32,
    /// Screen-space barycentrics of the three vertices at `(x, y)` (sum 1;
    /// outside the triangle for helper lanes, extrapolated as on a GPU).
    pub bary: [f32; 3],
    /// The triangle faces the viewer (`SV_IsFrontFace`).
    pub front_face: bool,
    /// `SV_PrimitiveID`.
    pub primitive_id: u32,
    /// `SV_SampleIndex` (per-sample shading; 0 otherwise).
    pub sample_index: u32,
}

/// Builds pixel-shader inputs from vertex-shader outputs.
#[derive(Clone, Debug)]
pub struct Interpolator {
    links: Vec<Link>,
    registers: u32,
    /// The vertex shader's `SV_Position` register (its `w` divides).
    position: Option<u32>,
}

/// A pixel input the vertex shader does not provide.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the pixel shader reads {semantic}{index} (v{register}) but the vertex shader does not write it")]
pub struct LinkError {
    pub semantic: String,
    pub index: u32,
    pub register: u32,
}

impl Interpolator {
    /// Links `ps`'s inputs to `vs`'s outputs by semantic (case-insensitive
    /// name and index); system values the rasterizer makes
    /// (`SV_Position`, `SV_IsFrontFace`, `SV_PrimitiveID`,
    /// `SV_SampleIndex`) need no vertex output. Inputs the pixel shader
    /// declares nowhere are skipped.
    pub fn new(vs: &Reflection, ps: &Reflection) -> Result<Interpolator, LinkError> {
        let position = vs
            .outputs
            .iter()
            .find(|e| e.system_value == SystemValue::POSITION)
            .and_then(|e| e.register);
        let mut links = Vec::new();
        let mut registers = 0;
        for e in &ps.inputs {
            let Some(reg) = e.register else { continue };
            registers = registers.max(reg + 1);
            if e.declared_mask == 0 {
                continue;
            }
            let from_vs = vs
                .outputs
                .iter()
                .find(|o| {
                    o.semantic.eq_ignore_ascii_case(&e.semantic)
                        && o.semantic_index == e.semantic_index
                })
                .and_then(|o| o.register);
            let source = match (e.system_value, from_vs) {
                (SystemValue::POSITION, _) => Source::Position,
                (SystemValue::IS_FRONT_FACE, _) => Source::FrontFace,
                (SystemValue::PRIMITIVE_ID, _) => Source::PrimitiveId,
                (SystemValue::SAMPLE_INDEX, _) => Source::SampleIndex,
                (_, Some(r)) => Source::Varying(r),
                (sv, None) if sv != SystemValue::NONE => Source::Zero,
                (_, None) => {
                    return Err(LinkError {
                        semantic: e.semantic.clone(),
                        index: e.semantic_index,
                        register: reg,
                    })
                }
            };
            let mode = match e.system_value {
                SystemValue::RENDER_TARGET_ARRAY_INDEX | SystemValue::VIEWPORT_ARRAY_INDEX => {
                    Interpolation::Constant
                }
                _ => e.interpolation.unwrap_or(Interpolation::Linear),
            };
            links.push(Link {
                reg,
                mask: e.mask,
                mode,
                source,
            });
        }
        Ok(Interpolator {
            links,
            registers,
            position,
        })
    }

    /// Input registers per pixel (one past the highest `v#`): the
    /// `registers` of the [`BatchInputs`](crate::BatchInputs).
    pub fn registers(&self) -> u32 {
        self.registers
    }

    /// Appends pixel `px`'s input registers to `out`; the triangle is the
    /// vertex invocations `tri` of `vs` (the first is the provoking
    /// vertex). Vertices that reported no outputs read as zeros.
    pub fn push_pixel(&self, vs: &BatchResult, tri: [usize; 3], px: &Pixel, out: &mut Vec<u32>) {
        let start = out.len();
        out.resize(start + self.registers as usize * 4, 0);
        let reg = |v: usize, r: u32| vs.output(tri[v], r).unwrap_or([0; 4]);
        // 1/w of each vertex (1 without a position output or for w == 0).
        let rw: [f32; 3] = std::array::from_fn(|v| {
            let w = self.position.map_or(1.0, |p| f32::from_bits(reg(v, p)[3]));
            if w == 0.0 {
                1.0
            } else {
                1.0 / w
            }
        });
        let b = px.bary;
        let persp_den: f32 = (0..3).map(|v| b[v] * rw[v]).sum();
        for l in &self.links {
            let value: [u32; 4] = match l.source {
                Source::Varying(r) => {
                    let a = [reg(0, r), reg(1, r), reg(2, r)];
                    interpolate(l.mode, a, b, rw, persp_den)
                }
                Source::Position => {
                    let z = self.position.map_or([0.0; 3], |p| {
                        std::array::from_fn(|v| f32::from_bits(reg(v, p)[2]) * rw[v])
                    });
                    let zi: f32 = (0..3).map(|v| b[v] * z[v]).sum();
                    [px.x, px.y, zi, persp_den].map(f32::to_bits)
                }
                Source::FrontFace => [if px.front_face { u32::MAX } else { 0 }; 4],
                Source::PrimitiveId => [px.primitive_id; 4],
                Source::SampleIndex => [px.sample_index; 4],
                Source::Zero => [0; 4],
            };
            let at = start + l.reg as usize * 4;
            for c in 0..4 {
                if l.mask & (1 << c) != 0 {
                    out[at + c] = value[c];
                }
            }
        }
    }
}

/// One attribute of the three vertices at barycentrics `b` under `mode`.
fn interpolate(
    mode: Interpolation,
    a: [[u32; 4]; 3],
    b: [f32; 3],
    rw: [f32; 3],
    persp_den: f32,
) -> [u32; 4] {
    if mode.is_constant() || mode == Interpolation::Undefined {
        return a[0];
    }
    std::array::from_fn(|c| {
        let f = |v: usize| f32::from_bits(a[v][c]);
        if mode.is_noperspective() {
            (b[0] * f(0) + b[1] * f(1) + b[2] * f(2)).to_bits()
        } else {
            let num = b[0] * f(0) * rw[0] + b[1] * f(1) * rw[1] + b[2] * f(2) * rw[2];
            (num / persp_den).to_bits()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BatchInputs, Bindings, EngineKind, Shader};

    const VS: &str = "vs_5_0
dcl_input v0.xyzw
dcl_input v1.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_output o2.xy
mov o0.xyzw, v0.xyzw
mov o1.xyzw, v1.xyzw
mov o2.xy, v1.wzww
ret
";

    // TEXCOORD1 = v1 (linear), TEXCOORD2 = v2 (o2 in the VS: noperspective
    // x, constant y).
    const PS: &str = "ps_5_0
dcl_input_ps_siv linear noperspective v0.xyzw, position
dcl_input_ps linear v1.xyzw
dcl_input_ps linear noperspective v2.x
dcl_input_ps constant v2.y
dcl_input_ps_sgv constant v3.x, is_front_face
dcl_input_ps_sgv constant v3.y, primitive_id
dcl_output o0.xyzw
mov o0.xyzw, v1.xyzw
ret
";

    #[test]
    fn modes_follow_the_declarations() {
        let vs = Shader::from_asm(VS, EngineKind::Interpreter).unwrap();
        let ps = Shader::from_asm(PS, EngineKind::Interpreter).unwrap();
        // Vertex k: position (k, 0, 0.5, w_k), attribute (10k, 1, 2, 3 + k).
        let w = [1.0f32, 2.0, 4.0];
        let data: Vec<u32> = (0..3)
            .flat_map(|k| {
                let k_f = k as f32;
                [k_f, 0.0, 0.5, w[k], 10.0 * k_f, 1.0, 2.0, 3.0 + k_f]
            })
            .map(f32::to_bits)
            .collect();
        let out = vs
            .run_batch(&Bindings::new(), &BatchInputs::new(3, 2, &data))
            .unwrap();
        let it = Interpolator::new(vs.reflect(), ps.reflect()).unwrap();
        assert_eq!(it.registers(), 4);
        let px = Pixel {
            x: 3.5,
            y: 7.5,
            bary: [0.25, 0.25, 0.5],
            front_face: true,
            primitive_id: 9,
            sample_index: 0,
        };
        let mut v = Vec::new();
        it.push_pixel(&out, [0, 1, 2], &px, &mut v);
        let f = |i: usize| f32::from_bits(v[i]);
        // Perspective: weights b_k / w_k = 0.25, 0.125, 0.125 over 0.5.
        assert_eq!(f(4), (0.25 * 0.0 + 0.125 * 10.0 + 0.125 * 20.0) / 0.5);
        assert_eq!(f(7), (0.25 * 3.0 + 0.125 * 4.0 + 0.125 * 5.0) / 0.5);
        // noperspective x of TEXCOORD2 (= v1.w of each vertex): screen weights.
        assert_eq!(f(8), 0.25 * 3.0 + 0.25 * 4.0 + 0.5 * 5.0);
        // constant y: the provoking vertex's v1.z.
        assert_eq!(f(9), 2.0);
        // SV_Position: (x, y, z/w interpolated, 1/w interpolated).
        assert_eq!([f(0), f(1)], [3.5, 7.5]);
        assert_eq!(f(2), 0.25 * 0.5 + 0.25 * 0.25 + 0.5 * 0.125);
        assert_eq!(f(3), 0.5);
        assert_eq!(&v[12..14], &[u32::MAX, 9]);
    }

    #[test]
    fn a_missing_varying_is_named() {
        let vs = Shader::from_asm(
            "vs_5_0\ndcl_output_siv o0.xyzw, position\nmov o0, l(0,0,0,0)\nret\n",
            EngineKind::Interpreter,
        )
        .unwrap();
        let ps = Shader::from_asm(PS, EngineKind::Interpreter).unwrap();
        let e = Interpolator::new(vs.reflect(), ps.reflect()).unwrap_err();
        assert_eq!(e.register, 1);
        assert!(e.to_string().contains("TEXCOORD1"), "{e}");
    }
}
