//! Every pixel-stage special register on both engines through the public
//! API: `oDepth`/`oDepthGE`/`oDepthLE`, `oMask`, `oStencilRef` in the
//! batch result (by kind and by semantic), `vCoverage`, and the render
//! target's sample count and standard positions (`sampleinfo` /
//! `samplepos` on `rasterizer`). Each batch runs on the interpreter and
//! on the JIT; the two results must be identical and match values the
//! test works out by hand.

use sm5jit::{BatchInputs, BatchResult, Bindings, EngineKind, LaneResult, Shader, SpecialOutput};

fn both(text: &str, inputs: &BatchInputs) -> BatchResult {
    let run = |engine| {
        let s = Shader::from_asm(text, engine).unwrap_or_else(|e| panic!("{engine}: {e}"));
        s.run_batch(&Bindings::new(), inputs)
            .unwrap_or_else(|e| panic!("{engine}: {e}"))
    };
    let i = run(EngineKind::Interpreter);
    let j = run(EngineKind::Jit);
    assert_eq!(i, j, "interpreter and JIT disagree");
    i
}

/// Two quads; v0.x = invocation index as float.
fn index_inputs(count: usize) -> Vec<u32> {
    (0..count)
        .flat_map(|i| [(i as f32).to_bits(), 0, 0, 0])
        .collect()
}

#[test]
fn a_depth_writing_pixel_shader_reports_its_depth_on_both_engines() {
    // depth = v0.x * 0.125 + 0.25, discarded when v0.x == 5.
    let text = "ps_5_0
dcl_input_ps linear v0.x
dcl_output o0.xyzw
dcl_output oDepth
dcl_temps 1
eq r0.x, v0.x, l(5.0)
discard_nz r0.x
mad oDepth, v0.x, l(0.125), l(0.25)
mov o0.xyzw, v0.xxxx
ret
";
    let data = index_inputs(8);
    let r = both(text, &BatchInputs::new(8, 1, &data));
    assert_eq!(r.specials, [SpecialOutput::Depth]);
    for i in 0..8 {
        if i == 5 {
            assert_eq!(r.lanes[i], LaneResult::Discarded);
            assert_eq!(r.depth(i), None);
            continue;
        }
        let want = i as f32 * 0.125 + 0.25;
        assert_eq!(r.depth(i), Some(want), "pixel {i}");
        assert_eq!(
            r.by_semantic(i, "SV_Depth", 0),
            Some([want.to_bits(), 0, 0, 0])
        );
        assert_eq!(
            r.by_semantic(i, "SV_Target", 0),
            Some([(i as f32).to_bits(); 4])
        );
    }
    for (reg, kind) in [
        ("oDepthGE", SpecialOutput::DepthGreaterEqual),
        ("oDepthLE", SpecialOutput::DepthLessEqual),
    ] {
        let text = format!(
            "ps_5_0\ndcl_input_ps linear v0.x\ndcl_output {reg}\nadd {reg}, v0.x, l(0.5)\nret\n"
        );
        let r = both(&text, &BatchInputs::new(4, 1, &data[..16]));
        assert_eq!(r.specials, [kind]);
        assert_eq!(r.special(3, kind), Some(3.5f32.to_bits()));
        assert_eq!(r.depth(2), Some(2.5));
    }
}

#[test]
fn omask_stencil_ref_and_vcoverage_on_both_engines() {
    // oMask = vCoverage & (1 << index); oStencilRef = index + 100.
    let text = "ps_5_0
dcl_input_ps constant v0.x
dcl_input vCoverage
dcl_output oMask
dcl_output oStencilRef
dcl_temps 1
ishl r0.x, l(1), v0.x
and oMask, r0.x, vCoverage
iadd oStencilRef, v0.x, l(100)
ret
";
    let data: Vec<u32> = (0..8u32).flat_map(|i| [i, 0, 0, 0]).collect();
    let coverage: Vec<u32> = (0..8u32).map(|i| 0xF0 | i).collect();
    let inputs = BatchInputs::new(8, 1, &data).with_coverage(&coverage);
    let r = both(text, &inputs);
    assert_eq!(
        r.specials,
        [SpecialOutput::CoverageMask, SpecialOutput::StencilRef]
    );
    for i in 0..8u32 {
        let inv = i as usize;
        assert_eq!(
            r.coverage_mask(inv),
            Some((1 << i) & (0xF0 | i)),
            "pixel {i}"
        );
        assert_eq!(r.stencil_ref(inv), Some(i + 100));
        assert_eq!(
            r.by_semantic(inv, "SV_StencilRef", 0),
            Some([i + 100, 0, 0, 0])
        );
    }
    // Without coverage masks every sample of a 4-sample target is covered.
    let r = both(text, &BatchInputs::new(8, 1, &data).with_sample_count(4));
    assert_eq!(r.coverage_mask(2), Some(0b0100));
    assert_eq!(r.coverage_mask(5), Some(0));
}

#[test]
fn the_render_targets_samples_reach_sampleinfo_and_samplepos() {
    let text = "ps_5_0
dcl_input_ps constant v0.x
dcl_output o0.xyzw
dcl_output o1.xyzw
sampleinfo_uint o0.x, rasterizer.x
sampleinfo o0.y, rasterizer.x
mov o0.zw, l(0,0,0,0)
samplepos o1.xyzw, rasterizer.xyzw, v0.x
ret
";
    let data: Vec<u32> = (0..8u32).flat_map(|i| [i, 0, 0, 0]).collect();
    // Standard 4-sample pattern in 1/16 pixel (D3D11_STANDARD_MULTISAMPLE_PATTERN).
    let pattern = [(-2, -6), (6, -2), (-6, 2), (2, 6)];
    for samples in [1u32, 4] {
        let r = both(
            text,
            &BatchInputs::new(8, 1, &data).with_sample_count(samples),
        );
        for i in 0..8usize {
            let o0 = r.output(i, 0).unwrap();
            assert_eq!(o0[0], samples);
            assert_eq!(f32::from_bits(o0[1]), samples as f32);
            let o1 = r.output(i, 1).unwrap().map(f32::from_bits);
            let want = match (samples, pattern.get(i)) {
                (4, Some(p)) => [p.0 as f32 / 16.0, p.1 as f32 / 16.0],
                _ => [0.0, 0.0],
            };
            assert_eq!(
                o1,
                [want[0], want[1], 0.0, 0.0],
                "{samples} samples, index {i}"
            );
        }
    }
}

/// The system values a rasterizer provides, end to end on both engines: a
/// vertex shader writes `SV_RenderTargetArrayIndex` and
/// `SV_ViewportArrayIndex` (read back by semantic), the interpolator
/// fills the pixel shader's `SV_Position`, `SV_IsFrontFace`,
/// `SV_PrimitiveID` and `SV_SampleIndex` (one invocation per sample, as
/// per-sample shading runs), and the pixel shader reports them all.
#[test]
fn system_values_from_vertex_to_pixel_on_both_engines() {
    use sm5jit::interpolate::{Interpolator, Pixel};
    let vs_text = "vs_5_0
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, position
dcl_output_siv o1.x, rendertarget_array_index
dcl_output_siv o1.y, viewport_array_index
mov o0.xyzw, v0.xyzw
ftou o1.x, v0.x
mov o1.y, l(2)
ret
";
    let ps_text = "ps_5_0
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_input_ps_sgv constant v1.x, is_front_face
dcl_input_ps_sgv constant v1.y, primitive_id
dcl_input_ps_sgv constant v1.z, sampleIndex
dcl_input vCoverage
dcl_output o0.xyzw
dcl_output o1.xyzw
mov o0.xy, v0.xyxx
mov o0.zw, l(0,0,0,0)
mov o1.xyz, v1.xyzx
mov o1.w, vCoverage
ret
";
    let vs = |e| Shader::from_asm(vs_text, e).unwrap();
    let ps = |e| Shader::from_asm(ps_text, e).unwrap();
    let verts: Vec<u32> = [
        [3.0f32, 0.0, 0.0, 1.0],
        [5.0, 0.0, 0.0, 1.0],
        [7.0, 0.0, 0.0, 1.0],
    ]
    .iter()
    .flatten()
    .map(|v| v.to_bits())
    .collect();
    let mut results = Vec::new();
    for engine in [EngineKind::Interpreter, EngineKind::Jit] {
        let (v, p) = (vs(engine), ps(engine));
        assert!(p.reflect().flags.per_sample && p.reflect().flags.reads_coverage);
        let vo = v
            .run_batch(&Bindings::new(), &BatchInputs::new(3, 1, &verts))
            .unwrap();
        assert_eq!(
            vo.by_semantic(1, "SV_RenderTargetArrayIndex", 0).unwrap()[0],
            5
        );
        assert_eq!(vo.by_semantic(2, "SV_ViewportArrayIndex", 0).unwrap()[1], 2);
        let lerp = Interpolator::new(v.reflect(), p.reflect()).unwrap();
        // One quad, shaded once per sample of a 2-sample target.
        let mut data = Vec::new();
        let mut coverage = Vec::new();
        for sample in 0..2u32 {
            for lane in 0..4u32 {
                let px = Pixel {
                    x: (lane % 2) as f32 + 0.5,
                    y: (lane / 2) as f32 + 0.5,
                    bary: [1.0, 0.0, 0.0],
                    front_face: lane != 3,
                    primitive_id: 40 + lane,
                    sample_index: sample,
                };
                lerp.push_pixel(&vo, [0, 1, 2], &px, &mut data);
                coverage.push(1 << sample);
            }
        }
        let inputs = BatchInputs::new(8, lerp.registers(), &data)
            .with_coverage(&coverage)
            .with_sample_count(2);
        let out = p.run_batch(&Bindings::new(), &inputs).unwrap();
        for inv in 0..8usize {
            let (lane, sample) = (inv as u32 % 4, inv as u32 / 4);
            let pos = out.output(inv, 0).unwrap();
            assert_eq!(
                [f32::from_bits(pos[0]), f32::from_bits(pos[1])],
                [(lane % 2) as f32 + 0.5, (lane / 2) as f32 + 0.5]
            );
            let face = if lane != 3 { u32::MAX } else { 0 };
            assert_eq!(
                out.output(inv, 1),
                Some([face, 40 + lane, sample, 1 << sample])
            );
        }
        results.push(out);
    }
    assert_eq!(results[0], results[1]);
}
