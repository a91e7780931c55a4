//! Synthetic bindings: deterministic inputs for every resource a program
//! declares, so any compute shader can run without hand-written buffers.
//!
//! In: a [`Program`]. Out: one [`Resource`] per declared constant buffer,
//! SRV and UAV (the lowest register of each declared range). Invariant: the
//! contents depend only on the declaration and the slot, never on the clock
//! or the engine, so two runs (or two engines) see identical bytes.
//!
//! Contents come from a xorshift32 stream (`x ^= x << 13; x ^= x >> 17;
//! x ^= x << 5`) seeded with `base + slot | 1`, where `base` is 7 for cb#,
//! 100 for t# and 150 for u#. Float data (structured buffers, float/unorm
//! typed views) maps each word to `(x >> 9) / 2^23`, a float in [0, 1);
//! other data maps it to `x % 17`, a small integer.
//!
//! Sizes: raw buffers 1024 words; structured buffers 256 elements; typed
//! buffers 256 `R32G32B32A32` elements (`_FLOAT` for float/unorm/snorm
//! return types, `_UINT` otherwise); 2D textures 16×16 texels of the same
//! formats (1D: 16 texels; arrays: 4 slices; 3D: 16×16×4; cubes: 6 faces,
//! cube arrays 2 cubes), one mip; constant buffers their declared size (at
//! most 4096 vectors). Structured UAVs get a hidden counter of 3.
//! Multisampled textures are left unbound. Samplers are not bound, so every
//! s# is D3D11's default sampler state.

use super::resource::{Resource, SlotClass, SlotRef};
use super::spec::ResourceKindSpec;
use sm5jit::analysis::{prepare, ResKind};
use sm5jit::ir::{ConstantBufferDecl, Decl, Program, ResourceDim, ReturnType};
use sm5jit::runtime::TextureDim;

/// Words in a synthetic raw buffer.
const RAW_WORDS: u32 = 1024;
/// Elements in a synthetic structured or typed buffer.
const ELEMENTS: u32 = 256;
/// Width and height of a synthetic 2D texture.
const TEX_SIZE: u32 = 16;
/// Array slices (and 3D depth) of a synthetic array or volume texture.
const ARRAY_LAYERS: u32 = 4;
/// Largest constant buffer D3D11 allows, in 16-byte vectors.
const MAX_CB_VECTORS: u32 = 4096;
/// Initial hidden counter of a synthetic structured UAV.
const UAV_COUNTER: u32 = 3;

/// Seed bases per register file (see the module documentation).
const CB_SEED: u32 = 7;
const SRV_SEED: u32 = 100;
const UAV_SEED: u32 = 150;

/// `n` words of the xorshift32 stream seeded with `seed | 1`, each mapped by `f`.
pub fn xorshift_words(seed: u32, n: usize, f: impl Fn(u32) -> u32) -> Vec<u32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f(x)
        })
        .collect()
}

/// A stream word as the bits of a float in [0, 1).
pub fn unit_float(x: u32) -> u32 {
    ((x >> 9) as f32 / (1u32 << 23) as f32).to_bits()
}

/// A stream word as a small integer (0..17).
pub fn small_int(x: u32) -> u32 {
    x % 17
}

/// Runtime dimension, height and layer count of a synthetic texture of a
/// declared dimension (multisampled and unknown dimensions: none).
fn texture_shape(dim: ResourceDim) -> Option<(TextureDim, u32, u32)> {
    Some(match dim {
        ResourceDim::Texture1D => (TextureDim::Tex1D, 1, 1),
        ResourceDim::Texture1DArray => (TextureDim::Tex1DArray, 1, ARRAY_LAYERS),
        ResourceDim::Texture2D => (TextureDim::Tex2D, TEX_SIZE, 1),
        ResourceDim::Texture2DArray => (TextureDim::Tex2DArray, TEX_SIZE, ARRAY_LAYERS),
        ResourceDim::Texture3D => (TextureDim::Tex3D, TEX_SIZE, ARRAY_LAYERS),
        ResourceDim::TextureCube => (TextureDim::TexCube, TEX_SIZE, 6),
        ResourceDim::TextureCubeArray => (TextureDim::TexCubeArray, TEX_SIZE, 12),
        _ => return None,
    })
}

fn bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Synthetic resources for every cb#, t# and u# `program` declares.
/// Errors (as text) only if the program's declarations are inconsistent.
pub fn synthetic_resources(program: &Program) -> Result<Vec<Resource>, String> {
    let p = prepare(program).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let cb_sizes = program.decls.iter().filter_map(|d| match d {
        Decl::ConstantBuffer(ConstantBufferDecl { size, .. }) => Some(*size),
        _ => None,
    });
    for (c, size) in p.cbs.iter().zip(cb_sizes) {
        let vectors = size.clamp(1, MAX_CB_VECTORS);
        let words = xorshift_words(
            CB_SEED.wrapping_add(c.lower),
            vectors as usize * 4,
            small_int,
        );
        out.push(Resource {
            slot: SlotRef {
                class: SlotClass::ConstantBuffer,
                index: c.lower,
                space: c.space,
            },
            kind: ResourceKindSpec::Constant,
            stride: 0,
            format: None,
            width: 0,
            height: 0,
            first_element: 0,
            num_elements: vectors * 4,
            data: bytes(&words),
            counter: None,
        });
    }
    for (class, list, base) in [
        (SlotClass::Srv, &p.srvs, SRV_SEED),
        (SlotClass::Uav, &p.uavs, UAV_SEED),
    ] {
        for d in list {
            let seed = base.wrapping_add(d.lower);
            let slot = SlotRef {
                class,
                index: d.lower,
                space: d.space,
            };
            let mut r = Resource {
                slot,
                kind: ResourceKindSpec::Raw,
                stride: 0,
                format: None,
                width: 0,
                height: 0,
                first_element: 0,
                num_elements: 0,
                data: Vec::new(),
                counter: None,
            };
            match d.kind {
                ResKind::Raw => {
                    r.num_elements = RAW_WORDS;
                    r.data = bytes(&xorshift_words(seed, RAW_WORDS as usize, small_int));
                }
                ResKind::Structured { stride } => {
                    // Strides are whole words; a stride of 0 is rejected by
                    // validation, but keep at least one word per element.
                    let stride = stride.max(4);
                    r.kind = ResourceKindSpec::Structured;
                    r.stride = stride;
                    r.num_elements = ELEMENTS;
                    let n = (ELEMENTS * stride / 4) as usize;
                    r.data = bytes(&xorshift_words(seed, n, unit_float));
                    if class == SlotClass::Uav {
                        r.counter = Some(UAV_COUNTER);
                    }
                }
                ResKind::Typed { dim, ret } => {
                    let is_float = matches!(
                        ret[0],
                        ReturnType::Float | ReturnType::Unorm | ReturnType::Snorm
                    );
                    let (format, f): (&str, fn(u32) -> u32) = if is_float {
                        ("R32G32B32A32_FLOAT", unit_float)
                    } else {
                        ("R32G32B32A32_UINT", small_int)
                    };
                    r.format = Some(format.to_string());
                    match dim {
                        ResourceDim::Buffer => {
                            r.kind = ResourceKindSpec::Typed;
                            r.num_elements = ELEMENTS;
                            r.data = bytes(&xorshift_words(seed, ELEMENTS as usize * 4, f));
                        }
                        ResourceDim::Texture2D => {
                            r.kind = ResourceKindSpec::Texture2d;
                            r.width = TEX_SIZE;
                            r.height = TEX_SIZE;
                            let n = (TEX_SIZE * TEX_SIZE * 4) as usize;
                            r.data = bytes(&xorshift_words(seed, n, f));
                        }
                        other => {
                            let Some((dim, height, layers)) = texture_shape(other) else {
                                continue;
                            };
                            r.kind = ResourceKindSpec::Texture { dim, layers };
                            r.width = TEX_SIZE;
                            r.height = height;
                            let n = (TEX_SIZE * height * layers * 4) as usize;
                            r.data = bytes(&xorshift_words(seed, n, f));
                        }
                    }
                }
            }
            out.push(r);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_is_reproducible_and_seeded() {
        let a = xorshift_words(150, 8, |x| x);
        assert_eq!(a, xorshift_words(150, 8, |x| x));
        assert_ne!(a, xorshift_words(152, 8, |x| x));
        assert!(a.iter().all(|&w| w != 0));
        let f = f32::from_bits(unit_float(u32::MAX));
        assert!((0.0..1.0).contains(&f));
        assert!(small_int(u32::MAX) < 17);
    }

    #[test]
    fn every_declared_resource_is_bound() {
        let text = "cs_5_0
dcl_globalFlags refactoringAllowed
dcl_constantbuffer CB0[3], immediateIndexed
dcl_resource_structured t1, 8
dcl_resource_texture2d (float,float,float,float) t2
dcl_uav_raw u0
dcl_uav_typed_buffer (uint,uint,uint,uint) u3
dcl_thread_group 1, 1, 1
ret
";
        let program = sm5jit::asm::parse_program(text).expect("parse");
        let r = synthetic_resources(&program).expect("synthetic");
        let find = |class, index| {
            r.iter()
                .find(|x| x.slot.class == class && x.slot.index == index)
                .expect("bound")
        };
        assert_eq!(find(SlotClass::ConstantBuffer, 0).data.len(), 48);
        assert_eq!(find(SlotClass::Srv, 1).data.len(), 256 * 8);
        assert_eq!(find(SlotClass::Srv, 2).kind, ResourceKindSpec::Texture2d);
        assert_eq!(find(SlotClass::Uav, 0).data.len(), 4096);
        assert_eq!(
            find(SlotClass::Uav, 3).format.as_deref(),
            Some("R32G32B32A32_UINT")
        );
        assert_eq!(r.len(), 5);
    }
}
