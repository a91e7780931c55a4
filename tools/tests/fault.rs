//! Fault injection: the differential fuzzer (interpreter against JIT) finds
//! every deliberate miscompilation of the mutant JIT (`mutant.rs`) from a
//! fixed seed, within the 60 seconds, and the reducer shrinks each
//! mismatch to a small program on which the correct JIT agrees again.
//!
//! The mutant is the real JIT handed a mutated program or shrunken
//! bindings, built only into this test binary: the library carries no
//! fault-injection code at all (`docs/testing.md` says why).

use std::time::{Duration, Instant};

use sm5jit::ir::Program;
use sm5jit_tools::fuzz::compare::compare_engines;
use sm5jit_tools::fuzz::gen::{generate, GenConfig};
use sm5jit_tools::fuzz::inputs::FuzzInputs;
use sm5jit_tools::fuzz::reduce::{reduce, save_reproducer, ReduceOptions, Reproducer};
use sm5jit_tools::fuzz::run::{engines_disagree, make_engine};

use crate::mutant::{MutantJit, Mutation};

/// The first seed tried for every mutation.
const FIRST_SEED: u64 = 1;
/// The bound on finding a fault.
const LIMIT: Duration = Duration::from_secs(60);

fn pair() -> [String; 2] {
    ["interp".into(), "jit".into()]
}

/// True when the interpreter and the mutant JIT disagree on `p`.
fn mutant_disagrees(m: Mutation, p: &Program, inputs: &FuzzInputs) -> bool {
    let mut interp = make_engine("interp").unwrap();
    !compare_engines(interp.as_mut(), &mut MutantJit::new(m), p, inputs).agrees()
}

/// Generates programs from `FIRST_SEED` on and runs them on the interpreter
/// and the mutant JIT until they disagree; returns the seed, the program
/// count and the time taken.
fn hunt(m: Mutation) -> (u64, u64, Duration, Reproducer) {
    let start = Instant::now();
    let mut seed = FIRST_SEED;
    loop {
        assert!(
            start.elapsed() < LIMIT,
            "{m:?} not found in {LIMIT:?} (seeds {FIRST_SEED}..{seed})"
        );
        let g = generate(seed, &GenConfig::default()).unwrap();
        if mutant_disagrees(m, &g.program, &g.inputs) {
            let found = Reproducer {
                program: g.program,
                inputs: g.inputs,
            };
            return (seed, seed - FIRST_SEED + 1, start.elapsed(), found);
        }
        seed += 1;
    }
}

fn caught(m: Mutation) {
    let (seed, programs, took, found) = hunt(m);
    eprintln!("mutation {m:?}: found at seed {seed} after {programs} programs in {took:.2?}");
    assert!(took < LIMIT);
    let engines = pair();
    // The mismatch is the mutation's: the real JIT agrees.
    assert!(
        !engines_disagree(&engines, &found.program, &found.inputs),
        "{m:?}: seed {seed} disagrees without the mutation"
    );
    let before = found.program.insts.len();
    let mut fails = |p: &_, i: &_| mutant_disagrees(m, p, i);
    let small = reduce(found, &mut fails, ReduceOptions { max_tries: 600 });
    let after = small.program.insts.len();
    eprintln!("mutation {m:?}: reduced {before} -> {after} instructions");
    assert!(
        after * 4 <= before,
        "{m:?}: reduced only {before} -> {after}"
    );
    sm5jit::validate::validate(&small.program).unwrap();
    assert!(mutant_disagrees(m, &small.program, &small.inputs));
    if engines_disagree(&engines, &small.program, &small.inputs) {
        let dir = std::env::temp_dir().join(format!("sm5jit-fault-{m:?}"));
        let _ = save_reproducer(&dir, &small, &format!("{m:?} seed {seed}"));
        panic!(
            "{m:?}: the reproducer disagrees without the mutation (saved in {})",
            dir.display()
        );
    }
}

/// Each mutation changes a program that uses what it mutates, and leaves
/// the rest of the program alone.
#[test]
fn every_mutation_changes_what_it_targets() {
    let p = sm5jit::asm::parse_program(
        "cs_5_0
dcl_uav_raw u0
dcl_input vThreadID.x
dcl_temps 2
dcl_thread_group 4, 1, 1
ilt r0.x, vThreadID.x, l(2)
lt r0.y, r0.x, l(1.0)
if_nz r0.x
  ushr r1.x, vThreadID.x, l(1)
endif
mov_sat r1.yz, r0.yyxy
store_raw u0.xy, l(0), r1.xyxx
ret",
    )
    .unwrap();
    assert!(Mutation::ALL.len() >= 5);
    for m in Mutation::ALL {
        let mutated = m.program(&p);
        let changed = mutated.insts != p.insts;
        assert_eq!(changed, m != Mutation::ViewOneShort, "{m:?}");
        sm5jit::validate::validate(&mutated).unwrap();
    }
}

#[test]
fn ilt_as_ile_is_found() {
    caught(Mutation::IltAsIle);
}

#[test]
fn lt_nan_true_is_found() {
    caught(Mutation::LtNanTrue);
}

#[test]
fn inverted_if_mask_is_found() {
    caught(Mutation::IfMaskInverted);
}

#[test]
fn view_one_short_is_found() {
    caught(Mutation::ViewOneShort);
}

#[test]
fn dropped_sat_is_found() {
    caught(Mutation::SatDropped);
}

#[test]
fn swapped_swizzle_is_found() {
    caught(Mutation::SwizzleXySwapped);
}

#[test]
fn ushr_as_ishr_is_found() {
    caught(Mutation::UshrAsIshr);
}
