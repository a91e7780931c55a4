//! Tier 0: the same lowering as tier 1, built for compile speed.
//!
//! In: the `Lower` state of a function being built with
//! [`Lower::slots`] set. Out: loads and stores of variable slots in place
//! of Cranelift SSA variables. Invariant: variable `k` (its
//! `Variable::as_u32`) lives in the 16 bytes at `slots + 16 * k`, inside
//! the batch's save area, which tier 0 sizes to hold every variable; a
//! variable is stored where it is defined (declaration included) before
//! any load can reach it, so the code never reads a slot it did not write
//! in the same run of the batch (or, after a barrier, in an earlier pass
//! over the group's batches; each batch has its own save area).
//!
//! Within one block, a variable loaded or stored before is not loaded
//! again: the value is reused (`slot_cache`, keyed by the block so that it
//! never crosses a block boundary, and only `def_var` writes slots).
//!
//! Splatted constants and the float/int bitcasts of a value are built once
//! per block as well (`value_cache`): with `opt_level=none` nothing else
//! would share them, and they were over half of the instructions.
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

/// `value_cache` kinds: a splatted constant, keyed by its bits.
pub(super) const SPLAT: u32 = 0;
/// `value_cache` kinds: the `f32x4` bitcast of a value, keyed by the value.
pub(super) const AS_FLOAT: u32 = 1;
/// `value_cache` kinds: the `i32x4` bitcast of a value, keyed by the value.
pub(super) const AS_INT: u32 = 2;

impl Lower<'_, '_> {
    /// Tier 0: the value of kind `kind` and key `key` built earlier in the
    /// current block, if any.
    pub(super) fn reuse(&self, kind: u32, key: u32) -> Option<Value> {
        self.slots?;
        let block = self.b.current_block()?;
        match self.value_cache.get(&(kind, key)) {
            Some((b, v)) if *b == block => Some(*v),
            _ => None,
        }
    }

    /// Tier 0: remembers `v` as the value of `kind`/`key` in this block.
    pub(super) fn keep(&mut self, kind: u32, key: u32, v: Value) {
        if self.slots.is_none() {
            return;
        }
        if let Some(block) = self.b.current_block() {
            self.value_cache.insert((kind, key), (block, v));
        }
    }

    /// The slot of variable `v`, as an offset from the slot base.
    fn slot_offset(v: Variable) -> i32 {
        (16 * v.as_u32()) as i32
    }

    /// Loads variable `v` from its slot, or reuses the value it had
    /// earlier in the current block.
    pub(super) fn load_slot(&mut self, base: Value, v: Variable) -> Value {
        let block = self.b.current_block();
        let k = v.as_u32() as usize;
        if let (Some(block), Some(Some((b, x)))) = (block, self.slot_cache.get(k)) {
            if *b == block {
                return *x;
            }
        }
        let x = self
            .b
            .ins()
            .load(types::I32X4, trusted(), base, Self::slot_offset(v));
        self.remember(v, x);
        x
    }

    /// Stores `x` to the slot of variable `v`.
    pub(super) fn store_slot(&mut self, base: Value, v: Variable, x: Value) {
        self.b.ins().store(trusted(), x, base, Self::slot_offset(v));
        self.remember(v, x);
    }

    /// Notes that `v` holds `x` from here to the end of the current block.
    fn remember(&mut self, v: Variable, x: Value) {
        let Some(block) = self.b.current_block() else {
            return;
        };
        let k = v.as_u32() as usize;
        if self.slot_cache.len() <= k {
            self.slot_cache.resize(k + 1, None);
        }
        self.slot_cache[k] = Some((block, x));
    }
}
