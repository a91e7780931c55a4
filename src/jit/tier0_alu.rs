//! Tier 0's out-of-line ALU: one call per 32-bit ALU instruction into
//! [`alu`], a Rust routine that applies the instruction to the whole batch
//! with the interpreter's own [`crate::sem`] functions.
//!
//! In: an ALU instruction (float, int, compare, convert, move classes)
//! whose destinations are r#, o# or null and whose sources are r#, v#,
//! o#, immediates, non-SM5.1 cb# with literal indices, or anything else
//! the inline lowering fetches into a scratch slot first
//! ([`super::tier0`]). Out: an [`AluDesc`] (built when compiling, owned
//! by the compiled code) and, at run time, the destination slots written
//! under the execution mask. Invariants:
//! - the routine computes each lane exactly as the interpreter does
//!   (`interp::exec_*`): sources swizzled, then modified as the class
//!   says (float sign-bit or integer two's-complement), the `sem`
//!   function, `_sat` where the interpreter applies it, every source read
//!   before any destination is written;
//! - a destination lane changes only where the execution mask is set,
//!   as `(new & exec) | (old & !exec)`, the inline lowering's bitselect;
//! - it only touches the batch's save area at offsets fixed when
//!   compiling (every one inside the save area tier 0 sizes to hold all
//!   variables) and cb# DWORDs below the bound window's size;
//! - float routines run in the caller's default float mode
//!   ([`super::fpmode::DefaultMode`]), as the interpreter does.
//!
//! Why: the inline lowering of one float instruction is about 70
//! Cranelift IR values (flush, NaN canonicalisation, masked writes on
//! two vectors per component), and Cranelift costs about a microsecond
//! per IR value; a call is a handful (docs/performance.md, "Compile
//! tiers").

use super::context::{BatchContext, ResDesc, W};
use crate::ir::Modifier;
use crate::sem::{bits, convert, float as f, int};

/// The per-lane operation of one instruction.
#[derive(Clone, Copy)]
pub enum AluOp {
    /// One source, one result per component.
    Un(fn(u32) -> u32),
    /// Two sources.
    Bin(fn(u32, u32) -> u32),
    /// Three sources.
    Tri(fn(u32, u32, u32) -> u32),
    /// Four sources (`bfi`).
    Quad(fn(u32, u32, u32, u32) -> u32),
    /// Two sources, two destinations (`imul`, `udiv`, `uaddc`, ...).
    Pair(fn(u32, u32) -> (u32, u32)),
    /// `dp2`/`dp3`/`dp4`: one scalar from the first `n` components.
    Dot(u8),
    /// `sincos`: sine to the first destination, cosine to the second.
    SinCos,
    /// `swapc`: two destinations selected by the first source.
    Swapc,
}

impl std::fmt::Debug for AluOp {
    fn fmt(&self, fm: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let name = match self {
            AluOp::Un(_) => "Un",
            AluOp::Bin(_) => "Bin",
            AluOp::Tri(_) => "Tri",
            AluOp::Quad(_) => "Quad",
            AluOp::Pair(_) => "Pair",
            AluOp::Dot(_) => "Dot",
            AluOp::SinCos => "SinCos",
            AluOp::Swapc => "Swapc",
        };
        fm.write_str(name)
    }
}

/// How sources take their modifiers (as `interp::thread::Ty`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SrcTy {
    Float,
    Int,
}

/// Where one swizzled source component comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Src {
    /// The save area at this byte offset: lane `l` at `off + 4 * l`.
    Slot(u32),
    /// The same value in every lane.
    Imm(u32),
    /// DWORD `dword` of the window in resource-table entry `entry` (0 past
    /// its end), the same in every lane.
    Cb { entry: u32, dword: u64 },
}

/// Everything [`alu`] needs for one instruction.
#[derive(Clone, Debug)]
pub struct AluDesc {
    pub op: AluOp,
    /// Sources in use (`srcs[..nsrc]`), per destination component.
    pub nsrc: u8,
    pub srcs: [[Src; 4]; 4],
    /// Modifier per source, applied as `ty` says (`None` for sources the
    /// inline code already modified).
    pub mods: [Modifier; 4],
    pub ty: SrcTy,
    /// Destination slots per destination and component (`None`: not
    /// written).
    pub dsts: [[Option<u32>; 4]; 2],
    /// Saturate float results before the write.
    pub sat: bool,
    /// Run in the default float mode.
    pub float: bool,
    /// Byte offset of the execution mask's slots.
    pub exec: u32,
}

fn fl(x: u32) -> f32 {
    f32::from_bits(x)
}

/// The interpreter's per-lane operation, source type, whether `_sat`
/// applies, whether it computes with floats, and the index of its first
/// source operand, for the ALU classes (`None`: not an ALU instruction
/// tier 0 calls out for).
pub fn op_of(kind: crate::ir::OpKind) -> Option<(AluOp, SrcTy, bool, bool, usize)> {
    use crate::ir::{CompareInst as C, ConvertInst as V, FloatInst as F, IntInst as I};
    use crate::ir::{MoveInst as M, OpKind};
    use AluOp::*;
    let float = |op| Some((op, SrcTy::Float, true, true, 1));
    let fun = |g: fn(u32) -> u32| float(Un(g));
    let fbin = |g: fn(u32, u32) -> u32| float(Bin(g));
    let cmp = |g: fn(u32, u32) -> u32| Some((Bin(g), SrcTy::Float, false, true, 1));
    let ib = |g: fn(u32, u32) -> u32| Some((Bin(g), SrcTy::Int, false, false, 1));
    let iu = |g: fn(u32) -> u32| Some((Un(g), SrcTy::Int, false, false, 1));
    let it = |g: fn(u32, u32, u32) -> u32| Some((Tri(g), SrcTy::Int, false, false, 1));
    let ip = |g: fn(u32, u32) -> (u32, u32)| Some((Pair(g), SrcTy::Int, false, false, 2));
    // (conversion, source type, `_sat` applies, float)
    let cv = |g: fn(u32) -> u32, ty, sat| Some((Un(g), ty, sat, true, 1));
    match kind {
        OpKind::Float(op) => match op {
            F::Add => fbin(|a, b| f::add(fl(a), fl(b)).to_bits()),
            F::Mul => fbin(|a, b| f::mul(fl(a), fl(b)).to_bits()),
            F::Div => fbin(|a, b| f::div(fl(a), fl(b)).to_bits()),
            F::Min => fbin(|a, b| f::min(fl(a), fl(b)).to_bits()),
            F::Max => fbin(|a, b| f::max(fl(a), fl(b)).to_bits()),
            F::Mad => float(Tri(|a, b, c| f::mad(fl(a), fl(b), fl(c)).to_bits())),
            F::Dp2 => float(Dot(2)),
            F::Dp3 => float(Dot(3)),
            F::Dp4 => float(Dot(4)),
            F::Exp => fun(|a| f::exp2(fl(a)).to_bits()),
            F::Log => fun(|a| f::log2(fl(a)).to_bits()),
            F::Sqrt => fun(|a| f::sqrt(fl(a)).to_bits()),
            F::Rsq => fun(|a| f::rsq(fl(a)).to_bits()),
            F::Rcp => fun(|a| f::rcp(fl(a)).to_bits()),
            F::Frc => fun(|a| f::frc(fl(a)).to_bits()),
            F::RoundNe => fun(|a| f::round_ne(fl(a)).to_bits()),
            F::RoundNi => fun(|a| f::round_ni(fl(a)).to_bits()),
            F::RoundPi => fun(|a| f::round_pi(fl(a)).to_bits()),
            F::RoundZ => fun(|a| f::round_z(fl(a)).to_bits()),
            F::SinCos => Some((SinCos, SrcTy::Float, true, true, 2)),
        },
        OpKind::Compare(op) => match op {
            C::Eq => cmp(|a, b| f::eq(fl(a), fl(b))),
            C::Ne => cmp(|a, b| f::ne(fl(a), fl(b))),
            C::Lt => cmp(|a, b| f::lt(fl(a), fl(b))),
            C::Ge => cmp(|a, b| f::ge(fl(a), fl(b))),
            C::IEq => ib(int::ieq),
            C::INe => ib(int::ine),
            C::ILt => ib(int::ilt),
            C::IGe => ib(int::ige),
            C::ULt => ib(int::ult),
            C::UGe => ib(int::uge),
        },
        OpKind::Int(op) => match op {
            I::IAdd => ib(int::iadd),
            I::INeg => iu(int::ineg),
            I::IMad => it(int::imad),
            I::UMad => it(int::umad),
            I::IMax => ib(int::imax),
            I::IMin => ib(int::imin),
            I::UMax => ib(int::umax),
            I::UMin => ib(int::umin),
            I::IMul => ip(int::imul),
            I::UMul => ip(int::umul),
            I::UDiv => ip(int::udiv),
            I::UAddc => ip(int::uaddc),
            I::USubb => ip(int::usubb),
            I::IShl => ib(int::ishl),
            I::IShr => ib(int::ishr),
            I::UShr => ib(int::ushr),
            I::And => ib(int::and),
            I::Or => ib(int::or),
            I::Xor => ib(int::xor),
            I::Not => iu(int::not),
            I::Msad => it(int::msad),
            I::CountBits => iu(bits::countbits),
            I::FirstBitHi => iu(bits::firstbit_hi),
            I::FirstBitLo => iu(bits::firstbit_lo),
            I::FirstBitShi => iu(bits::firstbit_shi),
            I::BfRev => iu(bits::bfrev),
            I::UBfe => it(bits::ubfe),
            I::IBfe => it(bits::ibfe),
            I::Bfi => Some((Quad(bits::bfi), SrcTy::Int, false, false, 1)),
        },
        OpKind::Convert(op) => match op {
            V::Ftoi => cv(|a| convert::ftoi(fl(a)) as u32, SrcTy::Float, false),
            V::Ftou => cv(|a| convert::ftou(fl(a)), SrcTy::Float, false),
            V::Itof => cv(|a| convert::itof(a as i32).to_bits(), SrcTy::Int, true),
            V::Utof => cv(|a| convert::utof(a).to_bits(), SrcTy::Int, true),
            V::F32tof16 => cv(|a| convert::f32tof16(fl(a)), SrcTy::Float, false),
            V::F16tof32 => cv(|a| convert::f16tof32(a).to_bits(), SrcTy::Int, true),
        },
        // neg/abs on mov are sign-bit operations (sm5-semantics.md §5);
        // moves copy bits, so no float mode is needed.
        OpKind::Move(op) => match op {
            M::Mov => Some((Un(|a| a), SrcTy::Float, true, false, 1)),
            M::Movc => Some((
                Tri(|c, a, b| if c != 0 { a } else { b }),
                SrcTy::Float,
                true,
                false,
                1,
            )),
            M::Swapc => Some((Swapc, SrcTy::Float, true, false, 2)),
        },
        _ => None,
    }
}

/// Reads `W` lanes of the save area at byte offset `off`.
///
/// # Safety
/// `save + off .. save + off + 4 * W` lies inside the save area.
unsafe fn lanes(save: *const u8, off: u32) -> [u32; W] {
    std::ptr::read_unaligned(save.add(off as usize) as *const [u32; W])
}

/// Reads one source component for every lane.
///
/// # Safety
/// As [`alu`].
unsafe fn read(ctx: *const BatchContext, src: Src) -> [u32; W] {
    match src {
        Src::Slot(off) => lanes((*ctx).save, off),
        Src::Imm(v) => [v; W],
        Src::Cb { entry, dword } => {
            let r: ResDesc = *(*ctx).res.add(entry as usize);
            let v = if dword < r.dwords {
                std::ptr::read_unaligned((r.base as *const u32).add(dword as usize))
            } else {
                0
            };
            [v; W]
        }
    }
}

/// The results of `op` for every lane: `[destination][component][lane]`.
fn compute(op: AluOp, s: &[[[u32; W]; 4]; 4]) -> [[[u32; W]; 4]; 2] {
    let mut out = [[[0u32; W]; 4]; 2];
    for c in 0..4 {
        for l in 0..W {
            let a = |k: usize| s[k][c][l];
            let (r0, r1) = match op {
                AluOp::Un(g) => (g(a(0)), 0),
                AluOp::Bin(g) => (g(a(0), a(1)), 0),
                AluOp::Tri(g) => (g(a(0), a(1), a(2)), 0),
                AluOp::Quad(g) => (g(a(0), a(1), a(2), a(3)), 0),
                AluOp::Pair(g) => g(a(0), a(1)),
                AluOp::Dot(n) => {
                    let x = |k: usize, i: usize| fl(s[k][i][l]);
                    let r = match n {
                        2 => f::dp2([x(0, 0), x(0, 1)], [x(1, 0), x(1, 1)]),
                        3 => f::dp3([x(0, 0), x(0, 1), x(0, 2)], [x(1, 0), x(1, 1), x(1, 2)]),
                        _ => f::dp4(
                            [x(0, 0), x(0, 1), x(0, 2), x(0, 3)],
                            [x(1, 0), x(1, 1), x(1, 2), x(1, 3)],
                        ),
                    };
                    (r.to_bits(), 0)
                }
                AluOp::SinCos => (f::sin(fl(a(0))).to_bits(), f::cos(fl(a(0))).to_bits()),
                AluOp::Swapc => {
                    let (c0, x, y) = (a(0), a(1), a(2));
                    if c0 != 0 {
                        (y, x)
                    } else {
                        (x, y)
                    }
                }
            };
            out[0][c][l] = r0;
            out[1][c][l] = r1;
        }
    }
    out
}

/// Runs one ALU instruction on the batch (see the module doc).
///
/// # Safety
/// `ctx` is the live batch context of the call running tier-0 code
/// compiled with `desc`, whose save area holds every slot `desc` names.
pub unsafe extern "C" fn alu(ctx: *mut BatchContext, desc: *const AluDesc) {
    let d = &*desc;
    let _mode = d.float.then(super::fpmode::DefaultMode::enter);
    let mut s = [[[0u32; W]; 4]; 4];
    let n = usize::from(d.nsrc);
    for ((sk, srcs), &m) in s.iter_mut().zip(&d.srcs).zip(&d.mods).take(n) {
        for (skc, &src) in sk.iter_mut().zip(srcs) {
            let v = read(ctx, src);
            *skc = match (m, d.ty) {
                (Modifier::None, _) => v,
                (m, SrcTy::Float) => v.map(|x| f::apply_modifier(x, m)),
                (m, SrcTy::Int) => v.map(|x| int::apply_modifier(x, m)),
            };
        }
    }
    let out = compute(d.op, &s);
    let save = (*ctx).save;
    let exec = lanes(save, d.exec);
    for (dst, vals) in d.dsts.iter().zip(out.iter()) {
        for c in 0..4 {
            let Some(off) = dst[c] else { continue };
            let old = lanes(save, off);
            let new: [u32; W] = std::array::from_fn(|l| {
                let v = if d.sat {
                    f::sat(fl(vals[c][l])).to_bits()
                } else {
                    vals[c][l]
                };
                (v & exec[l]) | (old[l] & !exec[l])
            });
            std::ptr::write_unaligned(save.add(off as usize) as *mut [u32; W], new);
        }
    }
}

/// One of the runtime's typed shims (`typed.rs`):
/// `(env, entry, flag, io)`, one lane per call.
pub type TypedShim = unsafe extern "C" fn(*const super::typed::TypedEnv, u32, u32, *mut u32);

/// A typed-resource instruction (`ld`, `ld_uav_typed`, `store_uav_typed`,
/// `resinfo`) run on every lane by one call of [`typed_lanes`].
#[derive(Clone, Debug)]
pub struct TypedDesc {
    pub shim: TypedShim,
    pub entry: u32,
    /// The shim's flag; `None` for a store, whose flag is the lane's
    /// "active and its writes count".
    pub flag: Option<u32>,
    /// `io[0..8]` of each lane (coordinates, then a store's values).
    pub ins: [Src; 8],
    pub nin: u8,
    /// Where `io[4..8]` of each lane go (loads and resinfo).
    pub outs: Option<[u32; 4]>,
    /// Byte offset of the execution mask's slots.
    pub exec: u32,
}

/// Runs a typed shim on every lane in lane order, exactly as the inline
/// lowering's per-lane calls do (`memory.rs`, `typed_call`): a store
/// passes `active = 0` for lanes outside `exec` or whose writes do not
/// count (`uav_lanes`); results are written to the output slots for every
/// lane (the generated code then writes them to the destination under
/// the mask).
///
/// # Safety
/// As [`alu`]; `desc.outs` name slots of the save area.
pub unsafe extern "C" fn typed_lanes(ctx: *mut BatchContext, desc: *const TypedDesc) {
    let d = &*desc;
    let mut ins = [[0u32; W]; 8];
    for (k, v) in ins.iter_mut().enumerate().take(usize::from(d.nin)) {
        *v = read(ctx, d.ins[k]);
    }
    let save = (*ctx).save;
    let exec = lanes(save, d.exec);
    let writes = (*ctx).uav_lanes;
    let env = (*ctx).typed as *const super::typed::TypedEnv;
    let mut out = [[0u32; W]; 4];
    for l in 0..W {
        let mut io: [u32; 8] = std::array::from_fn(|k| ins[k][l]);
        let flag = d.flag.unwrap_or(u32::from(exec[l] != 0 && writes[l] != 0));
        (d.shim)(env, d.entry, flag, io.as_mut_ptr());
        for c in 0..4 {
            out[c][l] = io[4 + c];
        }
    }
    if let Some(outs) = d.outs {
        for (c, off) in outs.iter().enumerate() {
            std::ptr::write_unaligned(save.add(*off as usize) as *mut [u32; W], out[c]);
        }
    }
}

/// The memory an atomic addresses.
#[derive(Clone, Copy, Debug)]
pub enum AtomicMem {
    /// A raw or structured u# window: resource-table entry.
    Uav(u32),
    /// A g# register: its first DWORD in the group's TGSM and its size.
    Tgsm { first: u32, dwords: u32 },
    /// A u#'s hidden counter (`imm_atomic_alloc` / `_consume`).
    Counter(u32),
}

/// One atomic instruction run on every lane by [`atomic_lanes`].
#[derive(Clone, Debug)]
pub struct AtomicDesc {
    pub mem: AtomicMem,
    /// `None` for the counter instructions.
    pub op: Option<crate::sem::atomic::AtomicOp>,
    /// +1 (alloc) or -1 (consume) for a counter.
    pub alloc: bool,
    pub stride: Option<u32>,
    /// Address (x, y), compare value, source value: the swizzled first
    /// components the inline lowering uses.
    pub addr: [Src; 2],
    pub cmp: Src,
    pub val: Src,
    /// Where each lane's returned value goes (0 for lanes that do not
    /// write), when the instruction returns one.
    pub out: Option<u32>,
    pub exec: u32,
}

/// One `lock cmpxchg` on the DWORD at `p` (which may be unaligned, as
/// caller memory may be; x86 locks an unaligned DWORD too, as the
/// generated code's atomics do): stores `new` if it holds `expected`;
/// returns what it held.
///
/// # Safety
/// `p` points to a valid, writable DWORD.
#[cfg(target_arch = "x86_64")]
unsafe fn cas(p: *mut u32, expected: u32, new: u32) -> u32 {
    let prev: u32;
    std::arch::asm!(
        "lock cmpxchg dword ptr [{p}], {new:e}",
        p = in(reg) p,
        new = in(reg) new,
        inout("eax") expected => prev,
        options(nostack),
    );
    prev
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn cas(p: *mut u32, expected: u32, new: u32) -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering::SeqCst};
    match AtomicU32::from_ptr(p).compare_exchange(expected, new, SeqCst, SeqCst) {
        Ok(v) | Err(v) => v,
    }
}

/// Applies `f` (old -> (new or no store, returned)) to the DWORD at `p`
/// atomically; returns the returned value. "No store" compares and
/// writes back the value it read, which nobody can tell from no store.
///
/// # Safety
/// As [`cas`].
unsafe fn update(p: *mut u32, f: impl Fn(u32) -> (Option<u32>, u32)) -> u32 {
    let mut guess = 0;
    loop {
        let (new, ret) = f(guess);
        let prev = cas(p, guess, new.unwrap_or(guess));
        if prev == guess {
            return ret;
        }
        guess = prev;
    }
}

/// Runs an atomic on every lane in lane order, as the inline lowering's
/// per-lane sequence (`memory.rs`, `rmw` and `counter`) does: a lane
/// acts when it is in `exec` and its writes count (`uav_lanes`), and, for
/// memory, when its DWORD (`(x * stride + y) >> 2`, or `x >> 2` for raw)
/// is inside the window; the new value is [`crate::sem::atomic::combine`]
/// (counters: `counter_alloc` / `counter_consume`) in one atomic
/// compare-exchange; lanes that do not act return 0.
///
/// # Safety
/// As [`alu`]; TGSM and u# windows are bound as the plan says (the
/// context's `tgsm` and resource table) with 4-byte aligned DWORDs.
pub unsafe extern "C" fn atomic_lanes(ctx: *mut BatchContext, desc: *const AtomicDesc) {
    use crate::sem::atomic as at;
    let d = &*desc;
    let (x, y) = (read(ctx, d.addr[0]), read(ctx, d.addr[1]));
    let (cmp, val) = (read(ctx, d.cmp), read(ctx, d.val));
    let save = (*ctx).save;
    let exec = lanes(save, d.exec);
    let writes = (*ctx).uav_lanes;
    let (base, dwords): (*mut u32, u64) = match d.mem {
        AtomicMem::Uav(e) | AtomicMem::Counter(e) => {
            let r: ResDesc = *(*ctx).res.add(e as usize);
            match d.mem {
                AtomicMem::Counter(_) => (r.counter, u64::from(!r.counter.is_null())),
                _ => (r.base as *mut u32, r.dwords),
            }
        }
        AtomicMem::Tgsm { first, dwords } => ((*ctx).tgsm.add(first as usize), u64::from(dwords)),
    };
    let mut out = [0u32; W];
    for l in 0..W {
        if exec[l] == 0 || writes[l] == 0 {
            continue;
        }
        let dword = match (d.op, d.stride) {
            (None, _) => 0,
            (Some(_), Some(s)) => (u64::from(x[l]) * u64::from(s) + u64::from(y[l])) >> 2,
            (Some(_), None) => u64::from(x[l]) >> 2,
        };
        if dword >= dwords {
            continue;
        }
        let p = base.add(dword as usize);
        out[l] = match d.op {
            None if d.alloc => update(p, |o| {
                let (n, r) = at::counter_alloc(o);
                (Some(n), r)
            }),
            None => update(p, |o| {
                let (n, r) = at::counter_consume(o);
                (Some(n), r)
            }),
            Some(op) => update(p, |o| (at::combine(op, o, val[l], cmp[l]), o)),
        };
    }
    if let Some(off) = d.out {
        std::ptr::write_unaligned(save.add(off as usize) as *mut [u32; W], out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FloatInst, IntInst, MoveInst, OpKind};

    /// A context whose save area is `save`.
    fn ctx(save: &mut [u32]) -> Box<BatchContext> {
        let mut c = Box::new(BatchContext::empty());
        c.save = save.as_mut_ptr() as *mut u8;
        c
    }

    fn desc(kind: OpKind, srcs: [[Src; 4]; 4], nsrc: u8, dsts: [[Option<u32>; 4]; 2]) -> AluDesc {
        let (op, ty, _, float, _) = op_of(kind).expect("an ALU op");
        AluDesc {
            op,
            nsrc,
            srcs,
            mods: [Modifier::None; 4],
            ty,
            dsts,
            sat: false,
            float,
            exec: 0,
        }
    }

    const NONE: [Option<u32>; 4] = [None; 4];

    #[test]
    fn add_writes_only_masked_components_and_lanes() {
        // Slots of 32 bytes (8 lanes): exec, a, b, dst.
        let mut save = vec![0u32; 4 * W];
        for l in 0..W {
            save[l] = if l % 2 == 0 { u32::MAX } else { 0 };
            save[W + l] = (l as f32).to_bits();
            save[3 * W + l] = 7;
        }
        let a = Src::Slot(32);
        let d = desc(
            OpKind::Float(FloatInst::Add),
            [
                [a; 4],
                [Src::Imm(0.5f32.to_bits()); 4],
                [Src::Imm(0); 4],
                [Src::Imm(0); 4],
            ],
            2,
            [[Some(96), None, None, None], NONE],
        );
        let mut c = ctx(&mut save);
        unsafe { alu(&mut *c, &d) };
        for l in 0..W {
            let want = if l % 2 == 0 {
                (l as f32 + 0.5).to_bits()
            } else {
                7
            };
            assert_eq!(save[3 * W + l], want, "lane {l}");
        }
    }

    #[test]
    fn sources_are_read_before_destinations_are_written() {
        // swapc r1, r2, cond, r1, r2 with r1 = 1, r2 = 2 and cond set:
        // both see the old values.
        let mut save = vec![0u32; 4 * W];
        for l in 0..W {
            save[l] = u32::MAX;
            save[W + l] = 1;
            save[2 * W + l] = 2;
        }
        let d = desc(
            OpKind::Move(MoveInst::Swapc),
            [
                [Src::Imm(1); 4],
                [Src::Slot(32); 4],
                [Src::Slot(64); 4],
                [Src::Imm(0); 4],
            ],
            3,
            [[Some(32), None, None, None], [Some(64), None, None, None]],
        );
        let mut c = ctx(&mut save);
        unsafe { alu(&mut *c, &d) };
        assert_eq!(save[W], 2);
        assert_eq!(save[2 * W], 1);
    }

    #[test]
    fn pairs_and_modifiers_follow_sem() {
        let mut save = vec![0u32; 4 * W];
        save[..W].fill(u32::MAX);
        let mut d = desc(
            OpKind::Int(IntInst::UDiv),
            [
                [Src::Imm(7); 4],
                [Src::Imm(2); 4],
                [Src::Imm(0); 4],
                [Src::Imm(0); 4],
            ],
            2,
            [[Some(32), None, None, None], [Some(64), None, None, None]],
        );
        let mut c = ctx(&mut save);
        unsafe { alu(&mut *c, &d) };
        assert_eq!((save[W], save[2 * W]), (3, 1));
        // ineg applied to the integer source: 7 / -(-2) ... as u32.
        d.mods[1] = Modifier::Neg;
        unsafe { alu(&mut *c, &d) };
        assert_eq!(save[W], int::udiv(7, 2u32.wrapping_neg()).0);
    }

    #[test]
    fn out_of_bounds_cb_reads_zero() {
        let cb = [5u32, 6, 7, 8];
        let res = [ResDesc {
            base: cb.as_ptr() as *mut u8,
            dwords: 4,
            ..ResDesc::EMPTY
        }];
        let mut save = vec![0u32; 4 * W];
        save[..W].fill(u32::MAX);
        let mut c = ctx(&mut save);
        c.res = res.as_ptr();
        let d = desc(
            OpKind::Move(MoveInst::Mov),
            [
                [
                    Src::Cb { entry: 0, dword: 3 },
                    Src::Cb { entry: 0, dword: 4 },
                    Src::Imm(0),
                    Src::Imm(0),
                ],
                [Src::Imm(0); 4],
                [Src::Imm(0); 4],
                [Src::Imm(0); 4],
            ],
            1,
            [[Some(32), Some(64), None, None], NONE],
        );
        unsafe { alu(&mut *c, &d) };
        assert_eq!(save[W], 8);
        assert_eq!(save[2 * W], 0);
    }

    #[test]
    fn atomics_act_on_active_in_bounds_lanes_in_order() {
        // Slots: exec (lanes 0..6 active), result.
        let mut save = vec![0u32; 2 * W];
        save[..6].fill(u32::MAX);
        let mut tgsm = [10u32, 20, 30];
        let mut c = ctx(&mut save);
        c.tgsm = tgsm.as_mut_ptr();
        c.uav_lanes = [u32::MAX; W];
        c.uav_lanes[1] = 0; // a helper lane: its writes do not count
        let d = AtomicDesc {
            mem: AtomicMem::Tgsm {
                first: 1,
                dwords: 2,
            },
            op: Some(crate::sem::atomic::AtomicOp::IAdd),
            alloc: false,
            stride: None,
            // Every lane addresses byte 0: DWORD 0 of the window.
            addr: [Src::Imm(0), Src::Imm(0)],
            cmp: Src::Imm(0),
            val: Src::Imm(5),
            out: Some(32),
            exec: 0,
        };
        unsafe { atomic_lanes(&mut *c, &d) };
        // Lanes 0, 2, 3, 4, 5 add 5 to DWORD 0 of the window (tgsm[1]),
        // in lane order; lane 1 does not count, lanes 6, 7 are inactive.
        assert_eq!(tgsm, [10, 45, 30]);
        assert_eq!(&save[W..], &[20, 0, 25, 30, 35, 40, 0, 0]);
    }
}
