//! Binding checks before a run, and resolution of t#/u#/g# operands to
//! bounds-checked memory locations during it.
//!
//! In: the prepared declarations, the bindings, and at run time a resource
//! operand plus a DWORD address. Out: either a binding error (missing slot,
//! kind or stride contradiction, view larger than its memory) or a [`Loc`]
//! that is known to be inside the view window. Invariant: a `Loc` other than
//! `Loc::Out` always names bytes inside both the view window and the slice,
//! and reads/writes through it still go through checked slice access.

use crate::ir::{Operand, OperandType, ResourceDim};
use crate::runtime::memory::{read_u32, write_u32};
use crate::runtime::{BindingKind, Bindings, BufferKind, RuntimeError, Slot, TextureDim, View};
use crate::sem::memory::dword_in_bounds;

use super::prepare::{Prepared, ResDecl, ResKind};
use super::thread::{Ctx, Thread};

/// Checks that every declared slot is bound with a view of the declared kind
/// and that every view fits its memory.
pub fn check_bindings(p: &Prepared, b: &Bindings) -> Result<(), RuntimeError> {
    b.check_fits()?;
    for c in &p.cbs {
        let slot = Slot {
            space: c.space,
            index: c.lower,
        };
        if b.get_cb(slot).is_none() {
            return Err(RuntimeError::MissingBinding {
                kind: BindingKind::ConstantBuffer,
                slot,
            });
        }
    }
    for d in &p.srvs {
        check_range(d, BindingKind::Srv, |s| b.get_srv(s).map(|x| x.view))?;
    }
    for d in &p.uavs {
        check_range(d, BindingKind::Uav, |s| b.get_uav(s).map(|x| x.view))?;
    }
    Ok(())
}

fn check_range(
    d: &ResDecl,
    kind: BindingKind,
    get: impl Fn(Slot) -> Option<View>,
) -> Result<(), RuntimeError> {
    let first = Slot {
        space: d.space,
        index: d.lower,
    };
    if get(first).is_none() {
        return Err(RuntimeError::MissingBinding { kind, slot: first });
    }
    // Every bound slot of the range must agree with the declaration; at
    // most 4096 slots are looked at (a range may be unbounded).
    let last = d.upper.min(d.lower.saturating_add(4095));
    for index in d.lower..=last {
        let slot = Slot {
            space: d.space,
            index,
        };
        if let Some(view) = get(slot) {
            if !kind_matches(d.kind, &view) {
                return Err(RuntimeError::BindingKindMismatch {
                    kind,
                    slot,
                    declared: describe(d.kind),
                    bound: view.describe(),
                });
            }
        }
    }
    Ok(())
}

fn describe(k: ResKind) -> String {
    match k {
        ResKind::Raw => "raw buffer".into(),
        ResKind::Structured { stride } => format!("structured buffer (stride {stride})"),
        ResKind::Typed { dim, .. } => format!("typed {dim:?}"),
    }
}

fn kind_matches(k: ResKind, v: &View) -> bool {
    match (k, v) {
        (ResKind::Raw, View::Buffer(b)) => b.kind == BufferKind::Raw,
        (ResKind::Structured { stride }, View::Buffer(b)) => {
            b.kind == BufferKind::Structured { stride }
        }
        (
            ResKind::Typed {
                dim: ResourceDim::Buffer,
                ..
            },
            View::Buffer(b),
        ) => matches!(b.kind, BufferKind::Typed(_)),
        (ResKind::Typed { dim, .. }, View::Texture(t)) => texture_dim_matches(dim, t.dim),
        _ => false,
    }
}

fn texture_dim_matches(d: ResourceDim, t: TextureDim) -> bool {
    use ResourceDim as R;
    match t {
        TextureDim::Tex1D => d == R::Texture1D,
        TextureDim::Tex1DArray => d == R::Texture1DArray,
        TextureDim::Tex2D => matches!(d, R::Texture2D | R::Texture2DMS),
        TextureDim::Tex2DArray => matches!(
            d,
            R::Texture2DArray | R::Texture2DMSArray | R::TextureCube | R::TextureCubeArray
        ),
        TextureDim::Tex3D => d == R::Texture3D,
    }
}

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
                .and_then(|u| read_u32(u.data, byte))
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
                if let Some(u) = self.b.get_uav_mut(slot) {
                    write_u32(u.data, byte, v);
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
