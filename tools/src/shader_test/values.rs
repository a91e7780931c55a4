//! Number and condition syntax of `.shader_test` files.
//!
//! In: tokens of resource data, uniforms and probes, and `todo(...)` /
//! `if(...)` conditions. Out: 32/64-bit words and booleans. Invariant:
//! integers follow C's `strtol`/`strtoul` spelling (`0x` hex, a leading `0`
//! octal, an optional sign) stored as two's complement; decimal floats round
//! to nearest and overflow to ±∞, as the format page (§4.1, §5.5, §7) says.

/// A C integer literal as its 32-bit two's-complement pattern.
pub fn c_int(tok: &str) -> Option<u32> {
    c_int64(tok).map(|v| v as u32)
}

/// A C integer literal as its 64-bit two's-complement pattern.
pub fn c_int64(tok: &str) -> Option<u64> {
    let (neg, body) = match tok.as_bytes().first()? {
        b'-' => (true, &tok[1..]),
        b'+' => (false, &tok[1..]),
        _ => (false, tok),
    };
    let (radix, digits) = if let Some(h) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        (16, h)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let v = u64::from_str_radix(digits, radix).ok()?;
    Some(if neg { v.wrapping_neg() } else { v })
}

/// A float as C's `strtof` reads it: decimal rounded to nearest float32
/// (overflow reads as ±∞), or a hexadecimal integer (`0x80000000` is
/// 2147483648.0, as vkd3d's runner reads `uniform 1 float 0x80000000`).
pub fn float(tok: &str) -> Option<f32> {
    let unsigned = tok.trim_start_matches(['-', '+']);
    if unsigned.starts_with("0x") || unsigned.starts_with("0X") {
        let v = u64::from_str_radix(&unsigned[2..], 16).ok()? as f32;
        return Some(if tok.starts_with('-') { -v } else { v });
    }
    tok.parse::<f32>().ok()
}

/// A decimal float as float64.
pub fn double(tok: &str) -> Option<f64> {
    tok.parse::<f64>().ok()
}

/// One data token of a resource: a float when it contains `.`, else a C
/// integer.
pub fn data_word(tok: &str) -> Option<u32> {
    if tok.contains('.') {
        float(tok).map(f32::to_bits)
    } else {
        c_int(tok)
    }
}

/// A shader model `X.Y` (or a bare digit) as `10 * X + Y`.
pub fn model(text: &str) -> Option<u32> {
    let text = text.trim();
    let (major, minor) = text.split_once('.').unwrap_or((text, "0"));
    let major: u32 = major.parse().ok()?;
    let minor: u32 = minor.parse().ok()?;
    (minor < 10).then_some(major * 10 + minor)
}

/// Evaluates a qualifier condition (`a & b | !c & sm>=6`) for a span of
/// model `sm`. Runner tags are vkd3d's back ends: this runner has none, so
/// every tag is false and every negated tag true.
pub fn condition(cond: &str, sm: u32) -> Result<bool, String> {
    let mut any = false;
    for alt in cond.split('|') {
        let mut all = true;
        for term in alt.split('&') {
            all &= term_value(term.trim(), sm)?;
        }
        any |= all;
    }
    Ok(any)
}

fn term_value(term: &str, sm: u32) -> Result<bool, String> {
    let bad = || format!("bad condition term `{term}`");
    if let Some(v) = term.strip_prefix("sm>=") {
        return Ok(sm >= model(v).ok_or_else(bad)?);
    }
    if let Some(v) = term.strip_prefix("sm<") {
        return Ok(sm < model(v).ok_or_else(bad)?);
    }
    if term.is_empty() {
        return Err(bad());
    }
    Ok(term.starts_with('!'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_integers() {
        assert_eq!(c_int("1"), Some(1));
        assert_eq!(c_int("-1"), Some(0xffff_ffff));
        assert_eq!(c_int("0x7f800000"), Some(0x7f80_0000));
        assert_eq!(c_int("010"), Some(8));
        assert_eq!(c_int("0"), Some(0));
        assert_eq!(c_int("1.0"), None);
        assert_eq!(c_int("abc"), None);
        assert_eq!(c_int("4294967295"), Some(u32::MAX));
    }

    #[test]
    fn data_words_follow_the_dot_rule() {
        assert_eq!(data_word("1"), Some(1));
        assert_eq!(data_word("1.0"), Some(0x3f80_0000));
        assert_eq!(data_word("-0.0"), Some(0x8000_0000));
        assert_eq!(data_word("1.0e39"), Some(0x7f80_0000));
        assert_eq!(float("1e99"), Some(f32::INFINITY));
        assert_eq!(float("nan").map(f32::to_bits), Some(0x7fc0_0000));
        assert_eq!(float("0x80000000"), Some(2_147_483_648.0));
        assert_eq!(float("-0x10"), Some(-16.0));
    }

    #[test]
    fn conditions() {
        assert_eq!(model("4"), Some(40));
        assert_eq!(model("5.1"), Some(51));
        assert_eq!(condition("msl", 50), Ok(false));
        assert_eq!(condition("!msl", 50), Ok(true));
        assert_eq!(condition("glsl | msl & sm>=6", 50), Ok(false));
        assert_eq!(condition("sm<6", 50), Ok(true));
        assert_eq!(condition("sm>=5.1 | msl", 51), Ok(true));
        assert_eq!(condition("mesa<23.3", 50), Ok(false));
        assert!(condition("sm>=x", 50).is_err());
    }
}
