//! Tier 0: the same lowering as tier 1, built for compile speed.
//!
//! In: the `Lower` state of a function being built with
//! [`Lower::slots`] set. Out: loads and stores of variable slots in place
//! of Cranelift SSA variables. Invariant: variable `k` (its
//! `Variable::as_u32`) lives in the 16 bytes at `slots + 16 * k`, inside
//! the batch's save area, which tier 0 sizes to hold every variable; a
//! variable is stored where it is defined (declaration included) before
//! any load can reach it, so the code never reads a slot it did not write
//! in the same batch call (or, after a barrier, in an earlier call).
//!
//! Why this is faster to compile: no SSA construction, no block
//! parameters at joins and loop heads, and short live ranges, so
//! Cranelift's single-pass allocator (with `opt_level=none`, see
//! [`super::tiers`]) has little to do. The code runs slower (every
//! register access goes through memory); tier 1 replaces it once the
//! shader has run enough. Both tiers emit the same operations on the same
//! values, so their results are bit-identical (and equal the
//! interpreter's).

use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::Variable;

use super::lower::{trusted, Lower};

impl Lower<'_, '_> {
    /// The slot of variable `v`, as an offset from the slot base.
    fn slot_offset(v: Variable) -> i32 {
        (16 * v.as_u32()) as i32
    }

    /// Loads variable `v` from its slot.
    pub(super) fn load_slot(&mut self, base: Value, v: Variable) -> Value {
        self.b
            .ins()
            .load(types::I32X4, trusted(), base, Self::slot_offset(v))
    }

    /// Stores `x` to the slot of variable `v`.
    pub(super) fn store_slot(&mut self, base: Value, v: Variable, x: Value) {
        self.b.ins().store(trusted(), x, base, Self::slot_offset(v));
    }
}
