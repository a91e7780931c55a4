use super::*;

fn reflect_asm(text: &str) -> Reflection {
    let p = crate::asm::parse_program(text).expect("parse");
    let info = crate::validate::validate(&p).expect("validate");
    reflect(&p, &info, None)
}

#[test]
fn pixel_inputs_outputs_and_flags_from_declarations() {
    let r = reflect_asm(
        "ps_5_0
dcl_globalFlags refactoringAllowed | forceEarlyDepthStencil
dcl_sampler s1, mode_default
dcl_resource_texture2d (float,float,float,float) t2
dcl_input_ps_siv linear noperspective v0.xy, position
dcl_input_ps linear centroid v1.zw
dcl_input_ps_sgv constant v2.x, is_front_face
dcl_input_ps_sgv constant v2.y, sampleIndex
dcl_output o0.xyzw
dcl_output o3.xy
dcl_output oMask
dcl_temps 1
sample r0.xyzw, v1.zwzz, t2.xyzw, s1
deriv_rtx r0.x, r0.x
discard_nz v2.x
mov o0.xyzw, r0.xyzw
mov o3.xy, r0.xyxx
mov oMask, l(1)
ret
",
    );
    let sem: Vec<(&str, u32, Option<u32>, u8)> = r
        .inputs
        .iter()
        .map(|e| (e.semantic.as_str(), e.semantic_index, e.register, e.mask))
        .collect();
    assert_eq!(
        sem,
        [
            ("SV_Position", 0, Some(0), 0b0011),
            ("TEXCOORD", 1, Some(1), 0b1100),
            ("SV_IsFrontFace", 0, Some(2), 0b0001),
            ("SV_SampleIndex", 0, Some(2), 0b0010),
        ]
    );
    assert_eq!(
        r.inputs[1].interpolation,
        Some(Interpolation::LinearCentroid)
    );
    assert_eq!(r.inputs[2].component_type, ComponentType::Uint);
    let outs: Vec<(&str, u32, Option<u32>)> = r
        .outputs
        .iter()
        .map(|e| (e.semantic.as_str(), e.semantic_index, e.register))
        .collect();
    assert_eq!(
        outs,
        [
            ("SV_Target", 0, Some(0)),
            ("SV_Target", 3, Some(3)),
            ("SV_Coverage", 0, None)
        ]
    );
    assert_eq!(r.outputs[2].operand, "oMask");
    assert_eq!(r.samplers[0].slot, 1);
    assert_eq!(r.samplers[0].textures, [2]);
    assert_eq!(r.srvs[0].dimension, "texture2d");
    let f = r.flags;
    assert!(f.discards && f.writes_coverage && f.uses_derivatives && f.per_sample);
    assert!(f.early_depth_stencil);
    assert_eq!(f.writes_depth, DepthOutput::None);
    assert_eq!(r.instructions.total, 7);
    assert_eq!(r.instructions.sample, 1);
    assert_eq!(r.instructions.graphics, 2);
    assert!(!r.from_container);
}

#[test]
fn compute_bindings_and_group() {
    let r = reflect_asm(
        "cs_5_0
dcl_constantbuffer CB2[4], dynamicIndexed
dcl_resource_structured t1, 12
dcl_uav_raw u0
dcl_uav_structured_opc u3, 8
dcl_tgsm_raw g0, 64
dcl_input vThreadID.x
dcl_temps 1
dcl_thread_group 8, 2, 1
imm_atomic_alloc r0.x, u3
store_raw u0.x, l(0), vThreadID.x
ret
",
    );
    assert_eq!(r.thread_group, [8, 2, 1]);
    assert_eq!(r.tgsm_bytes, 64);
    assert_eq!(r.constant_buffers[0].slot, 2);
    assert_eq!(r.constant_buffers[0].size, 64);
    assert!(r.constant_buffers[0].dynamic);
    assert_eq!(r.srvs[0].stride, Some(12));
    assert_eq!(r.uavs.len(), 2);
    assert_eq!(r.uavs[0].class, ResourceClass::Raw);
    assert!(!r.uavs[0].counter);
    assert!(r.uavs[1].counter);
    assert_eq!(r.inputs[0].semantic, "SV_DispatchThreadID");
    assert_eq!(r.inputs[0].operand, "vThreadID");
    assert!(r.flags.uses_atomics);
    let text = r.describe();
    assert!(text.contains("thread group: 8 x 2 x 1"), "{text}");
    assert!(
        text.contains("u3 space 0 structured_buffer stride 8 counter"),
        "{text}"
    );
}

#[test]
fn depth_kinds() {
    for (reg, want) in [
        ("oDepth", DepthOutput::Any),
        ("oDepthGE", DepthOutput::GreaterEqual),
        ("oDepthLE", DepthOutput::LessEqual),
    ] {
        let r = reflect_asm(&format!(
            "ps_5_0\ndcl_output {reg}\nmov {reg}, l(0.5)\nret\n"
        ));
        assert_eq!(r.flags.writes_depth, want);
        assert_eq!(r.outputs[0].register, None);
        assert_eq!(r.outputs[0].operand, reg);
    }
}
