//! Resolution of t#/u#/g# operands to bounds-checked memory locations
//! during a run (the binding checks before it are
//! [`crate::analysis::check_bindings`]).
//!
//! In: the analysed declarations, the bindings, and a resource operand
//! plus a DWORD address. Out: a [`Loc`] that is known to be inside the
//! view window, or `Loc::Out`. Invariant: a `Loc` other than
//! `Loc::Out` always names bytes inside both the view window and the slice,
//! and reads/writes through it still go through checked slice access.

use crate::ir::{Operand, OperandType};
use crate::runtime::memory::read_u32;
use crate::runtime::{BufferKind, Slot, View};
use crate::sem::memory::dword_in_bounds;

use super::thread::{Ctx, Thread};
use crate::analysis::{ResDecl, ResKind};

/// A resolved memory operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    Uav(Slot),
    Srv(Slot),
    /// Index into `Ctx::tgsm`.
    Tgsm(usize),
    /// Unbound or unresolvable: reads 0, writes dropped.
    None,
}

/// A DWORD location known to be in bounds, or out of bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    Uav { slot: Slot, byte: u64 },
    Srv { slot: Slot, byte: u64 },
    Tgsm { k: usize, dword: usize },
    Out,
}

impl Ctx<'_, '_, '_> {
    /// Resolves a t#/u#/g# operand.
    pub fn target(&self, t: &Thread, op: &Operand) -> Target {
        match op.ty {
            OperandType::Uav => self.resource_slot(t, op).map_or(Target::None, Target::Uav),
            OperandType::Resource => self.resource_slot(t, op).map_or(Target::None, Target::Srv),
            OperandType::Tgsm => {
                let g = op.imm_index(0);
                self.tgsm
                    .iter()
                    .position(|(r, _)| Some(*r) == g)
                    .map_or(Target::None, Target::Tgsm)
            }
            _ => Target::None,
        }
    }

    /// The declaration behind a t#/u# operand.
    pub fn decl_of(&self, t: &Thread, op: &Operand) -> Option<ResDecl> {
        let list = match op.ty {
            OperandType::Uav => &self.p.uavs,
            OperandType::Resource => &self.p.srvs,
            _ => return None,
        };
        if self.p.version().is_sm51() {
            let id = op.imm_index(0)?;
            return list.iter().find(|d| d.id == id).copied();
        }
        let slot = self.resource_slot(t, op)?;
        list.iter().find(|d| d.id == slot.index).copied()
    }

    /// The declared structure stride of a structured t#/u#/g# operand.
    pub fn declared_stride(&self, t: &Thread, op: &Operand) -> Option<u32> {
        if op.ty == OperandType::Tgsm {
            let g = op.imm_index(0)?;
            return self.p.tgsm.get(&g).and_then(|d| d.stride);
        }
        match self.decl_of(t, op)?.kind {
            ResKind::Structured { stride } => Some(stride),
            _ => None,
        }
    }

    /// The view bound at a target, if any.
    pub fn view(&self, target: Target) -> Option<View> {
        match target {
            Target::Uav(s) => self.b.get_uav(s).map(|u| u.view),
            Target::Srv(s) => self.b.get_srv(s).map(|u| u.view),
            _ => None,
        }
    }

    /// DWORD `dword` of a raw/structured target, checked against the window
    /// (for g#: against that declaration's size).
    pub fn locate(&self, target: Target, dword: u64) -> Loc {
        let buffer_byte = |view: Option<View>| match view {
            Some(View::Buffer(bv)) if !matches!(bv.kind, BufferKind::Typed(_)) => {
                if dword_in_bounds(dword, bv.size_bytes()) {
                    bv.start_byte().checked_add(dword * 4)
                } else {
                    None
                }
            }
            _ => None,
        };
        match target {
            Target::Uav(slot) => {
                buffer_byte(self.view(target)).map_or(Loc::Out, |byte| Loc::Uav { slot, byte })
            }
            Target::Srv(slot) => {
                buffer_byte(self.view(target)).map_or(Loc::Out, |byte| Loc::Srv { slot, byte })
            }
            Target::Tgsm(k) => match usize::try_from(dword) {
                Ok(d) if d < self.tgsm[k].1.len() => Loc::Tgsm { k, dword: d },
                _ => Loc::Out,
            },
            Target::None => Loc::Out,
        }
    }

    /// Reads a located DWORD (0 when out of bounds).
    pub fn load(&self, loc: Loc) -> u32 {
        match loc {
            Loc::Uav { slot, byte } => self
                .b
                .get_uav(slot)
                .and_then(|u| u.data.read_u32(byte))
                .unwrap_or(0),
            Loc::Srv { slot, byte } => self
                .b
                .get_srv(slot)
                .and_then(|u| read_u32(u.data, byte))
                .unwrap_or(0),
            Loc::Tgsm { k, dword } => self.tgsm[k].1.get(dword).copied().unwrap_or(0),
            Loc::Out => 0,
        }
    }

    /// Writes a located DWORD (dropped when out of bounds or read-only).
    pub fn store(&mut self, loc: Loc, v: u32) {
        match loc {
            Loc::Uav { slot, byte } => {
                if let Some(u) = self.b.get_uav(slot) {
                    u.data.write_u32(byte, v);
                }
            }
            Loc::Tgsm { k, dword } => {
                if let Some(x) = self.tgsm[k].1.get_mut(dword) {
                    *x = v;
                }
            }
            Loc::Srv { .. } | Loc::Out => {}
        }
    }
}
