//! The host floating-point mode generated code runs in: MXCSR with
//! denormals-are-zero (DAZ) set.
//!
//! In: nothing but the CPU. Out: [`hw_flush`] (whether compiled code may
//! leave the input flushes of `sem::float` to the hardware), [`FlushMode`]
//! (DAZ on for a scope: every entry into generated code) and
//! [`DefaultMode`] (the caller's mode back for a scope: every shim that
//! does float arithmetic in Rust). Invariants: a mode is always restored
//! (guards restore on drop, unwinding too); under DAZ every SSE float
//! operation reads a denormal operand as a zero of its sign, which is
//! exactly `sem::float::flush` of its inputs.
//!
//! Why not FTZ as well: FTZ decides that a result is tiny before rounding
//! to the destination format, so a product whose exact value lies within
//! half an ulp below 2^-126 (IEEE rounds it up to the smallest normal,
//! 0x00800000, which `sem` keeps) becomes zero: measured on the AMD EPYC
//! of docs/performance.md with 0x3F7FF4AE * 0x008005A9. Results are
//! therefore rounded by IEEE and flushed by the generated code where they
//! become visible (`observed.rs`); float-only chains are flushed by DAZ
//! at their next use.

use std::sync::OnceLock;

/// MXCSR bit 6: DAZ.
#[cfg(target_arch = "x86_64")]
const DAZ: u32 = 0x0040;
/// MXCSR bit 15: FTZ (cleared by [`DefaultMode`] too, in case a caller
/// set it).
#[cfg(target_arch = "x86_64")]
const FTZ_DAZ: u32 = 0x8040;

#[cfg(target_arch = "x86_64")]
fn get() -> u32 {
    let mut m: u32 = 0;
    // SAFETY: stmxcsr writes four bytes to the given address.
    unsafe {
        std::arch::asm!("stmxcsr [{}]", in(reg) &mut m, options(nostack, preserves_flags));
    }
    m
}

#[cfg(target_arch = "x86_64")]
fn set(m: u32) {
    // SAFETY: ldmxcsr of a value read with stmxcsr, with only the FTZ and
    // DAZ bits changed (both valid on every SSE2 CPU with DAZ, which
    // `hw_flush` checks).
    unsafe {
        std::arch::asm!("ldmxcsr [{}]", in(reg) &m, options(nostack, preserves_flags));
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn get() -> u32 {
    0
}

#[cfg(not(target_arch = "x86_64"))]
fn set(_: u32) {}

/// The float-mode bits [`FlushMode`] sets (0 when the hardware mode is
/// not used).
fn bits() -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        if hw_flush() {
            return DAZ;
        }
    }
    0
}

/// Whether DAZ reproduces `sem::float`'s input flush on this CPU (checked
/// once per process: an emulator may ignore the bit) and
/// `SM5JIT_SOFT_FLUSH` is not set. When false, the JIT emits the explicit
/// input flushes and never changes the mode.
pub fn hw_flush() -> bool {
    static OK: OnceLock<bool> = OnceLock::new();
    *OK.get_or_init(|| std::env::var_os("SM5JIT_SOFT_FLUSH").is_none() && probe())
}

/// One `mulss` and one `addss` in the current mode. In assembly, so the
/// compiler cannot move them across the mode change (it assumes the
/// default mode for its own float code).
#[cfg(target_arch = "x86_64")]
fn hw_mul_add(a: f32, b: f32, c: f32) -> (f32, f32) {
    let mut m = a;
    let mut s = a;
    // SAFETY: register-only SSE arithmetic.
    unsafe {
        std::arch::asm!(
            "mulss {m}, {b}",
            "addss {s}, {c}",
            m = inout(xmm_reg) m,
            s = inout(xmm_reg) s,
            b = in(xmm_reg) b,
            c = in(xmm_reg) c,
            options(nostack, nomem, preserves_flags)
        );
    }
    (m, s)
}

/// Runs cases with denormal operands under DAZ and compares them with
/// `sem::float` (which flushes inputs explicitly).
fn probe() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::sem::float;
        let f = f32::from_bits;
        // (a, b, c): a * b and a + c; a denormal reads as a zero of its
        // sign; a normal a with a denormal c, and a result that IEEE
        // rounding keeps as a denormal (no FTZ: flushed later, by code).
        let cases = [
            (0x8000_0001, 0x3F80_0000, 0x0000_0000),
            (0x0040_0000, 0x4000_0000, 0x8000_0000),
            (0x0080_0001, 0x3F00_0000, 0x8080_0000),
            (0x3F80_0000, 0x3F80_0000, 0x0000_0003),
        ];
        let saved = get();
        set((saved & !FTZ_DAZ) | DAZ);
        let hw: Vec<(u32, u32)> = cases
            .iter()
            .map(|&(a, b, c)| {
                let (m, s) = hw_mul_add(f(a), f(b), f(c));
                (m.to_bits(), s.to_bits())
            })
            .collect();
        set(saved);
        // sem's input flush, then IEEE without the output flush.
        let fl = |x: u32| float::flush(f(x));
        let soft: Vec<(u32, u32)> = cases
            .iter()
            .map(|&(a, b, c)| ((fl(a) * fl(b)).to_bits(), (fl(a) + fl(c)).to_bits()))
            .collect();
        hw == soft
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// DAZ on (and FTZ off) for the guard's life (when [`hw_flush`]): taken by
/// every worker thread around the batches it runs and by the vertex/pixel
/// batch path. Restores the previous MXCSR on drop.
pub struct FlushMode {
    saved: u32,
    changed: bool,
}

impl FlushMode {
    pub fn enter() -> FlushMode {
        let want = bits();
        if want == 0 {
            return FlushMode {
                saved: 0,
                changed: false,
            };
        }
        let saved = get();
        let changed = saved & FTZ_DAZ != want;
        if changed {
            set((saved & !FTZ_DAZ) | want);
        }
        FlushMode { saved, changed }
    }
}

impl Drop for FlushMode {
    fn drop(&mut self) {
        if self.changed {
            set(self.saved);
        }
    }
}

/// DAZ (and FTZ) off for the guard's life: shims that compute with floats in
/// Rust (`sem`'s transcendental kernels in f64, doubles, format
/// conversions, sampling) run in the mode the interpreter runs in.
/// Restores the previous MXCSR on drop; costs a `stmxcsr` when the mode
/// was not changed.
pub struct DefaultMode {
    saved: u32,
    changed: bool,
}

impl DefaultMode {
    #[inline]
    pub fn enter() -> DefaultMode {
        #[cfg(target_arch = "x86_64")]
        {
            let saved = get();
            let changed = saved & FTZ_DAZ != 0;
            if changed {
                set(saved & !FTZ_DAZ);
            }
            DefaultMode { saved, changed }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            DefaultMode {
                saved: 0,
                changed: false,
            }
        }
    }
}

impl Drop for DefaultMode {
    #[inline]
    fn drop(&mut self) {
        if self.changed {
            set(self.saved);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_restore_the_mode() {
        let before = get();
        {
            let _f = FlushMode::enter();
            assert_eq!(get() & 0x8040, bits());
            {
                let _d = DefaultMode::enter();
                assert_eq!(get() & 0x8040, 0);
            }
            assert_eq!(get() & 0x8040, bits());
        }
        assert_eq!(get(), before);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn daz_reads_denormals_as_signed_zeros_and_keeps_denormal_results() {
        let f = f32::from_bits;
        let _f = FlushMode::enter();
        let (m, s) = hw_mul_add(f(0x8000_0001), f(0x3F80_0000), f(0x0000_0000));
        let (m2, _) = hw_mul_add(f(0x0080_0001), f(0x3F00_0000), f(0));
        if hw_flush() {
            assert_eq!((m.to_bits(), s.to_bits()), (0x8000_0000, 0));
        } else {
            assert_eq!(m.to_bits(), 0x8000_0001);
        }
        // No FTZ: 0.5 * (2^-126 + 2^-149) rounds to the denormal 2^-127.
        assert_eq!(m2.to_bits(), 0x0040_0000);
    }
}
