//! The resources of a `.shader_test` file as memory the library binds.
//!
//! In: a [`ResourceDesc`] (format name, shape, levels, data words). Out: a
//! [`Resource`] owning its bytes, laid out as [`TextureView::packed`] /
//! buffer views expect (mip by mip, layer by layer; multisampled textures
//! one slice per sample), with the view to bind it through, the texel
//! writes of the rasterizer, clears and the element reads of probes.
//! Invariant: `data.len()` is exactly the view's size; every read or write
//! is bounds-checked (out of range reads give `None`, writes are dropped).

use super::script::{ResKind, ResourceDesc, Shape};
use sm5jit::{Format, TextureDim, TextureView, View};

/// A format name of the file format (`r32g32b32a32-float`, `r32-uint`,
/// `r32-float-shadow`, `r32-typeless`, `d32-float`, ...) as a DXGI format.
pub fn format(name: &str) -> Option<Format> {
    match name {
        "r32-float-shadow" => return Some(Format::R32Float),
        "r32-typeless" => return Some(Format::R32Uint),
        _ => {}
    }
    Format::from_dxgi_name(&name.replace('-', "_"))
}

/// A created resource.
#[derive(Clone, Debug)]
pub struct Resource {
    pub kind: ResKind,
    pub format: Format,
    pub shape: Shape,
    pub levels: u32,
    pub data: Vec<u8>,
}

impl Resource {
    /// Creates a resource from its section; missing data reads as zeros,
    /// extra data is an error.
    pub fn new(d: &ResourceDesc) -> Result<Resource, String> {
        let default_format = if d.kind == ResKind::Dsv {
            "d32-float"
        } else {
            "r32g32b32a32-float"
        };
        let name = d.format.as_deref().unwrap_or(default_format);
        let format = format(name).ok_or_else(|| format!("unknown format `{name}`"))?;
        let shape = match (d.kind, d.shape) {
            (_, Some(s)) => s,
            (ResKind::Vb, None) => Shape::RawBuffer {
                n: d.data.len() as u32,
            },
            (k, None) => return Err(format!("[{} {}] has no size", k.name(), d.slot)),
        };
        let mut r = Resource {
            kind: d.kind,
            format,
            shape,
            levels: d.levels.max(1),
            data: Vec::new(),
        };
        let size = r
            .byte_size()
            .ok_or_else(|| format!("[{} {}] is too large", d.kind.name(), d.slot))?;
        let given = d.data.len() * 4;
        if given > size {
            return Err(format!(
                "[{} {}] has {given} bytes of data for {size} bytes",
                d.kind.name(),
                d.slot
            ));
        }
        r.data = d.data.iter().flat_map(|w| w.to_le_bytes()).collect();
        r.data.resize(size, 0);
        Ok(r)
    }

    /// A 2D render target of zeros.
    pub fn target(format: Format, w: u32, h: u32) -> Resource {
        let mut r = Resource {
            kind: ResKind::Rtv,
            format,
            shape: Shape::Tex2d { w, h },
            levels: 1,
            data: Vec::new(),
        };
        r.data = vec![0; r.byte_size().unwrap_or(0)];
        r
    }

    fn byte_size(&self) -> Option<usize> {
        /// Resources past 1 GiB are refused rather than allocated.
        const LIMIT: u64 = 1 << 30;
        let bytes = match self.view() {
            View::Texture(t) => t.size_bytes(),
            View::Buffer(_) => self.view().required_bytes(),
        };
        (bytes <= LIMIT).then_some(bytes as usize)
    }

    /// The view the library binds.
    pub fn view(&self) -> View {
        let f = self.format;
        let l = self.levels;
        match self.shape {
            Shape::Tex2d { w, h } => {
                View::texture(TextureView::packed(TextureDim::Tex2D, f, [w, h, 1], l))
            }
            Shape::Tex2dMs { samples, w, h } => View::texture(TextureView::packed(
                TextureDim::Tex2DMS { samples },
                f,
                [w, h, 1],
                1,
            )),
            Shape::Tex3d { w, h, d } => {
                View::texture(TextureView::packed(TextureDim::Tex3D, f, [w, h, d], l))
            }
            Shape::Cube { w } => {
                View::texture(TextureView::packed(TextureDim::TexCube, f, [w, w, 6], l))
            }
            Shape::Buffer { n } => View::typed(f, 0, u64::from(n)),
            Shape::RawBuffer { n } => View::raw(0, u64::from(n)),
        }
    }

    /// Width and height of mip 0 (buffers: elements by 1).
    pub fn size(&self) -> (u32, u32) {
        match self.shape {
            Shape::Tex2d { w, h } | Shape::Tex2dMs { w, h, .. } | Shape::Tex3d { w, h, .. } => {
                (w, h)
            }
            Shape::Cube { w } => (w, w),
            Shape::Buffer { n } | Shape::RawBuffer { n } => (n, 1),
        }
    }

    /// Samples per pixel (1 unless multisampled).
    pub fn samples(&self) -> u32 {
        match self.shape {
            Shape::Tex2dMs { samples, .. } => samples.max(1),
            _ => 1,
        }
    }

    fn texel_bytes(&self) -> usize {
        match self.shape {
            Shape::RawBuffer { .. } => 4,
            _ => self.format.bytes() as usize,
        }
    }

    fn row_pitch(&self) -> usize {
        self.size().0 as usize * self.texel_bytes()
    }

    fn slice_pitch(&self) -> usize {
        self.row_pitch() * self.size().1 as usize
    }

    /// The first DWORD of texel (x, y) of sample `sample` (mip 0), as
    /// stored (no resolve); `None` outside the resource.
    pub fn dword(&self, x: u32, y: u32, sample: u32) -> Option<u32> {
        let at = (sample as usize)
            .checked_mul(self.slice_pitch())?
            .checked_add((y as usize).checked_mul(self.row_pitch())?)?
            .checked_add((x as usize).checked_mul(self.texel_bytes())?)?;
        let b = self.data.get(at..at.checked_add(4)?)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// Writes a shader value to texel (x, y) of sample `sample` (mip 0).
    pub fn write(&mut self, x: u32, y: u32, sample: u32, value: [u32; 4]) {
        let n = self.texel_bytes();
        let at =
            sample as usize * self.slice_pitch() + y as usize * self.row_pitch() + x as usize * n;
        let bytes = self.format.store(value);
        if let Some(dst) = self.data.get_mut(at..at + n) {
            dst.copy_from_slice(&bytes[..n]);
        }
    }

    /// Fills every texel (all mips, layers and samples) with `value`.
    pub fn clear(&mut self, value: [u32; 4]) {
        let n = self.texel_bytes();
        let bytes = self.format.store(value);
        for chunk in self.data.chunks_exact_mut(n) {
            chunk.copy_from_slice(&bytes[..n]);
        }
    }

    /// The `bytes`-long element (x, y) at `y * rowpitch + x * bytes`, as
    /// a probe reads it; multisampled resources are resolved by averaging
    /// each 32-bit float word over the samples.
    pub fn element(&self, x: u32, y: u32, bytes: u32) -> Option<Vec<u8>> {
        let n = bytes as usize;
        let at = (y as usize).checked_mul(self.row_pitch())? + (x as usize).checked_mul(n)?;
        let samples = self.samples() as usize;
        if samples == 1 {
            return self.data.get(at..at + n).map(<[u8]>::to_vec);
        }
        let slice = self.slice_pitch();
        let mut sums = vec![0f32; n / 4];
        for s in 0..samples {
            let e = self.data.get(s * slice + at..s * slice + at + n)?;
            for (k, w) in e.chunks_exact(4).enumerate() {
                sums[k] += f32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            }
        }
        Some(
            sums.iter()
                .flat_map(|v| (v / samples as f32).to_le_bytes())
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(shape: Shape, data: Vec<u32>) -> ResourceDesc {
        ResourceDesc {
            kind: ResKind::Srv,
            slot: 0,
            format: Some("r32-uint".into()),
            shape: Some(shape),
            levels: 1,
            data,
        }
    }

    #[test]
    fn formats_by_name() {
        assert_eq!(
            format("r32g32b32a32-float"),
            Some(Format::R32G32B32A32Float)
        );
        assert_eq!(format("r32g32-uint"), Some(Format::R32G32Uint));
        assert_eq!(format("r32-sint"), Some(Format::R32Sint));
        assert_eq!(format("r32-float-shadow"), Some(Format::R32Float));
        assert_eq!(format("d32-float"), Some(Format::D32Float));
        assert_eq!(format("frob"), None);
    }

    #[test]
    fn sizes_pad_and_refuse() {
        let r = Resource::new(&desc(Shape::Tex2d { w: 2, h: 2 }, vec![7])).unwrap();
        assert_eq!(r.data.len(), 16);
        assert_eq!(r.element(0, 0, 4), Some(vec![7, 0, 0, 0]));
        assert_eq!(r.element(1, 1, 4), Some(vec![0; 4]));
        assert_eq!(r.element(2, 1, 4), None);
        assert!(Resource::new(&desc(Shape::Buffer { n: 1 }, vec![1, 2])).is_err());
        let mut d = desc(Shape::Tex2d { w: 4, h: 4 }, vec![]);
        d.levels = 3;
        assert_eq!(Resource::new(&d).unwrap().data.len(), (16 + 4 + 1) * 4);
    }

    #[test]
    fn multisampled_elements_average() {
        let mut r = Resource::target(Format::R32G32B32A32Float, 2, 1);
        r.shape = Shape::Tex2dMs {
            samples: 4,
            w: 2,
            h: 1,
        };
        r.data = vec![0; 4 * 2 * 16];
        r.write(1, 0, 0, [1.0f32.to_bits(); 4]);
        r.write(1, 0, 2, [1.0f32.to_bits(); 4]);
        let e = r.element(1, 0, 16).unwrap();
        assert_eq!(&e[..4], &0.5f32.to_le_bytes());
    }
}
