//! Declaration statements: `dcl_*` lines → [`Decl`].
//!
//! In: the parser positioned after a declaration mnemonic. Out: the typed
//! declaration, with the operand conventions of the decoder (global flags at
//! token bit positions, a pre-5.1 constant-buffer size equal to the
//! operand's second index, SM5.1 ranges as three indices). Invariant: reads
//! exactly what the printer writes for each `Decl` variant.

use super::{literal_bits32, names, parse_u32, suffix_components, Parser, Role, R};
use crate::asm::lexer::TokKind;
use crate::asm::AsmError;
use crate::ir::{Components, Decl, Index, Opcode, Operand, Selection, UavFlags};
use crate::ir::{
    ConstantBufferDecl, InterfaceDecl, StructuredUavDecl, TypedResourceDecl, TypedUavDecl,
};

impl Parser {
    /// A declaration's register operand (masks by default; SM5.1 ranges).
    fn decl_operand(&mut self, default: Option<Components>) -> R<Operand> {
        let neg = self.eat('-');
        let abs = self.eat('|');
        let t = self.peek().clone();
        let (w, _, _) = self.ident("a register")?;
        let mut op = self.register(&w, &t, true)?;
        if let Some(c) = default {
            op.comps = c;
        } else if self.sm51 && crate::asm::print::is_sm51_range(&op) {
            op.comps = Components::Four(Selection::Swizzle([0, 1, 2, 3]));
        }
        if self.eat('.') {
            let st = self.peek().clone();
            let (s, _) = self.letters_word()?;
            op.comps = suffix_components(&s, Role::Dst).ok_or_else(|| {
                AsmError::new(st.line, st.col, format!("bad component suffix `.{s}`"))
            })?;
        }
        self.finish_operand(op, neg, abs)
    }

    fn comma(&mut self) -> R<()> {
        self.expect(',', "between declaration fields")
    }

    fn space(&mut self) -> R<u32> {
        Ok(self.named_value("space")?.unwrap_or(0))
    }

    pub(super) fn decl(&mut self, word: &str, line: u32, col: u32) -> R<Decl> {
        let unknown = || AsmError::new(line, col, format!("unknown declaration `{word}`"));
        Ok(match word {
            "dcl_globalFlags" => Decl::GlobalFlags(self.global_flags()?),
            "dcl_temps" => Decl::Temps(self.u32_value("a temp count")?),
            "dcl_indexableTemp" => {
                let t = self.peek().clone();
                let (w, _, _) = self.ident("`x#[n]`")?;
                let reg = w.strip_prefix('x').and_then(parse_u32).ok_or_else(|| {
                    AsmError::new(t.line, t.col, format!("expected `x#`, found `{w}`"))
                })?;
                self.expect('[', "before the length")?;
                let len = self.u32_value("a length")?;
                self.expect(']', "after the length")?;
                self.comma()?;
                let comps = self.u32_value("a component count")?;
                Decl::IndexableTemp { reg, len, comps }
            }
            "dcl_thread_group" => {
                let x = self.u32_value("a thread count")?;
                self.comma()?;
                let y = self.u32_value("a thread count")?;
                self.comma()?;
                let z = self.u32_value("a thread count")?;
                Decl::ThreadGroup([x, y, z])
            }
            "dcl_input" => Decl::Input(self.decl_operand(None)?),
            "dcl_output" => Decl::Output(self.decl_operand(None)?),
            "dcl_input_sgv" | "dcl_input_siv" | "dcl_output_sgv" | "dcl_output_siv" => {
                let op = self.decl_operand(None)?;
                self.comma()?;
                let name = self.sysvalue()?;
                match word {
                    "dcl_input_sgv" => Decl::InputSgv { op, name },
                    "dcl_input_siv" => Decl::InputSiv { op, name },
                    "dcl_output_sgv" => Decl::OutputSgv { op, name },
                    _ => Decl::OutputSiv { op, name },
                }
            }
            "dcl_input_ps" | "dcl_input_ps_sgv" | "dcl_input_ps_siv" => self.input_ps(word)?,
            "dcl_constantbuffer" => self.cbuffer()?,
            "dcl_immediateConstantBuffer" => Decl::ImmediateConstantBuffer(self.icb()?),
            "dcl_sampler" => {
                let op = self.decl_operand(None)?;
                self.comma()?;
                let (m, l, c) = self.ident("a sampler mode")?;
                let mode = match names::SAMPLER_MODES.iter().position(|s| *s == m) {
                    Some(i) => i as u32,
                    None => m.strip_prefix("mode").and_then(parse_u32).ok_or_else(|| {
                        AsmError::new(l, c, format!("unknown sampler mode `{m}`"))
                    })?,
                };
                Decl::Sampler {
                    op,
                    mode,
                    space: self.space()?,
                }
            }
            "dcl_resource_raw" | "dcl_resource_raw_buffer" => {
                let op = self.decl_operand(None)?;
                Decl::ResourceRaw {
                    op,
                    space: self.space()?,
                    buffer_dim: word.ends_with("_buffer"),
                }
            }
            "dcl_resource_structured" | "dcl_resource_structured_buffer" => {
                let op = self.decl_operand(None)?;
                self.comma()?;
                let stride = self.u32_value("a stride")?;
                Decl::ResourceStructured {
                    op,
                    stride,
                    space: self.space()?,
                    buffer_dim: word.ends_with("_buffer"),
                }
            }
            "dcl_tgsm_raw" => {
                let op = self.decl_operand(None)?;
                self.comma()?;
                Decl::TgsmRaw {
                    op,
                    bytes: self.u32_value("a byte count")?,
                }
            }
            "dcl_tgsm_structured" => {
                let op = self.decl_operand(None)?;
                self.comma()?;
                let stride = self.u32_value("a stride")?;
                self.comma()?;
                Decl::TgsmStructured {
                    op,
                    stride,
                    count: self.u32_value("a count")?,
                }
            }
            "dcl_indexRange" => {
                let op = self.decl_operand(None)?;
                self.comma()?;
                Decl::IndexRange {
                    op,
                    count: self.u32_value("a register count")?,
                }
            }
            "dcl_function_body" => Decl::FunctionBody(self.numbered("fb")?),
            "dcl_function_table" => {
                let index = self.numbered("ft")?;
                let bodies = self.numbered_list("fb")?;
                Decl::FunctionTable { index, bodies }
            }
            "dcl_interface" | "dcl_interface_dynamicindexed" => {
                let index = self.numbered("fp")?;
                self.expect('[', "before the array length")?;
                let array_len = self.u32_value("an array length")?;
                self.expect(']', "after the array length")?;
                self.expect('[', "before the table length")?;
                let table_len = self.u32_value("a table length")?;
                self.expect(']', "after the table length")?;
                let tables = self.numbered_list("ft")?;
                let dynamic = word.ends_with("dynamicindexed");
                Decl::Interface(InterfaceDecl {
                    index,
                    dynamic,
                    table_len,
                    array_len,
                    tables,
                })
            }
            _ => {
                if let Some(rest) = word.strip_prefix("dcl_resource_") {
                    return self.resource(rest, line, col);
                }
                if let Some(rest) = word.strip_prefix("dcl_uav_") {
                    return self.uav(rest, line, col);
                }
                let opcode = Opcode::from_mnemonic(word)
                    .filter(|o| o.is_declaration() || *o == Opcode::CustomData)
                    .ok_or_else(unknown)?;
                self.raw_decl(opcode)?
            }
        })
    }

    fn global_flags(&mut self) -> R<u32> {
        let mut flags = 0u32;
        loop {
            let t = self.peek().clone();
            match &t.kind {
                TokKind::Ident(w) => {
                    flags |= names::global_flag_from_name(w).ok_or_else(|| {
                        AsmError::new(t.line, t.col, format!("unknown global flag `{w}`"))
                    })?;
                    self.bump();
                }
                TokKind::Number(_) => flags |= self.u32_value("a flag value")?,
                _ => {
                    return self.err(format!(
                        "expected a global flag, found {}",
                        Self::describe(&t)
                    ))
                }
            }
            if !self.eat('|') {
                return Ok(flags);
            }
        }
    }

    fn sysvalue(&mut self) -> R<u32> {
        if let TokKind::Number(_) = self.peek().kind {
            return self.u32_value("a system value");
        }
        let (w, l, c) = self.ident("a system-value name")?;
        names::sysvalue_from_name(&w)
            .ok_or_else(|| AsmError::new(l, c, format!("unknown system value `{w}`")))
    }

    fn input_ps(&mut self, word: &str) -> R<Decl> {
        let mut words = Vec::new();
        let start = self.peek().clone();
        while let TokKind::Ident(w) = &self.peek().kind {
            if !names::is_interp_word(w) {
                break;
            }
            words.push(w.clone());
            self.bump();
        }
        let refs: Vec<&str> = words.iter().map(|s| s.as_str()).collect();
        let interp = names::interp_from_words(&refs).ok_or_else(|| {
            AsmError::new(
                start.line,
                start.col,
                format!("unknown interpolation mode `{}`", refs.join(" ")),
            )
        })?;
        let op = self.decl_operand(None)?;
        if word == "dcl_input_ps" {
            return Ok(Decl::InputPs { op, interp });
        }
        self.comma()?;
        let name = self.sysvalue()?;
        Ok(if word == "dcl_input_ps_sgv" {
            Decl::InputPsSgv { op, interp, name }
        } else {
            Decl::InputPsSiv { op, interp, name }
        })
    }

    fn cbuffer(&mut self) -> R<Decl> {
        let cb_default = Some(Components::Four(Selection::Swizzle([0, 1, 2, 3])));
        let mut op = self.decl_operand(cb_default)?;
        let mut size = op.imm_index(1).unwrap_or(0);
        if self.sm51 && op.indices.len() == 4 {
            if let Some(Index::Imm32(s)) = op.indices.pop() {
                size = s;
            }
        }
        self.comma()?;
        let (w, l, c) = self.ident("`immediateIndexed` or `dynamicIndexed`")?;
        let dynamic = match w.as_str() {
            "immediateIndexed" => false,
            "dynamicIndexed" => true,
            _ => return Err(AsmError::new(l, c, format!("unknown access pattern `{w}`"))),
        };
        if let Some(s) = self.named_value("size")? {
            size = s;
        }
        let space = self.space()?;
        Ok(Decl::ConstantBuffer(ConstantBufferDecl {
            op,
            dynamic,
            size,
            space,
        }))
    }

    fn icb(&mut self) -> R<Vec<u32>> {
        let open = self.peek().clone();
        let unterminated = |p: &Parser| {
            let t = p.peek();
            AsmError::new(
                t.line,
                t.col,
                format!(
                    "unterminated dcl_immediateConstantBuffer (opened at {}:{}): found {}",
                    open.line,
                    open.col,
                    Self::describe(t)
                ),
            )
        };
        self.expect('{', "to open the immediate constant buffer")?;
        let mut vals = Vec::new();
        self.skip_newlines();
        if self.eat('}') {
            return Ok(vals);
        }
        loop {
            self.skip_newlines();
            if !self.eat('{') {
                return Err(unterminated(self));
            }
            let mut n = 0;
            loop {
                self.skip_newlines();
                let (text, t) = self.signed_literal().map_err(|_| unterminated(self))?;
                let v = literal_bits32(&text).ok_or_else(|| {
                    AsmError::new(
                        t.line,
                        t.col,
                        format!("`{text}` is not a valid 32-bit value"),
                    )
                })?;
                vals.push(v);
                n += 1;
                self.skip_newlines();
                if self.eat('}') {
                    break;
                }
                if n >= 4 || !self.eat(',') {
                    return Err(unterminated(self));
                }
            }
            self.skip_newlines();
            if self.eat('}') {
                return Ok(vals);
            }
            if !self.eat(',') {
                return Err(unterminated(self));
            }
        }
    }

    fn resource(&mut self, rest: &str, line: u32, col: u32) -> R<Decl> {
        let dim = names::dim_from_name(rest).ok_or_else(|| {
            AsmError::new(
                line,
                col,
                format!("unknown declaration `dcl_resource_{rest}`"),
            )
        })?;
        let mut sample_count = 0;
        if self.is_punct('(') && !self.peek().spaced {
            self.bump();
            sample_count = self.u32_value("a sample count")?;
            self.expect(')', "after the sample count")?;
        }
        self.expect('(', "before the return types")?;
        let ret = self.ret_types_body()?;
        let op = self.decl_operand(None)?;
        Ok(Decl::Resource(TypedResourceDecl {
            op,
            dim,
            sample_count,
            ret,
            space: self.space()?,
        }))
    }

    fn uav(&mut self, rest: &str, line: u32, col: u32) -> R<Decl> {
        let mut flags = UavFlags::default();
        let mut base = rest;
        let mut buffer_dim = false;
        loop {
            if let Some(b) = base.strip_suffix("_glc") {
                flags.globally_coherent = true;
                base = b;
            } else if let Some(b) = base.strip_suffix("_opc") {
                flags.order_preserving_counter = true;
                base = b;
            } else if let Some(b) = base.strip_suffix("_rov") {
                flags.rasterizer_ordered = true;
                base = b;
            } else if let Some(b) = base
                .strip_suffix("_buffer")
                .filter(|b| matches!(*b, "raw" | "structured"))
            {
                // vkd3d-shader's dimension bits (`Decl::UavRaw::buffer_dim`).
                buffer_dim = true;
                base = b;
            } else {
                break;
            }
        }
        let unknown = || AsmError::new(line, col, format!("unknown declaration `dcl_uav_{rest}`"));
        match base {
            "raw" => {
                let op = self.decl_operand(None)?;
                Ok(Decl::UavRaw {
                    op,
                    flags,
                    buffer_dim,
                    space: self.space()?,
                })
            }
            "structured" => {
                let op = self.decl_operand(None)?;
                self.comma()?;
                let stride = self.u32_value("a stride")?;
                Ok(Decl::UavStructured(StructuredUavDecl {
                    op,
                    stride,
                    flags,
                    buffer_dim,
                    space: self.space()?,
                }))
            }
            _ => {
                let dim = base
                    .strip_prefix("typed_")
                    .and_then(names::dim_from_name)
                    .ok_or_else(unknown)?;
                self.expect('(', "before the return types")?;
                let ret = self.ret_types_body()?;
                let op = self.decl_operand(None)?;
                Ok(Decl::UavTyped(TypedUavDecl {
                    op,
                    dim,
                    flags,
                    ret,
                    space: self.space()?,
                }))
            }
        }
    }

    fn numbered(&mut self, prefix: &str) -> R<u32> {
        let (w, l, c) = self.ident(&format!("`{prefix}#`"))?;
        w.strip_prefix(prefix)
            .and_then(parse_u32)
            .ok_or_else(|| AsmError::new(l, c, format!("expected `{prefix}#`, found `{w}`")))
    }

    fn numbered_list(&mut self, prefix: &str) -> R<Vec<u32>> {
        self.expect('=', "before the list")?;
        self.expect('{', "to open the list")?;
        let mut v = Vec::new();
        if self.eat('}') {
            return Ok(v);
        }
        loop {
            v.push(self.numbered(prefix)?);
            if self.eat('}') {
                return Ok(v);
            }
            self.expect(',', "between list entries")?;
        }
    }

    fn raw_decl(&mut self, opcode: Opcode) -> R<Decl> {
        self.keyword("raw")?;
        self.expect('(', "after `raw`")?;
        let controls = self.u32_value("the control bits")?;
        let mut body = Vec::new();
        while self.eat(',') {
            body.push(self.u32_value("a DWORD")?);
        }
        self.expect(')', "to close `raw(`")?;
        Ok(Decl::Other {
            opcode,
            controls,
            body,
        })
    }
}
