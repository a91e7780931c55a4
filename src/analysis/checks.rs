//! The checks every run makes against the analysed declarations, shared
//! by both engines: the bindings ([`check_bindings`]) and the group counts
//! of a dispatch ([`check_groups`]).
//!
//! In: a [`Prepared`] program and the caller's bindings or group counts.
//! Out: `Ok` or the [`RuntimeError`] naming the missing slot, the kind
//! contradiction or the count out of range. Invariant: an engine that ran
//! these checks finds every declared slot bound with a view of the
//! declared kind, inside its memory.

use crate::ir::{ProgramKind, ResourceDim, Version};
use crate::limits::MAX_GROUPS_PER_DIM;
use crate::runtime::{BindingKind, Bindings, BufferKind, RuntimeError, Slot, TextureDim, View};

use super::{Prepared, ResDecl, ResKind};

/// Everything a compute dispatch checks before its first group: the
/// program kind, the group counts and the bindings.
pub fn check_dispatch(p: &Prepared, b: &Bindings, groups: [u32; 3]) -> Result<(), RuntimeError> {
    if p.version().kind != ProgramKind::Compute {
        return Err(RuntimeError::InvalidProgram {
            inst_index: None,
            reason: format!("dispatch needs a compute program, not {}", p.version()),
        });
    }
    check_groups(p, groups)?;
    check_bindings(p, b)
}

/// The group counts of an indirect dispatch: three u32 read from `args`
/// at `offset`, or none at all on cs_4_x, where the D3D11 runtime drops
/// `DispatchIndirect` (FS §15; the bindings are still checked).
pub fn indirect_groups(v: Version, args: &[u8], offset: u64) -> Result<[u32; 3], RuntimeError> {
    let groups = crate::runtime::memory::indirect_groups(args, offset)?;
    Ok(if v.is_cs4() { [0; 3] } else { groups })
}

/// Checks `groups` against D3D's per-dimension limit and cs_4_x's Z = 1.
pub fn check_groups(p: &Prepared, groups: [u32; 3]) -> Result<(), RuntimeError> {
    let too_many = |reason: String| RuntimeError::TooManyGroups { groups, reason };
    if let Some(d) = groups.iter().find(|&&d| d > MAX_GROUPS_PER_DIM) {
        return Err(too_many(format!(
            "{d} exceeds {MAX_GROUPS_PER_DIM} groups per dimension"
        )));
    }
    if p.version().is_cs4() && groups[2] > 1 {
        return Err(too_many(format!(
            "cs_4_x allows only Z = 1, got {}",
            groups[2]
        )));
    }
    Ok(())
}

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
        TextureDim::TexCube => d == R::TextureCube,
        TextureDim::TexCubeArray => matches!(d, R::TextureCube | R::TextureCubeArray),
        TextureDim::Tex2DMS { .. } => d == R::Texture2DMS,
        TextureDim::Tex2DMSArray { .. } => d == R::Texture2DMSArray,
    }
}
