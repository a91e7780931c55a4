//! Fault injection: the differential fuzzer (interpreter against JIT) finds
//! every deliberate miscompilation of `sm5jit::jit::fault` from a fixed
//! seed, within the 60 seconds, and the reducer shrinks each
//! mismatch to a small program on which the correct JIT agrees again.
//!
//! The tests build the library with the `fault-injection` feature (a
//! dev-dependency of the crate on itself); a fault is active only on the
//! test's own thread while its guard lives, so the other tests of this
//! binary compile fault-free code meanwhile.

use std::time::{Duration, Instant};

use sm5jit::fuzz::compare::compare_engines;
use sm5jit::fuzz::gen::{generate, GenConfig};
use sm5jit::fuzz::reduce::{reduce, save_reproducer, ReduceOptions, Reproducer};
use sm5jit::fuzz::run::engines_disagree;
use sm5jit::jit::fault::{active, inject, Fault};

/// The first seed tried for every fault.
const FIRST_SEED: u64 = 1;
/// The bound on finding a fault.
const LIMIT: Duration = Duration::from_secs(60);

fn pair() -> [String; 2] {
    ["interp".into(), "jit".into()]
}

/// Generates programs from `FIRST_SEED` on and runs them on the interpreter
/// and the JIT with `fault` injected until they disagree; returns the seed,
/// the program count and the time taken.
fn hunt(fault: Fault) -> (u64, u64, Duration, Reproducer) {
    let _fault = inject(fault);
    let start = Instant::now();
    let mut seed = FIRST_SEED;
    loop {
        assert!(
            start.elapsed() < LIMIT,
            "{fault:?} not found in {LIMIT:?} (seeds {FIRST_SEED}..{seed})"
        );
        let g = generate(seed, &GenConfig::default()).unwrap();
        let mut a = sm5jit::fuzz::run::make_engine("interp").unwrap();
        let mut b = sm5jit::fuzz::run::make_engine("jit").unwrap();
        if !compare_engines(a.as_mut(), b.as_mut(), &g.program, &g.inputs).agrees() {
            let found = Reproducer {
                program: g.program,
                inputs: g.inputs,
            };
            return (seed, seed - FIRST_SEED + 1, start.elapsed(), found);
        }
        seed += 1;
    }
}

fn caught(fault: Fault) {
    let (seed, programs, took, found) = hunt(fault);
    eprintln!("fault {fault:?}: found at seed {seed} after {programs} programs in {took:.2?}");
    assert!(took < LIMIT);
    assert!(!active(fault), "the guard must end the fault");
    let engines = pair();
    // The mismatch is the fault's: without it the engines agree.
    assert!(
        !engines_disagree(&engines, &found.program, &found.inputs),
        "{fault:?}: seed {seed} disagrees without the fault"
    );
    let before = found.program.insts.len();
    let small = {
        let _fault = inject(fault);
        let mut fails = |p: &_, i: &_| engines_disagree(&engines, p, i);
        reduce(found, &mut fails, ReduceOptions { max_tries: 600 })
    };
    let after = small.program.insts.len();
    eprintln!("fault {fault:?}: reduced {before} -> {after} instructions");
    assert!(
        after * 4 <= before,
        "{fault:?}: reduced only {before} -> {after}"
    );
    sm5jit::validate::validate(&small.program).unwrap();
    {
        let _fault = inject(fault);
        assert!(engines_disagree(&engines, &small.program, &small.inputs));
    }
    if engines_disagree(&engines, &small.program, &small.inputs) {
        let dir = std::env::temp_dir().join(format!("sm5jit-fault-{fault:?}"));
        let _ = save_reproducer(&dir, &small, &format!("{fault:?} seed {seed}"));
        panic!(
            "{fault:?}: the reproducer disagrees without the fault (saved in {})",
            dir.display()
        );
    }
}

#[test]
fn every_fault_is_listed() {
    assert!(Fault::ALL.len() >= 5);
    assert!(Fault::ALL.iter().all(|f| !active(*f)));
}

#[test]
fn ilt_as_ile_is_found() {
    caught(Fault::IltAsIle);
}

#[test]
fn lt_nan_true_is_found() {
    caught(Fault::LtNanTrue);
}

#[test]
fn store_ignoring_exec_is_found() {
    caught(Fault::StoreIgnoresExec);
}

#[test]
fn load_bound_one_short_is_found() {
    caught(Fault::LoadBoundOneShort);
}

#[test]
fn sat_without_lower_clamp_is_found() {
    caught(Fault::SatNoLowerClamp);
}

#[test]
fn swapped_swizzle_is_found() {
    caught(Fault::SwizzleXySwapped);
}

#[test]
fn ushr_as_ishr_is_found() {
    caught(Fault::UshrAsIshr);
}
