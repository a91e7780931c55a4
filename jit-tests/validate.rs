//! The validator against the shared corpus (every fxc shader must pass) and
//! against deliberately broken programs (each must fail with the expected
//! rule at the expected instruction or declaration).

use sm5jit::dxbc::{read_dxbc, ReadOptions};
use sm5jit::ir::StructuredUavDecl;
use sm5jit::ir::{
    Components, Decl, Index, Instruction, Opcode, Operand, OperandType, Program, Selection,
};
use sm5jit::validate::{validate, Flow, ProgramInfo, Rule, ValidationError};
use std::path::PathBuf;

/// Every `shader.dxbc` under the three corpus folders, sorted.
fn corpus_shaders() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["conformance", "conformance_ps", "realworld"] {
        let root = crate::corpus_dir().join(dir);
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
            .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
            .map(|e| e.expect("directory entry").path())
            .collect();
        cases.sort();
        out.extend(
            cases
                .into_iter()
                .map(|c| c.join("shader.dxbc"))
                .filter(|f| f.is_file()),
        );
    }
    out
}

fn load(case: &str) -> Program {
    let path = crate::corpus_dir().join(case).join("shader.dxbc");
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    read_dxbc(&bytes, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .program
}

fn check(case: &str) -> ProgramInfo {
    validate(&load(case)).unwrap_or_else(|e| panic!("{case}: {e}"))
}

#[test]
fn every_corpus_shader_validates() {
    let shaders = corpus_shaders();
    assert_eq!(shaders.len(), 166, "corpus size changed");
    let mut failures = Vec::new();
    for path in &shaders {
        let bytes = std::fs::read(path).expect("read shader");
        let program = read_dxbc(&bytes, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
            .program;
        if let Err(e) = validate(&program) {
            failures.push(format!("{}: {e}", path.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn tgsm_raw_summary() {
    let info = check("conformance/wine_tgsm_raw");
    assert_eq!(info.thread_group, Some([32, 1, 1]));
    assert_eq!(info.temps, 1);
    assert!(info.uses_barrier);
    assert!(info.uses_atomics);
    assert!(!info.uses_doubles);
    assert_eq!(info.tgsm.len(), 1);
    assert_eq!((info.tgsm[&0].offset, info.tgsm[&0].bytes), (0, 4));
    assert_eq!(info.tgsm_bytes, 4);
    assert!(info.uavs.contains_key(&0));
    assert!(info.has_input(OperandType::ThreadIdInGroupFlattened));
    assert!(info.has_input(OperandType::ThreadGroupId));
}

/// The flow table of a real loop: loop/breakc/endloop all point at each other.
#[test]
fn flow_table_of_a_corpus_loop() {
    let p = load("conformance/vkd3d_raw_copy_loops");
    let info = validate(&p).expect("valid");
    let mut loops = 0;
    for (i, inst) in p.insts.iter().enumerate() {
        match (inst.opcode, info.flow.get(i)) {
            (Opcode::Loop, Flow::Loop { endloop }) => {
                loops += 1;
                assert_eq!(p.insts[*endloop].opcode, Opcode::EndLoop);
                assert_eq!(info.flow.get(*endloop), &Flow::EndLoop { loop_: i });
            }
            (Opcode::Breakc, Flow::Break { end }) => {
                assert_eq!(p.insts[*end].opcode, Opcode::EndLoop);
                assert!(*end > i);
            }
            (Opcode::Loop | Opcode::Breakc, other) => panic!("instruction {i}: {other:?}"),
            _ => {}
        }
    }
    assert!(loops >= 1);
}

#[test]
fn switch_table_of_a_corpus_shader() {
    let p = load("conformance_ps/vkd3d_ps_nested_switch");
    let info = validate(&p).expect("valid");
    let switches: Vec<_> = (0..p.insts.len())
        .filter_map(|i| match info.flow.get(i) {
            Flow::Switch {
                cases,
                default,
                endswitch,
            } => Some((i, cases.clone(), *default, *endswitch)),
            _ => None,
        })
        .collect();
    assert!(switches.len() >= 2, "nested switch expected");
    for (i, cases, default, end) in switches {
        assert_eq!(p.insts[end].opcode, Opcode::EndSwitch);
        for (_, c) in cases {
            assert_eq!(p.insts[c].opcode, Opcode::Case);
            assert!(c > i && c < end);
        }
        if let Some(d) = default {
            assert_eq!(p.insts[d].opcode, Opcode::Default);
        }
    }
}

#[test]
fn cs4_realworld_summary() {
    let info = check("realworld/directxtex_BC7Encode_TryMode456CS");
    assert_eq!(info.version.to_string(), "cs_4_0");
    assert_eq!(info.thread_group, Some([64, 1, 1]));
    assert_eq!(info.uavs.len(), 1);
    assert!(info.icb.is_some());
    assert_eq!(info.tgsm_bytes, 100 * 64);
}

// ---------------------------------------------------------------------------
// Broken programs: each gives the expected rule at the expected place.
// ---------------------------------------------------------------------------

fn expect(p: &Program, rule: Rule, inst: Option<usize>, decl: Option<usize>) -> ValidationError {
    let e = validate(p).expect_err("program should be rejected");
    assert_eq!(
        (e.rule, e.inst_index, e.decl_index),
        (rule, inst, decl),
        "{e}"
    );
    e
}

fn find(p: &Program, op: Opcode) -> usize {
    p.insts
        .iter()
        .position(|i| i.opcode == op)
        .expect("opcode present")
}

#[test]
fn broken_missing_thread_group() {
    let mut p = load("conformance/wine_tgsm_raw");
    p.decls.retain(|d| !matches!(d, Decl::ThreadGroup(_)));
    let e = expect(&p, Rule::Limit, None, None);
    assert!(e.to_string().contains("dcl_thread_group"));
}

#[test]
fn broken_thread_group_too_large() {
    let mut p = load("conformance/wine_tgsm_raw");
    let at = p
        .decls
        .iter()
        .position(|d| matches!(d, Decl::ThreadGroup(_)))
        .expect("dcl");
    p.decls[at] = Decl::ThreadGroup([1024, 2, 1]);
    expect(&p, Rule::Declaration, None, Some(at));
}

#[test]
fn broken_temps_too_few() {
    let mut p = load("conformance/wine_tgsm_raw");
    for d in &mut p.decls {
        if let Decl::Temps(n) = d {
            *n = 0;
        }
    }
    let first_r0 = p
        .insts
        .iter()
        .position(|i| i.operands.iter().any(|o| o.ty == OperandType::Temp))
        .expect("uses r0");
    let e = expect(&p, Rule::Undeclared, Some(first_r0), None);
    assert!(e.message.contains("r0 is not declared"), "{e}");
}

#[test]
fn broken_tgsm_undeclared() {
    let mut p = load("conformance/wine_tgsm_raw");
    p.decls.retain(|d| !matches!(d, Decl::TgsmRaw { .. }));
    let at = find(&p, Opcode::StoreRaw);
    let e = expect(&p, Rule::Undeclared, Some(at), None);
    assert_eq!(
        e.to_string(),
        format!("instruction {at} (store_raw): g0 is not declared")
    );
}

#[test]
fn broken_missing_endif() {
    let mut p = load("conformance/wine_tgsm_raw");
    let endif = find(&p, Opcode::EndIf);
    p.insts.remove(endif);
    let if_ = find(&p, Opcode::If);
    let e = expect(&p, Rule::Flow, Some(if_), None);
    assert!(e.message.contains("if without endif"), "{e}");
}

#[test]
fn broken_stray_endloop() {
    let mut p = load("conformance/vkd3d_raw_copy_loops");
    let lp = find(&p, Opcode::Loop);
    p.insts.remove(lp);
    // Every breakc that pointed at this loop is now outside any loop.
    let first = p
        .insts
        .iter()
        .position(|i| matches!(i.opcode, Opcode::Breakc | Opcode::EndLoop))
        .expect("breakc or endloop");
    expect(&p, Rule::Flow, Some(first), None);
}

#[test]
fn broken_raw_store_to_structured_uav() {
    let mut p = load("conformance/wine_tgsm_raw");
    for d in &mut p.decls {
        if let Decl::UavRaw {
            op, flags, space, ..
        } = d
        {
            *d = Decl::UavStructured(StructuredUavDecl {
                op: op.clone(),
                stride: 4,
                flags: *flags,
                space: *space,
                buffer_dim: false,
            });
        }
    }
    let at = p
        .insts
        .iter()
        .position(|i| i.operands.first().is_some_and(|o| o.ty == OperandType::Uav))
        .expect("u0 store");
    expect(&p, Rule::ResourceKind, Some(at), None);
}

#[test]
fn broken_tgsm_raw_in_cs_4_0() {
    let mut p = load("conformance/wine_tgsm_raw");
    p.version.major = 4;
    p.version.minor = 0;
    let raw = p
        .decls
        .iter()
        .position(|d| matches!(d, Decl::TgsmRaw { .. }))
        .expect("dcl");
    let e = expect(&p, Rule::Model, None, Some(raw));
    assert!(e.message.contains("5.0"), "{e}");
}

#[test]
fn broken_atomic_in_cs_4_0() {
    let mut p = load("realworld/directxtex_BC7Encode_TryMode456CS");
    let mut g0 = Operand::new(OperandType::Tgsm, Components::Four(Selection::Mask(0xF)));
    g0.indices = vec![Index::Imm32(0)];
    let mut lit = Operand::new(OperandType::Imm32, Components::One);
    lit.imm = vec![0];
    p.insts.insert(
        3,
        Instruction::new(Opcode::AtomicIAdd, vec![g0, lit.clone(), lit]),
    );
    let e = expect(&p, Rule::Model, Some(3), None);
    assert_eq!(
        e.to_string(),
        "instruction 3 (atomic_iadd): needs model 5.0, program is cs_4_0"
    );
}

#[test]
fn broken_second_uav_in_cs_4_0() {
    let mut p = load("realworld/directxtex_BC7Encode_TryMode456CS");
    let mut u1 = Operand::new(OperandType::Uav, Components::Zero);
    u1.indices = vec![Index::Imm32(1)];
    p.decls.push(Decl::UavRaw {
        op: u1,
        flags: Default::default(),
        space: 0,
        buffer_dim: false,
    });
    let e = expect(&p, Rule::Declaration, None, Some(p.decls.len() - 1));
    assert!(e.message.contains("single UAV slot"), "{e}");
}

#[test]
fn broken_cs4_tgsm_write_by_other_thread() {
    let mut p = load("realworld/directxtex_BC7Encode_TryMode456CS");
    let at = p
        .insts
        .iter()
        .position(|i| {
            i.opcode == Opcode::StoreStructured
                && i.operands
                    .first()
                    .is_some_and(|o| o.ty == OperandType::Tgsm)
        })
        .expect("tgsm store");
    let mut r0 = Operand::new(OperandType::Temp, Components::Four(Selection::Select1(0)));
    r0.indices = vec![Index::Imm32(0)];
    p.insts[at].operands[1] = r0;
    let e = expect(&p, Rule::Limit, Some(at), None);
    assert!(e.message.contains("vThreadIDInGroupFlattened"), "{e}");
}

#[test]
fn broken_store_mask_with_gap() {
    let mut p = load("conformance/wine_tgsm_raw");
    let at = find(&p, Opcode::StoreRaw);
    p.insts[at].operands[0].comps = Components::Four(Selection::Mask(0b0101));
    let e = expect(&p, Rule::Operand, Some(at), None);
    assert!(e.message.contains(".xz"), "{e}");
}

#[test]
fn broken_operand_count() {
    let mut p = load("conformance/wine_tgsm_raw");
    let at = find(&p, Opcode::IShl);
    p.insts[at].operands.pop();
    let e = expect(&p, Rule::Operand, Some(at), None);
    assert!(e.message.contains("takes 3 operands, found 2"), "{e}");
}

#[test]
fn broken_sample_in_compute() {
    let mut p = load("realworld/bgfx_cs_fsr_easu_32");
    let at = find(&p, Opcode::Gather4);
    p.insts[at].opcode = Opcode::Sample;
    expect(&p, Rule::Model, Some(at), None);
}

#[test]
fn broken_doubles_without_flag() {
    let mut p = load("conformance/proton_denorm_fp64_fp32");
    for d in &mut p.decls {
        if let Decl::GlobalFlags(f) = d {
            *f &= !sm5jit::validate::global_flags::DOUBLES;
        }
    }
    let at = find(&p, Opcode::DAdd);
    let e = expect(&p, Rule::Model, Some(at), None);
    assert!(e.message.contains("enableDoublePrecisionFloatOps"), "{e}");
}

// ---------------------------------------------------------------------------
// Programs written as assembly text.
// ---------------------------------------------------------------------------

fn asm(text: &str) -> Program {
    sm5jit::asm::parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

const HEADER: &str = "cs_5_0\n\
    dcl_globalFlags refactoringAllowed\n\
    dcl_constantbuffer cb0[2], immediateIndexed\n\
    dcl_resource_structured t0, 16\n\
    dcl_uav_raw u0\n\
    dcl_uav_structured u1, 8\n\
    dcl_input vThreadID.x\n\
    dcl_temps 2\n\
    dcl_tgsm_structured g0, 4, 64\n\
    dcl_thread_group 64, 1, 1\n";

fn with_header(body: &str) -> Program {
    asm(&format!("{HEADER}{body}"))
}

#[test]
fn text_program_validates_with_full_summary() {
    let p = with_header(
        "ld_structured r0.x, vThreadID.x, l(0), t0.xxxx\n\
         iadd r0.x, r0.x, cb0[1].x\n\
         store_structured g0.x, vThreadID.x, l(0), r0.x\n\
         sync_g_t\n\
         switch r0.x\n\
           case l(1)\n\
           case l(2)\n\
             store_raw u0.x, l(0), r0.x\n\
             break\n\
           default\n\
             imm_atomic_alloc r1.x, u1\n\
             break\n\
         endswitch\n\
         ret\n",
    );
    let info = validate(&p).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(info.temps, 2);
    assert_eq!(info.constant_buffers[&0].size, 2);
    assert!(info.uses_barrier && info.uses_atomics);
    assert!(info.uavs[&1].uses_alloc);
    assert_eq!(
        info.flow.get(4),
        &Flow::Switch {
            cases: vec![(1, 5), (2, 6)],
            default: Some(9),
            endswitch: 12
        }
    );
    assert_eq!(info.flow.get(8), &Flow::Break { end: 12 });
}

/// Each broken body fails with `rule` at instruction `at`, and the message
/// contains `says`.
#[test]
fn text_programs_with_errors() {
    let cases: &[(&str, Rule, usize, &str)] = &[
        (
            "mov r0.x, l(0)\nmov r2.x, r0.x\nret\n",
            Rule::Undeclared,
            1,
            "r2 is not declared",
        ),
        (
            "mov r0.x, cb0[2].x\nret\n",
            Rule::Undeclared,
            0,
            "cb0[2] is past the declared size 2",
        ),
        (
            "mov r0.x, cb1[0].x\nret\n",
            Rule::Undeclared,
            0,
            "cb1 is not declared",
        ),
        (
            "ld_raw r0.x, l(0), t0.xxxx\nret\n",
            Rule::ResourceKind,
            0,
            "t0 is a structured buffer",
        ),
        (
            "ld_structured r0.x, l(0), l(0), t3.xxxx\nret\n",
            Rule::Undeclared,
            0,
            "t3 is not declared",
        ),
        (
            "store_structured u0.x, l(0), l(0), r0.x\nret\n",
            Rule::ResourceKind,
            0,
            "u0 is a raw buffer",
        ),
        (
            "imm_atomic_alloc r0.x, u0\nret\n",
            Rule::ResourceKind,
            0,
            "structured UAV",
        ),
        (
            "mov r0.x, vThreadGroupID.x\nret\n",
            Rule::Undeclared,
            0,
            "vThreadGroupID",
        ),
        (
            "store_raw u0.xz, l(0), r0.xyxx\nret\n",
            Rule::Operand,
            0,
            ".xz",
        ),
        (
            "mov r0.x, l(0)\nelse\nret\n",
            Rule::Flow,
            1,
            "else without an open if",
        ),
        (
            "loop\nmov r0.x, l(0)\nret\n",
            Rule::Flow,
            0,
            "loop without endloop",
        ),
        (
            "if_nz r0.x\nbreak\nendif\nret\n",
            Rule::Flow,
            1,
            "break outside",
        ),
        (
            "loop\nswitch r0.x\ndefault\ncontinue\nendswitch\nendloop\ncontinue\nret\n",
            Rule::Flow,
            6,
            "continue outside",
        ),
        (
            "switch r0.x\ncase l(0)\ncase l(0)\nendswitch\nret\n",
            Rule::Flow,
            2,
            "duplicate case value 0",
        ),
        ("deriv_rtx r0.x, r0.x\nret\n", Rule::Model, 0, "compute"),
        ("sync_t\nret\n", Rule::Model, 0, "fence"),
        (
            "dadd r0.xy, r0.xyxy, r0.xyxy\nret\n",
            Rule::Model,
            0,
            "enableDoublePrecisionFloatOps",
        ),
        ("call l3\nret\n", Rule::Flow, 0, "l3"),
    ];
    for (body, rule, at, says) in cases {
        let p = with_header(body);
        let e = validate(&p).expect_err(body);
        assert_eq!((e.rule, e.inst_index), (*rule, Some(*at)), "{body}: {e}");
        assert!(e.message.contains(says), "{body}: {e}");
    }
}

// ---------------------------------------------------------------------------
// Mutated corpus programs: never a panic, and an accepted program always
// has a consistent flow table.
// ---------------------------------------------------------------------------

/// Checks that every match recorded in the flow table points at the right
/// kind of instruction.
fn assert_flow_consistent(p: &Program, info: &ProgramInfo) {
    let op = |i: usize| p.insts[i].opcode;
    for i in 0..p.insts.len() {
        match info.flow.get(i) {
            Flow::If { else_, endif } => {
                assert_eq!(op(*endif), Opcode::EndIf);
                assert!(else_.is_none_or(|e| op(e) == Opcode::Else && e < *endif));
            }
            Flow::Loop { endloop } => assert_eq!(op(*endloop), Opcode::EndLoop),
            Flow::Break { end } => {
                assert!(matches!(op(*end), Opcode::EndLoop | Opcode::EndSwitch) && *end > i)
            }
            Flow::Continue { loop_, endloop } => {
                assert_eq!((op(*loop_), op(*endloop)), (Opcode::Loop, Opcode::EndLoop));
                assert!(*loop_ < i && i < *endloop);
            }
            Flow::Switch {
                cases,
                default,
                endswitch,
            } => {
                assert_eq!(op(*endswitch), Opcode::EndSwitch);
                assert!(cases.iter().all(|(_, c)| op(*c) == Opcode::Case));
                assert!(default.is_none_or(|d| op(d) == Opcode::Default));
            }
            Flow::Call { label } => assert_eq!(op(*label), Opcode::Label),
            Flow::None => assert!(!matches!(
                op(i),
                Opcode::If | Opcode::Loop | Opcode::Switch | Opcode::Break | Opcode::Breakc
            )),
            _ => {}
        }
    }
}

fn mutation_sources() -> Vec<Program> {
    [
        "conformance/wine_tgsm_structured",
        "conformance/vkd3d_raw_copy_loops",
        "conformance_ps/vkd3d_ps_nested_switch",
        "conformance_ps/vkd3d_ps_loop_end_break",
        "conformance_ps/wine_sm4_continuec_nz",
    ]
    .iter()
    .map(|c| load(c))
    .collect()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]

    #[test]
    fn mutated_programs_never_panic(
        which in 0usize..5,
        edits in proptest::collection::vec((0u8..5, 0usize..1000, 0usize..1000), 1..6),
    ) {
        let mut p = mutation_sources().swap_remove(which);
        for (kind, a, b) in edits {
            let n = p.insts.len().max(1);
            match kind {
                0 if !p.insts.is_empty() => { p.insts.remove(a % n); }
                1 if !p.insts.is_empty() => { let i = p.insts[a % n].clone(); p.insts.insert(b % n, i); }
                2 if !p.insts.is_empty() => {
                    p.insts[a % n].opcode = Opcode::ALL[b % Opcode::ALL.len()];
                }
                3 if !p.decls.is_empty() => { let m = p.decls.len(); p.decls.remove(a % m); }
                4 if !p.insts.is_empty() => { p.insts[a % n].operands.truncate(b % 3); }
                _ => {}
            }
        }
        if let Ok(info) = validate(&p) {
            assert_flow_consistent(&p, &info);
        }
    }
}

#[test]
fn corpus_flow_tables_are_consistent() {
    for path in corpus_shaders() {
        let bytes = std::fs::read(&path).expect("read shader");
        let p = read_dxbc(&bytes, &ReadOptions::default())
            .expect("decode")
            .program;
        let info = validate(&p).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_flow_consistent(&p, &info);
    }
}

#[test]
fn text_doubles_need_their_flags() {
    let body = "dadd r0.xy, r0.xyxy, r0.xyxy\nddiv r0.zw, r0.xyxy, r0.xyxy\nret\n";
    let plain = HEADER.replace(
        "refactoringAllowed",
        "refactoringAllowed | enableDoublePrecisionFloatOps",
    );
    let e = validate(&asm(&format!("{plain}{body}"))).expect_err("ddiv needs the 11.1 flag");
    assert_eq!((e.rule, e.inst_index), (Rule::Model, Some(1)), "{e}");
    let full = HEADER.replace(
        "refactoringAllowed",
        "refactoringAllowed | enableDoublePrecisionFloatOps | enable11_1DoubleExtensions",
    );
    let info = validate(&asm(&format!("{full}{body}"))).unwrap_or_else(|e| panic!("{e}"));
    assert!(info.uses_doubles);
}

/// Found by the fuzzer's reducer (fault-injection run): the subroutine's
/// `ret` had been dropped, so thread 1 ran off the end of the program inside
/// `l1`; the interpreter and the JIT disagreed on where that left it. The
/// spec requires a shader with subroutines to end with `ret` (FS §22.7.16).
#[test]
fn broken_subroutine_running_off_the_end() {
    let text = "cs_5_0\n\
        dcl_globalFlags refactoringAllowed\n\
        dcl_uav_raw u0\n\
        dcl_input vThreadIDInGroupFlattened\n\
        dcl_input vThreadID.xyz\n\
        dcl_temps 10\n\
        dcl_thread_group 2, 1, 1\n\
        mov r0.y, vThreadIDInGroupFlattened.x\n\
        imad r0.x, r0.x, l(0), r0.y\n\
        imad r0.z, r0.x, l(512), l(0)\n\
        mov r8.xyzw, vThreadID.xyzx\n\
        callc_nz r8.w, l1\n\
        store_raw u0.xyzw, r0.z, r4.xyzw\n\
        ret\n\
        label l1\n";
    let p = asm(text);
    let e = expect(&p, Rule::Flow, Some(p.insts.len() - 1), None);
    assert!(e.message.contains("must end with ret"), "{e}");
    // A body without instructions but with its `ret` is fine.
    let p = asm(&format!("{text}ret\n"));
    validate(&p).unwrap();
    // A `ret` nested in an `if` does not end the shader.
    let p = asm(&format!("{text}if_nz r0.x\nret\nendif\n"));
    expect(&p, Rule::Flow, Some(p.insts.len() - 1), None);
}
