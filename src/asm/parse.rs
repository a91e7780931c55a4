//! Listing text → [`Program`].
//!
//! In: fxc listing text (comment header, blank lines, any whitespace, the
//! slot-count trailer) or our printer's output. Out: the same `Program` the
//! DXBC decoder builds for those tokens, or an [`AsmError`] at the exact
//! `line:column` of the offending token.
//!
//! Literals decide their own bits: `0x…` is raw bits, a number with `.` or
//! an exponent is an f32 (f64 in `d(…)`), a plain integer is its two's
//! complement. Component suffixes are read by role (destinations take masks,
//! sources swizzles or select-1); see [`super::names`] for our explicit forms.

use super::lexer::{lex, Tok, TokKind};
use super::names::{self, COMPONENTS};
use super::print::takes_test;
use super::AsmError;
use crate::ir::{
    Components, ExtOpcode, Index, Instruction, Modifier, Opcode, Operand, OperandType, Program,
    ProgramKind, ReturnType, Selection, Version,
};

/// Parses a whole listing.
pub fn parse_program(text: &str) -> Result<Program, AsmError> {
    let toks = lex(text)?;
    let mut p = Parser {
        toks,
        pos: 0,
        sm51: false,
        depth: 0,
    };
    p.skip_newlines();
    let version = p.version()?;
    p.sm51 = version.is_sm51();
    let mut prog = Program {
        version,
        decls: Vec::new(),
        insts: Vec::new(),
    };
    loop {
        p.skip_newlines();
        if p.pos + 1 >= p.toks.len() {
            break;
        }
        let (word, line, col) = p.ident("a declaration or instruction")?;
        if word.starts_with("dcl_") || word == "customdata" {
            let d = p.decl(&word, line, col)?;
            prog.decls.push(d);
        } else {
            let i = p.inst(&word, line, col)?;
            prog.insts.push(i);
        }
        p.end_of_line()?;
    }
    Ok(prog)
}

/// The bits of a 32-bit literal as written (`-1`, `0x3f800000`, `1.500000`).
pub(crate) fn literal_bits32(text: &str) -> Option<u32> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let v = u32::from_str_radix(h, 16).ok()?;
        return Some(if neg { v.wrapping_neg() } else { v });
    }
    if is_float_text(body) {
        let f: f32 = body.parse().ok()?;
        return Some(if neg { (-f).to_bits() } else { f.to_bits() });
    }
    if !body.bytes().all(|b| b.is_ascii_digit()) || body.is_empty() {
        return None;
    }
    let v: i64 = body.parse().ok()?;
    let v = if neg { -v } else { v };
    if (i32::MIN as i64..=u32::MAX as i64).contains(&v) {
        Some(v as u32)
    } else {
        None
    }
}

/// The bits of a 64-bit literal as written in `d(…)`.
pub(crate) fn literal_bits64(text: &str) -> Option<u64> {
    let (neg, body) = match text.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, text),
    };
    if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let v = u64::from_str_radix(h, 16).ok()?;
        return Some(if neg { v.wrapping_neg() } else { v });
    }
    if !body.bytes().all(|b| {
        b.is_ascii_digit() || b == b'.' || b == b'e' || b == b'E' || b == b'-' || b == b'+'
    }) {
        return None;
    }
    let f: f64 = body.parse().ok()?;
    Some(if neg { (-f).to_bits() } else { f.to_bits() })
}

fn is_float_text(s: &str) -> bool {
    !s.starts_with("0x") && (s.contains('.') || s.contains('e') || s.contains('E'))
}

mod decl;

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    sm51: bool,
    /// Nesting of relative indices being parsed (bounded: see [`MAX_NESTING`]).
    depth: u32,
}

/// Relative indices may nest this deep (the format allows one level; a
/// little slack keeps odd but finite inputs readable without deep recursion).
const MAX_NESTING: u32 = 8;

type R<T> = Result<T, AsmError>;

/// Which default spelling a component suffix follows.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Dst,
    Src,
}

/// Parsed instruction-name suffixes.
#[derive(Default)]
struct Suffixes {
    controls: u32,
    test: bool,
    pending: Vec<Group>,
}

/// A parenthesised group that a suffix announced.
#[derive(Clone, Copy)]
enum Group {
    Offsets,
    Dim,
}

impl Parser {
    // -- token helpers ------------------------------------------------------

    fn peek(&self) -> &Tok {
        let i = self.pos.min(self.toks.len() - 1);
        &self.toks[i]
    }

    fn peek_at(&self, k: usize) -> &Tok {
        let i = (self.pos + k).min(self.toks.len() - 1);
        &self.toks[i]
    }

    fn bump(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.pos < self.toks.len() - 1 {
            self.pos += 1;
        }
        t
    }

    fn err<T>(&self, msg: impl Into<String>) -> R<T> {
        let t = self.peek();
        Err(AsmError::new(t.line, t.col, msg))
    }

    fn err_at<T>(&self, t: &Tok, msg: impl Into<String>) -> R<T> {
        Err(AsmError::new(t.line, t.col, msg))
    }

    fn describe(t: &Tok) -> String {
        match &t.kind {
            TokKind::Ident(s) => format!("`{s}`"),
            TokKind::Number(s) => format!("number `{s}`"),
            TokKind::Punct(c) => format!("`{c}`"),
            TokKind::Newline => "end of line".into(),
        }
    }

    fn skip_newlines(&mut self) {
        while self.peek().kind == TokKind::Newline && self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek().kind == TokKind::Punct(c)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char, what: &str) -> R<()> {
        if self.eat(c) {
            Ok(())
        } else {
            let d = Self::describe(self.peek());
            self.err(format!("expected `{c}` {what}, found {d}"))
        }
    }

    fn ident(&mut self, what: &str) -> R<(String, u32, u32)> {
        let t = self.peek().clone();
        match t.kind {
            TokKind::Ident(s) => {
                self.bump();
                Ok((s, t.line, t.col))
            }
            _ => self.err(format!("expected {what}, found {}", Self::describe(&t))),
        }
    }

    fn keyword(&mut self, kw: &str) -> R<()> {
        let (w, l, c) = self.ident(&format!("`{kw}`"))?;
        if w == kw {
            Ok(())
        } else {
            Err(AsmError::new(l, c, format!("expected `{kw}`, found `{w}`")))
        }
    }

    fn end_of_line(&mut self) -> R<()> {
        if self.peek().kind == TokKind::Newline {
            self.bump();
            Ok(())
        } else {
            let d = Self::describe(self.peek());
            self.err(format!("expected end of line, found {d}"))
        }
    }

    fn number_text(&mut self, what: &str) -> R<(String, Tok)> {
        let t = self.peek().clone();
        match &t.kind {
            TokKind::Number(s) => {
                let s = s.clone();
                self.bump();
                Ok((s, t))
            }
            _ => self.err(format!("expected {what}, found {}", Self::describe(&t))),
        }
    }

    fn u32_value(&mut self, what: &str) -> R<u32> {
        let (s, t) = self.number_text(what)?;
        parse_u32(&s).ok_or_else(|| {
            AsmError::new(
                t.line,
                t.col,
                format!("{what} `{s}` is not a 32-bit unsigned number"),
            )
        })
    }

    /// `, NAME=value` (e.g. `, space=0`) if present.
    fn named_value(&mut self, name: &str) -> R<Option<u32>> {
        if self.is_punct(',') && self.peek_at(1).kind == TokKind::Ident(name.into()) {
            self.bump();
            self.bump();
            self.expect('=', &format!("after `{name}`"))?;
            return Ok(Some(self.u32_value(name)?));
        }
        Ok(None)
    }

    // -- version ------------------------------------------------------------

    fn version(&mut self) -> R<Version> {
        let (w, l, c) = self.ident("the shader model (e.g. `cs_5_0`)")?;
        let bad = || AsmError::new(l, c, format!("`{w}` is not a shader model (e.g. `cs_5_0`)"));
        let parts: Vec<&str> = w.split('_').collect();
        let [kind, major, minor] = parts[..] else {
            return Err(bad());
        };
        let kind = (0..6)
            .filter_map(ProgramKind::from_u32)
            .find(|k| k.prefix() == kind)
            .ok_or_else(bad)?;
        let major: u8 = major.parse().map_err(|_| bad())?;
        let minor: u8 = minor.parse().map_err(|_| bad())?;
        if major > 15 || minor > 15 {
            return Err(bad());
        }
        self.end_of_line()?;
        Ok(Version { kind, major, minor })
    }

    // -- instructions -------------------------------------------------------

    fn inst(&mut self, word: &str, line: u32, col: u32) -> R<Instruction> {
        let (opcode, mut sfx) = split_mnemonic(word)
            .ok_or_else(|| AsmError::new(line, col, format!("unknown instruction `{word}`")))?;
        let mut inst = Instruction::new(opcode, Vec::new());
        let mut precise = self.precise()?;
        self.suffix_groups(&mut inst, &mut sfx)?;
        if precise == 0 {
            precise = self.precise()?;
        }
        inst.controls |= (precise as u32) << 8;
        if takes_test(opcode) != sfx.test && sfx.test {
            return Err(AsmError::new(
                line,
                col,
                format!("`{word}`: `_z`/`_nz` not allowed here"),
            ));
        }
        inst.controls |= sfx.controls;
        let ndst = opcode.dst_count();
        if self.peek().kind != TokKind::Newline {
            loop {
                let role = if inst.operands.len() < ndst {
                    Role::Dst
                } else {
                    Role::Src
                };
                inst.operands.push(self.operand(role, None)?);
                if !self.eat(',') {
                    break;
                }
            }
        }
        if let Some(n) = opcode.operand_count() {
            if n != inst.operands.len() {
                return Err(AsmError::new(
                    line,
                    col,
                    format!(
                        "`{word}` takes {n} operand(s), found {}",
                        inst.operands.len()
                    ),
                ));
            }
        }
        Ok(inst)
    }

    /// `[precise(xy)]` or `[precise]` (all four) if present: the mask.
    fn precise(&mut self) -> R<u8> {
        if !(self.is_punct('[') && self.peek_at(1).kind == TokKind::Ident("precise".into())) {
            return Ok(0);
        }
        self.bump();
        self.bump();
        let mask = if self.eat('(') {
            let (l, lt) = self.letters_word()?;
            self.expect(')', "after the precise mask")?;
            match mask_from_letters(&l) {
                Some(m) if m != 0 => m,
                _ => return self.err_at(&lt, format!("bad precise mask `{l}`")),
            }
        } else {
            0xF
        };
        self.expect(']', "after `precise`")?;
        Ok(mask)
    }

    /// The `(…)` groups and `_suffix` words glued to a mnemonic.
    fn suffix_groups(&mut self, inst: &mut Instruction, sfx: &mut Suffixes) -> R<()> {
        loop {
            let t = self.peek().clone();
            if t.spaced {
                return Ok(());
            }
            match &t.kind {
                TokKind::Punct('(') => {
                    self.bump();
                    let e = if sfx.pending.is_empty() {
                        ExtOpcode::ReturnType(self.ret_types_body()?)
                    } else {
                        match sfx.pending.remove(0) {
                            Group::Offsets => self.offsets_body()?,
                            Group::Dim => self.dim_body()?,
                        }
                    };
                    inst.ext.push(e);
                }
                TokKind::Ident(w) if w.starts_with('_') => {
                    let more = parse_suffixes(w, inst.opcode).ok_or_else(|| {
                        AsmError::new(t.line, t.col, format!("unknown suffix `{w}`"))
                    })?;
                    self.bump();
                    sfx.controls |= more.controls;
                    sfx.test |= more.test;
                    sfx.pending.extend(more.pending);
                }
                _ => return Ok(()),
            }
        }
    }

    fn offsets_body(&mut self) -> R<ExtOpcode> {
        let mut o = [0i8; 3];
        for (i, slot) in o.iter_mut().enumerate() {
            if i > 0 {
                self.expect(',', "between texel offsets")?;
            }
            let neg = self.eat('-');
            let (s, t) = self.number_text("a texel offset")?;
            let v: i32 = s
                .parse()
                .map_err(|_| AsmError::new(t.line, t.col, format!("bad texel offset `{s}`")))?;
            let v = if neg { -v } else { v };
            if !(-8..=7).contains(&v) {
                return self.err_at(&t, format!("texel offset {v} is outside -8..7"));
            }
            *slot = v as i8;
        }
        self.expect(')', "after the texel offsets")?;
        Ok(ExtOpcode::SampleControls(o))
    }

    fn dim_body(&mut self) -> R<ExtOpcode> {
        let (w, l, c) = self.ident("a resource dimension")?;
        let dim = names::dim_from_name(&w)
            .ok_or_else(|| AsmError::new(l, c, format!("unknown resource dimension `{w}`")))?;
        let stride = self.named_value("stride")?.unwrap_or(0);
        self.expect(')', "after the resource dimension")?;
        Ok(ExtOpcode::ResourceDim { dim, stride })
    }

    /// `float,float,float,float)` after the opening parenthesis.
    fn ret_types_body(&mut self) -> R<[ReturnType; 4]> {
        let mut r = [ReturnType::Float; 4];
        for (i, slot) in r.iter_mut().enumerate() {
            if i > 0 {
                self.expect(',', "between return types")?;
            }
            let (w, l, c) = self.ident("a return type")?;
            *slot = names::ret_from_name(&w)
                .ok_or_else(|| AsmError::new(l, c, format!("unknown return type `{w}`")))?;
        }
        self.expect(')', "after the return types")?;
        Ok(r)
    }

    // -- operands -----------------------------------------------------------

    /// One operand with modifiers and tags; `default` overrides the
    /// components an operand without a suffix gets.
    fn operand(&mut self, role: Role, default: Option<Components>) -> R<Operand> {
        let neg = self.eat('-');
        let abs = self.eat('|');
        let op = self.operand_core(role, default)?;
        self.finish_operand(op, neg, abs)
    }

    fn operand_core(&mut self, role: Role, default: Option<Components>) -> R<Operand> {
        let t = self.peek().clone();
        let TokKind::Ident(w) = &t.kind else {
            return self.err(format!("expected an operand, found {}", Self::describe(&t)));
        };
        let w = w.clone();
        self.bump();
        let glued_paren = self.is_punct('(') && !self.peek().spaced;
        let mut op = if w == "l" && glued_paren {
            self.imm32()?
        } else if w == "d" && glued_paren {
            self.imm64()?
        } else if w == "null" {
            Operand::new(OperandType::Null, Components::Zero)
        } else {
            self.register(&w, &t, false)?
        };
        op.comps = match default {
            Some(c) if !self.is_punct('.') => c,
            _ => op.comps,
        };
        if self.is_punct('.') {
            self.bump();
            let st = self.peek().clone();
            let (s, _) = self.letters_word()?;
            op.comps = suffix_components(&s, role).ok_or_else(|| {
                AsmError::new(st.line, st.col, format!("bad component suffix `.{s}`"))
            })?;
        }
        Ok(op)
    }

    /// A suffix word after `.` (letters like `xyzw`, or `mask_xy`).
    fn letters_word(&mut self) -> R<(String, Tok)> {
        let t = self.peek().clone();
        match &t.kind {
            TokKind::Ident(s) => {
                let s = s.clone();
                self.bump();
                Ok((s, t))
            }
            _ => self.err(format!("expected components, found {}", Self::describe(&t))),
        }
    }

    fn imm32(&mut self) -> R<Operand> {
        let vals = self.literal_list(literal_bits32, "32-bit")?;
        let comps = match vals.len() {
            1 => Components::One,
            4 => Components::Four(Selection::Mask(0)),
            n => return self.err(format!("an immediate takes 1 or 4 values, found {n}")),
        };
        let mut op = Operand::new(OperandType::Imm32, comps);
        op.imm = vals;
        Ok(op)
    }

    fn imm64(&mut self) -> R<Operand> {
        let vals = self.literal_list(literal_bits64, "64-bit")?;
        let comps = match vals.len() {
            1 => Components::One,
            2 => Components::Four(Selection::Mask(0)),
            n => return self.err(format!("a double immediate takes 1 or 2 values, found {n}")),
        };
        let mut op = Operand::new(OperandType::Imm64, comps);
        op.imm = vals
            .iter()
            .flat_map(|v| [*v as u32, (*v >> 32) as u32])
            .collect();
        Ok(op)
    }

    /// `(v, v, …)` of literals, each converted by `conv`.
    fn literal_list<T>(&mut self, conv: impl Fn(&str) -> Option<T>, what: &str) -> R<Vec<T>> {
        self.expect('(', "to open the immediate")?;
        let mut vals = Vec::new();
        loop {
            let (text, t) = self.signed_literal()?;
            let v = conv(&text).ok_or_else(|| {
                AsmError::new(
                    t.line,
                    t.col,
                    format!("`{text}` is not a valid {what} value"),
                )
            })?;
            vals.push(v);
            if vals.len() > 4 {
                return self.err_at(&t, "too many immediate values");
            }
            if !self.eat(',') {
                break;
            }
        }
        self.expect(')', "to close the immediate")?;
        Ok(vals)
    }

    fn signed_literal(&mut self) -> R<(String, Tok)> {
        let start = self.peek().clone();
        let neg = self.eat('-');
        let (s, _) = self.number_text("a number")?;
        Ok((if neg { format!("-{s}") } else { s }, start))
    }

    /// A register: prefix, inline number, `[index]`s. `ranges` accepts the
    /// SM5.1 declaration form `[lo:hi]`.
    fn register(&mut self, w: &str, t: &Tok, ranges: bool) -> R<Operand> {
        let prefix = w.trim_end_matches(|c: char| c.is_ascii_digit());
        let digits = &w[prefix.len()..];
        let ty = names::operand_type_from_prefix(prefix)
            .ok_or_else(|| AsmError::new(t.line, t.col, format!("unknown register `{w}`")))?;
        let comps = if names::default_one(ty) {
            Components::One
        } else {
            Components::Zero
        };
        let mut op = Operand::new(ty, comps);
        if !digits.is_empty() {
            let v = parse_u32(digits).ok_or_else(|| {
                AsmError::new(
                    t.line,
                    t.col,
                    format!("register number in `{w}` is out of range"),
                )
            })?;
            op.indices.push(Index::Imm32(v));
        }
        while self.is_punct('[') && !self.peek().spaced {
            self.bump();
            self.index(&mut op.indices, ranges)?;
            self.expect(']', "to close the index")?;
            if op.indices.len() > 4 {
                return self.err_at(t, "too many indices");
            }
        }
        Ok(op)
    }

    fn index(&mut self, out: &mut Vec<Index>, ranges: bool) -> R<()> {
        if let TokKind::Number(_) = self.peek().kind {
            let ix = self.imm_index()?;
            out.push(ix);
            if ranges && self.eat(':') {
                if self.eat('*') {
                    out.push(Index::Imm32(u32::MAX));
                } else {
                    let hi = self.u32_value("a range bound")?;
                    out.push(Index::Imm32(hi));
                }
            }
            return Ok(());
        }
        if self.depth >= MAX_NESTING {
            return self.err("relative indices nested too deeply");
        }
        self.depth += 1;
        let rel = self.operand(Role::Src, None);
        self.depth -= 1;
        let rel = Box::new(rel?);
        if self.eat('+') {
            if let TokKind::Number(n) = &self.peek().kind {
                if n == "0i32" {
                    self.bump();
                    out.push(Index::Imm32PlusRelative(0, rel));
                    return Ok(());
                }
            }
            match self.imm_index()? {
                Index::Imm32(0) => out.push(Index::Relative(rel)),
                Index::Imm32(v) => out.push(Index::Imm32PlusRelative(v, rel)),
                Index::Imm64(v) => out.push(Index::Imm64PlusRelative(v, rel)),
                _ => return self.err("bad index"),
            }
        } else {
            out.push(Index::Relative(rel));
        }
        Ok(())
    }

    fn imm_index(&mut self) -> R<Index> {
        let (s, t) = self.number_text("an index")?;
        if let Some(n) = s.strip_suffix("i64") {
            let v: u64 = n
                .parse()
                .map_err(|_| AsmError::new(t.line, t.col, format!("bad 64-bit index `{s}`")))?;
            return Ok(Index::Imm64(v));
        }
        parse_u32(&s)
            .map(Index::Imm32)
            .ok_or_else(|| AsmError::new(t.line, t.col, format!("index `{s}` is out of range")))
    }

    /// Closes `|…|`, applies the `-`/`|…|` modifier read before the
    /// register and reads the trailing tags.
    fn finish_operand(&mut self, mut op: Operand, neg: bool, abs: bool) -> R<Operand> {
        if abs {
            self.expect('|', "to close `|…|`")?;
        }
        op.modifier = match (neg, abs) {
            (false, false) => Modifier::None,
            (true, false) => Modifier::Neg,
            (false, true) => Modifier::Abs,
            (true, true) => Modifier::AbsNeg,
        };
        self.operand_tags(&mut op)?;
        Ok(op)
    }

    fn operand_tags(&mut self, op: &mut Operand) -> R<()> {
        while self.is_punct('{') {
            let TokKind::Ident(w) = self.peek_at(1).kind.clone() else {
                break;
            };
            let t = self.peek_at(1).clone();
            if w == "nonuniform" {
                op.nonuniform = true;
            } else if let Some(v) = names::min_precision_from_name(&w) {
                op.min_precision = v;
            } else {
                return self.err_at(&t, format!("unknown operand tag `{w}`"));
            }
            self.bump();
            self.bump();
            self.expect('}', "after the operand tag")?;
        }
        Ok(())
    }
}

fn parse_u32(s: &str) -> Option<u32> {
    if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        return u32::from_str_radix(h, 16).ok();
    }
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Splits `sync_g_t` into `sync` and its suffixes; longest base name first.
fn split_mnemonic(word: &str) -> Option<(Opcode, Suffixes)> {
    let mut cut = word.len();
    loop {
        let (base, rest) = word.split_at(cut);
        if let Some(op) = Opcode::from_mnemonic(base).filter(|o| !o.is_declaration()) {
            if let Some(s) = parse_suffixes(rest, op) {
                return Some((op, s));
            }
        }
        cut = word[..cut].rfind('_')?;
    }
}

/// `_sat_nz…`: the control bits and pending groups they stand for.
fn parse_suffixes(rest: &str, op: Opcode) -> Option<Suffixes> {
    let mut s = Suffixes::default();
    if rest.is_empty() {
        return Some(s);
    }
    let body = rest.strip_prefix('_')?;
    for part in body.split('_') {
        let bit = match (part, op) {
            ("sat", _) => 0x4,
            ("nz", o) if takes_test(o) => {
                s.test = true;
                0x80
            }
            ("z", o) if takes_test(o) => {
                s.test = true;
                0
            }
            ("uint", Opcode::ResInfo) => 0x2,
            ("rcpFloat", Opcode::ResInfo) => 0x1,
            ("rt3", Opcode::ResInfo) => 0x3,
            ("uint", Opcode::SampleInfo) => 0x1,
            ("t", Opcode::Sync) => 0x1,
            ("g", Opcode::Sync) => 0x2,
            ("ugroup", Opcode::Sync) => 0x4,
            ("uglobal", Opcode::Sync) => 0x8,
            ("aoffimmi", _) => {
                s.pending.push(Group::Offsets);
                0
            }
            (ctl, _) if ctl.starts_with("ctl") && ctl.len() > 3 => {
                u32::from_str_radix(&ctl[3..], 16)
                    .ok()
                    .filter(|v| *v < 1 << 13)?
            }
            ("indexable", _) => {
                s.pending.push(Group::Dim);
                0
            }
            _ => return None,
        };
        s.controls |= bit;
    }
    Some(s)
}

fn mask_from_letters(s: &str) -> Option<u8> {
    let mut m = 0u8;
    let mut last: i32 = -1;
    for ch in s.chars() {
        let i = COMPONENTS.iter().position(|c| *c == ch)? as i32;
        if i <= last {
            return None;
        }
        last = i;
        m |= 1 << i;
    }
    Some(m)
}

fn swizzle_from_letters(s: &str) -> Option<[u8; 4]> {
    let v: Vec<u8> = s
        .chars()
        .map(|ch| COMPONENTS.iter().position(|c| *c == ch).map(|i| i as u8))
        .collect::<Option<_>>()?;
    v.try_into().ok()
}

/// A component suffix word read by role.
fn suffix_components(s: &str, role: Role) -> Option<Components> {
    if s == "none" {
        return Some(Components::Zero);
    }
    if s == "scalar" {
        return Some(Components::One);
    }
    if let Some(l) = s.strip_prefix("mask_") {
        return mask_from_letters(l).map(|m| Components::Four(Selection::Mask(m)));
    }
    if s == "mask" {
        return None;
    }
    if let Some(l) = s.strip_prefix("swizzle_") {
        return swizzle_from_letters(l).map(|w| Components::Four(Selection::Swizzle(w)));
    }
    if let Some(l) = s.strip_prefix("select_") {
        let w = swizzle_from_letters(&format!("{l}{l}{l}{l}"))?;
        return (l.len() == 1).then_some(Components::Four(Selection::Select1(w[0])));
    }
    if s.is_empty() || s.len() > 4 {
        return None;
    }
    match role {
        Role::Dst => mask_from_letters(s).map(|m| Components::Four(Selection::Mask(m))),
        Role::Src => match s.len() {
            1 => swizzle_from_letters(&s.repeat(4))
                .map(|w| Components::Four(Selection::Select1(w[0]))),
            4 => swizzle_from_letters(s).map(|w| Components::Four(Selection::Swizzle(w))),
            _ => mask_from_letters(s).map(|m| Components::Four(Selection::Mask(m))),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Decl, ResourceDim};

    fn err_of(text: &str) -> (u32, u32, String) {
        let e = parse_program(text).unwrap_err();
        (e.line, e.col, e.message)
    }

    #[test]
    fn parses_a_small_listing() {
        let text = "//\n// header\ncs_5_0\ndcl_globalFlags refactoringAllowed\n\
                    dcl_uav_raw u0\ndcl_input vThreadIDInGroupFlattened\ndcl_input vThreadGroupID.x\n\
                    dcl_temps 1\ndcl_tgsm_raw g0, 4\ndcl_thread_group 32, 1, 1\n\
                    if_z vThreadIDInGroupFlattened.x\n  store_raw g0.x, l(0), vThreadGroupID.x\nendif \n\
                    sync_g_t\nld_raw r0.y, l(0), g0.xxxx\nret \n// Approximately 5 instruction slots used\n";
        let p = parse_program(text).unwrap();
        assert_eq!(p.version.to_string(), "cs_5_0");
        assert_eq!(p.decls.len(), 7);
        assert_eq!(p.decls[0], Decl::GlobalFlags(0x800));
        assert_eq!(p.insts.len(), 6);
        assert_eq!(p.insts[0].opcode, Opcode::If);
        assert!(!p.insts[0].test_nz());
        assert_eq!(
            p.insts[0].operands[0].comps,
            Components::Four(Selection::Select1(0))
        );
        assert_eq!(
            p.insts[1].operands[0].comps,
            Components::Four(Selection::Mask(1))
        );
        assert_eq!(p.insts[1].operands[1].imm, vec![0]);
        assert_eq!(p.insts[3].sync_flags(), 0x3);
        assert_eq!(
            p.insts[4].operands[2].comps,
            Components::Four(Selection::Swizzle([0; 4]))
        );
        let Decl::Input(op) = &p.decls[2] else {
            panic!()
        };
        assert_eq!(op.comps, Components::Zero);
    }

    #[test]
    fn parses_extended_mnemonics() {
        let text = "cs_5_0\nld_structured_indexable(structured_buffer, stride=16)(mixed,mixed,mixed,mixed) r0.xyzw, r0.x, l(0), t0.xyzw\n\
                    resinfo_indexable(texture2d)(float,float,float,float)_uint r0.xy, l(0), t0.xyzw\n\
                    sample_l_aoffimmi_indexable(1,-2,0)(texture2d)(float,float,float,float) r0.xyzw, r0.xy, t0.xyzw, s0, l(0.000000)\n\
                    mul_sat r0.x, -|r0.x|, x0[r1.x + 2].y\n";
        let p = parse_program(text).unwrap();
        assert_eq!(
            p.insts[0].ext,
            vec![
                ExtOpcode::ResourceDim {
                    dim: ResourceDim::StructuredBuffer,
                    stride: 16
                },
                ExtOpcode::ReturnType([ReturnType::Mixed; 4])
            ]
        );
        assert_eq!(p.insts[1].return_type_bits(), 2);
        assert_eq!(p.insts[2].texel_offsets(), [1, -2, 0]);
        assert!(p.insts[3].saturate());
        assert_eq!(p.insts[3].operands[1].modifier, Modifier::AbsNeg);
        let x = &p.insts[3].operands[2];
        assert_eq!(x.ty, OperandType::IndexableTemp);
        assert!(matches!(x.indices[1], Index::Imm32PlusRelative(2, _)));
    }

    #[test]
    fn crlf_tabs_and_trailer_are_accepted() {
        let text = "//\r\n// Generated by Microsoft (R) D3D Shader Disassembler\r\n\r\ncs_4_0\r\n\
                    dcl_globalFlags\trefactoringAllowed\r\n\tmov\tr0.x,\tl(1)\r\nret \r\n\
                    // Approximately 3 instruction slots used";
        let p = parse_program(text).unwrap();
        assert_eq!(p.version.to_string(), "cs_4_0");
        assert_eq!(p.insts.len(), 2);
        assert_eq!(p.insts[0].operands[1].imm, vec![1]);
    }

    #[test]
    fn literals() {
        assert_eq!(literal_bits32("-1"), Some(u32::MAX));
        assert_eq!(literal_bits32("-0.000000"), Some(0x8000_0000));
        assert_eq!(literal_bits32("0x0000cccc"), Some(0xcccc));
        assert_eq!(literal_bits32("4294967296"), None);
        assert_eq!(literal_bits32("-2147483649"), None);
        assert_eq!(literal_bits64("1.000000"), Some(1f64.to_bits()));
    }

    #[test]
    fn errors_have_positions() {
        assert_eq!(err_of("cs_5_0\nfoo r0.x\n").0, 2);
        assert_eq!(err_of("cs_5_0\nfoo r0.x\n").1, 1);
        let (l, c, m) = err_of("cs_5_0\nmov q0.x, r0.x\n");
        assert_eq!((l, c), (2, 5), "{m}");
        let (l, c, _) = err_of("cs_5_0\nmov r0.x, r0.xq\n");
        assert_eq!((l, c), (2, 14));
        let (l, c, _) = err_of("cs_5_0\nmov r0.yx, r0.x\n");
        assert_eq!((l, c), (2, 8));
        let (l, c, m) = err_of("cs_5_0\nmov r0.x\n");
        assert_eq!((l, c), (2, 1));
        assert!(m.contains("takes 2"), "{m}");
        let (l, c, _) = err_of("cs_5_0\nmov r0.x, l(99999999999)\n");
        assert_eq!((l, c), (2, 13));
        let (l, c, m) = err_of(
            "cs_4_0\ndcl_immediateConstantBuffer { { 1, 2, 3, 4},\n  { 5, 6, 7, 8}\ndcl_temps 1\n",
        );
        assert_eq!((l, c), (4, 1), "{m}");
        assert!(m.contains("unterminated"));
        let (l, c, _) = err_of("cs_5_0\nmov r0.x, r0.x,\n");
        assert_eq!((l, c), (2, 16));
        let (l, c, _) = err_of("cs_5_0\nmov r99999999999.x, r0.x\n");
        assert_eq!((l, c), (2, 5));
    }
}
