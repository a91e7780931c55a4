//! Comparison of computed memory against a case's expectations.
//!
//! In: one [`ExpectSpec`] and the bytes (and hidden counter) the engine left
//! in that slot. Out: `Ok(())` or the first [`Mismatch`], naming the slot,
//! the element index and both values in hex. Invariant: memory is read only
//! through bounds-checked slices; an element past the end of the memory is a
//! mismatch, never a panic.

use std::fmt;

use super::spec::{ElementKind, ExpectSpec, Tolerance};

/// The first difference between expected and computed contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// `u0`, `o0`, ...
    pub slot: String,
    /// What differs: `word 17`, `element 3`, `counter`, `sorted word 2`.
    pub what: String,
    pub expected: String,
    pub got: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "slot {} {}: expected {}, got {}",
            self.slot, self.what, self.expected, self.got
        )
    }
}

impl ElementKind {
    /// Bytes per element in memory.
    pub fn size(self) -> usize {
        match self {
            ElementKind::U16 => 2,
            ElementKind::U32 | ElementKind::F32 | ElementKind::Rgba8 => 4,
        }
    }

    fn unit(self) -> &'static str {
        match self {
            ElementKind::U32 | ElementKind::F32 => "word",
            ElementKind::U16 | ElementKind::Rgba8 => "element",
        }
    }

    fn hex(self, v: u32) -> String {
        match self {
            ElementKind::U16 => format!("0x{v:04x}"),
            _ => format!("0x{v:08x}"),
        }
    }
}

/// Reads element `i` (little-endian) or `None` past the end of `mem`.
fn read_element(mem: &[u8], kind: ElementKind, i: usize) -> Option<u32> {
    let size = kind.size();
    let start = i.checked_mul(size)?;
    let bytes = mem.get(start..start.checked_add(size)?)?;
    Some(match kind {
        ElementKind::U16 => u32::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        _ => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
    })
}

/// A JSON number as the element's bit pattern: f32 values are converted to
/// their bits, everything else must be an integer that fits.
fn number_to_bits(kind: ElementKind, v: f64) -> Option<u32> {
    if kind == ElementKind::F32 {
        return Some((v as f32).to_bits());
    }
    if v.fract() == 0.0 && v >= f64::from(i32::MIN) && v <= f64::from(u32::MAX) {
        return Some(if v < 0.0 { v as i32 as u32 } else { v as u32 });
    }
    None
}

/// The expected bit pattern of element `i`, `Ok(None)` when not checked.
fn expected_bits(exp: &ExpectSpec, i: usize) -> Result<Option<u32>, String> {
    if let Some(bits) = &exp.bits {
        if let Some(Some(b)) = bits.get(i) {
            return Ok(Some(*b));
        }
    }
    match exp.values.get(i).copied().flatten().map(|n| n.0) {
        None => Ok(None),
        Some(v) => number_to_bits(exp.element, v)
            .map(Some)
            .ok_or_else(|| format!("expected value {v} is not a valid {:?}", exp.element)),
    }
}

/// Sign-magnitude ordering of an f32 bit pattern (+0 and -0 both map to 0).
fn ordered(bits: u32) -> i64 {
    let mag = i64::from(bits & 0x7fff_ffff);
    if bits & 0x8000_0000 != 0 {
        -mag
    } else {
        mag
    }
}

fn is_nan(bits: u32) -> bool {
    f32::from_bits(bits).is_nan()
}

/// Whether `got` is acceptable for `want` under the slot's tolerance.
pub fn element_matches(kind: ElementKind, tol: Option<Tolerance>, want: u32, got: u32) -> bool {
    if want == got {
        return true;
    }
    let tol = tol.unwrap_or_default();
    match kind {
        ElementKind::F32 => {
            if is_nan(want) || is_nan(got) {
                return is_nan(want) && is_nan(got);
            }
            let ulps = i64::from(tol.ulps.unwrap_or(0));
            (ordered(want) - ordered(got)).abs() <= ulps
        }
        ElementKind::U16 | ElementKind::U32 => {
            let max = i64::from(tol.max_diff.unwrap_or(0));
            (i64::from(want) - i64::from(got)).abs() <= max
        }
        ElementKind::Rgba8 => {
            let max = tol.max_diff_per_channel.unwrap_or(0) as i32;
            let (w, g) = (want.to_le_bytes(), got.to_le_bytes());
            w.iter()
                .zip(g.iter())
                .all(|(a, b)| (i32::from(*a) - i32::from(*b)).abs() <= max)
        }
    }
}

/// Number of elements the expectation talks about.
fn checked_len(exp: &ExpectSpec) -> usize {
    let bits = exp.bits.as_ref().map_or(0, Vec::len);
    let any = exp
        .any_of
        .keys()
        .filter_map(|k| k.parse::<usize>().ok())
        .map(|k| k + 1)
        .max()
        .unwrap_or(0);
    exp.values.len().max(bits).max(any)
}

fn mismatch(exp: &ExpectSpec, what: String, expected: String, got: String) -> Mismatch {
    Mismatch {
        slot: exp.slot.clone(),
        what,
        expected,
        got,
    }
}

/// Checks one slot's memory (and counter, when the expectation has one).
pub fn check_slot(exp: &ExpectSpec, mem: &[u8], counter: Option<u32>) -> Result<(), Mismatch> {
    if let Some(want) = exp.counter {
        match counter {
            Some(got) if got == want => {}
            Some(got) => {
                return Err(mismatch(
                    exp,
                    "counter".into(),
                    want.to_string(),
                    got.to_string(),
                ))
            }
            None => {
                return Err(mismatch(
                    exp,
                    "counter".into(),
                    want.to_string(),
                    "no counter".into(),
                ))
            }
        }
    }
    if exp.order_independent {
        check_multiset(exp, mem)
    } else {
        check_in_order(exp, mem)
    }
}

fn check_in_order(exp: &ExpectSpec, mem: &[u8]) -> Result<(), Mismatch> {
    let kind = exp.element;
    for i in 0..checked_len(exp) {
        let want = expected_bits(exp, i)
            .map_err(|e| mismatch(exp, format!("{} {i}", kind.unit()), e, "-".into()))?;
        let alternatives = alternatives(exp, i);
        if want.is_none() && alternatives.is_empty() {
            continue;
        }
        let what = format!("{} {i}", kind.unit());
        let Some(got) = read_element(mem, kind, i) else {
            let want_text = want.map_or_else(|| "a value".to_string(), |w| kind.hex(w));
            let got_text = format!("end of memory ({} bytes)", mem.len());
            return Err(mismatch(exp, what, want_text, got_text));
        };
        let ok = want
            .iter()
            .chain(alternatives.iter())
            .any(|w| element_matches(kind, exp.tolerance, *w, got));
        if !ok {
            let mut texts: Vec<String> = want.iter().map(|w| kind.hex(*w)).collect();
            texts.extend(alternatives.iter().map(|w| kind.hex(*w)));
            texts.dedup();
            return Err(mismatch(exp, what, texts.join(" or "), kind.hex(got)));
        }
    }
    Ok(())
}

/// The `any_of` alternatives for element `i`, as bit patterns.
fn alternatives(exp: &ExpectSpec, i: usize) -> Vec<u32> {
    exp.any_of
        .get(&i.to_string())
        .map(|alts| {
            alts.iter()
                .filter_map(|v| number_to_bits(exp.element, v.0))
                .collect()
        })
        .unwrap_or_default()
}

/// `order_independent`: the first N elements, sorted, equal the sorted
/// expected values (N = the number of listed values).
fn check_multiset(exp: &ExpectSpec, mem: &[u8]) -> Result<(), Mismatch> {
    let kind = exp.element;
    let n = checked_len(exp);
    let mut want = Vec::new();
    for i in 0..n {
        match expected_bits(exp, i) {
            Ok(Some(w)) => want.push(w),
            Ok(None) => {}
            Err(e) => return Err(mismatch(exp, format!("{} {i}", kind.unit()), e, "-".into())),
        }
    }
    let mut got = Vec::new();
    for i in 0..n {
        match read_element(mem, kind, i) {
            Some(g) => got.push(g),
            None => {
                return Err(mismatch(
                    exp,
                    format!("{} {i}", kind.unit()),
                    "a value".into(),
                    format!("end of memory ({} bytes)", mem.len()),
                ))
            }
        }
    }
    want.sort_unstable();
    got.sort_unstable();
    for (i, (w, g)) in want.iter().zip(got.iter()).enumerate() {
        if !element_matches(kind, exp.tolerance, *w, *g) {
            let what = format!("sorted {} {i} (order-independent)", kind.unit());
            return Err(mismatch(exp, what, kind.hex(*w), kind.hex(*g)));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(json: &str) -> ExpectSpec {
        serde_json::from_str(json).unwrap()
    }

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn u32_exact_and_first_difference() {
        let e = spec(r#"{"slot":"u0","element":"u32","values":[1,2,null,4]}"#);
        assert!(check_slot(&e, &words(&[1, 2, 99, 4]), None).is_ok());
        let m = check_slot(&e, &words(&[1, 2, 3, 5]), None).unwrap_err();
        assert_eq!(
            m.to_string(),
            "slot u0 word 3: expected 0x00000004, got 0x00000005"
        );
    }

    #[test]
    fn short_memory_is_a_mismatch_not_a_panic() {
        let e = spec(r#"{"slot":"u0","element":"u32","values":[1,2]}"#);
        let m = check_slot(&e, &words(&[1]), None).unwrap_err();
        assert!(m.got.contains("end of memory"), "{m}");
    }

    #[test]
    fn f32_bits_are_authoritative_and_ulps_apply() {
        let e = spec(
            r#"{"slot":"u0","element":"f32","values":[0.5],"bits":[1056964608],
                "tolerance":{"ulps":2}}"#,
        );
        assert!(check_slot(&e, &words(&[0x3f00_0002]), None).is_ok());
        assert!(check_slot(&e, &words(&[0x3f00_0003]), None).is_err());
        assert!(check_slot(&e, &words(&[0x3eff_fffe]), None).is_ok());
    }

    #[test]
    fn plus_and_minus_zero_are_equal_under_ulps() {
        assert!(element_matches(
            ElementKind::F32,
            Some(Tolerance {
                ulps: Some(0),
                ..Tolerance::default()
            }),
            0,
            0x8000_0000
        ));
        assert!(!element_matches(ElementKind::F32, None, 0, 1));
    }

    #[test]
    fn f32_values_without_bits_convert() {
        let e = spec(r#"{"slot":"u0","element":"f32","values":[2.0, 0.7]}"#);
        let ok = words(&[2.0f32.to_bits(), 0.7f32.to_bits()]);
        assert!(check_slot(&e, &ok, None).is_ok());
    }

    #[test]
    fn u16_max_diff() {
        let e = spec(
            r#"{"slot":"u0","element":"u16","values":[15360,15360],"tolerance":{"max_diff":2}}"#,
        );
        let mem: Vec<u8> = [15362u16, 15358]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        assert!(check_slot(&e, &mem, None).is_ok());
        let mem: Vec<u8> = [15360u16, 15363]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let m = check_slot(&e, &mem, None).unwrap_err();
        assert_eq!(m.what, "element 1");
    }

    #[test]
    fn rgba8_per_channel() {
        let e = spec(
            r#"{"slot":"u0","element":"rgba8","values":[3233857728],
                "tolerance":{"max_diff_per_channel":1}}"#,
        );
        let want = 3_233_857_728u32;
        let mut b = want.to_le_bytes();
        b[0] = b[0].wrapping_add(1);
        b[3] = b[3].wrapping_sub(1);
        assert!(check_slot(&e, &b, None).is_ok());
        b[1] = b[1].wrapping_add(2);
        assert!(check_slot(&e, &b, None).is_err());
    }

    #[test]
    fn any_of_accepts_alternatives_only() {
        let e = spec(r#"{"slot":"u1","element":"u32","values":[32,96],"any_of":{"0":[32,0]}}"#);
        assert!(check_slot(&e, &words(&[0, 96]), None).is_ok());
        assert!(check_slot(&e, &words(&[32, 96]), None).is_ok());
        let m = check_slot(&e, &words(&[7, 96]), None).unwrap_err();
        assert_eq!(m.expected, "0x00000020 or 0x00000000");
        // Word 1 has no alternative: 0 is wrong there.
        assert!(check_slot(&e, &words(&[32, 0]), None).is_err());
    }

    #[test]
    fn any_of_on_an_unchecked_value() {
        let e =
            spec(r#"{"slot":"u0","element":"u32","values":[null,null],"any_of":{"2":[0,47789]}}"#);
        assert!(check_slot(&e, &words(&[5, 5, 47789]), None).is_ok());
        assert!(check_slot(&e, &words(&[5, 5, 1]), None).is_err());
    }

    #[test]
    fn order_independent_is_a_multiset() {
        let e =
            spec(r#"{"slot":"u0","element":"u32","values":[0,1,2,3],"order_independent":true}"#);
        assert!(check_slot(&e, &words(&[3, 1, 0, 2, 77]), None).is_ok());
        assert!(check_slot(&e, &words(&[3, 1, 1, 2]), None).is_err());
    }

    #[test]
    fn counter_is_checked() {
        let e = spec(r#"{"slot":"u0","element":"u32","values":[],"counter":4}"#);
        assert!(check_slot(&e, &[], Some(4)).is_ok());
        let m = check_slot(&e, &[], Some(3)).unwrap_err();
        assert_eq!(m.to_string(), "slot u0 counter: expected 4, got 3");
        assert!(check_slot(&e, &[], None).is_err());
    }

    #[test]
    fn negative_integers_wrap() {
        assert_eq!(number_to_bits(ElementKind::U32, -1.0), Some(u32::MAX));
        assert_eq!(number_to_bits(ElementKind::U32, 0.5), None);
        assert_eq!(number_to_bits(ElementKind::U32, 4294967296.0), None);
    }
}
