//! Atomic read-modify-write combine functions (`sm5-semantics.md` §13).
//!
//! In: an [`AtomicOp`], the old memory value, the source value and the
//! compare value. Out: `Some(new)` to store, or `None` when the op leaves
//! memory alone (a failed compare). Invariant: the combine is a pure
//! function of its inputs, so both engines can run it inside a CAS loop or
//! map it onto a native atomic RMW and get identical memory and return
//! values. `imm_atomic_*` return the **old** value, except
//! `imm_atomic_consume`, which returns the decremented counter.

/// The memory operation of an `atomic_*` / `imm_atomic_*` instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AtomicOp {
    And,
    Or,
    Xor,
    IAdd,
    IMax,
    IMin,
    UMax,
    UMin,
    /// `imm_atomic_exch`: store the value unconditionally.
    Exch,
    /// `atomic_cmp_store` / `imm_atomic_cmp_exch`: store if old == cmp.
    CmpExch,
}

/// An atomic instruction decoded into its operation and whether it
/// returns the old value (`imm_` form).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomicKind {
    pub op: AtomicOp,
    pub returns_old: bool,
}

/// The new memory value for `op` applied to `old` with source `v` (and
/// `cmp` for the compare ops; ignored otherwise); `None` = no store.
#[inline]
pub fn combine(op: AtomicOp, old: u32, v: u32, cmp: u32) -> Option<u32> {
    Some(match op {
        AtomicOp::And => old & v,
        AtomicOp::Or => old | v,
        AtomicOp::Xor => old ^ v,
        AtomicOp::IAdd => old.wrapping_add(v),
        AtomicOp::IMax => (old as i32).max(v as i32) as u32,
        AtomicOp::IMin => (old as i32).min(v as i32) as u32,
        AtomicOp::UMax => old.max(v),
        AtomicOp::UMin => old.min(v),
        AtomicOp::Exch => v,
        AtomicOp::CmpExch if old == cmp => v,
        AtomicOp::CmpExch => return None,
    })
}

/// `imm_atomic_alloc`: (new counter, value returned) = (old + 1, old).
#[inline]
pub fn counter_alloc(old: u32) -> (u32, u32) {
    (old.wrapping_add(1), old)
}

/// `imm_atomic_consume`: (new counter, value returned) = (old − 1, old − 1).
#[inline]
pub fn counter_consume(old: u32) -> (u32, u32) {
    let new = old.wrapping_sub(1);
    (new, new)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combines() {
        assert_eq!(combine(AtomicOp::And, 0b1100, 0b1010, 0), Some(0b1000));
        assert_eq!(combine(AtomicOp::Or, 0b1100, 0b1010, 0), Some(0b1110));
        assert_eq!(combine(AtomicOp::Xor, 0b1100, 0b1010, 0), Some(0b0110));
        assert_eq!(combine(AtomicOp::IAdd, u32::MAX, 2, 0), Some(1));
        assert_eq!(combine(AtomicOp::IMax, u32::MAX, 1, 0), Some(1));
        assert_eq!(combine(AtomicOp::IMin, u32::MAX, 1, 0), Some(u32::MAX));
        assert_eq!(combine(AtomicOp::UMax, u32::MAX, 1, 0), Some(u32::MAX));
        assert_eq!(combine(AtomicOp::UMin, u32::MAX, 1, 0), Some(1));
        assert_eq!(combine(AtomicOp::Exch, 5, 9, 0), Some(9));
        assert_eq!(combine(AtomicOp::CmpExch, 5, 9, 5), Some(9));
        assert_eq!(combine(AtomicOp::CmpExch, 5, 9, 6), None);
        assert_eq!(
            combine(AtomicOp::IMax, 0x8000_0000, 0x7FFF_FFFF, 0),
            Some(0x7FFF_FFFF)
        );
    }

    #[test]
    fn counters_wrap() {
        assert_eq!(counter_alloc(0), (1, 0));
        assert_eq!(counter_alloc(u32::MAX), (0, u32::MAX));
        assert_eq!(counter_consume(1), (0, 0));
        assert_eq!(counter_consume(0), (u32::MAX, u32::MAX));
    }
}
