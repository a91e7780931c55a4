//! `probe` directives: what to read, what to expect, how close is enough.
//!
//! In: the text after `probe` (`[rtv N | uav N | dsv] (COORDS) FORM`).
//! Out: a [`Probe`] and, given the bytes of an element, a verdict. The
//! element size comes from the form, never the resource's format (§5.6 of
//! the format page); floats compare by ulps over sign-magnitude keys (§7).
//! Invariant: parsing never panics; comparison only looks at the bytes it
//! is handed.

use super::script::ResKind;
use super::values;

/// Which resource a probe reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    pub kind: ResKind,
    pub slot: u32,
}

/// The expected value and its comparison.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// Floats within `ulps`; `bytes` is the element size.
    F32 {
        values: Vec<f32>,
        ulps: u32,
        bytes: u32,
    },
    /// Words compared exactly.
    U32 {
        values: Vec<u32>,
        bytes: u32,
    },
    F64 {
        values: Vec<f64>,
        ulps: u64,
    },
}

impl Expect {
    /// Bytes one element spans.
    pub fn element_bytes(&self) -> u32 {
        match self {
            Expect::F32 { bytes, .. } | Expect::U32 { bytes, .. } => *bytes,
            Expect::F64 { .. } => 8,
        }
    }

    /// Whether the element `got` (at least [`Self::element_bytes`] long)
    /// matches.
    pub fn matches(&self, got: &[u8]) -> bool {
        match self {
            Expect::F32 { values, ulps, .. } => values
                .iter()
                .enumerate()
                .all(|(i, e)| f32_close(word(got, i), e.to_bits(), *ulps)),
            Expect::U32 { values, .. } => {
                values.iter().enumerate().all(|(i, e)| word(got, i) == *e)
            }
            Expect::F64 { values, ulps } => values
                .iter()
                .enumerate()
                .all(|(i, e)| f64_close(dword(got, i), e.to_bits(), *ulps)),
        }
    }

    /// The element `got` written like the expectation.
    pub fn show(&self, got: &[u8]) -> String {
        let list = |v: Vec<String>| format!("({})", v.join(", "));
        match self {
            Expect::F32 { values, .. } => list(
                (0..values.len())
                    .map(|i| show_f32(f32::from_bits(word(got, i))))
                    .collect(),
            ),
            Expect::U32 { values, .. } => list(
                (0..values.len())
                    .map(|i| format!("{:#x}", word(got, i)))
                    .collect(),
            ),
            Expect::F64 { values, .. } => list(
                (0..values.len())
                    .map(|i| format!("{:?}", f64::from_bits(dword(got, i))))
                    .collect(),
            ),
        }
    }

    /// The expectation as text.
    pub fn describe(&self) -> String {
        let list = |v: Vec<String>| format!("({})", v.join(", "));
        match self {
            Expect::F32 { values, ulps, .. } => {
                let v = list(values.iter().map(|f| show_f32(*f)).collect());
                if *ulps > 0 {
                    format!("{v} within {ulps} ulps")
                } else {
                    v
                }
            }
            Expect::U32 { values, .. } => list(values.iter().map(|w| format!("{w:#x}")).collect()),
            Expect::F64 { values, ulps } => {
                let v = list(values.iter().map(|f| format!("{f:?}")).collect());
                format!("{v} within {ulps} ulps")
            }
        }
    }
}

fn show_f32(f: f32) -> String {
    format!("{f:?} [{:#010x}]", f.to_bits())
}

fn word(b: &[u8], i: usize) -> u32 {
    b.get(i * 4..i * 4 + 4)
        .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
        .unwrap_or(0)
}

fn dword(b: &[u8], i: usize) -> u64 {
    u64::from(word(b, 2 * i)) | u64::from(word(b, 2 * i + 1)) << 32
}

/// The §7 rule for float32: sign-magnitude keys, unsigned difference.
pub fn f32_close(a: u32, b: u32, ulps: u32) -> bool {
    let key = |v: u32| {
        let s = v as i32;
        if s >= 0 {
            s as u32
        } else {
            i32::MIN.wrapping_sub(s) as u32
        }
    };
    let (ka, kb) = (key(a), key(b));
    ka.max(kb) - ka.min(kb) <= ulps
}

/// The same rule with 64-bit keys.
pub fn f64_close(a: u64, b: u64, ulps: u64) -> bool {
    let key = |v: u64| {
        let s = v as i64;
        if s >= 0 {
            s as u64
        } else {
            i64::MIN.wrapping_sub(s) as u64
        }
    };
    let (ka, kb) = (key(a), key(b));
    ka.max(kb) - ka.min(kb) <= ulps
}

/// A parsed probe.
#[derive(Clone, Debug, PartialEq)]
pub struct Probe {
    pub target: Target,
    /// `[l, r) x [t, b)`.
    pub rect: [u32; 4],
    pub expect: Expect,
}

/// Parses the text after `probe`.
pub fn parse(text: &str) -> Result<Probe, String> {
    let mut rest = text.trim();
    let mut target = Target {
        kind: ResKind::Rtv,
        slot: 0,
    };
    for (word, kind) in [("rtv", ResKind::Rtv), ("uav", ResKind::Uav)] {
        if let Some(r) = rest.strip_prefix(word) {
            let r = r.trim_start();
            let end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            let slot = r[..end]
                .parse()
                .map_err(|_| format!("probe target `{word}` needs a slot"))?;
            target = Target { kind, slot };
            rest = r[end..].trim_start();
        }
    }
    if let Some(r) = rest.strip_prefix("dsv") {
        target = Target {
            kind: ResKind::Dsv,
            slot: 0,
        };
        rest = r.trim_start();
    }
    let (coords, rest) = parens(rest).ok_or_else(|| format!("probe `{text}`: no coordinates"))?;
    let c: Vec<u32> = coords
        .iter()
        .map(|t| {
            t.parse::<u32>()
                .map_err(|_| format!("bad probe coordinate `{t}`"))
        })
        .collect::<Result<_, _>>()?;
    let rect = match c.as_slice() {
        [x] => [*x, 0, x + 1, 1],
        [x, y] => [*x, *y, x + 1, y + 1],
        [l, t, r, b] => [*l, *t, *r, *b],
        _ => return Err(format!("probe `{text}`: 1, 2 or 4 coordinates")),
    };
    let rest = rest.trim_start();
    let name_end = rest
        .find(|c: char| c == '(' || c.is_whitespace())
        .unwrap_or(rest.len());
    let form = &rest[..name_end];
    let (vals, tail) = parens(rest[name_end..].trim_start())
        .ok_or_else(|| format!("probe `{text}`: no expected values"))?;
    // vkd3d reads the tolerance with `sscanf("%u")`: leading digits count,
    // anything after them (`function-return` ends a probe with `;`) does not.
    let tail = tail.trim();
    let digits = tail
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(tail.len());
    let ulps: u64 = if digits == 0 {
        0
    } else {
        tail[..digits]
            .parse()
            .map_err(|_| format!("bad ulps `{tail}`"))?
    };
    let floats = || -> Result<Vec<f32>, String> {
        vals.iter()
            .map(|t| values::float(t).ok_or_else(|| format!("bad float `{t}`")))
            .collect()
    };
    let expect = match (form, vals.len()) {
        ("rgba", 4) | ("f32", 4) | ("f32", 2) => Expect::F32 {
            values: floats()?,
            ulps: ulps as u32,
            bytes: 16,
        },
        ("f32", 1) => Expect::F32 {
            values: floats()?,
            ulps: ulps as u32,
            bytes: 4,
        },
        ("u32" | "i32", 1 | 2 | 4) => Expect::U32 {
            values: vals
                .iter()
                .map(|t| values::c_int(t).ok_or_else(|| format!("bad integer `{t}`")))
                .collect::<Result<_, _>>()?,
            bytes: if vals.len() == 1 { 4 } else { 16 },
        },
        ("f64", 1 | 2) => Expect::F64 {
            values: vals
                .iter()
                .map(|t| values::double(t).ok_or_else(|| format!("bad double `{t}`")))
                .collect::<Result<_, _>>()?,
            ulps,
        },
        _ => {
            return Err(format!(
                "unsupported probe form `{form}` with {} values",
                vals.len()
            ))
        }
    };
    Ok(Probe {
        target,
        rect,
        expect,
    })
}

/// `(a, b, c) rest` -> (["a", "b", "c"], "rest").
fn parens(s: &str) -> Option<(Vec<String>, &str)> {
    let inner = s.strip_prefix('(')?;
    let end = inner.find(')')?;
    let items = inner[..end]
        .split(',')
        .map(|t| t.trim().to_string())
        .collect();
    Some((items, &inner[end + 1..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulps_follow_sign_magnitude_keys() {
        assert!(f32_close(0x8000_0000, 0, 0)); // -0 == +0
        assert!(!f32_close(0x8000_0001, 0, 1)); // -denorm vs +0
        assert!(f32_close(1.0f32.to_bits(), 1.0f32.to_bits() + 2, 2));
        assert!(!f32_close(1.0f32.to_bits(), 1.0f32.to_bits() + 3, 2));
        assert!(f32_close((-1.0f32).to_bits(), (-1.0f32).to_bits() + 1, 1));
        assert!(!f32_close(0x7fc0_0000, 0x7f80_0000, 0));
        assert!(f64_close(0x8000_0000_0000_0000, 0, 0));
    }

    #[test]
    fn forms_and_targets() {
        let p = parse("(0, 0) rgba (1.0, 1.5, 2.0, 2.5)").unwrap();
        assert_eq!(p.rect, [0, 0, 1, 1]);
        assert_eq!(p.target.kind, ResKind::Rtv);
        assert_eq!(p.expect.element_bytes(), 16);
        let p = parse("uav 1 (3) u32(0xffffffff)").unwrap();
        assert_eq!(
            p.target,
            Target {
                kind: ResKind::Uav,
                slot: 1
            }
        );
        assert_eq!(p.rect, [3, 0, 4, 1]);
        assert_eq!(
            p.expect,
            Expect::U32 {
                values: vec![u32::MAX],
                bytes: 4
            }
        );
        let p = parse("(0, 0, 640, 480) f32(0.5, 1e39) 4").unwrap();
        assert_eq!(
            p.expect,
            Expect::F32 {
                values: vec![0.5, f32::INFINITY],
                ulps: 4,
                bytes: 16
            }
        );
        let p = parse("rtv 1 (2, 3) i32(-1, 0, 1, 2)").unwrap();
        assert_eq!(p.target.slot, 1);
        assert!(p
            .expect
            .matches(&[0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0]));
        assert!(parse("(0, 0) frob(1)").is_err());
        let p = parse("(0, 0) rgba (0.2, 0.1, 0.8, 0.5);").unwrap();
        assert_eq!(p.expect.element_bytes(), 16);
        assert!(parse("(x) u32(1)").is_err());
    }
}
