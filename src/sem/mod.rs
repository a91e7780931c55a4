//! Scalar semantics of every SM4/SM5 instruction, as plain pure functions.
//!
//! In: one component's worth of operand bits (`f32`, `u32`, `i32`, `f64`).
//! Out: the result bits of that component. Invariant: every function here is
//! total (no panics, no allocation, no host floating-point mode dependence),
//! so the reference interpreter calls them directly and the JIT either emits
//! code proved equal to them or calls them as `extern "C"` helpers. The rules
//! (and every "undefined" case we resolved) are written down in
//! `docs/semantics.md`; the sections of `sm5-semantics.md` are cited per family.
//!
//! Families: [`float`] (32-bit float arithmetic with denormal flushing),
//! [`int`] (32-bit wrapping integer arithmetic), [`bits`] (bit-field and
//! bit-count ops), [`convert`] (number format conversions), [`double`]
//! (64-bit float ops), [`memory`] (address arithmetic and out-of-bounds
//! rules), [`atomic`] (atomic read-modify-write combine functions),
//! [`quad`] (derivatives across a 2x2 pixel quad), [`sample`] (filtering,
//! addressing and LOD rules) and [`sampler`] (the sampler state those rules
//! read; `runtime` re-exports it).
//!
//! Layering: `sem` sits at the bottom with `ir` (the data model, which
//! imports nothing from the crate); it imports nothing else, and every
//! layer above (runtime, analysis, both engines) imports it.

pub mod atomic;
pub mod bits;
pub mod convert;
pub mod double;
pub mod elementary;
pub mod float;
pub mod int;
pub mod memory;
pub mod quad;
pub mod sample;
pub mod sampler;

#[cfg(test)]
mod corpus_rows;

/// The all-ones mask comparisons return for "true".
pub const TRUE: u32 = 0xFFFF_FFFF;
/// The mask comparisons return for "false".
pub const FALSE: u32 = 0;

/// Turns a Rust `bool` into a D3D comparison mask (0xFFFFFFFF or 0).
#[inline]
pub const fn mask(b: bool) -> u32 {
    if b {
        TRUE
    } else {
        FALSE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_is_all_ones_or_zero() {
        assert_eq!(mask(true), 0xFFFF_FFFF);
        assert_eq!(mask(false), 0);
    }
}
