//! Listing text → tokens with their line and column.
//!
//! In: the whole text. Out: a vector of [`Tok`], one [`TokKind::Newline`] per
//! line end, `//` comments dropped. Invariant: every token knows its 1-based
//! line and column (in characters); no input makes the lexer panic.

use super::AsmError;

#[derive(Clone, Debug, PartialEq)]
pub enum TokKind {
    /// Letters, digits and `_`, starting with a letter or `_`.
    Ident(String),
    /// Starts with a digit: decimal, `0x` hex, or a float (`1.5`, `1e-3`);
    /// trailing letters (`5i64`) are kept in the text.
    Number(String),
    /// One of `( ) [ ] { } , . + - | = : *`.
    Punct(char),
    Newline,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Tok {
    pub kind: TokKind,
    pub line: u32,
    pub col: u32,
    /// True if whitespace (or a line start) came right before this token.
    pub spaced: bool,
}

pub fn lex(text: &str) -> Result<Vec<Tok>, AsmError> {
    let chars: Vec<char> = text.chars().collect();
    let mut toks = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let mut spaced = true;
    while i < chars.len() {
        let c = chars[i];
        let start_col = col;
        if c == '\n' {
            toks.push(Tok {
                kind: TokKind::Newline,
                line,
                col,
                spaced,
            });
            i += 1;
            line = line.saturating_add(1);
            col = 1;
            spaced = true;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col = col.saturating_add(1);
            spaced = true;
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        let begin = i;
        let kind = if c.is_ascii_alphabetic() || c == '_' {
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            TokKind::Ident(chars[begin..i].iter().collect())
        } else if c.is_ascii_digit() {
            i = number_end(&chars, i);
            TokKind::Number(chars[begin..i].iter().collect())
        } else if "()[]{},.+-|=:*".contains(c) {
            i += 1;
            TokKind::Punct(c)
        } else {
            return Err(AsmError::new(
                line,
                col,
                format!("unexpected character {c:?}"),
            ));
        };
        col = col.saturating_add((i - begin) as u32);
        toks.push(Tok {
            kind,
            line,
            col: start_col,
            spaced,
        });
        spaced = false;
    }
    toks.push(Tok {
        kind: TokKind::Newline,
        line,
        col,
        spaced: true,
    });
    Ok(toks)
}

fn number_end(chars: &[char], mut i: usize) -> usize {
    let at = |j: usize| chars.get(j).copied().unwrap_or('\0');
    if at(i) == '0' && (at(i + 1) == 'x' || at(i + 1) == 'X') {
        i += 2;
        while at(i).is_ascii_hexdigit() {
            i += 1;
        }
    } else {
        while at(i).is_ascii_digit() {
            i += 1;
        }
        if at(i) == '.' && at(i + 1).is_ascii_digit() {
            i += 1;
            while at(i).is_ascii_digit() {
                i += 1;
            }
        }
        if (at(i) == 'e' || at(i) == 'E')
            && (at(i + 1).is_ascii_digit()
                || ((at(i + 1) == '-' || at(i + 1) == '+') && at(i + 2).is_ascii_digit()))
        {
            i += 2;
            while at(i).is_ascii_digit() {
                i += 1;
            }
        }
    }
    while at(i).is_ascii_alphanumeric() || at(i) == '_' {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<TokKind> {
        lex(s).unwrap().into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn lexes_operands_and_numbers() {
        use TokKind::*;
        assert_eq!(
            kinds("mov r0.x, l(-1.5e3)"),
            vec![
                Ident("mov".into()),
                Ident("r0".into()),
                Punct('.'),
                Ident("x".into()),
                Punct(','),
                Ident("l".into()),
                Punct('('),
                Punct('-'),
                Number("1.5e3".into()),
                Punct(')'),
                Newline
            ]
        );
        assert_eq!(
            kinds("0x1F 5i64"),
            vec![Number("0x1F".into()), Number("5i64".into()), Newline]
        );
    }

    #[test]
    fn positions_and_comments() {
        let t = lex("// hi\n  add r0\n").unwrap();
        assert_eq!(t[0].kind, TokKind::Newline);
        assert_eq!((t[1].line, t[1].col), (2, 3));
        assert_eq!((t[2].line, t[2].col), (2, 7));
        let e = lex("mov r0 @").unwrap_err();
        assert_eq!((e.line, e.col), (1, 8));
    }
}
