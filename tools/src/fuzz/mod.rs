//! Differential fuzzing: random valid programs run on two engines.
//!
//! In: seeds. Out: programs ([`gen`]) with inputs ([`inputs`]), a verdict
//! per program from [`compare`] (every byte of every UAV and counter equal,
//! or the first differing word), small reproducers from [`reduce`], and the
//! loop behind `sm5jit fuzz` ([`run`]); [`pixel`] does the same for pixel
//! batches whose programs discard before taking derivatives. Invariant: a generated program is
//! valid and its results do not depend on thread order (see [`gen`]), so
//! any difference between engines is a bug in one of them.

pub mod compare;
pub mod gen;
pub mod harness;
pub mod inputs;
pub mod pixel;
pub mod reduce;
pub mod rng;
pub mod run;
pub mod sampling;
