//! `extern "C"` shims that let generated code call the [`crate::sem`]
//! functions Cranelift cannot vectorise on x86-64.
//!
//! In: one lane's operand bits. Out: that lane's result bits (a pair packed
//! in a `u64`, first result in the low half). Invariant: each shim is a
//! one-line call of the `sem` function the interpreter uses, so the two
//! engines cannot drift for these ops. The shims are registered with
//! `JITBuilder::symbol` under the names in [`Shim::name`]; nothing is ever
//! looked up by name in the process's symbol table.

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

fn pack((a, b): (u32, u32)) -> u64 {
    u64::from(a) | (u64::from(b) << 32)
}

extern "C" fn exp(a: u32) -> u32 {
    float::exp2(f(a)).to_bits()
}
extern "C" fn log(a: u32) -> u32 {
    float::log2(f(a)).to_bits()
}
extern "C" fn rsq(a: u32) -> u32 {
    float::rsq(f(a)).to_bits()
}
extern "C" fn sin(a: u32) -> u32 {
    float::sin(f(a)).to_bits()
}
extern "C" fn cos(a: u32) -> u32 {
    float::cos(f(a)).to_bits()
}
extern "C" fn countbits(a: u32) -> u32 {
    bits::countbits(a)
}
extern "C" fn firstbit_hi(a: u32) -> u32 {
    bits::firstbit_hi(a)
}
extern "C" fn firstbit_lo(a: u32) -> u32 {
    bits::firstbit_lo(a)
}
extern "C" fn firstbit_shi(a: u32) -> u32 {
    bits::firstbit_shi(a)
}
extern "C" fn bfrev(a: u32) -> u32 {
    bits::bfrev(a)
}
extern "C" fn f32tof16(a: u32) -> u32 {
    convert::f32tof16(f(a))
}
extern "C" fn f16tof32(a: u32) -> u32 {
    convert::f16tof32(a).to_bits()
}
extern "C" fn imul(a: u32, b: u32) -> u64 {
    pack(int::imul(a, b))
}
extern "C" fn umul(a: u32, b: u32) -> u64 {
    pack(int::umul(a, b))
}
extern "C" fn udiv(a: u32, b: u32) -> u64 {
    pack(int::udiv(a, b))
}
extern "C" fn msad(a: u32, b: u32, c: u32) -> u32 {
    int::msad(a, b, c)
}
extern "C" fn ubfe(a: u32, b: u32, c: u32) -> u32 {
    bits::ubfe(a, b, c)
}
extern "C" fn ibfe(a: u32, b: u32, c: u32) -> u32 {
    bits::ibfe(a, b, c)
}
extern "C" fn bfi(a: u32, b: u32, c: u32, d: u32) -> u32 {
    bits::bfi(a, b, c, d)
}

impl Shim {
    pub const ALL: [Shim; 19] = [
        Shim::Exp,
        Shim::Log,
        Shim::Rsq,
        Shim::Sin,
        Shim::Cos,
        Shim::CountBits,
        Shim::FirstBitHi,
        Shim::FirstBitLo,
        Shim::FirstBitShi,
        Shim::BfRev,
        Shim::F32ToF16,
        Shim::F16ToF32,
        Shim::IMul,
        Shim::UMul,
        Shim::UDiv,
        Shim::Msad,
        Shim::UBfe,
        Shim::IBfe,
        Shim::Bfi,
    ];

    /// The symbol name the shim is registered under.
    pub fn name(self) -> &'static str {
        match self {
            Shim::Exp => "sm5jit_exp",
            Shim::Log => "sm5jit_log",
            Shim::Rsq => "sm5jit_rsq",
            Shim::Sin => "sm5jit_sin",
            Shim::Cos => "sm5jit_cos",
            Shim::CountBits => "sm5jit_countbits",
            Shim::FirstBitHi => "sm5jit_firstbit_hi",
            Shim::FirstBitLo => "sm5jit_firstbit_lo",
            Shim::FirstBitShi => "sm5jit_firstbit_shi",
            Shim::BfRev => "sm5jit_bfrev",
            Shim::F32ToF16 => "sm5jit_f32tof16",
            Shim::F16ToF32 => "sm5jit_f16tof32",
            Shim::IMul => "sm5jit_imul",
            Shim::UMul => "sm5jit_umul",
            Shim::UDiv => "sm5jit_udiv",
            Shim::Msad => "sm5jit_msad",
            Shim::UBfe => "sm5jit_ubfe",
            Shim::IBfe => "sm5jit_ibfe",
            Shim::Bfi => "sm5jit_bfi",
        }
    }

    /// The shim's address.
    pub fn addr(self) -> *const u8 {
        match self {
            Shim::Exp => exp as *const u8,
            Shim::Log => log as *const u8,
            Shim::Rsq => rsq as *const u8,
            Shim::Sin => sin as *const u8,
            Shim::Cos => cos as *const u8,
            Shim::CountBits => countbits as *const u8,
            Shim::FirstBitHi => firstbit_hi as *const u8,
            Shim::FirstBitLo => firstbit_lo as *const u8,
            Shim::FirstBitShi => firstbit_shi as *const u8,
            Shim::BfRev => bfrev as *const u8,
            Shim::F32ToF16 => f32tof16 as *const u8,
            Shim::F16ToF32 => f16tof32 as *const u8,
            Shim::IMul => imul as *const u8,
            Shim::UMul => umul as *const u8,
            Shim::UDiv => udiv as *const u8,
            Shim::Msad => msad as *const u8,
            Shim::UBfe => ubfe as *const u8,
            Shim::IBfe => ibfe as *const u8,
            Shim::Bfi => bfi as *const u8,
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

    /// True when the shim returns two results packed in a `u64`.
    pub fn returns_pair(self) -> bool {
        matches!(self, Shim::IMul | Shim::UMul | Shim::UDiv)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_pack_first_result_low() {
        assert_eq!(udiv(7, 2), 3 | (1 << 32));
        assert_eq!(udiv(7, 0), u64::MAX);
        assert_eq!(imul(u32::MAX, 2), 0xFFFF_FFFF | (0xFFFF_FFFE << 32));
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<_> = Shim::ALL.iter().map(|s| s.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Shim::ALL.len());
    }
}
