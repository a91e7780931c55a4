//! Bounds-checked access to bound memory through a view window.
//!
//! In: a view and an address relative to it (byte offset for raw and
//! structured buffers, element coordinates for typed buffers and textures).
//! Out: the absolute byte position inside the caller's slice, or `None` when
//! the access is out of bounds. Invariant: a returned position plus the
//! access size never exceeds either the view window or the slice, because
//! the final read/write goes through `slice::get`.

use super::{BufferView, TextureDim, TextureView};

/// Reads a little-endian u32 at `byte`; `None` if it does not fit.
pub fn read_u32(data: &[u8], byte: u64) -> Option<u32> {
    let start = usize::try_from(byte).ok()?;
    let b = data.get(start..start.checked_add(4)?)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The group counts of an indirect dispatch: three little-endian u32 at
/// `offset` of `args`, which must be 4-aligned with all 12 bytes inside.
pub fn indirect_groups(args: &[u8], offset: u64) -> Result<[u32; 3], super::RuntimeError> {
    let bad = || super::RuntimeError::BadIndirectArgs {
        offset,
        len: args.len() as u64,
    };
    if offset % 4 != 0 {
        return Err(bad());
    }
    let mut groups = [0u32; 3];
    for (i, g) in groups.iter_mut().enumerate() {
        let at = offset.checked_add(4 * i as u64).ok_or_else(bad)?;
        *g = read_u32(args, at).ok_or_else(bad)?;
    }
    Ok(groups)
}

/// Writes a little-endian u32 at `byte`; returns false (nothing written) if
/// it does not fit.
pub fn write_u32(data: &mut [u8], byte: u64, v: u32) -> bool {
    let Ok(start) = usize::try_from(byte) else {
        return false;
    };
    let Some(end) = start.checked_add(4) else {
        return false;
    };
    match data.get_mut(start..end) {
        Some(b) => {
            b.copy_from_slice(&v.to_le_bytes());
            true
        }
        None => false,
    }
}

/// The absolute byte of element `index` of a typed buffer window.
pub fn typed_element(view: &BufferView, index: u32) -> Option<u64> {
    if u64::from(index) >= view.num_elements {
        return None;
    }
    let elem = view.kind.element_bytes();
    view.first_element
        .checked_add(u64::from(index))?
        .checked_mul(elem)
}

/// The absolute byte of texel `coords` (x, y-or-slice, z-or-slice as the
/// dimension uses them) at mip `level`; `None` when out of range.
pub fn texel(view: &TextureView, coords: [u32; 3], level: u32) -> Option<u64> {
    let m = view.mip(level)?;
    let (x, y, z) = match view.dim {
        TextureDim::Tex1D => (coords[0], 0, 0),
        TextureDim::Tex1DArray => (coords[0], 0, coords[1]),
        TextureDim::Tex2D | TextureDim::Tex2DMS { .. } => (coords[0], coords[1], 0),
        TextureDim::Tex2DArray
        | TextureDim::Tex3D
        | TextureDim::TexCube
        | TextureDim::TexCubeArray
        | TextureDim::Tex2DMSArray { .. } => (coords[0], coords[1], coords[2]),
    };
    if x >= m.width || y >= m.height || z >= m.layers {
        return None;
    }
    let bytes = u64::from(view.format.bytes());
    let slice = if m.slice_pitch == 0 {
        m.row_pitch * u64::from(m.height)
    } else {
        m.slice_pitch
    };
    m.offset
        .checked_add(u64::from(z).checked_mul(slice)?)?
        .checked_add(u64::from(y).checked_mul(m.row_pitch)?)?
        .checked_add(u64::from(x) * bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::{BufferKind, Format};

    #[test]
    fn reads_and_writes_never_leave_the_slice() {
        let mut d = [0u8; 6];
        assert!(write_u32(&mut d, 2, 0x01020304));
        assert_eq!(read_u32(&d, 2), Some(0x01020304));
        assert!(!write_u32(&mut d, 3, 1));
        assert_eq!(read_u32(&d, 3), None);
        assert_eq!(read_u32(&d, u64::MAX), None);
    }

    #[test]
    fn typed_and_texel_addresses() {
        let v = BufferView {
            kind: BufferKind::Typed(Format::R16Uint),
            first_element: 3,
            num_elements: 2,
        };
        assert_eq!(typed_element(&v, 1), Some(8));
        assert_eq!(typed_element(&v, 2), None);
        let t = TextureView::tex2d(Format::R32Uint, 4, 2);
        assert_eq!(texel(&t, [3, 1, 0], 0), Some(28));
        assert_eq!(texel(&t, [4, 0, 0], 0), None);
        assert_eq!(texel(&t, [0, 0, 0], 1), None);
    }
}
