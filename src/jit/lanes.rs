//! The out-of-line per-lane path of raw and structured loads and stores.
//!
//! In: four lanes' addresses (and structured offsets, write masks, values)
//! in the rows of [`BatchContext::lanes`], a window (`base`, `dwords`) and
//! a packed [`LaneSpec`]. Out: the loaded DWORDs in the value rows, or the
//! stored DWORDs in memory. Invariant: exactly the inline per-lane rule —
//! each lane's DWORD is `sem::memory::raw_dword` / `structured_dword` plus
//! the component offset, read or written only when it is below `dwords`
//! (reads out of bounds give 0, writes are dropped), lane by lane and
//! component by component in that order; nothing outside the window is
//! touched. Generated code calls it when the four lanes are neither
//! consecutive nor uniform in bounds, which keeps that rare path out of
//! the compiled function (one call instead of four bounds-checked lane
//! sequences: a third of the compile time of a small shader).

use super::context::{BatchContext, LANE_ROWS};
use crate::sem::memory::{raw_dword, structured_dword};

/// The symbol of [`preserving_call`].
pub const SYMBOL: &str = "sm5jit_preserving_call";

/// Row of [`BatchContext::lanes`] holding each lane's byte address (raw)
/// or struct index (structured).
pub const ROW_ADDR: usize = 0;
/// Row holding each lane's structured byte offset.
pub const ROW_OFFSET: usize = 1;
/// Row holding each lane's write flag (stores: non-zero = the lane writes).
pub const ROW_MASK: usize = 2;
/// First of the four value rows: component `i` of the access is row
/// `ROW_VALUES + i` (loads write them, stores read them).
pub const ROW_VALUES: usize = 3;

const _: () = assert!(ROW_VALUES + 4 <= LANE_ROWS);

/// What one call does, packed into a `u32` for the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaneSpec {
    pub store: bool,
    /// Structured stride in bytes (4..=2048), or 0 for raw.
    pub stride: u32,
    /// DWORD offsets from each lane's first DWORD, one per value row.
    pub ks: [u8; 4],
    /// How many of `ks` are used (1..=4).
    pub count: u8,
}

impl LaneSpec {
    pub fn encode(self) -> u32 {
        let ks = self
            .ks
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &k)| acc | (u32::from(k & 3) << (2 * i)));
        u32::from(self.store)
            | (self.stride & 0xFFF) << 1
            | u32::from(self.count & 7) << 13
            | ks << 16
    }

    pub fn decode(x: u32) -> LaneSpec {
        LaneSpec {
            store: x & 1 != 0,
            stride: (x >> 1) & 0xFFF,
            count: ((x >> 13) & 7).min(4) as u8,
            ks: std::array::from_fn(|i| ((x >> (16 + 2 * i)) & 3) as u8),
        }
    }
}

/// Calls `target(ctx, a, b, c)` (the System V convention) and preserves
/// every register: the way generated code calls [`lane_access`].
///
/// Generated code calls this with Cranelift's `preserve_all` convention
/// (arguments in the System V registers, the target in `r8`, nothing
/// clobbered), so the values the surrounding code keeps in vector
/// registers stay there: with the plain System V convention every XMM
/// register is clobbered by the call, and the register allocator spilled
/// live vectors on the fast path too (saxpy ran 30% slower). It saves the
/// nine caller-saved general registers and XMM0-15 (Cranelift uses no
/// wider vectors), keeps the stack 16-byte aligned for the inner call, and
/// restores them all.
///
/// # Safety
/// `target` is [`lane_access`] (or a function with its contract), called
/// with arguments it accepts, in `rdi`, `rsi`, `rdx` and `ecx`, with `target` in `r8` and a
/// 16-byte aligned stack at the call.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
pub unsafe extern "C" fn preserving_call(
    _ctx: *mut BatchContext,
    _a: u64,
    _b: u64,
    _c: u32,
    _target: unsafe extern "C" fn(*mut BatchContext, u64, u64, u32),
) {
    std::arch::naked_asm!(
        "push rax",
        "push rcx",
        "push rdx",
        "push rsi",
        "push rdi",
        "push r8",
        "push r9",
        "push r10",
        "push r11",
        // Return address + 9 pushes = 80 bytes: the stack is aligned again.
        "sub rsp, 256",
        "movdqu [rsp], xmm0",
        "movdqu [rsp + 16], xmm1",
        "movdqu [rsp + 32], xmm2",
        "movdqu [rsp + 48], xmm3",
        "movdqu [rsp + 64], xmm4",
        "movdqu [rsp + 80], xmm5",
        "movdqu [rsp + 96], xmm6",
        "movdqu [rsp + 112], xmm7",
        "movdqu [rsp + 128], xmm8",
        "movdqu [rsp + 144], xmm9",
        "movdqu [rsp + 160], xmm10",
        "movdqu [rsp + 176], xmm11",
        "movdqu [rsp + 192], xmm12",
        "movdqu [rsp + 208], xmm13",
        "movdqu [rsp + 224], xmm14",
        "movdqu [rsp + 240], xmm15",
        "call r8",
        "movdqu xmm0, [rsp]",
        "movdqu xmm1, [rsp + 16]",
        "movdqu xmm2, [rsp + 32]",
        "movdqu xmm3, [rsp + 48]",
        "movdqu xmm4, [rsp + 64]",
        "movdqu xmm5, [rsp + 80]",
        "movdqu xmm6, [rsp + 96]",
        "movdqu xmm7, [rsp + 112]",
        "movdqu xmm8, [rsp + 128]",
        "movdqu xmm9, [rsp + 144]",
        "movdqu xmm10, [rsp + 160]",
        "movdqu xmm11, [rsp + 176]",
        "movdqu xmm12, [rsp + 192]",
        "movdqu xmm13, [rsp + 208]",
        "movdqu xmm14, [rsp + 224]",
        "movdqu xmm15, [rsp + 240]",
        "add rsp, 256",
        "pop r11",
        "pop r10",
        "pop r9",
        "pop r8",
        "pop rdi",
        "pop rsi",
        "pop rdx",
        "pop rcx",
        "pop rax",
        "ret",
    );
}

/// Elsewhere the JIT refuses to compile (`JitError::Host`), so nothing
/// calls this; it calls `target` directly to keep the crate building (the
/// interpreter works on any host).
///
/// # Safety
/// As for the x86-64 version.
#[cfg(not(target_arch = "x86_64"))]
pub unsafe extern "C" fn preserving_call(
    ctx: *mut BatchContext,
    a: u64,
    b: u64,
    c: u32,
    target: unsafe extern "C" fn(*mut BatchContext, u64, u64, u32),
) {
    // SAFETY: the caller's contract is the target's.
    unsafe { target(ctx, a, b, c) }
}

/// Loads or stores four lanes as `spec` says.
///
/// # Safety
/// `ctx` is a live batch context; `base` is the address of `dwords` DWORDs the
/// caller may read (and write, for a store) for the whole call, or
/// `dwords` is 0.
pub unsafe extern "C" fn lane_access(ctx: *mut BatchContext, base: u64, dwords: u64, spec: u32) {
    let base = std::ptr::with_exposed_provenance_mut::<u8>(base as usize);
    let spec = LaneSpec::decode(spec);
    // SAFETY: the caller passes its own live context.
    let rows = unsafe { &mut (*ctx).lanes };
    #[allow(clippy::needless_range_loop)] // `l` indexes several rows
    for l in 0..4 {
        if spec.store && rows[ROW_MASK][l] == 0 {
            continue;
        }
        let first = match spec.stride {
            0 => raw_dword(rows[ROW_ADDR][l]),
            s => structured_dword(rows[ROW_ADDR][l], rows[ROW_OFFSET][l], s),
        };
        for (i, &k) in spec.ks.iter().enumerate().take(usize::from(spec.count)) {
            let d = first + u64::from(k);
            let inside = d < dwords;
            // SAFETY: `d < dwords`, so the four bytes lie inside the window.
            let p = inside.then(|| unsafe { base.add(4 * d as usize) });
            let row = &mut rows[ROW_VALUES + i][l];
            match (spec.store, p) {
                (false, Some(p)) => *row = unsafe { p.cast::<u32>().read_unaligned() },
                (false, None) => *row = 0,
                (true, Some(p)) => unsafe { p.cast::<u32>().write_unaligned(*row) },
                (true, None) => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn the_preserving_entry_does_the_same_access() {
        let mut ctx = Box::new(BatchContext::empty());
        let mut mem: Vec<u32> = (10..20).collect();
        ctx.lanes[ROW_ADDR] = [4, 8, 400, 0];
        let load = LaneSpec {
            store: false,
            stride: 0,
            ks: [0, 0, 0, 0],
            count: 1,
        };
        // SAFETY: called from Rust with the C convention, which is a
        // subset of what it preserves.
        let base = mem.as_mut_ptr().expose_provenance() as u64;
        unsafe { preserving_call(&mut *ctx, base, 10, load.encode(), lane_access) };
        assert_eq!(ctx.lanes[ROW_VALUES], [11, 12, 0, 10]);
    }

    #[test]
    fn specs_round_trip() {
        for spec in [
            LaneSpec {
                store: false,
                stride: 0,
                ks: [3, 2, 1, 0],
                count: 4,
            },
            LaneSpec {
                store: true,
                stride: 2048,
                ks: [0, 1, 0, 0],
                count: 2,
            },
        ] {
            assert_eq!(LaneSpec::decode(spec.encode()), spec);
        }
    }

    #[test]
    fn lanes_read_zero_and_drop_writes_outside_the_window() {
        let mut ctx = Box::new(BatchContext::empty());
        let mut mem: Vec<u32> = (10..20).collect();
        let base = mem.as_mut_ptr().expose_provenance() as u64;
        // Raw byte addresses: word 0, word 9 (the last), word 10 (past), huge.
        ctx.lanes[ROW_ADDR] = [0, 36, 40, u32::MAX];
        let load = LaneSpec {
            store: false,
            stride: 0,
            ks: [1, 0, 0, 0],
            count: 2,
        };
        unsafe { lane_access(&mut *ctx, base, 10, load.encode()) };
        assert_eq!(ctx.lanes[ROW_VALUES], [11, 0, 0, 0]);
        assert_eq!(ctx.lanes[ROW_VALUES + 1], [10, 19, 0, 0]);
        // Structured, stride 8: index 4 offset 4 is word 9; only lanes with
        // a mask write, and only inside the window.
        ctx.lanes[ROW_ADDR] = [4, 4, 5, 0];
        ctx.lanes[ROW_OFFSET] = [4, 0, 0, 0];
        ctx.lanes[ROW_MASK] = [1, 0, 1, 1];
        ctx.lanes[ROW_VALUES] = [100, 200, 300, 400];
        ctx.lanes[ROW_VALUES + 1] = [101, 201, 301, 401];
        let store = LaneSpec {
            store: true,
            stride: 8,
            ks: [0, 1, 0, 0],
            count: 2,
        };
        unsafe { lane_access(&mut *ctx, base, 10, store.encode()) };
        assert_eq!(mem, [400, 401, 12, 13, 14, 15, 16, 17, 18, 100]);
    }
}
