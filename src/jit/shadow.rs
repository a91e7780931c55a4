//! Scalar shadows of uniform r# components (`uniform.rs`).
//!
//! In: the uniform sets of the analysis. Out: beside the vector variables
//! (which stay exact in every lane, masked as always), one `i32` variable
//! per r# component, defined wherever the analysis says an instruction
//! writes that component as a uniform scalar; conditions, loop exits and
//! load addresses made of uniform components read the scalar instead of
//! testing masks or lane shapes. Invariant: where the analysis says a
//! component is uniform, its shadow holds the value of every active lane
//! (integer ops computed exactly as the vector lowering computes them, so
//! nothing changes in results). Tier 1 only.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::context::{N, OFF_FLAT, OFF_TID, W};
use super::lower::{fixed, shift_op, Lower};
use super::uniform::{first_comp, src_comp, Spread};
use crate::ir::{Instruction, Modifier, Opcode, Operand, OperandType};

impl Lower<'_, '_> {
    /// Component `comp` of `op` as a scalar, modifier applied (integer
    /// `-`); the caller checked with the analysis that it is uniform.
    pub(super) fn uniform_src(&mut self, op: &Operand, comp: usize) -> Value {
        let v = self.uniform_operand(op, comp);
        match op.modifier {
            Modifier::Neg => self.b.ins().ineg(v),
            _ => v,
        }
    }

    pub(super) fn uniform_operand(&mut self, op: &Operand, comp: usize) -> Value {
        let comp = comp & 3;
        let konst = |s: &mut Self, x: u32| s.b.ins().iconst(types::I32, i64::from(x as i32));
        match op.ty {
            OperandType::Imm32 => {
                let v = match op.imm.as_slice() {
                    [v] => *v,
                    [a, b, c, d] => [*a, *b, *c, *d][comp],
                    _ => 0,
                };
                konst(self, v)
            }
            OperandType::Temp => match op.imm_index(0).and_then(|r| self.shadows.get(r as usize)) {
                Some(sh) => {
                    let var = sh[comp];
                    self.b.use_var(var)
                }
                None => konst(self, 0),
            },
            OperandType::ConstantBuffer => self.cb_scalar(op, comp),
            OperandType::ThreadGroupId => self.group_id(comp),
            OperandType::ThreadIdInGroup | OperandType::ThreadId if comp < 3 => {
                // Lane 0's: every lane of the batch has it (`uniform.rs`).
                let off = OFF_TID + (comp * 4 * W) as i32;
                let t = self.ctx_word(self.ctx, off);
                if op.ty == OperandType::ThreadIdInGroup {
                    return t;
                }
                let base = self.group_base(comp);
                self.b.ins().iadd(t, base)
            }
            _ => konst(self, 0),
        }
    }

    /// The scalar condition of `if`/`breakc`/... at instruction `k` when
    /// the analysis says it is uniform.
    pub fn uniform_cond(&mut self, k: usize, inst: &Instruction) -> Option<Value> {
        let u = self.uniform.as_ref()?;
        let op = inst.operands.first()?;
        let comp = first_comp(op);
        if !u.operand_uniform_at(k, op, comp) {
            return None;
        }
        Some(self.uniform_src(op, comp))
    }

    /// The scalar address of a raw or structured access at instruction
    /// `k` (operands `first` and, structured, `first + 1`) when it is
    /// uniform: the byte address or index, and the byte offset.
    pub fn uniform_address(
        &mut self,
        k: usize,
        inst: &Instruction,
        first: usize,
        structured: bool,
    ) -> Option<(Value, Option<Value>)> {
        let u = self.uniform.as_ref()?;
        let a = inst.operands.get(first)?;
        let o = if structured {
            Some(inst.operands.get(first + 1)?)
        } else {
            None
        };
        let ok = |op: &Operand| {
            matches!(op.modifier, Modifier::None | Modifier::Neg)
                && u.operand_uniform_at(k, &strip(op), src_comp(op, 0))
        };
        if !ok(a) || !o.is_none_or(ok) {
            return None;
        }
        let av = self.uniform_src(a, src_comp(a, 0));
        let ov = o.map(|o| self.uniform_src(o, src_comp(o, 0)));
        Some((av, ov))
    }

    /// After instruction `k` (an ALU op, already lowered on vectors):
    /// defines the shadows of the components it writes as uniform scalars.
    pub fn shadow_writes(&mut self, k: usize, inst: &Instruction) {
        let Some(u) = self.uniform.as_ref() else {
            return;
        };
        let Some(dst) = inst.operands.first() else {
            return;
        };
        let mask = dst.write_mask();
        let comps: Vec<(usize, Spread)> = (0..4)
            .filter(|&c| mask & (1 << c) != 0)
            .filter_map(|c| {
                if u.shadowed_write(k, inst, c) {
                    Some((c, Spread::Same))
                } else {
                    u.spread_write_at(k, inst, c).map(|s| (c, s))
                }
            })
            .collect();
        let Some(r) = dst.imm_index(0) else { return };
        let Some(sh) = self.shadows.get(r as usize).copied() else {
            return;
        };
        let vals: Vec<(usize, Value)> = comps
            .into_iter()
            .map(|(c, spread)| {
                let v = match spread {
                    Spread::Same => self.scalar_alu(inst, c),
                    spread => self.spread_base(k, inst, c, spread),
                };
                (c, v)
            })
            .collect();
        for (c, v) in vals {
            self.b.def_var(sh[c], v);
        }
    }

    /// Destination component `c` of `inst` (a [`super::uniform::scalar_op`])
    /// on scalars: the same integer op the vector lowering does per lane.
    pub(super) fn scalar_alu(&mut self, inst: &Instruction, c: usize) -> Value {
        let srcs: Vec<Value> = inst
            .operands
            .iter()
            .skip(1)
            .map(|op| self.uniform_src(op, src_comp(op, c)))
            .collect();
        let a = |k: usize| srcs.get(k).copied();
        let (x, y, z) = (a(0), a(1), a(2));
        let zero = self.b.ins().iconst(types::I32, 0);
        let (x, y, z) = (x.unwrap_or(zero), y.unwrap_or(zero), z.unwrap_or(zero));
        use Opcode::*;
        match inst.opcode {
            Mov => x,
            IAdd => self.b.ins().iadd(x, y),
            INeg => self.b.ins().ineg(x),
            IMad | UMad => {
                let m = self.b.ins().imul(x, y);
                self.b.ins().iadd(m, z)
            }
            IShl | UShr | IShr => shift_op(self, inst.opcode, x, y),
            And => self.b.ins().band(x, y),
            Or => self.b.ins().bor(x, y),
            Xor => self.b.ins().bxor(x, y),
            Not => self.b.ins().bnot(x),
            IMin => self.b.ins().smin(x, y),
            IMax => self.b.ins().smax(x, y),
            UMin => self.b.ins().umin(x, y),
            UMax => self.b.ins().umax(x, y),
            IEq => self.scalar_cmp(IntCC::Equal, x, y),
            INe => self.scalar_cmp(IntCC::NotEqual, x, y),
            ILt => self.scalar_cmp(IntCC::SignedLessThan, x, y),
            IGe => self.scalar_cmp(IntCC::SignedGreaterThanOrEqual, x, y),
            ULt => self.scalar_cmp(IntCC::UnsignedLessThan, x, y),
            UGe => self.scalar_cmp(IntCC::UnsignedGreaterThanOrEqual, x, y),
            // Not a scalar op (the analysis never says so): a value that
            // no uniform read can reach.
            _ => zero,
        }
    }

    /// The base of a consecutive source: 0 for `vThreadIDInGroup.x`, the
    /// group's x base for `vThreadID.x`, the start of the batch's row for
    /// `vThreadIDInGroupFlattened`, the shadow of an r# component.
    fn base_of(&mut self, op: &Operand) -> Value {
        match op.ty {
            OperandType::ThreadId => self.group_base(0),
            // Lane 0's flat id less its x: the start of the batch's row.
            OperandType::ThreadIdInGroupFlattened => {
                let flat = self.ctx_word(self.ctx, OFF_FLAT);
                let x = self.ctx_word(self.ctx, OFF_TID);
                self.b.ins().isub(flat, x)
            }
            // The shadow of a consecutive component is its base.
            OperandType::Temp => self.uniform_operand(op, src_comp(op, 0)),
            _ => self.b.ins().iconst(types::I32, 0),
        }
    }

    /// The base of destination component `c` of a consecutive or byte-ids
    /// write at `k` (`Uniform::spread_write_at`): `mov` keeps its
    /// source's, `iadd`
    /// adds the uniform operand to it, and `ishl` by 2 of a consecutive
    /// value shifts its base (`(b + x) << 2 = (b << 2) + 4x`, wrapping).
    fn spread_base(&mut self, k: usize, inst: &Instruction, c: usize, spread: Spread) -> Value {
        let (Some(a), b) = (inst.operands.get(1).cloned(), inst.operands.get(2).cloned()) else {
            return self.b.ins().iconst(types::I32, 0);
        };
        let spread_src = |s: &Self, op: &Operand| {
            s.uniform
                .as_ref()
                .is_some_and(|u| u.operand_spread_at(k, op, src_comp(op, c), spread))
        };
        match (inst.opcode, b) {
            (Opcode::IAdd, Some(b)) => {
                let (x, y) = if spread_src(self, &a) { (a, b) } else { (b, a) };
                let base = self.base_of(&one_comp(&x, c));
                let add = self.uniform_src(&y, src_comp(&y, c));
                self.b.ins().iadd(base, add)
            }
            (Opcode::IShl, _) => {
                let base = self.base_of(&one_comp(&a, c));
                self.b.ins().ishl_imm_s(base, 2)
            }
            _ => self.base_of(&one_comp(&a, c)),
        }
    }

    /// A comparison as the shader sees it: all ones or zero.
    fn scalar_cmp(&mut self, cc: IntCC, x: Value, y: Value) -> Value {
        let t = self.b.ins().icmp(cc, x, y);
        let t = self.b.ins().uextend(types::I32, t);
        self.b.ins().ineg(t)
    }

    /// At a barrier's resume block (the vectors and `exec` reloaded): the
    /// shadows of the components uniform at barrier `k`, rebuilt as the OR
    /// of their active lanes (which all hold the value).
    pub fn reload_shadows(&mut self, k: usize) {
        self.reload_shadows_where(k, |_, _| true);
    }

    /// [`Self::reload_shadows`] for the components `(r, c)` that `which`
    /// picks (group mode keeps the group-uniform ones from the group).
    pub fn reload_shadows_where(&mut self, k: usize, which: impl Fn(usize, usize) -> bool) {
        let Some(u) = self.uniform.as_ref() else {
            return;
        };
        let uniform: Vec<(usize, usize, Spread)> = (0..self.shadows.len())
            .flat_map(|r| (0..4).map(move |c| (r, c)))
            .filter(|&(r, c)| which(r, c))
            .filter_map(|(r, c)| {
                if u.uniform_at(k, r as u32, c) {
                    Some((r, c, Spread::Same))
                } else if u.consecutive_at(k, r as u32, c) {
                    Some((r, c, Spread::Ids))
                } else if u.byte_ids_at(k, r as u32, c) {
                    Some((r, c, Spread::ByteIds))
                } else {
                    None
                }
            })
            .collect();
        self.shadows_from_lanes(&uniform);
    }

    /// Defines the shadows of `comps` (register, component, consecutive)
    /// as the OR of their active lanes, which all hold the value (the
    /// base, for a consecutive one).
    pub fn shadows_from_lanes(&mut self, comps: &[(usize, usize, Spread)]) {
        if comps.is_empty() {
            return;
        }
        let exec = self.use_vars(self.exec);
        for &(r, c, spread) in comps {
            let mut v = self.use_vars(self.regs[r][c]);
            let shift = match spread {
                Spread::Same => None,
                Spread::Ids => Some(0),
                Spread::ByteIds => Some(2),
            };
            if self.full_exec {
                // Lane 0 is active: its value (less its id) is the shadow.
                let mut s = self.b.ins().extractlane(v[0], 0);
                if let Some(shift) = shift {
                    let t = self.ctx_word(self.ctx, OFF_TID);
                    let t = self.b.ins().ishl_imm_s(t, shift);
                    s = self.b.ins().isub(s, t);
                }
                self.b.def_var(self.shadows[r][c], s);
                continue;
            }
            if let Some(shift) = shift {
                // The base: value - (vThreadIDInGroup.x << shift) in each lane.
                for (j, x) in v.iter_mut().enumerate() {
                    let t =
                        self.b
                            .ins()
                            .load(types::I32X4, fixed(), self.ctx, OFF_TID + 16 * j as i32);
                    let t = self.b.ins().ishl_imm_s(t, shift);
                    *x = self.b.ins().isub(*x, t);
                }
            }
            let mut acc = self.b.ins().band(v[0], exec[0]);
            for j in 1..N {
                let m = self.b.ins().band(v[j], exec[j]);
                acc = self.b.ins().bor(acc, m);
            }
            let mut s = self.b.ins().extractlane(acc, 0);
            for l in 1..4u8 {
                let x = self.b.ins().extractlane(acc, l);
                s = self.b.ins().bor(s, x);
            }
            self.b.def_var(self.shadows[r][c], s);
        }
    }
}

impl Lower<'_, '_> {
    /// `vThreadIDInGroup.x` of lane `4 * j` plus the consecutive base
    /// `base`: the value of lane `4 * j` of a consecutive component.
    pub fn consecutive_lane0(&mut self, base: Value, j: usize) -> Value {
        let t = self.ctx_word(self.ctx, OFF_TID + 16 * j as i32);
        self.b.ins().iadd(base, t)
    }

    /// [`Lower::consecutive_lane0`] zero-extended to `i64`: summed on
    /// `i64` where the base is a constant `k` and `k` plus the widest x id
    /// stays below 2^32 (no wrap in 32 bits, so the same number), which
    /// lets Cranelift fold `k` into the access's address.
    pub fn consecutive_lane0_u64(&mut self, base: Value, j: usize) -> Value {
        let at = OFF_TID + 16 * j as i32;
        let widest = u64::from(self.p.group_size[0].max(1) - 1);
        match self.known(base) {
            Some(k) if k + widest <= u64::from(u32::MAX) && !super::opt_off("wide") => {
                let t = self.ctx_word_u64(self.ctx, at);
                self.b.ins().iadd_imm_s(t, k as i64)
            }
            _ => {
                let x = self.consecutive_lane0(base, j);
                self.b.ins().uextend(types::I64, x)
            }
        }
    }

    /// The base of an access's address at `k` (operand `first` of
    /// `inst`) when it is spread as `spread`: a consecutive index of a
    /// structured access, byte ids as a raw address.
    pub fn spread_address(
        &mut self,
        k: usize,
        inst: &Instruction,
        first: usize,
        spread: Spread,
    ) -> Option<Value> {
        let u = self.uniform.as_ref()?;
        let a = inst.operands.get(first)?;
        if !u.operand_spread_at(k, a, src_comp(a, 0), spread) {
            return None;
        }
        Some(self.base_of(&one_comp(a, 0)))
    }

    /// Lane `4 * j`'s byte address of byte ids with base `base`.
    pub fn byte_ids_lane0(&mut self, base: Value, j: usize) -> Value {
        let t = self.ctx_word(self.ctx, OFF_TID + 16 * j as i32);
        let t = self.b.ins().ishl_imm_s(t, 2);
        self.b.ins().iadd(base, t)
    }
}

/// `op` reading only the component destination component `c` selects.
fn one_comp(op: &Operand, c: usize) -> Operand {
    let mut o = op.clone();
    o.comps = crate::ir::Components::Four(crate::ir::Selection::Select1(src_comp(op, c) as u8));
    o
}

/// `op` without its modifier (the analysis checks the operand's form).
fn strip(op: &Operand) -> Operand {
    let mut o = op.clone();
    o.modifier = Modifier::None;
    o
}
