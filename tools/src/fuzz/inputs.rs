//! The inputs of one fuzz program: dispatch size and the contents of every
//! bound buffer, in a form that serialises to a small JSON file.
//!
//! In: what the generator chose (or a reproducer's `inputs.json`). Out:
//! [`case::Resource`]s ready for any [`case::Engine`]. Invariant: sizes are
//! whole words; a structured buffer's byte size need not be a multiple of its
//! stride (the view covers the whole structures only), which is one of the
//! ways the fuzzer makes accesses out of bounds.

use serde::{Deserialize, Serialize};

use crate::case::spec::ResourceKindSpec;
use crate::case::{Resource, SlotRef};

/// How a buffer is viewed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BufferKind {
    Raw,
    Structured,
    Typed,
    Constant,
}

/// One bound buffer (`u0`, `t1`, `cb0`, ...).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BufferInput {
    pub slot: String,
    pub kind: BufferKind,
    /// Structured stride in bytes (0 otherwise).
    #[serde(default)]
    pub stride: u32,
    /// DXGI format name for typed views (`R32_UINT`).
    #[serde(default)]
    pub format: Option<String>,
    /// Hidden UAV counter.
    #[serde(default)]
    pub counter: Option<u32>,
    /// The memory, word 0 first.
    pub words: Vec<u32>,
}

/// Dispatch size and bound buffers of one run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FuzzInputs {
    pub groups: [u32; 3],
    pub buffers: Vec<BufferInput>,
}

/// An input that cannot be turned into a resource.
#[derive(Debug, thiserror::Error)]
#[error("input {slot}: {reason}")]
pub struct InputError {
    pub slot: String,
    pub reason: String,
}

impl BufferInput {
    fn element_bytes(&self) -> u32 {
        match self.kind {
            BufferKind::Raw | BufferKind::Constant => 4,
            BufferKind::Structured => self.stride.max(1),
            BufferKind::Typed => self
                .format
                .as_deref()
                .and_then(crate::case::resource::texel_bytes)
                .unwrap_or(4),
        }
    }

    /// The owned resource an engine binds.
    pub fn resource(&self) -> Result<Resource, InputError> {
        let err = |reason: &str| InputError {
            slot: self.slot.clone(),
            reason: reason.to_string(),
        };
        let slot = SlotRef::parse(&self.slot, 0).ok_or_else(|| err("bad slot name"))?;
        if self.kind == BufferKind::Structured && self.stride == 0 {
            return Err(err("structured buffer without a stride"));
        }
        if self.kind == BufferKind::Typed && self.format.is_none() {
            return Err(err("typed buffer without a format"));
        }
        let mut data: Vec<u8> = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if self.kind == BufferKind::Constant {
            data.resize(data.len().div_ceil(16) * 16, 0);
        }
        let num_elements = (data.len() as u64 / u64::from(self.element_bytes())) as u32;
        Ok(Resource {
            slot,
            kind: match self.kind {
                BufferKind::Raw => ResourceKindSpec::Raw,
                BufferKind::Structured => ResourceKindSpec::Structured,
                BufferKind::Typed => ResourceKindSpec::Typed,
                BufferKind::Constant => ResourceKindSpec::Constant,
            },
            stride: self.stride,
            format: self.format.clone(),
            width: 0,
            height: 0,
            first_element: 0,
            num_elements,
            data,
            counter: self.counter,
        })
    }
}

impl FuzzInputs {
    /// Every buffer as a fresh resource (each engine gets its own copy).
    pub fn resources(&self) -> Result<Vec<Resource>, InputError> {
        self.buffers.iter().map(BufferInput::resource).collect()
    }

    /// Total words over all buffers.
    pub fn total_words(&self) -> usize {
        self.buffers.iter().map(|b| b.words.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_keep_kind_size_and_bytes() {
        let inputs = FuzzInputs {
            groups: [1, 1, 1],
            buffers: vec![
                BufferInput {
                    slot: "u1".into(),
                    kind: BufferKind::Structured,
                    stride: 8,
                    format: None,
                    counter: None,
                    words: vec![1, 2, 3],
                },
                BufferInput {
                    slot: "cb0".into(),
                    kind: BufferKind::Constant,
                    stride: 0,
                    format: None,
                    counter: None,
                    words: vec![0x0403_0201],
                },
            ],
        };
        let r = inputs.resources().unwrap();
        assert_eq!(r[0].num_elements, 1);
        assert_eq!(r[0].data.len(), 12);
        assert_eq!(r[1].data.len(), 16);
        assert_eq!(&r[1].data[..4], &[1, 2, 3, 4]);
        let json = serde_json::to_string(&inputs).unwrap();
        assert_eq!(serde_json::from_str::<FuzzInputs>(&json).unwrap(), inputs);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let b = BufferInput {
            slot: "q0".into(),
            kind: BufferKind::Raw,
            stride: 0,
            format: None,
            counter: None,
            words: vec![],
        };
        assert!(b.resource().is_err());
        let b = BufferInput {
            slot: "u0".into(),
            kind: BufferKind::Structured,
            ..b
        };
        assert!(b.resource().is_err());
    }
}
