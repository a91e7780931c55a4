//! Differential fuzzing: a bounded run of generated programs on the
//! interpreter and the JIT, opcode and form coverage, the reducer against
//! an engine with an injected bug, and every saved reproducer under
//! `tools/tests/fuzz-cases/`. (`fault.rs` runs the fuzzer against the
//! mutant JIT of `mutant.rs`.)

use std::path::Path;
use std::sync::OnceLock;

use sm5jit::ir::{Opcode, Program};
use sm5jit_tools::case::{Engine, EngineError, Resource, SlotClass};
use sm5jit_tools::fuzz::compare::{compare_engines, Verdict};
use sm5jit_tools::fuzz::gen::{generate, generated_opcodes, GenConfig};
use sm5jit_tools::fuzz::reduce::{
    find_reproducers, load_reproducer, reduce, ReduceOptions, Reproducer,
};
use sm5jit_tools::fuzz::run::{fuzz, make_engine, summary, FuzzOptions, FuzzReport};

const PROGRAMS: u64 = 2000;

/// One shared bounded run: seeds 1..=2000 on the default pair (the
/// interpreter against the JIT), two worker threads.
fn bounded_run() -> &'static FuzzReport {
    static RUN: OnceLock<FuzzReport> = OnceLock::new();
    RUN.get_or_init(|| {
        fuzz(&FuzzOptions {
            seed: 1,
            programs: Some(PROGRAMS),
            threads: 2,
            ..FuzzOptions::default()
        })
    })
}

#[test]
fn bounded_run_validates_runs_and_agrees() {
    let r = bounded_run();
    let text = summary(r, false);
    assert_eq!(r.engines, ["interp", "jit0", "jit1"], "{text}");
    assert_eq!(r.programs, PROGRAMS, "{text}");
    assert!(r.failures.is_empty(), "{text}");
    // Bounded loops: nothing should come near the budget.
    assert_eq!(r.budget_outs, 0, "{text}");
    assert!(r.instructions > PROGRAMS * 100, "{text}");
}

/// The two independently bound interpreters agree too (determinism, and
/// the fuzzer's bindings against the case runner's).
#[test]
fn the_two_interpreters_agree_on_generated_programs() {
    const N: u64 = 300;
    let r = fuzz(&FuzzOptions {
        seed: 1_000_000,
        programs: Some(N),
        threads: 2,
        engines: vec!["interp".into(), "interp2".into()],
        ..FuzzOptions::default()
    });
    let text = summary(&r, false);
    assert_eq!(r.programs, N, "{text}");
    assert!(r.failures.is_empty(), "{text}");
}

#[test]
fn every_generator_opcode_and_operand_form_shows_up() {
    let r = bounded_run();
    let missing: Vec<&str> = generated_opcodes()
        .into_iter()
        .filter(|op| !r.opcodes.contains_key(op))
        .map(|op| op.mnemonic())
        .collect();
    assert!(missing.is_empty(), "never generated: {missing:?}");
    for form in [
        "swizzle",
        "select_1",
        "partial_mask",
        "neg",
        "abs",
        "abs_neg",
        "sat",
        "rel_x",
        "rel_cb",
        "rel_icb",
        "imm_nan",
        "imm_inf",
        "imm_zero",
        "imm_neg_zero_int_min",
        "imm_denormal",
        "imm64",
        "same_operand_twice",
        // Control flow.
        "cond_divergent",
        "if_else",
        "nested_3",
        "loop_fixed_trips",
        "loop_divergent_trips",
        "switch_fallthrough",
        "switch_default",
        "ret_nested",
        "early_return",
        "pretested",
        "barrier_top",
        "barrier_in_loop",
        // Memory, in and out of bounds.
        "raw_uav",
        "raw_srv",
        "raw_srv_byte_ids",
        "floor_diff",
        "raw_tgsm",
        "structured_uav",
        "structured_srv",
        "structured_tgsm",
        "typed_uav",
        "typed_srv",
        "atomic_uav",
        "atomic_tgsm",
        "tgsm_written_first",
        "oob_uav_raw",
        "oob_tgsm_raw",
        "oob_uav_structured",
        "oob_tgsm_structured",
        "oob_uav_typed",
        "oob_atomic_shared",
        "short_u0",
        "short_u1",
        "short_u2",
    ] {
        assert!(
            r.forms.get(form).copied().unwrap_or(0) > 0,
            "form {form} never generated"
        );
    }
}

#[test]
fn generated_programs_vary_in_shape() {
    let mut shapes = std::collections::BTreeSet::new();
    for seed in 0..50 {
        let g = generate(seed, &GenConfig::default()).unwrap();
        shapes.insert((
            g.inputs.groups,
            g.program.decls.len(),
            g.program.insts.len() / 20,
        ));
    }
    assert!(shapes.len() > 10, "{shapes:?}");
}

/// The interpreter with a deliberate bug: when the program contains the
/// chosen opcode, word 0 of u0 is corrupted after the dispatch.
struct Corrupting {
    inner: Box<dyn Engine>,
    opcode: Opcode,
}

impl Engine for Corrupting {
    fn name(&self) -> &'static str {
        "corrupting"
    }

    fn prepare(&mut self, program: &Program) -> Result<(), EngineError> {
        self.inner.prepare(program)
    }

    fn dispatch(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        self.inner.dispatch(program, resources, groups)?;
        if program.insts.iter().any(|i| i.opcode == self.opcode) {
            let u0 = resources
                .iter_mut()
                .find(|r| r.slot.class == SlotClass::Uav && r.slot.index == 0);
            if let Some(byte) = u0.and_then(|r| r.data.first_mut()) {
                *byte ^= 0x40;
            }
        }
        Ok(())
    }

    fn invoke(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
    ) -> Result<Vec<(u32, [u32; 4])>, EngineError> {
        self.inner.invoke(program, resources)
    }
}

fn disagree_with_bug(
    opcode: Opcode,
    p: &Program,
    inputs: &sm5jit_tools::fuzz::inputs::FuzzInputs,
) -> bool {
    let mut good = make_engine("interp").unwrap();
    let mut bad = Corrupting {
        inner: make_engine("interp2").unwrap(),
        opcode,
    };
    !compare_engines(good.as_mut(), &mut bad, p, inputs).agrees()
}

#[test]
fn reducer_shrinks_an_injected_bug_to_a_few_instructions() {
    let opcode = Opcode::UDiv;
    let g = (0..200)
        .map(|s| generate(s, &GenConfig::default()).unwrap())
        .find(|g| g.program.insts.iter().any(|i| i.opcode == opcode) && g.program.insts.len() > 100)
        .expect("a big program with udiv");
    let before = g.program.insts.len();
    let start = Reproducer {
        program: g.program,
        inputs: g.inputs,
    };
    assert!(disagree_with_bug(opcode, &start.program, &start.inputs));
    let mut fails =
        |p: &Program, i: &sm5jit_tools::fuzz::inputs::FuzzInputs| disagree_with_bug(opcode, p, i);
    let small = reduce(start, &mut fails, ReduceOptions::default());
    let ops: Vec<Opcode> = small.program.insts.iter().map(|i| i.opcode).collect();
    assert!(ops.contains(&opcode), "{ops:?}");
    assert!(ops.len() <= 5, "{before} -> {ops:?}");
    assert!(sm5jit::validate::validate(&small.program).is_ok());
    assert!(disagree_with_bug(opcode, &small.program, &small.inputs));
    // The good engines agree on the reproducer.
    let mut a = make_engine("interp").unwrap();
    let mut b = make_engine("interp2").unwrap();
    assert_eq!(
        compare_engines(a.as_mut(), b.as_mut(), &small.program, &small.inputs),
        Verdict::Agree
    );
}

#[test]
fn saved_reproducers_run_and_agree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-cases");
    let dirs = find_reproducers(&root);
    assert!(!dirs.is_empty(), "no reproducers under {}", root.display());
    for dir in dirs {
        let r = load_reproducer(&dir).unwrap_or_else(|e| panic!("{e}"));
        sm5jit::validate::validate(&r.program).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        // `jit` starts on tier 0; `jit1` compiles the optimised code at once.
        for other in ["interp2", "jit", "jit1"] {
            let mut a = make_engine("interp").unwrap();
            let mut b = make_engine(other).unwrap();
            let v = compare_engines(a.as_mut(), b.as_mut(), &r.program, &r.inputs);
            assert_eq!(v, Verdict::Agree, "{} on {other}", dir.display());
        }
    }
}

#[test]
fn cli_fuzz_prints_a_summary_and_rejects_unknown_engines() {
    let bin = env!("CARGO_BIN_EXE_sm5jit");
    let out = std::process::Command::new(bin)
        .args([
            "fuzz",
            "--seconds",
            "20",
            "--programs",
            "30",
            "--coverage",
            "--seed",
            "9",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.starts_with("30 programs in "), "{stdout}");
    assert!(
        stdout.contains(" on interp against jit0 and jit1, "),
        "{stdout}"
    );
    assert!(stdout.contains(" 0 mismatches"), "{stdout}");
    assert!(stdout.contains("operand forms: "), "{stdout}");
    assert!(stdout.contains("opcodes generated: "), "{stdout}");
    let out = std::process::Command::new(bin)
        .args(["fuzz", "--programs", "1", "--engines", "interp,warp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown engine `warp`"));
}

mod harness_props {
    use proptest::prelude::*;
    use sm5jit_tools::fuzz::harness::{decode_target, differential_target, parse_target};

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn decode_target_holds_on_token_like_bytes(
            words in proptest::collection::vec(any::<u32>(), 0..64),
        ) {
            // A cs_5_0 version token and a plausible length make the decoder go deep.
            let mut dwords = vec![0x0005_0050, words.len() as u32 + 2];
            dwords.extend(words);
            let bytes: Vec<u8> = dwords.iter().flat_map(|w| w.to_le_bytes()).collect();
            decode_target(&bytes);
        }

        #[test]
        fn parse_target_holds_on_assembly_like_text(
            lines in proptest::collection::vec(
                "(mov|add|iadd|store_raw|dcl_temps|if_nz|endif|loop|endloop) [ru0-9.xyzw, l()-]{0,24}",
                0..12,
            ),
        ) {
            let text = format!("cs_5_0\n{}\n", lines.join("\n"));
            parse_target(text.as_bytes());
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(16))]

        #[test]
        fn differential_target_holds_on_random_seeds(seed in any::<u64>()) {
            differential_target(&seed.to_le_bytes(), sm5jit_tools::fuzz::run::DEFAULT_ENGINES);
        }
    }
}

/// Pixel programs that discard before their derivatives (`fuzz::pixel`):
/// 300 seeds give identical lane fates, outputs and UAV bytes on the
/// interpreter and the JIT, and between them they discard pixels, keep
/// others, and have partial quads.
#[test]
fn pixel_programs_discarding_before_derivatives_agree() {
    use sm5jit_tools::fuzz::pixel::{compare_pixel, generate_pixel};
    let (mut helpers, mut discarded, mut pixels) = (0, 0, 0);
    for seed in 1..=300 {
        let p = generate_pixel(seed);
        discarded += compare_pixel(&p).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{}", p.text));
        pixels += p.count;
        helpers += p.helpers.iter().filter(|h| **h).count();
        assert!(
            p.text.find("discard") < p.text.find("deriv_"),
            "seed {seed}"
        );
    }
    assert!(helpers > 0);
    assert!(
        discarded > pixels / 10 && discarded < pixels * 9 / 10,
        "{discarded} of {pixels} discarded"
    );
}
