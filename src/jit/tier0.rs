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
//! ALU, typed-resource and atomic instructions are not lowered inline at
//! all: each is one call of a routine in `tier0_alu.rs` with a
//! descriptor of its operands' slots (`t0_alu`, `t0_typed`,
//! `t0_atomic`); operands the routines cannot read themselves are
//! fetched by the inline code into scratch slots first. After a call the
//! slot and value caches are forgotten (the routine wrote slots).
//!
//! Why this is faster to compile: no SSA construction, no block
//! parameters at joins and loop heads, and short live ranges, so
//! Cranelift's single-pass allocator (with `opt_level=none`, see
//! [`super::tiers`]) has little to do. The code runs slower (every
//! register access goes through memory); tier 1 replaces it once the
//! shader has run enough. Both tiers compute the interpreter's results
//! (the routines call the same `sem` functions), so they are
//! bit-identical.

use cranelift_codegen::ir::{types, AbiParam, InstBuilder, SigRef, Value};
use cranelift_frontend::Variable;
use cranelift_module::Module;

use super::context::N;
use super::lower::{trusted, Lower, Ty};
use super::tier0_alu::{
    alu, atomic_lanes, op_of, typed_lanes, AluDesc, AluOp, AtomicDesc, AtomicMem, Src, SrcTy,
    TypedDesc, TypedShim,
};
use super::JitError;
use crate::ir::{Components, Index, Instruction, Modifier, Operand, OperandType};
use crate::sem::atomic::AtomicOp;

/// The descriptors tier-0 code points at (ALU, typed, atomics), owned by
/// the compiled code.
#[allow(clippy::vec_box)]
pub type Descs = (Vec<Box<AluDesc>>, Vec<Box<TypedDesc>>, Vec<Box<AtomicDesc>>);

/// Tier 0's out-of-line ALU state for one function (`tier0_alu.rs`).
/// The descriptors are boxed one by one: the code embeds each one's
/// address, which must not move when the vectors grow.
#[derive(Default)]
#[allow(clippy::vec_box)]
pub struct AluCalls {
    /// The descriptors the generated calls point at; they move into the
    /// compiled code and live as long as it.
    pub descs: Vec<Box<AluDesc>>,
    /// The same for the typed-resource calls.
    pub typed: Vec<Box<TypedDesc>>,
    /// The same for the atomics.
    pub atomics: Vec<Box<AtomicDesc>>,
    /// `(ctx: i64, desc: i64) -> ()`.
    sig: Option<SigRef>,
    /// Scratch slots for sources fetched inline: `[source * 4 + component]`.
    scratch: Vec<[Variable; N]>,
}

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

impl Lower<'_, '_> {
    /// The save-area byte offset of a component's `N` vector variables,
    /// when they are consecutive (they are: `new_vars` declares them
    /// together).
    fn slot_run(vars: [Variable; N]) -> Option<u32> {
        let k = vars[0].as_u32();
        let consecutive = vars
            .iter()
            .enumerate()
            .all(|(j, v)| v.as_u32() == k + j as u32);
        consecutive.then(|| 16 * k)
    }

    /// Tier 0: lowers `inst` as one call of [`alu`] when it is a 32-bit
    /// ALU instruction whose destinations the routine can write (r#, o#,
    /// null); returns false, having emitted nothing, otherwise.
    pub(super) fn t0_alu(&mut self, inst: &Instruction) -> Result<bool, JitError> {
        if self.slots.is_none() || super::opt_off("t0call") {
            return Ok(false);
        }
        let Some((op, ty, sat, float, first)) = op_of(inst.opcode.kind()) else {
            return Ok(false);
        };
        let nsrc = inst.operands.len().saturating_sub(first);
        if inst.operands.len() < first || nsrc > 4 {
            return Ok(false);
        }
        let Some(dsts) = self.t0_dsts(inst, first) else {
            return Ok(false);
        };
        let Some(exec) = Self::slot_run(self.exec) else {
            return Ok(false);
        };
        // The source components the results use.
        let need = match op {
            AluOp::Dot(n) => (1u8 << n) - 1,
            _ => inst
                .operands
                .iter()
                .take(first)
                .filter(|o| o.ty != OperandType::Null)
                .fold(0, |m, o| m | o.write_mask()),
        };
        let mut srcs = [[Src::Imm(0); 4]; 4];
        let mut mods = [Modifier::None; 4];
        for k in 0..nsrc {
            let o = &inst.operands[first + k];
            match self.t0_direct(o) {
                Some(s) => {
                    srcs[k] = s;
                    mods[k] = o.modifier;
                }
                None => srcs[k] = self.t0_scratch(o, k, ty, need)?,
            }
        }
        let desc = Box::new(AluDesc {
            op,
            nsrc: nsrc as u8,
            srcs,
            mods,
            ty,
            dsts,
            sat: sat && inst.saturate(),
            // `_sat` is float arithmetic too (min/max in `sem`).
            float: float || (sat && inst.saturate()),
            exec,
        });
        let d = &*desc as *const AluDesc as usize;
        self.t0.descs.push(desc);
        self.t0_call(alu as unsafe extern "C" fn(_, _) as usize, d);
        Ok(true)
    }

    /// Calls `routine(ctx, desc)`, then forgets what the slot cache knows:
    /// the routine wrote slots behind its back, and vectors kept across
    /// the call would only be spilled around it.
    fn t0_call(&mut self, routine: usize, desc: usize) {
        let sig = match self.t0.sig {
            Some(s) => s,
            None => {
                let mut sig = self.module.make_signature();
                sig.params.push(AbiParam::new(types::I64));
                sig.params.push(AbiParam::new(types::I64));
                let s = self.b.import_signature(sig);
                self.t0.sig = Some(s);
                s
            }
        };
        let d = self.b.ins().iconst(types::I64, desc as i64);
        let f = self.b.ins().iconst(types::I64, routine as i64);
        let ctx = self.ctx;
        self.b.ins().call_indirect(sig, f, &[ctx, d]);
        self.slot_cache.clear();
        self.value_cache.clear();
    }

    /// The scratch slots numbered `at` (declared when first used) and
    /// their save-area offset.
    fn t0_scratch_slot(&mut self, at: usize) -> Result<([Variable; N], u32), JitError> {
        while self.t0.scratch.len() <= at {
            let vars = self.new_vars();
            self.t0.scratch.push(vars);
        }
        let vars = self.t0.scratch[at];
        let off =
            Self::slot_run(vars).ok_or_else(|| self.unsupported_operand("tier-0 scratch slots"))?;
        Ok((vars, off))
    }

    /// Tier 0: lowers a typed-resource instruction as one call of
    /// [`typed_lanes`]: `shim` on every lane with the `io` inputs taken
    /// from `ins` (operand, component count: 4), the results (when `dst`
    /// is given: operand 0, swizzled by the resource operand `res`)
    /// written like the inline lowering writes them. False (nothing
    /// emitted) outside tier 0 or with SM5.1 ranges.
    pub(super) fn t0_typed(
        &mut self,
        shim: TypedShim,
        entry: usize,
        flag: Option<u32>,
        ins: &[&Operand],
        dst: Option<(&Operand, &Operand)>,
    ) -> Result<bool, JitError> {
        if self.slots.is_none() || !self.plan.ranges.is_empty() || super::opt_off("t0call") {
            return Ok(false);
        }
        let (Ok(entry), Some(exec)) = (u32::try_from(entry), Self::slot_run(self.exec)) else {
            return Ok(false);
        };
        let mut srcs = [Src::Imm(0); 8];
        for (k, o) in ins.iter().enumerate() {
            let at = 4 * k;
            let direct = self.t0_direct(o).filter(|_| o.modifier == Modifier::None);
            match direct {
                Some(s) => srcs[at..at + 4].copy_from_slice(&s),
                None => {
                    let s = self.t0_scratch(o, k, SrcTy::Int, 0xF)?;
                    srcs[at..at + 4].copy_from_slice(&s);
                }
            }
        }
        let mut outs = None;
        if dst.is_some() {
            let mut o = [0u32; 4];
            for (c, off) in o.iter_mut().enumerate() {
                *off = self.t0_scratch_slot(8 + c)?.1;
            }
            outs = Some(o);
        }
        let desc = Box::new(TypedDesc {
            shim,
            entry,
            flag,
            ins: srcs,
            nin: (4 * ins.len()) as u8,
            outs,
            exec,
        });
        let d = &*desc as *const TypedDesc as usize;
        self.t0.typed.push(desc);
        self.t0_call(typed_lanes as unsafe extern "C" fn(_, _) as usize, d);
        if let Some((dst, res)) = dst {
            let swz = res.swizzle();
            let mask = dst.write_mask();
            let mut vals: [Option<super::lower::V>; 4] = [None; 4];
            for (c, v) in vals.iter_mut().enumerate() {
                if mask & (1 << c) != 0 {
                    let (vars, _) = self.t0_scratch_slot(8 + usize::from(swz[c] & 3))?;
                    *v = Some(self.use_vars(vars));
                }
            }
            self.write(dst, &vals)?;
        }
        Ok(true)
    }

    /// The destination slots of `inst`'s first `n` operands, or `None`
    /// when one of them is not an r#, o# or null with a literal index.
    fn t0_dsts(&self, inst: &Instruction, n: usize) -> Option<[[Option<u32>; 4]; 2]> {
        let mut dsts = [[None; 4]; 2];
        for (o, dst) in inst.operands.iter().take(n).zip(dsts.iter_mut()) {
            let regs = match o.ty {
                OperandType::Null => continue,
                OperandType::Temp => &self.regs,
                OperandType::Output => &self.stage.outputs,
                _ => return None,
            };
            let r = o.imm_index(0)?;
            let Some(reg) = regs.get(r as usize) else {
                continue;
            };
            let mask = o.write_mask();
            for c in 0..4 {
                if mask & (1 << c) != 0 {
                    dst[c] = Some(Self::slot_run(reg[c])?);
                }
            }
        }
        Some(dsts)
    }

    /// Where the routine reads source `o` itself (per destination
    /// component, swizzled), or `None` when the inline code must fetch it.
    fn t0_direct(&self, o: &Operand) -> Option<[Src; 4]> {
        let comp = |c: usize| match o.comps {
            Components::One | Components::Zero => 0,
            _ => usize::from(o.swizzle()[c] & 3),
        };
        let regs = match o.ty {
            OperandType::Temp => &self.regs,
            OperandType::Input => &self.stage.inputs,
            OperandType::Output => &self.stage.outputs,
            OperandType::Imm32 => {
                let v = |c| match o.imm.as_slice() {
                    [v] => *v,
                    [a, b, x, y] => [*a, *b, *x, *y][comp(c)],
                    _ => 0,
                };
                return Some(std::array::from_fn(|c| Src::Imm(v(c))));
            }
            OperandType::ConstantBuffer if !self.p.version().is_sm51() => {
                let reg = o.imm_index(0)?;
                let row = match o.indices.get(1) {
                    None => 0,
                    Some(Index::Imm32(r)) => u64::from(*r),
                    Some(_) => return None,
                };
                let Some(&entry) = self.plan.cbs.get(&reg) else {
                    return Some([Src::Imm(0); 4]);
                };
                let entry = u32::try_from(entry).ok()?;
                return Some(std::array::from_fn(|c| {
                    match row
                        .checked_mul(4)
                        .and_then(|d| d.checked_add(comp(c) as u64))
                    {
                        Some(dword) => Src::Cb { entry, dword },
                        None => Src::Imm(0),
                    }
                }));
            }
            _ => return None,
        };
        let r = o.imm_index(0)?;
        let Some(reg) = regs.get(r as usize) else {
            return Some([Src::Imm(0); 4]);
        };
        let mut out = [Src::Imm(0); 4];
        for (c, s) in out.iter_mut().enumerate() {
            *s = Src::Slot(Self::slot_run(reg[comp(c)])?);
        }
        Some(out)
    }

    /// Fetches the components `need` of source `o` (swizzled and
    /// modified) with the inline code into scratch slots for source `k`,
    /// each distinct register component once; returns where the routine
    /// reads them (the rest read as 0 and are not used).
    fn t0_scratch(
        &mut self,
        o: &Operand,
        k: usize,
        ty: SrcTy,
        need: u8,
    ) -> Result<[Src; 4], JitError> {
        let ty = match ty {
            SrcTy::Float => Ty::Float,
            SrcTy::Int => Ty::Int,
        };
        let comp = |c: usize| match o.comps {
            Components::One | Components::Zero => 0,
            _ => usize::from(o.swizzle()[c] & 3),
        };
        let mut out = [Src::Imm(0); 4];
        for c in 0..4 {
            if need & (1 << c) == 0 {
                continue;
            }
            if let Some(prev) = (0..c).find(|&p| need & (1 << p) != 0 && comp(p) == comp(c)) {
                out[c] = out[prev];
                continue;
            }
            let v = self.src(o, c, ty)?;
            let (vars, off) = self.t0_scratch_slot(4 * k + c)?;
            self.def_vars(vars, v);
            out[c] = Src::Slot(off);
        }
        Ok(out)
    }
}

impl Lower<'_, '_> {
    /// Source `o`'s first `n` swizzled components as the routines read
    /// them: direct when unmodified, else fetched into scratch slots for
    /// source `k` (integer modifiers).
    fn t0_int_src(&mut self, o: &Operand, k: usize, n: usize) -> Result<[Src; 4], JitError> {
        match self.t0_direct(o).filter(|_| o.modifier == Modifier::None) {
            Some(s) => Ok(s),
            None => self.t0_scratch(o, k, SrcTy::Int, (1u8 << n) - 1),
        }
    }

    /// Tier 0: an atomic on a raw/structured u# or a g# (`op`), or a
    /// counter (`op` is `None`, `alloc` says which), as one call of
    /// [`atomic_lanes`]; the returned values (if `returns_old`) written
    /// to operand 0 as the inline lowering writes them. False (nothing
    /// emitted) outside tier 0, with SM5.1 ranges or on typed or
    /// undeclared targets (the inline lowering handles or reports them).
    pub(super) fn t0_atomic(
        &mut self,
        inst: &Instruction,
        op: Option<AtomicOp>,
        alloc: bool,
        returns_old: bool,
    ) -> Result<bool, JitError> {
        if self.slots.is_none() || !self.plan.ranges.is_empty() || super::opt_off("t0call") {
            return Ok(false);
        }
        let Some(exec) = Self::slot_run(self.exec) else {
            return Ok(false);
        };
        let m = usize::from(returns_old);
        let mem_op = self.operand(inst, if op.is_some() { m } else { 1 })?;
        let Some(reg) = mem_op.imm_index(0) else {
            return Ok(false);
        };
        let uav = (mem_op.ty == OperandType::Uav)
            .then(|| self.plan.uavs.get(&reg).copied())
            .flatten()
            .filter(|_| {
                let kind = crate::runtime::BindingKind::Uav;
                !self.plan.typed.contains(&(kind, reg))
            });
        let (mem, stride) = match (op, mem_op.ty, uav) {
            (None, _, Some((e, _))) => (AtomicMem::Counter(e as u32), None),
            (Some(_), OperandType::Uav, Some((e, stride))) => (AtomicMem::Uav(e as u32), stride),
            (Some(_), OperandType::Tgsm, _) => match self.plan.tgsm.get(&reg) {
                Some(p) => (
                    AtomicMem::Tgsm {
                        first: p.first,
                        dwords: p.dwords,
                    },
                    p.stride,
                ),
                None => return Ok(false),
            },
            _ => return Ok(false),
        };
        let mut desc = AtomicDesc {
            mem,
            op,
            alloc,
            stride,
            addr: [Src::Imm(0); 2],
            cmp: Src::Imm(0),
            val: Src::Imm(0),
            out: None,
            exec,
        };
        if let Some(op) = op {
            let a = self.t0_int_src(self.operand(inst, m + 1)?, 0, 2)?;
            desc.addr = [a[0], a[1]];
            let mut next = m + 2;
            if op == AtomicOp::CmpExch {
                desc.cmp = self.t0_int_src(self.operand(inst, next)?, 1, 1)?[0];
                next += 1;
            }
            desc.val = self.t0_int_src(self.operand(inst, next)?, 2, 1)?[0];
        }
        let returns = returns_old || op.is_none();
        if returns {
            desc.out = Some(self.t0_scratch_slot(12)?.1);
        }
        let desc = Box::new(desc);
        let d = &*desc as *const AtomicDesc as usize;
        self.t0.atomics.push(desc);
        self.t0_call(atomic_lanes as unsafe extern "C" fn(_, _) as usize, d);
        if returns {
            let (vars, _) = self.t0_scratch_slot(12)?;
            let v = self.use_vars(vars);
            let dst = self.operand(inst, 0)?;
            self.write(dst, &[Some(v); 4])?;
        }
        Ok(true)
    }
}
