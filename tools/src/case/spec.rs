//! The `case.json` model of the conformance corpus, as serde types.
//!
//! In: the JSON text of one `case.json` (compute cases with `resources`,
//! `dispatches`, `expected`; pixel-shader cases with `runs[]`). Out: plain
//! typed structures. Invariant: nothing here interprets the data beyond its
//! shape; unknown fields (notes, hlsl, provenance) are ignored, so a newer
//! corpus with extra fields still loads.

use std::collections::BTreeMap;

use serde::Deserialize;

/// One `case.json`, both flavours (compute: `dispatches`; pixel: `runs`).
#[derive(Clone, Debug, Deserialize)]
pub struct CaseSpec {
    pub id: String,
    #[serde(default)]
    pub stage: String,
    #[serde(default)]
    pub shader_model: String,
    #[serde(default)]
    pub resources: Vec<ResourceSpec>,
    #[serde(default)]
    pub dispatches: Vec<DispatchSpec>,
    #[serde(default)]
    pub expected: Vec<ExpectSpec>,
    #[serde(default)]
    pub runs: Vec<RunSpec>,
}

/// The kind of a bound resource.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ResourceKindSpec {
    Raw,
    Structured,
    Typed,
    Texture2d,
    Constant,
    /// A texture of any dimension with `layers` depth slices, array slices
    /// or cube faces; built by synthetic bindings, never read from a case.
    #[serde(skip)]
    Texture {
        dim: sm5jit::runtime::TextureDim,
        layers: u32,
    },
}

/// One bound slot (`u0`, `t4`, `cb7`) with its memory and view window.
#[derive(Clone, Debug, Deserialize)]
pub struct ResourceSpec {
    pub slot: String,
    #[serde(default)]
    pub space: u32,
    pub kind: ResourceKindSpec,
    #[serde(default)]
    pub stride: Option<u32>,
    #[serde(default)]
    pub format: Option<String>,
    #[serde(default)]
    pub width: Option<u32>,
    #[serde(default)]
    pub height: Option<u32>,
    #[serde(default)]
    pub buffer_bytes: Option<u64>,
    #[serde(default)]
    pub first_element: Option<u32>,
    #[serde(default)]
    pub num_elements: Option<u32>,
    #[serde(default)]
    pub initial: InitialSpec,
    /// Initial hidden UAV counter.
    #[serde(default)]
    pub counter: Option<u32>,
}

/// Initial contents: `{"u32": [...], "rest": "undefined"}`, `{"fill_u32": v}`,
/// `{"f32": [...]}` or `{"undefined": true}`. Lists start at byte 0.
#[derive(Clone, Debug, Default, Deserialize)]
pub struct InitialSpec {
    #[serde(default)]
    pub u32: Option<Vec<u32>>,
    #[serde(default)]
    pub f32: Option<Vec<f32>>,
    #[serde(default)]
    pub fill_u32: Option<u32>,
    #[serde(default)]
    pub undefined: Option<bool>,
}

/// One dispatch, in order.
#[derive(Clone, Debug, Deserialize)]
pub struct DispatchSpec {
    pub groups: [u32; 3],
    /// Replaces a constant buffer's contents before this dispatch.
    #[serde(default)]
    pub constants: BTreeMap<String, Vec<u32>>,
    /// Checks made between this dispatch and the next.
    #[serde(default)]
    pub expected_after: Vec<ExpectSpec>,
}

/// How the elements of an expected slot are read from memory.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ElementKind {
    U32,
    F32,
    U16,
    Rgba8,
}

/// Allowed difference between an expected and a computed element.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct Tolerance {
    /// f32: ULP distance on sign-magnitude bit patterns (+0 == -0).
    #[serde(default)]
    pub ulps: Option<u32>,
    /// u16: absolute difference.
    #[serde(default)]
    pub max_diff: Option<u32>,
    /// rgba8: absolute difference of each unsigned byte.
    #[serde(default)]
    pub max_diff_per_channel: Option<u32>,
}

/// The expected contents of one slot (`u0`, or `o0` in pixel-shader runs).
#[derive(Clone, Debug, Deserialize)]
pub struct ExpectSpec {
    pub slot: String,
    #[serde(default)]
    pub space: u32,
    pub element: ElementKind,
    /// Numbers (integers, or floats for f32); `null` = not checked.
    #[serde(default)]
    pub values: Vec<Option<Number>>,
    /// f32 only: the authoritative bit patterns.
    #[serde(default)]
    pub bits: Option<Vec<Option<u32>>>,
    #[serde(default)]
    pub tolerance: Option<Tolerance>,
    /// Element index (as a string) → accepted alternatives.
    #[serde(default)]
    pub any_of: BTreeMap<String, Vec<Number>>,
    #[serde(default)]
    pub order_independent: bool,
    /// Expected hidden counter after the dispatches.
    #[serde(default)]
    pub counter: Option<u32>,
}

/// One pixel-shader invocation: its bindings and its expected outputs.
#[derive(Clone, Debug, Deserialize)]
pub struct RunSpec {
    #[serde(default)]
    pub resources: Vec<ResourceSpec>,
    #[serde(default)]
    pub expected: Vec<ExpectSpec>,
    #[serde(default)]
    pub flags: BTreeMap<String, bool>,
}

/// A JSON number, or one of the strings `inf`, `-inf`, `nan` that the corpus
/// uses for values JSON cannot spell.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(try_from = "NumberRepr")]
pub struct Number(pub f64);

#[derive(Deserialize)]
#[serde(untagged)]
enum NumberRepr {
    Num(f64),
    Text(String),
}

impl TryFrom<NumberRepr> for Number {
    type Error = String;

    fn try_from(r: NumberRepr) -> Result<Number, String> {
        match r {
            NumberRepr::Num(v) => Ok(Number(v)),
            NumberRepr::Text(t) => match t.as_str() {
                "inf" | "+inf" => Ok(Number(f64::INFINITY)),
                "-inf" => Ok(Number(f64::NEG_INFINITY)),
                "nan" => Ok(Number(f64::NAN)),
                _ => Err(format!("`{t}` is not a number")),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_accept_infinity_strings() {
        let v: Vec<Option<Number>> =
            serde_json::from_str(r#"[1, 2.5, null, "inf", "-inf"]"#).unwrap();
        assert_eq!(v[1], Some(Number(2.5)));
        assert_eq!(v[2], None);
        assert_eq!(v[3], Some(Number(f64::INFINITY)));
        assert_eq!(v[4], Some(Number(f64::NEG_INFINITY)));
        assert!(serde_json::from_str::<Number>(r#""many""#).is_err());
    }
}
