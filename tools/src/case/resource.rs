//! Turning a case's resource descriptions into owned memory.
//!
//! In: [`ResourceSpec`]s from `case.json`. Out: [`Resource`]s, each with its
//! parsed slot, view window and backing bytes filled as the case says.
//! Invariant: sizes come from the case but are capped at
//! [`MAX_RESOURCE_BYTES`]; an initial list longer than its memory, a texture
//! without a known format or a structured view without a stride is a
//! [`CaseError`], not a panic.

use super::spec::{ResourceKindSpec, ResourceSpec};
use super::CaseError;

/// Largest backing memory a case may ask for (256 MiB).
pub const MAX_RESOURCE_BYTES: u64 = 256 << 20;

/// The register file a slot names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SlotClass {
    /// `u#`
    Uav,
    /// `t#`
    Srv,
    /// `cb#`
    ConstantBuffer,
    /// `o#` (pixel-shader outputs; only in expectations)
    Output,
}

/// A parsed slot name such as `u3` or `cb0`, with its SM5.1 space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotRef {
    pub class: SlotClass,
    pub index: u32,
    pub space: u32,
}

impl SlotRef {
    /// Parses `u0`, `t4`, `cb7`, `o0`.
    pub fn parse(name: &str, space: u32) -> Option<SlotRef> {
        let (class, digits) = if let Some(d) = name.strip_prefix("cb") {
            (SlotClass::ConstantBuffer, d)
        } else if let Some(d) = name.strip_prefix('u') {
            (SlotClass::Uav, d)
        } else if let Some(d) = name.strip_prefix('t') {
            (SlotClass::Srv, d)
        } else if let Some(d) = name.strip_prefix('o') {
            (SlotClass::Output, d)
        } else {
            return None;
        };
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some(SlotRef {
            class,
            index: digits.parse().ok()?,
            space,
        })
    }
}

/// One bound resource with its memory, ready for an engine.
#[derive(Clone, Debug)]
pub struct Resource {
    pub slot: SlotRef,
    pub kind: ResourceKindSpec,
    /// Structured stride in bytes (0 otherwise).
    pub stride: u32,
    /// DXGI format name without the `DXGI_FORMAT_` prefix (typed, texture2d).
    pub format: Option<String>,
    pub width: u32,
    pub height: u32,
    /// View window, in the view's elements (raw: 4-byte words).
    pub first_element: u32,
    pub num_elements: u32,
    /// Backing memory, byte 0 first.
    pub data: Vec<u8>,
    /// Hidden UAV counter, if the case gives one.
    pub counter: Option<u32>,
}

/// Bytes per texel of a DXGI format name, from its channel widths
/// (`R32G32B32A32_FLOAT` → 16, `R8G8B8A8_SNORM` → 4, `R16_UNORM` → 2).
pub fn texel_bytes(format: &str) -> Option<u32> {
    let channels = format.split('_').next()?;
    let mut bits = 0u32;
    let mut digits = String::new();
    let mut saw_channel = false;
    for c in channels.chars().chain(std::iter::once('.')) {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        if !digits.is_empty() {
            bits = bits.checked_add(digits.parse::<u32>().ok()?)?;
            digits.clear();
        }
        if matches!(c, 'R' | 'G' | 'B' | 'A' | 'X') {
            saw_channel = true;
        } else if c != '.' {
            return None;
        }
    }
    (saw_channel && bits > 0 && bits % 8 == 0).then_some(bits / 8)
}

impl Resource {
    /// Builds the resource a case describes.
    pub fn from_spec(spec: &ResourceSpec) -> Result<Resource, CaseError> {
        let slot = SlotRef::parse(&spec.slot, spec.space)
            .ok_or_else(|| CaseError::spec(format!("bad slot name `{}`", spec.slot)))?;
        let stride = match spec.kind {
            ResourceKindSpec::Structured => match spec.stride {
                Some(s) if s > 0 => s,
                _ => {
                    return Err(CaseError::spec(format!(
                        "{}: structured resource without a stride",
                        spec.slot
                    )))
                }
            },
            _ => 0,
        };
        let texel =
            match (&spec.format, spec.kind) {
                (Some(f), _) => Some(texel_bytes(f).ok_or_else(|| {
                    CaseError::spec(format!("{}: unknown format `{f}`", spec.slot))
                })?),
                (
                    None,
                    ResourceKindSpec::Typed
                    | ResourceKindSpec::Texture2d
                    | ResourceKindSpec::Texture { .. },
                ) => return Err(CaseError::spec(format!("{}: no format", spec.slot))),
                (None, _) => None,
            };
        let (width, height) = (spec.width.unwrap_or(0), spec.height.unwrap_or(0));
        let bytes = match (spec.buffer_bytes, spec.kind) {
            (Some(b), _) => b,
            (None, ResourceKindSpec::Texture2d) => {
                u64::from(width) * u64::from(height) * u64::from(texel.unwrap_or(4))
            }
            (None, _) => return Err(CaseError::spec(format!("{}: no buffer_bytes", spec.slot))),
        };
        // Constant buffers are read as whole 16-byte vectors.
        let bytes = if spec.kind == ResourceKindSpec::Constant {
            bytes.div_ceil(16) * 16
        } else {
            bytes
        };
        if bytes > MAX_RESOURCE_BYTES {
            return Err(CaseError::spec(format!(
                "{}: {bytes} bytes is more than the {MAX_RESOURCE_BYTES}-byte limit",
                spec.slot
            )));
        }
        let element_bytes = match spec.kind {
            ResourceKindSpec::Raw | ResourceKindSpec::Constant => 4,
            ResourceKindSpec::Structured => stride,
            ResourceKindSpec::Typed
            | ResourceKindSpec::Texture2d
            | ResourceKindSpec::Texture { .. } => texel.unwrap_or(4),
        };
        let default_elements = u32::try_from(bytes / u64::from(element_bytes)).unwrap_or(u32::MAX);
        let mut res = Resource {
            slot,
            kind: spec.kind,
            stride,
            format: spec.format.clone(),
            width,
            height,
            first_element: spec.first_element.unwrap_or(0),
            num_elements: spec.num_elements.unwrap_or(default_elements),
            data: vec![0; bytes as usize],
            counter: spec.counter,
        };
        res.fill(spec)?;
        Ok(res)
    }

    fn fill(&mut self, spec: &ResourceSpec) -> Result<(), CaseError> {
        let init = &spec.initial;
        if let Some(v) = init.fill_u32 {
            for chunk in self.data.chunks_mut(4) {
                let n = chunk.len();
                chunk.copy_from_slice(&v.to_le_bytes()[..n]);
            }
        }
        if let Some(words) = &init.u32 {
            self.write_words(&spec.slot, words.iter().copied())?;
        }
        if let Some(floats) = &init.f32 {
            self.write_words(&spec.slot, floats.iter().map(|f| f.to_bits()))?;
        }
        Ok(())
    }

    /// Writes words from byte 0; a list longer than the memory is an error.
    pub fn write_words(
        &mut self,
        slot: &str,
        words: impl ExactSizeIterator<Item = u32>,
    ) -> Result<(), CaseError> {
        let len = words.len();
        if len.saturating_mul(4) > self.data.len() {
            return Err(CaseError::spec(format!(
                "{slot}: {len} initial words do not fit in {} bytes",
                self.data.len()
            )));
        }
        for (chunk, w) in self.data.chunks_exact_mut(4).zip(words) {
            chunk.copy_from_slice(&w.to_le_bytes());
        }
        Ok(())
    }

    /// Replaces the whole contents with `words` followed by zeros (the
    /// per-dispatch `constants` of a case).
    pub fn replace_words(&mut self, slot: &str, words: &[u32]) -> Result<(), CaseError> {
        self.data.fill(0);
        self.write_words(slot, words.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(json: &str) -> Result<Resource, CaseError> {
        Resource::from_spec(&serde_json::from_str(json).unwrap())
    }

    #[test]
    fn slot_names() {
        let s = SlotRef::parse("cb7", 0).unwrap();
        assert_eq!((s.class, s.index), (SlotClass::ConstantBuffer, 7));
        assert_eq!(SlotRef::parse("u12", 3).unwrap().space, 3);
        assert!(SlotRef::parse("u", 0).is_none());
        assert!(SlotRef::parse("x1", 0).is_none());
        assert!(SlotRef::parse("t1a", 0).is_none());
    }

    #[test]
    fn texel_sizes() {
        assert_eq!(texel_bytes("R32G32B32A32_FLOAT"), Some(16));
        assert_eq!(texel_bytes("R8G8B8A8_SNORM"), Some(4));
        assert_eq!(texel_bytes("R16_UNORM"), Some(2));
        assert_eq!(texel_bytes("R11G11B10_FLOAT"), Some(4));
        assert_eq!(texel_bytes("BC7_UNORM"), None);
    }

    #[test]
    fn fill_then_list_then_window() {
        let r = res(
            r#"{"slot":"u0","kind":"raw","buffer_bytes":16,"first_element":1,
            "num_elements":2,"initial":{"u32":[7],"rest":"undefined"}}"#,
        )
        .unwrap();
        assert_eq!(r.data, [7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!((r.first_element, r.num_elements), (1, 2));
        let r =
            res(r#"{"slot":"u0","kind":"raw","buffer_bytes":8,"initial":{"fill_u32":2863311530}}"#)
                .unwrap();
        assert_eq!(r.data, [0xaa; 8]);
        assert_eq!(r.num_elements, 2);
    }

    #[test]
    fn texture_size_from_format_and_f32_initial() {
        let r = res(
            r#"{"slot":"u0","kind":"texture2d","format":"R32_FLOAT","width":2,"height":3,
            "initial":{"f32":[1.0]}}"#,
        )
        .unwrap();
        assert_eq!(r.data.len(), 24);
        assert_eq!(&r.data[..4], &1.0f32.to_bits().to_le_bytes());
        assert_eq!(r.num_elements, 6);
    }

    #[test]
    fn constant_buffers_round_up_to_vectors() {
        let r = res(r#"{"slot":"cb0","kind":"constant","buffer_bytes":4,"initial":{"u32":[5]}}"#)
            .unwrap();
        assert_eq!(r.data.len(), 16);
    }

    #[test]
    fn bad_descriptions_are_errors() {
        assert!(res(r#"{"slot":"u0","kind":"structured","buffer_bytes":8}"#).is_err());
        assert!(
            res(r#"{"slot":"u0","kind":"raw","buffer_bytes":4,"initial":{"u32":[1,2]}}"#).is_err()
        );
        assert!(res(r#"{"slot":"u0","kind":"raw","buffer_bytes":1099511627776}"#).is_err());
        assert!(res(r#"{"slot":"q0","kind":"raw","buffer_bytes":4}"#).is_err());
        assert!(res(r#"{"slot":"u0","kind":"typed","buffer_bytes":4}"#).is_err());
    }

    #[test]
    fn replace_words_clears_the_rest() {
        let mut r = res(r#"{"slot":"cb0","kind":"constant","buffer_bytes":16,
            "initial":{"u32":[1,2,3,4]}}"#)
        .unwrap();
        r.replace_words("cb0", &[9]).unwrap();
        assert_eq!(r.data, [9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    }
}
