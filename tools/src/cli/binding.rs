//! Resource SPECs of `sm5jit run`: `u0=raw:zeros:1024`, `t0=structured:16:iota:64`,
//! `u1=typed:R32_FLOAT:f32:1.5,2`, `cb0=u32:1,2,3`.
//!
//! In: the text after `--uav`, `--srv` or `--cb`. Out: a [`Resource`] with
//! its slot, view and initial bytes (the same type the case runner binds).
//! Invariant: sizes are checked against [`MAX_RESOURCE_BYTES`] before any
//! allocation; a malformed SPEC is a usage error naming the bad part.
//!
//! Grammar: `SLOT=VIEW:DATA` where VIEW is `raw`, `structured:STRIDE`,
//! `typed:FORMAT` or `texture2d:FORMAT:WxH` (constant buffers have no VIEW), and DATA is one of
//! `zeros:N`, `fill:V:N` (N in bytes for raw and constant buffers, in
//! elements for structured and typed views), `iota:N` (N words 0, 1, ...),
//! `u32:A,B,..`, `f32:A,B,..` or `file:PATH`.

use crate::case::resource::{texel_bytes, MAX_RESOURCE_BYTES};
use crate::case::spec::ResourceKindSpec;
use crate::case::{Resource, SlotClass, SlotRef};

use super::error::CliError;
use sm5jit::runtime::Format;

/// Parses `SLOT=SPEC`; `class` is the register file the option binds.
pub fn parse_binding(text: &str, class: SlotClass) -> Result<Resource, CliError> {
    let bad = |why: String| CliError::usage(format!("bad binding `{text}`: {why}"));
    let (slot_text, spec) = text
        .split_once('=')
        .ok_or_else(|| bad("expected SLOT=SPEC".into()))?;
    let slot = SlotRef::parse(slot_text, 0)
        .filter(|s| s.class == class)
        .ok_or_else(|| {
            bad(format!(
                "`{slot_text}` is not a {} slot",
                class_prefix(class)
            ))
        })?;
    if let Some(rest) = spec.strip_prefix("texture2d:") {
        return parse_texture2d(slot, rest).map_err(bad);
    }
    let (kind, stride, format, data) = parse_view(spec, class).map_err(bad)?;
    let element_bytes = match kind {
        ResourceKindSpec::Structured => stride,
        ResourceKindSpec::Typed => format.as_deref().and_then(texel_bytes).unwrap_or(4),
        _ => 1,
    };
    let bytes = parse_data(data, element_bytes).map_err(bad)?;
    let view_element = match kind {
        ResourceKindSpec::Raw | ResourceKindSpec::Constant => 4,
        _ => element_bytes,
    };
    let num_elements = u32::try_from(bytes.len() / view_element as usize).unwrap_or(u32::MAX);
    let mut bytes = bytes;
    if kind == ResourceKindSpec::Constant {
        bytes.resize(bytes.len().div_ceil(16) * 16, 0);
    }
    Ok(Resource {
        slot,
        kind,
        stride,
        format,
        width: 0,
        height: 0,
        first_element: 0,
        num_elements,
        data: bytes,
        counter: None,
    })
}

/// `FORMAT:WxH:DATA` of a 2D texture (one mip, one slice; DATA in texels).
fn parse_texture2d(slot: SlotRef, spec: &str) -> Result<Resource, String> {
    let mut parts = spec.splitn(3, ':');
    let (Some(format), Some(size), Some(data)) = (parts.next(), parts.next(), parts.next()) else {
        return Err("expected texture2d:FORMAT:WxH:DATA".into());
    };
    let format = format
        .trim_start_matches("DXGI_FORMAT_")
        .to_ascii_uppercase();
    let texel = texel_bytes(&format).ok_or(format!("unknown format `{format}`"))?;
    let (w, h) = size
        .split_once(['x', 'X'])
        .ok_or(format!("`{size}` is not WxH"))?;
    let (width, height) = (parse_u32(w)?, parse_u32(h)?);
    if width == 0 || height == 0 || width > 16384 || height > 16384 {
        return Err(format!("{width}x{height}: sides are 1..=16384"));
    }
    let bytes = parse_data(data, texel)?;
    let need = u64::from(width) * u64::from(height) * u64::from(texel);
    if bytes.len() as u64 != need {
        return Err(format!(
            "{width}x{height} texels of {format} are {need} bytes, the data has {}",
            bytes.len()
        ));
    }
    Ok(Resource {
        slot,
        kind: ResourceKindSpec::Texture2d,
        stride: 0,
        format: Some(format),
        width,
        height,
        first_element: 0,
        num_elements: width.saturating_mul(height),
        data: bytes,
        counter: None,
    })
}

fn class_prefix(class: SlotClass) -> &'static str {
    match class {
        SlotClass::Uav => "u#",
        SlotClass::Srv => "t#",
        SlotClass::ConstantBuffer => "cb#",
        SlotClass::Output => "o#",
    }
}

type View<'a> = (ResourceKindSpec, u32, Option<String>, &'a str);

fn parse_view(spec: &str, class: SlotClass) -> Result<View<'_>, String> {
    if class == SlotClass::ConstantBuffer {
        return Ok((ResourceKindSpec::Constant, 0, None, spec));
    }
    let (view, rest) = spec.split_once(':').ok_or("expected VIEW:DATA")?;
    match view {
        "raw" => Ok((ResourceKindSpec::Raw, 0, None, rest)),
        "structured" => {
            let (stride, rest) = rest
                .split_once(':')
                .ok_or("expected structured:STRIDE:DATA")?;
            let stride = parse_u32(stride)?;
            if stride == 0 || stride % 4 != 0 || stride > 2048 {
                return Err(format!(
                    "stride {stride} is not a multiple of 4 in 4..=2048"
                ));
            }
            Ok((ResourceKindSpec::Structured, stride, None, rest))
        }
        "typed" => {
            let (format, rest) = rest.split_once(':').ok_or("expected typed:FORMAT:DATA")?;
            let format = format
                .trim_start_matches("DXGI_FORMAT_")
                .to_ascii_uppercase();
            if Format::from_dxgi_name(&format).is_none() {
                let valid: Vec<&str> = Format::dxgi_names().collect();
                return Err(format!(
                    "unknown format `{format}`; valid DXGI names: {}",
                    valid.join(", ")
                ));
            }
            Ok((ResourceKindSpec::Typed, 0, Some(format), rest))
        }
        other => Err(format!("unknown view `{other}` (raw, structured, typed)")),
    }
}

fn parse_u32(s: &str) -> Result<u32, String> {
    let s = s.trim();
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => s.parse::<u32>(),
    };
    parsed
        .or_else(|_| s.parse::<i32>().map(|v| v as u32))
        .map_err(|_| format!("`{s}` is not a 32-bit integer"))
}

fn parse_f32(s: &str) -> Result<u32, String> {
    s.trim()
        .parse::<f32>()
        .map(f32::to_bits)
        .map_err(|_| format!("`{s}` is not a float"))
}

/// `count` elements of `element_bytes` each, checked against the limit.
fn sized(count: &str, element_bytes: u32) -> Result<usize, String> {
    let n = u64::from(parse_u32(count)?) * u64::from(element_bytes.max(1));
    if n > MAX_RESOURCE_BYTES {
        return Err(format!(
            "{n} bytes is more than the {MAX_RESOURCE_BYTES}-byte limit"
        ));
    }
    Ok(n as usize)
}

fn words_to_bytes(words: impl Iterator<Item = u32>) -> Vec<u8> {
    words.flat_map(u32::to_le_bytes).collect()
}

fn parse_list(list: &str, item: fn(&str) -> Result<u32, String>) -> Result<Vec<u8>, String> {
    let words: Result<Vec<u32>, String> = list.split(',').map(item).collect();
    Ok(words_to_bytes(words?.into_iter()))
}

fn parse_data(data: &str, element_bytes: u32) -> Result<Vec<u8>, String> {
    let (form, rest) = data
        .split_once(':')
        .ok_or("expected DATA such as zeros:N")?;
    match form {
        "zeros" => Ok(vec![0; sized(rest, element_bytes)?]),
        "fill" => {
            let (v, n) = rest.split_once(':').ok_or("expected fill:VALUE:N")?;
            let v = parse_u32(v)?;
            let len = sized(n, element_bytes)?;
            let mut bytes = words_to_bytes(std::iter::repeat_n(v, len.div_ceil(4)));
            bytes.truncate(len);
            Ok(bytes)
        }
        "iota" => {
            sized(rest, 4)?;
            Ok(words_to_bytes(0..parse_u32(rest)?))
        }
        "u32" => parse_list(rest, parse_u32),
        "f32" => parse_list(rest, parse_f32),
        "file" => {
            let meta = std::fs::metadata(rest).map_err(|e| format!("{rest}: {e}"))?;
            if meta.len() > MAX_RESOURCE_BYTES {
                return Err(format!(
                    "{rest}: larger than the {MAX_RESOURCE_BYTES}-byte limit"
                ));
            }
            std::fs::read(rest).map_err(|e| format!("{rest}: {e}"))
        }
        other => Err(format!(
            "unknown data `{other}` (zeros, fill, iota, u32, f32, file)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(r: &Resource) -> Vec<u32> {
        r.data
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    #[test]
    fn raw_zeros_counts_bytes() {
        let r = parse_binding("u0=raw:zeros:1024", SlotClass::Uav).unwrap();
        assert_eq!(
            (r.kind, r.data.len(), r.num_elements),
            (ResourceKindSpec::Raw, 1024, 256)
        );
    }

    #[test]
    fn structured_counts_elements() {
        let r = parse_binding("t3=structured:16:zeros:64", SlotClass::Srv).unwrap();
        assert_eq!(
            (r.slot.index, r.stride, r.data.len(), r.num_elements),
            (3, 16, 1024, 64)
        );
        let r = parse_binding("u1=structured:8:fill:0xdeadbeef:2", SlotClass::Uav).unwrap();
        assert_eq!(words(&r), [0xdead_beef; 4]);
    }

    #[test]
    fn typed_lists_and_iota() {
        let r = parse_binding("u0=typed:R32_FLOAT:f32:1.5,2", SlotClass::Uav).unwrap();
        assert_eq!(words(&r), [1.5f32.to_bits(), 2.0f32.to_bits()]);
        assert_eq!(r.num_elements, 2);
        let r = parse_binding("u0=raw:iota:4", SlotClass::Uav).unwrap();
        assert_eq!(words(&r), [0, 1, 2, 3]);
        let r = parse_binding("u0=raw:u32:1,0x10,-1", SlotClass::Uav).unwrap();
        assert_eq!(words(&r), [1, 16, u32::MAX]);
    }

    #[test]
    fn constant_buffers_pad_to_vectors() {
        let r = parse_binding("cb0=u32:7", SlotClass::ConstantBuffer).unwrap();
        assert_eq!(words(&r), [7, 0, 0, 0]);
        assert_eq!(r.kind, ResourceKindSpec::Constant);
    }

    #[test]
    fn errors_name_the_problem() {
        for (text, class, needle) in [
            ("u0", SlotClass::Uav, "SLOT=SPEC"),
            ("t0=raw:zeros:4", SlotClass::Uav, "not a u# slot"),
            ("u0=structured:6:zeros:1", SlotClass::Uav, "multiple of 4"),
            ("u0=typed:R99:zeros:1", SlotClass::Uav, "unknown format"),
            (
                "u0=typed:R32_FLOT:zeros:1",
                SlotClass::Uav,
                "valid DXGI names: ",
            ),
            ("u0=typed:R32_FLOT:zeros:1", SlotClass::Uav, "R32_FLOAT"),
            ("u0=raw:zeros:99999999999", SlotClass::Uav, "integer"),
            ("u0=structured:2048:zeros:4000000", SlotClass::Uav, "limit"),
            ("u0=raw:u32:1,x", SlotClass::Uav, "`x`"),
            ("u0=raw:bogus:1", SlotClass::Uav, "unknown data"),
            ("u0=tex:zeros:1", SlotClass::Uav, "unknown view"),
            ("u0=raw:file:/nonexistent", SlotClass::Uav, "/nonexistent"),
        ] {
            let e = parse_binding(text, class).unwrap_err();
            assert_eq!(e.code as i32, 2, "{text}");
            assert!(e.message.contains(needle), "{text}: {}", e.message);
        }
    }
}
