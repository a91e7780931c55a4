//! `extern "C"` shims that let generated code call the [`crate::sem`]
//! functions Cranelift cannot vectorise on x86-64.
//!
//! In: four lanes' operand bits in the rows of [`BatchContext::lanes`].
//! Out: the four lanes' results in the result rows ([`Shim::lanes4`]
//! gives each shim's entry).
//! Invariant: each shim is a one-line call of the `sem` function the
//! interpreter uses ([`Shim::eval`]), so the two engines cannot drift for
//! these ops. Generated code calls the entries by address; nothing is
//! looked up by name in the process's symbol table.

use super::context::BatchContext;
use crate::sem::{bits, convert, float, int};

/// A scalar helper the generated code may call once per lane.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Shim {
    Exp,
    Log,
    Rsq,
    Sin,
    Cos,
    CountBits,
    FirstBitHi,
    FirstBitLo,
    FirstBitShi,
    BfRev,
    F32ToF16,
    F16ToF32,
    IMul,
    UMul,
    UDiv,
    Msad,
    UBfe,
    IBfe,
    Bfi,
}

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

impl Shim {
    /// The shim's result for one lane's arguments (`a[..arity]`): the
    /// first result and, for [`Shim::returns_pair`], the second (else the
    /// first again). Each arm is one call of the `sem` function the
    /// interpreter uses.
    #[inline(always)]
    pub fn eval(self, a: [u32; 4]) -> (u32, u32) {
        let one = |x: u32| (x, x);
        match self {
            Shim::Exp => one(float::exp2(f(a[0])).to_bits()),
            Shim::Log => one(float::log2(f(a[0])).to_bits()),
            Shim::Rsq => one(float::rsq(f(a[0])).to_bits()),
            Shim::Sin => one(float::sin(f(a[0])).to_bits()),
            Shim::Cos => one(float::cos(f(a[0])).to_bits()),
            Shim::CountBits => one(bits::countbits(a[0])),
            Shim::FirstBitHi => one(bits::firstbit_hi(a[0])),
            Shim::FirstBitLo => one(bits::firstbit_lo(a[0])),
            Shim::FirstBitShi => one(bits::firstbit_shi(a[0])),
            Shim::BfRev => one(bits::bfrev(a[0])),
            Shim::F32ToF16 => one(convert::f32tof16(f(a[0]))),
            Shim::F16ToF32 => one(convert::f16tof32(a[0]).to_bits()),
            Shim::IMul => int::imul(a[0], a[1]),
            Shim::UMul => int::umul(a[0], a[1]),
            Shim::UDiv => int::udiv(a[0], a[1]),
            Shim::Msad => one(int::msad(a[0], a[1], a[2])),
            Shim::UBfe => one(bits::ubfe(a[0], a[1], a[2])),
            Shim::IBfe => one(bits::ibfe(a[0], a[1], a[2])),
            Shim::Bfi => one(bits::bfi(a[0], a[1], a[2], a[3])),
        }
    }

    /// Number of `u32` arguments.
    pub fn arity(self) -> usize {
        match self {
            Shim::IMul | Shim::UMul | Shim::UDiv => 2,
            Shim::Msad | Shim::UBfe | Shim::IBfe => 3,
            Shim::Bfi => 4,
            _ => 1,
        }
    }

    /// True when the shim computes with floats in Rust (its `sem` function
    /// then runs in the default float mode, not the FTZ+DAZ of generated
    /// code: `fpmode::DefaultMode`).
    pub fn uses_float(self) -> bool {
        matches!(
            self,
            Shim::Exp
                | Shim::Log
                | Shim::Rsq
                | Shim::Sin
                | Shim::Cos
                | Shim::F32ToF16
                | Shim::F16ToF32
        )
    }

    /// True when the shim returns two results packed in a `u64`.
    pub fn returns_pair(self) -> bool {
        matches!(self, Shim::IMul | Shim::UMul | Shim::UDiv)
    }
}

/// Row of [`BatchContext::lanes`] where a four-lane entry reads argument `k` of
/// four lanes (`ARG_ROW + k`).
pub const ARG_ROW: usize = 0;
/// Rows where a four-lane entry writes the first and the second results.
pub const RESULT_ROWS: [usize; 2] = [4, 5];

const _: () = assert!(RESULT_ROWS[1] < super::context::LANE_ROWS);

/// Runs `eval` on the four lanes of the context's argument rows (the
/// first `arity`), writing the result rows. Whole rows in and out: the
/// generated code stores and loads them as single vectors.
#[inline(always)]
fn run4(ctx: *mut BatchContext, arity: usize, eval: impl Fn([u32; 4]) -> (u32, u32)) {
    // SAFETY: the caller passes its own live context.
    let rows = unsafe { &mut (*ctx).lanes };
    let args: [[u32; 4]; 4] =
        std::array::from_fn(|k| if k < arity { rows[ARG_ROW + k] } else { [0; 4] });
    let mut out = [[0u32; 4]; 2];
    for l in 0..4 {
        let (r0, r1) = eval(args.map(|row| row[l]));
        out[0][l] = r0;
        out[1][l] = r1;
    }
    rows[RESULT_ROWS[0]] = out[0];
    rows[RESULT_ROWS[1]] = out[1];
}

/// The four-lane entry of one shim: `extern "C" fn(ctx)`.
pub type Lanes4 = unsafe extern "C" fn(*mut BatchContext);

macro_rules! lanes4_entries {
    ($($shim:ident => $name:ident),* $(,)?) => {
        $(
            /// Four lanes of the shim, as [`run4`] describes.
            ///
            /// # Safety
            /// `ctx` is a live batch context.
            unsafe extern "C" fn $name(ctx: *mut BatchContext) {
                let _mode = Shim::$shim.uses_float().then(super::fpmode::DefaultMode::enter);
                run4(ctx, Shim::$shim.arity(), |a| Shim::$shim.eval(a));
            }
        )*

        impl Shim {
            /// The four-lane entry generated code calls (one per shim, so
            /// the dispatch on the shim is done when compiling).
            pub fn lanes4(self) -> Lanes4 {
                match self {
                    $(Shim::$shim => $name,)*
                }
            }
        }
    };
}

lanes4_entries! {
    Exp => lanes4_exp,
    Log => lanes4_log,
    Rsq => lanes4_rsq,
    Sin => lanes4_sin,
    Cos => lanes4_cos,
    CountBits => lanes4_countbits,
    FirstBitHi => lanes4_firstbit_hi,
    FirstBitLo => lanes4_firstbit_lo,
    FirstBitShi => lanes4_firstbit_shi,
    BfRev => lanes4_bfrev,
    F32ToF16 => lanes4_f32tof16,
    F16ToF32 => lanes4_f16tof32,
    IMul => lanes4_imul,
    UMul => lanes4_umul,
    UDiv => lanes4_udiv,
    Msad => lanes4_msad,
    UBfe => lanes4_ubfe,
    IBfe => lanes4_ibfe,
    Bfi => lanes4_bfi,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_give_both_results() {
        assert_eq!(Shim::UDiv.eval([7, 2, 0, 0]), (3, 1));
        assert_eq!(Shim::UDiv.eval([7, 0, 0, 0]), (u32::MAX, u32::MAX));
        assert_eq!(
            Shim::IMul.eval([u32::MAX, 2, 0, 0]),
            (0xFFFF_FFFF, 0xFFFF_FFFE)
        );
    }

    #[test]
    fn four_lanes_in_one_call() {
        let mut ctx = Box::new(BatchContext::empty());
        ctx.lanes[ARG_ROW] = [0xF0, 5, 0, 0x8000_0000];
        ctx.lanes[ARG_ROW + 1] = [4, 0, 0, 0];
        ctx.lanes[ARG_ROW + 2] = [4, 3, 0, 1];
        unsafe { Shim::UBfe.lanes4()(&mut *ctx) };
        // ubfe(width, offset, value): 16 bits at 4 of 4; 5 bits at 0 of 3;
        // width 0; width 0x80000000 & 31 = 0.
        assert_eq!(ctx.lanes[RESULT_ROWS[0]], [0, 3, 0, 0]);
        unsafe { Shim::CountBits.lanes4()(&mut *ctx) };
        assert_eq!(ctx.lanes[RESULT_ROWS[0]], [4, 2, 0, 1]);
        // A pair: both result rows.
        ctx.lanes[ARG_ROW] = [7, 7, 0, 9];
        ctx.lanes[ARG_ROW + 1] = [2, 0, 3, 4];
        unsafe { Shim::UDiv.lanes4()(&mut *ctx) };
        assert_eq!(ctx.lanes[RESULT_ROWS[0]], [3, u32::MAX, 0, 2]);
        assert_eq!(ctx.lanes[RESULT_ROWS[1]], [1, u32::MAX, 0, 1]);
    }
}
