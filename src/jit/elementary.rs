//! `exp` and `log` (`sem::float::exp2`/`log2`) as vector code: the f64
//! arithmetic of [`crate::sem::elementary`], two lanes at a time, and the
//! special cases of `sem::float`, four lanes at a time.
//!
//! In: an `i32x4` of f32 bits (one lane per thread). Out: the `i32x4` of
//! the f32 results, finished (flushed, NaN canonical) whether observed or
//! not, like the shims they replace (`flushed.rs` counts them as flushed).
//! Invariant: each lane's result has the interpreter's bits. The f64
//! steps are the IEEE operations `sem::elementary` performs, in its order
//! and with its constants (Cranelift never fuses a multiply and an add);
//! where a step of the scalar code is integer or f64 work with no x86-64
//! vector instruction (or cheaper on the f32 bits), an exact equivalent
//! is used, named at the step:
//! - `n / 2` of an integer-valued n is `trunc(n · 0.5)`;
//! - `pow2i(k)` builds the bits of 2^k from `k + 1.5·2^52` (whose low
//!   mantissa bits hold k) with 64-bit integer lanes;
//! - `m > √2` of the mantissa m ∈ [1, 2) is a compare of its mantissa
//!   field with `SQRT_2_MANTISSA`, and `m · 0.5` sets its exponent to −1.
//!
//! The generated code runs with DAZ (`fpmode`) or without; nothing here
//! depends on it (denormal inputs are handled by bit tests, or give the
//! same result as their flushed zero, see [`Lower::exp2`]).

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::lower::{little, mem, Lower};
use crate::sem::elementary::{ATANH, EXP_TERMS, INV_FACT, LN_2, LOG2_E, SQRT_2_MANTISSA};
use crate::sem::float::CANONICAL_NAN;

const MANTISSA: u32 = 0x007F_FFFF;
const EXP_MASK: u32 = 0x7F80_0000;
const INF: u32 = 0x7F80_0000;
const NEG_INF: u32 = 0xFF80_0000;
/// 1.5·2^52: adding it to an integer-valued f64 k, |k| < 2^51, is exact
/// and leaves k + 2^51 in the low mantissa bits.
const ROUND_MAGIC: f64 = 6_755_399_441_055_744.0;

impl Lower<'_, '_> {
    /// `sem::float::exp2` of each lane of `x` (f32 bits).
    ///
    /// Special cases after the f64 path, by the input: ≥ 128 (+INF
    /// included) gives +INF, < −127 (−INF included) gives +0, NaN gives
    /// a NaN that `finish` makes canonical. A denormal input is not
    /// flushed first: its result is 1.0 like that of ±0 (2^r rounds to
    /// 1 for |r| < 2^-53, in f64 and so in f32), and it passes neither
    /// comparison.
    pub(super) fn exp2(&mut self, x: Value) -> Value {
        let [lo, hi] = self.f64_halves(x, false);
        let halves = [lo, hi].map(|d| self.exp2_f64(d));
        let r = self.f32_join(halves);
        let r = self.finish_always(r);
        let fx = self.f(x);
        let c128 = self.vsplat(128f32.to_bits());
        let c128 = self.f(c128);
        let big = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, fx, c128);
        let cm127 = self.vsplat((-127f32).to_bits());
        let cm127 = self.f(cm127);
        let small = self.b.ins().fcmp(FloatCC::LessThan, fx, cm127);
        let inf = self.vsplat(INF);
        let zero = self.vsplat(0);
        let r = self.b.ins().bitselect(big, inf, r);
        let r = self.b.ins().bitselect(small, zero, r);
        self.known_flushed.insert(r);
        r
    }

    /// `sem::elementary::exp2` on an `f64x2` (no special cases).
    fn exp2_f64(&mut self, x: Value) -> Value {
        let n = self.b.ins().nearest(x);
        let r = self.b.ins().fsub(x, n);
        let ln2 = self.dsplat(LN_2);
        let t = self.b.ins().fmul(r, ln2);
        let e = self.horner(t, &INV_FACT[..EXP_TERMS]);
        // `half = n / 2` (truncating) and `n - half`.
        let one_half = self.dsplat(0.5);
        let n_half = self.b.ins().fmul(n, one_half);
        let half = self.b.ins().trunc(n_half);
        let rest = self.b.ins().fsub(n, half);
        let p = self.pow2i(half);
        let q = self.pow2i(rest);
        let ep = self.b.ins().fmul(e, p);
        self.b.ins().fmul(ep, q)
    }

    /// `sem::elementary::pow2i` of each lane of an integer-valued `f64x2`
    /// k in the normal exponent range: the bits `(k + 1023) << 52`. The
    /// low 12 bits of `bits(k + 1.5·2^52) + 1023` are those of k + 1023
    /// (2^51 and the exponent field are multiples of 2^12), and the shift
    /// drops the rest.
    fn pow2i(&mut self, k: Value) -> Value {
        let magic = self.dsplat(ROUND_MAGIC);
        let m = self.b.ins().fadd(k, magic);
        let bits = self.b.ins().bitcast(types::I64X2, mem(), m);
        let bias = self.b.ins().iconst(types::I64, 1023);
        let bias = self.b.ins().splat(types::I64X2, bias);
        let biased = self.b.ins().iadd(bits, bias);
        let amount = self.b.ins().iconst(types::I32, 52);
        let p = self.b.ins().ishl(biased, amount);
        self.b.ins().bitcast(types::F64X2, mem(), p)
    }

    /// `sem::float::log2` of each lane of `x` (f32 bits).
    ///
    /// The f64 path is taken by positive normal finite inputs; its results
    /// are finite and never denormal (|log2 x| ≥ 2^-24 for x ≠ 1), so its
    /// `finish` changes nothing and is left out. The others by their bits:
    /// ±0 and ±denormals (flushed to ±0) give −INF, +INF gives +INF, and
    /// negative numbers and NaNs the canonical NaN.
    pub(super) fn log2(&mut self, x: Value) -> Value {
        let mant_mask = self.vsplat(MANTISSA);
        let mant = self.b.ins().band(x, mant_mask);
        let above = self.vsplat(SQRT_2_MANTISSA);
        let big = self.b.ins().icmp(IntCC::SignedGreaterThan, mant, above);
        // m ∈ [1, 2), or m · 0.5 (exponent field 126) where m > √2.
        let one = self.vsplat(1f32.to_bits());
        let half = self.vsplat(0.5f32.to_bits());
        let exp_field = self.b.ins().bitselect(big, half, one);
        let m = self.b.ins().bor(mant, exp_field);
        // e = biased exponent − 127, plus one where m was halved (`big`
        // is −1 there).
        let amount = self.b.ins().iconst(types::I32, 23);
        let biased = self.b.ins().ushr(x, amount);
        let byte = self.vsplat(0xFF);
        let biased = self.b.ins().band(biased, byte);
        let bias = self.vsplat(127);
        let e = self.b.ins().isub(biased, bias);
        let e = self.b.ins().isub(e, big);
        let [m_lo, m_hi] = self.f64_halves(m, false);
        let [e_lo, e_hi] = self.f64_halves(e, true);
        let halves = [(m_lo, e_lo), (m_hi, e_hi)].map(|(m, e)| self.log2_f64(m, e));
        let r = self.f32_join(halves);
        self.log2_special(x, r)
    }

    /// `sem::elementary::log2` from its mantissa m and exponent e
    /// (`f64x2` each).
    fn log2_f64(&mut self, m: Value, e: Value) -> Value {
        let one = self.dsplat(1.0);
        let num = self.b.ins().fsub(m, one);
        let den = self.b.ins().fadd(m, one);
        let s = self.b.ins().fdiv(num, den);
        let s2 = self.b.ins().fmul(s, s);
        let acc = self.horner(s2, &ATANH);
        let two = self.dsplat(2.0);
        let two_s = self.b.ins().fmul(two, s);
        let ln_m = self.b.ins().fmul(two_s, acc);
        let log2_e = self.dsplat(LOG2_E);
        let l = self.b.ins().fmul(ln_m, log2_e);
        self.b.ins().fadd(e, l)
    }

    /// The special cases of `sem::float::log2` by the input bits `x`, `r`
    /// where `x` is positive, normal and finite.
    fn log2_special(&mut self, x: Value, r: Value) -> Value {
        let min_normal = self.vsplat(MANTISSA);
        let inf = self.vsplat(INF);
        let normal = self.b.ins().icmp(IntCC::SignedGreaterThan, x, min_normal);
        let finite = self.b.ins().icmp(IntCC::SignedLessThan, x, inf);
        let valid = self.b.ins().band(normal, finite);
        let exp_mask = self.vsplat(EXP_MASK);
        let exp = self.b.ins().band(x, exp_mask);
        let zero = self.vsplat(0);
        let is_zero = self.b.ins().icmp(IntCC::Equal, exp, zero);
        let is_inf = self.b.ins().icmp(IntCC::Equal, x, inf);
        let nan = self.vsplat(CANONICAL_NAN);
        let neg_inf = self.vsplat(NEG_INF);
        let special = self.b.ins().bitselect(is_inf, inf, nan);
        let special = self.b.ins().bitselect(is_zero, neg_inf, special);
        let r = self.b.ins().bitselect(valid, r, special);
        self.known_flushed.insert(r);
        r
    }

    /// Horner evaluation of Σ c[i]·t^i on an `f64x2`, as
    /// `sem::elementary::horner`: the last coefficient, then `acc·t +
    /// c[i]` downwards.
    fn horner(&mut self, t: Value, c: &[f64]) -> Value {
        let (&last, rest) = c.split_last().expect("at least one coefficient");
        let mut acc = self.dsplat(last);
        for &k in rest.iter().rev() {
            let p = self.b.ins().fmul(acc, t);
            let k = self.dsplat(k);
            acc = self.b.ins().fadd(p, k);
        }
        acc
    }

    /// An `f64x2` with both lanes `x`.
    fn dsplat(&mut self, x: f64) -> Value {
        let c = self.b.ins().f64const(x);
        self.b.ins().splat(types::F64X2, c)
    }

    /// Lanes 0, 1 and lanes 2, 3 of an `i32x4` as two `f64x2`: f32 bits
    /// promoted (`int` false) or signed integers converted (`int` true),
    /// exactly either way.
    pub(super) fn f64_halves(&mut self, v: Value, int: bool) -> [Value; 2] {
        let bytes = self.b.ins().bitcast(types::I8X16, little(), v);
        let high = self.byte_shuffle(bytes, bytes, |k| 8 + k % 8);
        [bytes, high].map(|h| {
            if int {
                let i = self.b.ins().bitcast(types::I32X4, little(), h);
                let wide = self.b.ins().swiden_low(i);
                self.b.ins().fcvt_from_sint(types::F64X2, wide)
            } else {
                let f = self.b.ins().bitcast(types::F32X4, little(), h);
                self.b.ins().fvpromote_low(f)
            }
        })
    }

    /// Two `f64x2` rounded to f32 and joined into one `i32x4` of f32 bits
    /// (lanes 0, 1 from the first, 2, 3 from the second): the inverse of
    /// [`Lower::f64_halves`].
    pub(super) fn f32_join(&mut self, halves: [Value; 2]) -> Value {
        let [lo, hi] = halves.map(|d| {
            let r = self.b.ins().fvdemote(d);
            self.b.ins().bitcast(types::I8X16, little(), r)
        });
        let both = self.byte_shuffle(lo, hi, |k| if k < 8 { k } else { 8 + k });
        self.b.ins().bitcast(types::I32X4, little(), both)
    }
}
