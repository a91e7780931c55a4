//! One thread's state and operand access.
//!
//! In: a thread's registers plus the group context (bindings, TGSM, group
//! id, constant buffers). Out: operand values (fetched, swizzled, with
//! source modifiers applied after the swizzle) and masked destination
//! writes. Invariant: every register index is checked; an out-of-range
//! read gives zeros and an out-of-range write is dropped (x#, cb, icb
//! rules of `sm5-semantics.md` §11.4), so no index from the program can
//! panic.

use crate::ir::{Components, Index, Instruction, Modifier, Operand, OperandType};
use crate::runtime::{Bindings, RuntimeError, Slot};

use crate::analysis::Prepared;

/// Where a thread stands in the group schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Running,
    /// Stopped at a `sync_*_t`; `pc` is already past it.
    Barrier,
    Done,
}

/// One thread's private state.
#[derive(Clone, Debug)]
pub struct Thread {
    pub regs: Vec<[u32; 4]>,
    /// x# arrays, in the order of [`Prepared::indexable`].
    pub xregs: Vec<Vec<[u32; 4]>>,
    pub inputs: Vec<[u32; 4]>,
    pub outputs: Vec<[u32; 4]>,
    pub pc: usize,
    /// Return addresses of active calls.
    pub calls: Vec<usize>,
    pub tid: [u32; 3],
    pub flat: u32,
    pub status: Status,
    pub discarded: bool,
    /// A helper lane of a pixel quad (of a partial quad, or a pixel that
    /// executed `discard`): it computes (for its neighbours' derivatives)
    /// but writes no memory.
    pub helper: bool,
}

impl Thread {
    /// A thread with every register zero-initialised.
    pub fn new(p: &Prepared, tid: [u32; 3]) -> Thread {
        let [x, y, _] = p.group_size;
        Thread {
            regs: vec![[0; 4]; p.temps as usize],
            xregs: p
                .indexable
                .iter()
                .map(|&(_, len)| vec![[0; 4]; len as usize])
                .collect(),
            inputs: vec![[0; 4]; p.io_regs as usize],
            outputs: vec![[0; 4]; p.io_regs as usize],
            pc: 0,
            calls: Vec::new(),
            tid,
            flat: tid[2]
                .wrapping_mul(x)
                .wrapping_mul(y)
                .wrapping_add(tid[1].wrapping_mul(x))
                .wrapping_add(tid[0]),
            status: Status::Running,
            discarded: false,
            helper: false,
        }
    }
}

/// How a source modifier is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// neg/abs as sign-bit operations on 32-bit floats.
    Float,
    /// neg/abs as two's-complement integer operations.
    Int,
    /// neg/abs on each 64-bit double (`.xy`, `.zw`).
    Double,
}

/// The group-wide context an instruction runs in.
pub struct Ctx<'p, 'b, 'a> {
    pub p: &'p Prepared,
    pub b: &'b Bindings<'a>,
    /// g# memory, by register number (zero-initialised per group).
    pub tgsm: Vec<(u32, Vec<u32>)>,
    pub group_id: [u32; 3],
    pub executed: u64,
    pub budget: u64,
    /// The pixel quad's coordinate gradients for the implicit-LOD sampling
    /// op being stepped (set by the quad scheduler around that step).
    pub quad_grad: Option<([u32; 4], [u32; 4])>,
    /// Samples per pixel of the render target (`sampleinfo rasterizer`).
    pub raster_samples: u32,
}

impl Ctx<'_, '_, '_> {
    /// The value of one index: immediate, relative or both (wrapping u32).
    pub fn index(&self, t: &Thread, idx: &Index) -> u64 {
        match idx {
            Index::Imm32(v) => u64::from(*v),
            Index::Imm64(v) => *v,
            Index::Relative(op) => u64::from(self.scalar(t, op)),
            Index::Imm32PlusRelative(v, op) => u64::from(v.wrapping_add(self.scalar(t, op))),
            Index::Imm64PlusRelative(v, op) => v.wrapping_add(u64::from(self.scalar(t, op))),
        }
    }

    fn index_at(&self, t: &Thread, op: &Operand, i: usize) -> u64 {
        op.indices.get(i).map_or(0, |idx| self.index(t, idx))
    }

    /// The first swizzled component of `op` (no modifier): relative indices,
    /// conditions, switch selectors.
    pub fn scalar(&self, t: &Thread, op: &Operand) -> u32 {
        self.src(t, op)[0]
    }

    /// The four raw DWORDs of the register `op` names, before swizzling.
    pub fn fetch(&self, t: &Thread, op: &Operand) -> [u32; 4] {
        use OperandType::*;
        let at = |i| self.index_at(t, op, i);
        match op.ty {
            Temp => get4(&t.regs, at(0)),
            Input => get4(&t.inputs, at(0)),
            Output => get4(&t.outputs, at(0)),
            IndexableTemp => match self.xreg(at(0)) {
                Some(k) => get4(&t.xregs[k], at(1)),
                None => [0; 4],
            },
            Imm32 => match op.imm.as_slice() {
                [v] => [*v; 4],
                [a, b, c, d] => [*a, *b, *c, *d],
                _ => [0; 4],
            },
            Imm64 => match op.imm.as_slice() {
                [lo, hi] => [*lo, *hi, *lo, *hi],
                [a, b, c, d] => [*a, *b, *c, *d],
                _ => [0; 4],
            },
            ConstantBuffer => self.cb_row(t, op),
            ImmConstantBuffer => {
                let row = at(0);
                let base = row.checked_mul(4).and_then(|b| usize::try_from(b).ok());
                match base.and_then(|b| self.p.icb.get(b..b.checked_add(4)?)) {
                    Some(r) => [r[0], r[1], r[2], r[3]],
                    None => [0; 4],
                }
            }
            ThreadId => {
                let g = self.p.group_size;
                let c = |i: usize| self.group_id[i].wrapping_mul(g[i]).wrapping_add(t.tid[i]);
                [c(0), c(1), c(2), 0]
            }
            ThreadGroupId => [self.group_id[0], self.group_id[1], self.group_id[2], 0],
            ThreadIdInGroup => [t.tid[0], t.tid[1], t.tid[2], 0],
            ThreadIdInGroupFlattened => [t.flat; 4],
            InputCoverageMask | InnerCoverage => [self.special_in(t, op.ty); 4],
            _ => [0; 4],
        }
    }

    /// A special pixel input (vCoverage, vInnerCoverage) from the special
    /// register; 0 when the program has none.
    fn special_in(&self, t: &Thread, ty: OperandType) -> u32 {
        match (
            self.p.special_reg,
            crate::runtime::batch::special_component(ty),
        ) {
            (Some(r), Some(c)) => get4(&t.inputs, u64::from(r))[c],
            _ => 0,
        }
    }

    /// Position of x#`reg` in the thread's x# list.
    pub fn xreg(&self, reg: u64) -> Option<usize> {
        self.p
            .indexable
            .iter()
            .position(|&(r, _)| u64::from(r) == reg)
    }

    /// A constant-buffer row: `cb#[row]` (`[id][slot][row]` in SM5.1).
    /// Rows past the bound size read 0, as does an unbound slot.
    fn cb_row(&self, t: &Thread, op: &Operand) -> [u32; 4] {
        let (slot, row) = if self.p.version().is_sm51() {
            let id = self.index_at(t, op, 0);
            let index = self.index_at(t, op, 1);
            // As for t#/u#: an index outside the declared range names no
            // register, so the row reads 0.
            let slot = self
                .p
                .cbs
                .iter()
                .find(|c| u64::from(c.id) == id)
                .filter(|c| (u64::from(c.lower)..=u64::from(c.upper)).contains(&index))
                .and_then(|c| slot_of(c.space, index));
            (slot, self.index_at(t, op, 2))
        } else {
            (slot_of(0, self.index_at(t, op, 0)), self.index_at(t, op, 1))
        };
        let Some(data) = slot.and_then(|s| self.b.get_cb(s)) else {
            return [0; 4];
        };
        let mut out = [0; 4];
        for (k, o) in out.iter_mut().enumerate() {
            let byte = row
                .checked_mul(16)
                .and_then(|b| b.checked_add(4 * k as u64));
            *o = byte
                .and_then(|b| crate::runtime::memory::read_u32(data, b))
                .unwrap_or(0);
        }
        out
    }

    /// The swizzled source value, without modifiers.
    pub fn src(&self, t: &Thread, op: &Operand) -> [u32; 4] {
        let v = self.fetch(t, op);
        if op.comps == Components::One {
            return [v[0]; 4];
        }
        let s = op.swizzle();
        [
            v[s[0] as usize & 3],
            v[s[1] as usize & 3],
            v[s[2] as usize & 3],
            v[s[3] as usize & 3],
        ]
    }

    /// The swizzled source with its modifier applied as `ty` says.
    pub fn src_ty(&self, t: &Thread, op: &Operand, ty: Ty) -> [u32; 4] {
        let v = self.src(t, op);
        apply_modifier(v, op.modifier, ty)
    }

    /// Writes `v[c]` for every component `c` in the destination mask.
    pub fn write(&self, t: &mut Thread, op: &Operand, v: [u32; 4]) {
        let mask = op.write_mask();
        let idx0 = self.index_at(t, op, 0);
        let reg = match op.ty {
            OperandType::Temp => get_mut(&mut t.regs, idx0),
            OperandType::Output => get_mut(&mut t.outputs, idx0),
            OperandType::IndexableTemp => {
                let elem = self.index_at(t, op, 1);
                match self.xreg(idx0) {
                    Some(k) => get_mut(&mut t.xregs[k], elem),
                    None => None,
                }
            }
            ty => {
                // oDepth, oMask, ...: one component of the special register.
                let special = self
                    .p
                    .special_reg
                    .zip(crate::runtime::batch::special_component(ty));
                if let Some((r, c)) = special {
                    if let Some(reg) = get_mut(&mut t.outputs, u64::from(r)) {
                        if mask & 1 != 0 {
                            reg[c] = v[0];
                        }
                    }
                }
                None
            }
        };
        if let Some(r) = reg {
            for (c, slot) in r.iter_mut().enumerate() {
                if mask & (1 << c) != 0 {
                    *slot = v[c];
                }
            }
        }
    }

    /// Resolves a t#/u# operand to its slot: `[reg]` before SM5.1, or
    /// `[range id][absolute register]` with the range's space in SM5.1
    /// (fxc prints the register number itself, e.g. `U0[r0.x + 4]` for the
    /// range `U0[4:7]`); `None` outside the declared range.
    pub fn resource_slot(&self, t: &Thread, op: &Operand) -> Option<Slot> {
        if !self.p.version().is_sm51() {
            return slot_of(0, self.index_at(t, op, 0));
        }
        let id = self.index_at(t, op, 0);
        let list = if op.ty == OperandType::Uav {
            &self.p.uavs
        } else {
            &self.p.srvs
        };
        let decl = list.iter().find(|d| u64::from(d.id) == id)?;
        let index = self.index_at(t, op, 1);
        // An index outside the declared range names no register of it.
        if index < u64::from(decl.lower) || index > u64::from(decl.upper) {
            return None;
        }
        slot_of(decl.space, index)
    }
}

/// Applies a source modifier (after the swizzle): abs first, then neg.
pub fn apply_modifier(v: [u32; 4], m: Modifier, ty: Ty) -> [u32; 4] {
    if m == Modifier::None {
        return v;
    }
    match ty {
        Ty::Float => v.map(|x| crate::sem::float::apply_modifier(x, m)),
        Ty::Int => v.map(|x| crate::sem::int::apply_modifier(x, m)),
        Ty::Double => {
            // The sign of each double is bit 31 of its high DWORD (.y, .w).
            let mut out = v;
            out[1] = crate::sem::float::apply_modifier(v[1], m);
            out[3] = crate::sem::float::apply_modifier(v[3], m);
            out
        }
    }
}

fn slot_of(space: u32, index: u64) -> Option<Slot> {
    Some(Slot {
        space,
        index: u32::try_from(index).ok()?,
    })
}

fn get4(regs: &[[u32; 4]], i: u64) -> [u32; 4] {
    usize::try_from(i)
        .ok()
        .and_then(|i| regs.get(i))
        .copied()
        .unwrap_or([0; 4])
}

fn get_mut(regs: &mut [[u32; 4]], i: u64) -> Option<&mut [u32; 4]> {
    usize::try_from(i).ok().and_then(move |i| regs.get_mut(i))
}

/// Checks the instruction budget; call once per executed instruction.
pub fn charge(cx: &mut Ctx, inst_index: usize) -> Result<(), RuntimeError> {
    cx.executed += 1;
    if cx.executed > cx.budget {
        return Err(RuntimeError::BudgetExhausted {
            group: cx.group_id,
            inst_index,
        });
    }
    Ok(())
}

/// The condition test of if/breakc/continuec/retc/callc/discard: `_nz`
/// is "any bit set", `_z` "all bits zero" (`sm5-semantics.md` §8).
pub fn condition(cx: &Ctx, t: &Thread, inst: &Instruction) -> bool {
    let v = inst.operands.first().map_or(0, |op| cx.scalar(t, op));
    (v != 0) == inst.test_nz()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modifiers_follow_the_operand_type() {
        let v = [5, 0x8000_0000, 1.5f32.to_bits(), 0];
        assert_eq!(
            apply_modifier(v, Modifier::Neg, Ty::Int),
            [
                (-5i32) as u32,
                0x8000_0000,
                (-(1.5f32.to_bits() as i32)) as u32,
                0
            ]
        );
        assert_eq!(
            apply_modifier(v, Modifier::Neg, Ty::Float)[2],
            (-1.5f32).to_bits()
        );
        assert_eq!(
            apply_modifier(v, Modifier::AbsNeg, Ty::Float)[0],
            0x8000_0005
        );
        assert_eq!(
            apply_modifier([(-7i32) as u32; 4], Modifier::Abs, Ty::Int),
            [7; 4]
        );
        // Doubles: only the high words (.y, .w) carry the sign.
        let d = [0, 0x8000_0000, 1, 2];
        assert_eq!(apply_modifier(d, Modifier::Abs, Ty::Double), [0, 0, 1, 2]);
        assert_eq!(
            apply_modifier(d, Modifier::Neg, Ty::Double),
            [0, 0, 1, 0x8000_0002]
        );
    }

    #[test]
    fn flattened_thread_id() {
        let text =
            "cs_5_0\ndcl_temps 3\ndcl_indexableTemp x0[5], 4\ndcl_thread_group 4, 3, 2\nret\n";
        let p = crate::analysis::prepare(&crate::asm::parse_program(text).unwrap()).unwrap();
        let t = Thread::new(&p, [3, 2, 1]);
        assert_eq!(t.flat, 12 + 2 * 4 + 3);
        assert_eq!(t.regs.len(), 3);
        assert_eq!(t.xregs[0].len(), 5);
        assert!(t.regs.iter().chain(&t.xregs[0]).all(|r| *r == [0; 4]));
    }
}
