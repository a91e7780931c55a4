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
        s.run_batch(&mut Bindings::new(), inputs)
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
            let want = match samples {
                1 if i == 0 => [0.0, 0.0],
                4 if i < 4 => [pattern[i].0 as f32 / 16.0, pattern[i].1 as f32 / 16.0],
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
