//! Program → fxc listing text.
//!
//! In: a [`Program`] and [`PrintOptions`]. Out: the text fxc's disassembler
//! prints for the same tokens (model line, declarations, indented
//! instructions), one statement per line.
//!
//! Invariant: with `exact = true` the text parses back to the same `Program`
//! (`parse_program(print_program(p)) == p`): any value whose fxc-style text
//! would not parse back to the same bits is printed as hex, and every
//! non-fxc form has a spelling of ours (see [`super::names`]).

use super::names::{self, COMPONENTS};
use crate::ir::opcode::TEST_NZ;
use crate::ir::ImmKind;
use crate::ir::{
    Components, Decl, ExtOpcode, Index, Instruction, Modifier, Opcode, Operand, OperandType,
    Program, ResourceDim, Selection, UavFlags,
};
use crate::ir::{ConstantBufferDecl, InterfaceDecl, TypedResourceDecl, TypedUavDecl};
use std::fmt::Write;

/// Which fxc generation's text to mimic where they differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ListingStyle {
    /// d3dcompiler_47 of the Windows 10 SDK (2015 CRT): exact float digits,
    /// `dcl_constantbuffer CB0[2]`.
    #[default]
    Modern,
    /// Older fxc (pre-2015 CRT): floats keep 17 significant digits then
    /// zeros, `dcl_constantbuffer cb0[2]`.
    Legacy,
}

/// Printer settings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrintOptions {
    /// Print values whose fxc text is lossy as hex so that the text parses
    /// back to the same bits.
    pub exact: bool,
    /// Which fxc's spelling to follow.
    pub style: ListingStyle,
}

/// Prints a whole program, one line per declaration or instruction.
pub fn print_program(p: &Program, opts: &PrintOptions) -> String {
    let pr = Printer {
        opts: *opts,
        sm51: p.version.is_sm51(),
    };
    let mut out = String::new();
    let _ = writeln!(out, "{}", p.version);
    for d in &p.decls {
        out.push_str(&pr.decl(d));
        out.push('\n');
    }
    let mut depth = 0usize;
    for inst in &p.insts {
        let (before, after) = indent_change(inst.opcode);
        depth = depth.saturating_sub(before);
        for _ in 0..depth {
            out.push_str("  ");
        }
        out.push_str(&pr.inst(inst));
        out.push('\n');
        depth += after;
    }
    out
}

/// How an instruction moves the indentation: (outdent before, indent after).
fn indent_change(op: Opcode) -> (usize, usize) {
    match op {
        Opcode::If | Opcode::Loop | Opcode::Switch => (0, 1),
        Opcode::Else => (1, 1),
        Opcode::EndIf | Opcode::EndLoop | Opcode::EndSwitch => (1, 0),
        _ => (0, 0),
    }
}

struct Printer {
    opts: PrintOptions,
    sm51: bool,
}

/// What a printed operand is, which decides its default component spelling.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Dst,
    Src,
}

impl Printer {
    // -- instructions -------------------------------------------------------

    fn inst(&self, inst: &Instruction) -> String {
        let mut s = self.mnemonic(inst);
        let ndst = inst.opcode.dst_count();
        let mut first = true;
        for (i, op) in inst.operands.iter().enumerate() {
            s.push_str(if first { " " } else { ", " });
            first = false;
            let role = if i < ndst { Role::Dst } else { Role::Src };
            let kind = inst.opcode.imm_kind(i.saturating_sub(ndst));
            s.push_str(&self.operand(op, role, kind));
        }
        s
    }

    fn mnemonic(&self, inst: &Instruction) -> String {
        let op = inst.opcode;
        let mut s = op.mnemonic().to_string();
        let c = inst.controls;
        if takes_test(op) {
            s.push_str(if c & 0x80 != 0 { "_nz" } else { "_z" });
        }
        if op == Opcode::Sync {
            for (bit, name) in [
                (0x8, "_uglobal"),
                (0x4, "_ugroup"),
                (0x2, "_g"),
                (0x1, "_t"),
            ] {
                if c & bit != 0 {
                    s.push_str(name);
                }
            }
        }
        s.push_str(&ext_text(&inst.ext));
        if op == Opcode::ResInfo {
            match c & 0x3 {
                1 => s.push_str("_rcpFloat"),
                2 => s.push_str("_uint"),
                3 => s.push_str("_rt3"),
                _ => {}
            }
        }
        if op == Opcode::SampleInfo && c & 0x1 != 0 {
            s.push_str("_uint");
        }
        if c & 0x4 != 0 {
            s.push_str("_sat");
        }
        // Bits outside the agreed rule (the decoder rejects them): ours, `_ctlHEX`.
        let rest = c & !known_controls(op);
        if rest != 0 {
            let _ = write!(s, "_ctl{rest:x}");
        }
        // fxc writes `[precise(xy)]` (`[precise]` for all four) after the
        // mnemonic's words and before its groups: `ld_indexable [precise](texture1d)…`.
        let precise = (c >> 8) & 0xF;
        if precise != 0 {
            let tag = if precise == 0xF {
                " [precise]".to_string()
            } else {
                format!(" [precise({})]", letters(precise as u8))
            };
            let at = s.find('(').unwrap_or(s.len());
            s.insert_str(at, &tag);
        }
        s
    }

    // -- operands -----------------------------------------------------------

    fn operand(&self, op: &Operand, role: Role, kind: ImmKind) -> String {
        let core = match op.ty {
            OperandType::Imm32 => self.imm32(op, kind),
            OperandType::Imm64 => self.imm64(op),
            _ => self.register(op),
        };
        let core = format!("{core}{}", self.comps_suffix(op, role));
        let mut s = match op.modifier {
            Modifier::None => core,
            Modifier::Neg => format!("-{core}"),
            Modifier::Abs => format!("|{core}|"),
            Modifier::AbsNeg => format!("-|{core}|"),
        };
        if op.min_precision != 0 {
            let _ = write!(s, " {{{}}}", names::min_precision_name(op.min_precision));
        }
        if op.nonuniform {
            s.push_str(" {nonuniform}");
        }
        s
    }

    fn register(&self, op: &Operand) -> String {
        self.register_named(op, self.sm51 && names::sm51_upper(op.ty))
    }

    fn register_named(&self, op: &Operand, upper: bool) -> String {
        let mut s = if upper {
            op.ty.prefix().to_ascii_uppercase()
        } else {
            op.ty.prefix().to_string()
        };
        let mut rest = &op.indices[..];
        if let (Some(Index::Imm32(v)), false) = (op.indices.first(), names::bracket_first(op.ty)) {
            let _ = write!(s, "{v}");
            rest = &op.indices[1..];
        }
        for ix in rest {
            let _ = write!(s, "[{}]", self.index(ix));
        }
        s
    }

    fn index(&self, ix: &Index) -> String {
        let rel = |o: &Operand| self.operand(o, Role::Src, ImmKind::Int);
        match ix {
            Index::Imm32(v) => v.to_string(),
            Index::Imm64(v) => format!("{v}i64"),
            // fxc spells a plain relative index `[r0.x + 0]` and never emits
            // an explicit `+ 0` immediate; that one is ours: `+ 0i32`.
            Index::Relative(o) => format!("{} + 0", rel(o)),
            Index::Imm32PlusRelative(0, o) => format!("{} + 0i32", rel(o)),
            Index::Imm32PlusRelative(v, o) => format!("{} + {v}", rel(o)),
            Index::Imm64PlusRelative(v, o) => format!("{} + {v}i64", rel(o)),
        }
    }

    /// The component suffix: default spellings by role, ours otherwise.
    fn comps_suffix(&self, op: &Operand, role: Role) -> String {
        let imm = matches!(op.ty, OperandType::Imm32 | OperandType::Imm64);
        if imm {
            // Immediates: the value count implies the components.
            let default = if imm_default_one(op) {
                Components::One
            } else {
                Components::Four(Selection::Mask(0))
            };
            return match op.comps {
                c if c == default => String::new(),
                Components::Zero => ".none".into(),
                Components::One => ".scalar".into(),
                Components::Four(sel) => selection_explicit(sel),
            };
        }
        match op.comps {
            Components::Zero => if names::default_one(op.ty) {
                ".none"
            } else {
                ""
            }
            .into(),
            Components::One => if names::default_one(op.ty) {
                ""
            } else {
                ".scalar"
            }
            .into(),
            Components::Four(sel) => match (role, sel) {
                (Role::Dst, Selection::Mask(m)) if m != 0 => format!(".{}", letters(m)),
                (Role::Src, Selection::Swizzle(sw)) => {
                    format!(
                        ".{}",
                        sw.iter()
                            .map(|c| COMPONENTS[(*c & 3) as usize])
                            .collect::<String>()
                    )
                }
                (Role::Src, Selection::Select1(c)) => format!(".{}", COMPONENTS[(c & 3) as usize]),
                (Role::Src, Selection::Mask(m)) if m != 0 && m.count_ones() != 1 && m != 0xF => {
                    format!(".{}", letters(m))
                }
                _ => selection_explicit(sel),
            },
        }
    }

    fn imm32(&self, op: &Operand, kind: ImmKind) -> String {
        let sep = if kind == ImmKind::Untyped { "," } else { ", " };
        let vals: Vec<String> = op.imm.iter().map(|v| self.imm32_value(*v, kind)).collect();
        format!("l({})", vals.join(sep))
    }

    /// One 32-bit immediate the way fxc prints it in context `kind`.
    pub(crate) fn imm32_value(&self, v: u32, kind: ImmKind) -> String {
        let text = match kind {
            ImmKind::Float => self.float32(v),
            ImmKind::Int => int_text(v),
            ImmKind::Untyped => {
                if small_int(v) {
                    (v as i32).to_string()
                } else if is_float_like(v) {
                    self.float32(v)
                } else {
                    format!("0x{v:08x}")
                }
            }
        };
        if self.opts.exact && super::parse::literal_bits32(&text) != Some(v) {
            format!("0x{v:08x}")
        } else {
            text
        }
    }

    fn float32(&self, v: u32) -> String {
        let f = f32::from_bits(v);
        if !f.is_finite() {
            return format!("0x{v:08x}");
        }
        fixed6(f as f64, self.opts.style)
    }

    fn imm64(&self, op: &Operand) -> String {
        let vals: Vec<String> = op
            .imm
            .chunks(2)
            .map(|c| {
                let bits = c[0] as u64 | (c.get(1).copied().unwrap_or(0) as u64) << 32;
                let f = f64::from_bits(bits);
                let text = if f.is_finite() {
                    fixed6(f, self.opts.style)
                } else {
                    format!("0x{bits:016x}")
                };
                let odd = c.len() != 2;
                if odd || (self.opts.exact && super::parse::literal_bits64(&text) != Some(bits)) {
                    if odd {
                        format!("0x{:08x}", c[0])
                    } else {
                        format!("0x{bits:016x}")
                    }
                } else {
                    text
                }
            })
            .collect();
        format!("d({})", vals.join(", "))
    }

    // -- declarations -------------------------------------------------------

    fn decl_op(&self, op: &Operand) -> String {
        let upper = self.sm51 && names::sm51_upper(op.ty);
        let suffix = if self.sm51 && is_sm51_range(op) {
            // SM5.1 range declarations carry a hidden `.xyzw` swizzle.
            cb_suffix(op)
        } else {
            self.comps_suffix(op, Role::Dst)
        };
        self.decl_op_with(op, upper, "", &suffix)
    }

    /// A declaration's register: SM5.1 ranges as `T0[lo:hi]`, then `extra`
    /// and the component suffix, inside any modifier, then the tags.
    fn decl_op_with(&self, op: &Operand, upper: bool, extra: &str, suffix: &str) -> String {
        let mut reg = match (&op.indices[..], self.sm51 && names::sm51_upper(op.ty)) {
            ([Index::Imm32(id), Index::Imm32(lo), Index::Imm32(hi)], true) => {
                let hi = if *hi == u32::MAX {
                    "*".to_string()
                } else {
                    hi.to_string()
                };
                let name = op.ty.prefix().to_ascii_uppercase();
                format!("{name}{id}[{lo}:{hi}]")
            }
            _ => self.register_named(op, upper),
        };
        reg.push_str(extra);
        reg.push_str(suffix);
        let mut s = match op.modifier {
            Modifier::None => reg,
            Modifier::Neg => format!("-{reg}"),
            Modifier::Abs => format!("|{reg}|"),
            Modifier::AbsNeg => format!("-|{reg}|"),
        };
        if op.min_precision != 0 {
            let _ = write!(s, " {{{}}}", names::min_precision_name(op.min_precision));
        }
        if op.nonuniform {
            s.push_str(" {nonuniform}");
        }
        s
    }

    fn space(&self, space: u32) -> String {
        if self.sm51 || space != 0 {
            format!(", space={space}")
        } else {
            String::new()
        }
    }

    fn decl(&self, d: &Decl) -> String {
        match d {
            Decl::GlobalFlags(f) => format!("dcl_globalFlags {}", names::global_flags_text(*f)),
            Decl::Temps(n) => format!("dcl_temps {n}"),
            Decl::IndexableTemp { reg, len, comps } => {
                format!("dcl_indexableTemp x{reg}[{len}], {comps}")
            }
            Decl::ThreadGroup([x, y, z]) => format!("dcl_thread_group {x}, {y}, {z}"),
            Decl::Input(op) => format!("dcl_input {}", self.decl_op(op)),
            Decl::InputSgv { op, name } => self.named_io("dcl_input_sgv", op, *name),
            Decl::InputSiv { op, name } => self.named_io("dcl_input_siv", op, *name),
            Decl::InputPs { op, interp } => {
                format!("dcl_input_ps{} {}", interp_words(*interp), self.decl_op(op))
            }
            Decl::InputPsSgv { op, interp, name } => format!(
                "dcl_input_ps_sgv{} {}, {}",
                interp_words(*interp),
                self.decl_op(op),
                names::sysvalue_name(*name)
            ),
            Decl::InputPsSiv { op, interp, name } => format!(
                "dcl_input_ps_siv{} {}, {}",
                interp_words(*interp),
                self.decl_op(op),
                names::sysvalue_name(*name)
            ),
            Decl::Output(op) => format!("dcl_output {}", self.decl_op(op)),
            Decl::OutputSgv { op, name } => self.named_io("dcl_output_sgv", op, *name),
            Decl::OutputSiv { op, name } => self.named_io("dcl_output_siv", op, *name),
            Decl::ConstantBuffer(cb) => self.cbuffer(cb),
            Decl::ImmediateConstantBuffer(v) => self.icb(v),
            Decl::Sampler { op, mode, space } => {
                let m = names::SAMPLER_MODES
                    .get(*mode as usize)
                    .map(|s| s.to_string())
                    .unwrap_or_else(|| format!("mode{mode}"));
                format!(
                    "dcl_sampler {}, {m}{}",
                    self.decl_op(op),
                    self.space(*space)
                )
            }
            Decl::Resource(r) => self.typed_resource(r),
            Decl::ResourceRaw {
                op,
                space,
                buffer_dim,
            } => {
                format!(
                    "dcl_resource_raw{} {}{}",
                    dim_suffix(*buffer_dim),
                    self.decl_op(op),
                    self.space(*space)
                )
            }
            Decl::ResourceStructured {
                op,
                stride,
                space,
                buffer_dim,
            } => format!(
                "dcl_resource_structured{} {}, {stride}{}",
                dim_suffix(*buffer_dim),
                self.decl_op(op),
                self.space(*space)
            ),
            Decl::UavTyped(u) => self.typed_uav(u),
            Decl::UavRaw {
                op,
                flags,
                space,
                buffer_dim,
            } => {
                format!(
                    "dcl_uav_raw{}{} {}{}",
                    dim_suffix(*buffer_dim),
                    uav_flags(flags),
                    self.decl_op(op),
                    self.space(*space)
                )
            }
            Decl::UavStructured(u) => format!(
                "dcl_uav_structured{}{} {}, {}{}",
                dim_suffix(u.buffer_dim),
                uav_flags(&u.flags),
                self.decl_op(&u.op),
                u.stride,
                self.space(u.space)
            ),
            Decl::TgsmRaw { op, bytes } => format!("dcl_tgsm_raw {}, {bytes}", self.decl_op(op)),
            Decl::TgsmStructured { op, stride, count } => {
                format!(
                    "dcl_tgsm_structured {}, {stride}, {count}",
                    self.decl_op(op)
                )
            }
            Decl::IndexRange { op, count } => {
                format!("dcl_indexRange {}, {count}", self.decl_op(op))
            }
            Decl::FunctionBody(i) => format!("dcl_function_body fb{i}"),
            Decl::FunctionTable { index, bodies } => {
                let b: Vec<String> = bodies.iter().map(|b| format!("fb{b}")).collect();
                format!("dcl_function_table ft{index} = {{{}}}", b.join(", "))
            }
            Decl::Interface(i) => interface(i),
            Decl::Other {
                opcode,
                controls,
                body,
            } => {
                let mut v = vec![format!("0x{controls:x}")];
                v.extend(body.iter().map(|d| format!("0x{d:08x}")));
                format!("{} raw({})", opcode.mnemonic(), v.join(", "))
            }
        }
    }

    fn typed_resource(&self, r: &TypedResourceDecl) -> String {
        let mut s = format!("dcl_resource_{}", names::dim_name(r.dim));
        if is_ms(r.dim) || r.sample_count != 0 {
            let _ = write!(s, "({})", r.sample_count);
        }
        let _ = write!(
            s,
            " {} {}{}",
            names::ret_list(&r.ret),
            self.decl_op(&r.op),
            self.space(r.space)
        );
        s
    }

    fn typed_uav(&self, u: &TypedUavDecl) -> String {
        format!(
            "dcl_uav_typed_{}{} {} {}{}",
            names::dim_name(u.dim),
            uav_flags(&u.flags),
            names::ret_list(&u.ret),
            self.decl_op(&u.op),
            self.space(u.space)
        )
    }

    fn named_io(&self, mnemonic: &str, op: &Operand, name: u32) -> String {
        format!(
            "{mnemonic} {}, {}",
            self.decl_op(op),
            names::sysvalue_name(name)
        )
    }

    fn cbuffer(&self, cb: &ConstantBufferDecl) -> String {
        let (op, size, space) = (&cb.op, cb.size, cb.space);
        let pattern = if cb.dynamic {
            "dynamicIndexed"
        } else {
            "immediateIndexed"
        };
        let suffix = cb_suffix(op);
        if self.sm51 {
            let reg = self.decl_op_with(op, true, &format!("[{size}]"), &suffix);
            return format!("dcl_constantbuffer {reg}, {pattern}{}", self.space(space));
        }
        let upper = self.opts.style == ListingStyle::Modern;
        let reg = self.decl_op_with(op, upper, "", &suffix);
        // Before SM5.1 the size is the operand's second index; ours if not.
        let implied = op.imm_index(1).unwrap_or(0);
        let size_text = if size != implied {
            format!(", size={size}")
        } else {
            String::new()
        };
        format!(
            "dcl_constantbuffer {reg}, {pattern}{size_text}{}",
            self.space(space)
        )
    }

    fn icb(&self, v: &[u32]) -> String {
        let mut s = String::from("dcl_immediateConstantBuffer {");
        let pad = " ".repeat(30);
        let rows: Vec<String> = v
            .chunks(4)
            .map(|row| {
                let vals: Vec<String> = row
                    .iter()
                    .map(|x| self.imm32_value(*x, ImmKind::Untyped))
                    .collect();
                format!("{{ {}}}", vals.join(", "))
            })
            .collect();
        if rows.is_empty() {
            s.push_str(" }");
            return s;
        }
        for (i, r) in rows.iter().enumerate() {
            if i == 0 {
                s.push(' ');
            } else {
                s.push_str(",\n");
                s.push_str(&pad);
            }
            s.push_str(r);
        }
        s.push_str(" }");
        s
    }
}

/// True for an SM5.1 declaration operand `T0[lo:hi]`: a resource-like type
/// with three immediate indices (range id, lower and upper bound).
pub(crate) fn is_sm51_range(op: &Operand) -> bool {
    names::sm51_upper(op.ty)
        && op.indices.len() == 3
        && op.indices.iter().all(|i| matches!(i, Index::Imm32(_)))
}

/// The component suffix of a declaration whose operand fxc writes with a
/// hidden `.xyzw` swizzle (constant buffers, SM5.1 ranges): none for that
/// swizzle, our explicit spelling otherwise.
fn cb_suffix(op: &Operand) -> String {
    match op.comps {
        Components::Four(Selection::Swizzle([0, 1, 2, 3])) => String::new(),
        Components::Four(sel) => selection_explicit(sel),
        Components::Zero => ".none".into(),
        Components::One => ".scalar".into(),
    }
}

/// The extended opcode tokens. fxc writes the words first and the groups
/// after, in token order: `_aoffimmi_indexable(-1,0,0)(texture2d)(float,…)`.
/// Any other order or repetition is written word-then-group per token
/// (`(uint,…)_indexable(buffer)`), which the parser reads the same way.
fn ext_text(ext: &[ExtOpcode]) -> String {
    let rank = |e: &ExtOpcode| match e {
        ExtOpcode::SampleControls(_) => 0,
        ExtOpcode::ResourceDim { .. } => 1,
        ExtOpcode::ReturnType(_) => 2,
    };
    let canonical = ext.windows(2).all(|w| rank(&w[0]) < rank(&w[1]));
    let word = |e: &ExtOpcode| match e {
        ExtOpcode::SampleControls(_) => "_aoffimmi",
        ExtOpcode::ResourceDim { .. } => "_indexable",
        ExtOpcode::ReturnType(_) => "",
    };
    let group = |e: &ExtOpcode| match e {
        ExtOpcode::SampleControls(o) => format!("({},{},{})", o[0], o[1], o[2]),
        ExtOpcode::ResourceDim { dim, stride } => {
            if *dim == ResourceDim::StructuredBuffer || *stride != 0 {
                format!("({}, stride={stride})", names::dim_name(*dim))
            } else {
                format!("({})", names::dim_name(*dim))
            }
        }
        ExtOpcode::ReturnType(r) => names::ret_list(r),
    };
    if canonical {
        let words: String = ext.iter().map(word).collect();
        let groups: String = ext.iter().map(group).collect();
        words + &groups
    } else {
        ext.iter()
            .map(|e| format!("{}{}", word(e), group(e)))
            .collect()
    }
}

fn selection_explicit(sel: Selection) -> String {
    match sel {
        Selection::Mask(m) => format!(".mask_{}", letters(m)),
        Selection::Swizzle(sw) => {
            format!(
                ".swizzle_{}",
                sw.iter()
                    .map(|c| COMPONENTS[(*c & 3) as usize])
                    .collect::<String>()
            )
        }
        Selection::Select1(c) => format!(".select_{}", COMPONENTS[(c & 3) as usize]),
    }
}

fn imm_default_one(op: &Operand) -> bool {
    match op.ty {
        OperandType::Imm64 => op.imm.len() == 2,
        _ => op.imm.len() == 1,
    }
}

fn letters(m: u8) -> String {
    (0..4)
        .filter(|i| m & (1 << i) != 0)
        .map(|i| COMPONENTS[i])
        .collect()
}

/// The control bits the mnemonic spells for `op` (the table's allowed controls).
fn known_controls(op: Opcode) -> u32 {
    op.allowed_controls()
}

/// Opcodes written with a `_z`/`_nz` test suffix (shared with the parser).
pub(crate) fn takes_test(op: Opcode) -> bool {
    op.info().controls & TEST_NZ != 0
}

fn is_ms(d: ResourceDim) -> bool {
    matches!(d, ResourceDim::Texture2DMS | ResourceDim::Texture2DMSArray)
}

fn interp_words(v: u32) -> String {
    let w = names::interp_name(v);
    if w.is_empty() {
        w
    } else {
        format!(" {w}")
    }
}

/// `_buffer` after a raw or structured declaration whose token spells the
/// buffer dimension (vkd3d-shader's form; fxc writes none and prints none).
fn dim_suffix(buffer_dim: bool) -> &'static str {
    if buffer_dim {
        "_buffer"
    } else {
        ""
    }
}

fn uav_flags(f: &UavFlags) -> String {
    let mut s = String::new();
    if f.globally_coherent {
        s.push_str("_glc");
    }
    if f.order_preserving_counter {
        s.push_str("_opc");
    }
    if f.rasterizer_ordered {
        s.push_str("_rov");
    }
    s
}

/// fxc prints integers in `-10000..=10000` (as signed) in decimal.
fn small_int(v: u32) -> bool {
    (v as i32).unsigned_abs() <= 10000
}

fn int_text(v: u32) -> String {
    if small_int(v) {
        (v as i32).to_string()
    } else {
        format!("0x{v:08x}")
    }
}

/// A normal float or ±0: the values fxc prints as floats in untyped context.
fn is_float_like(v: u32) -> bool {
    let exp = (v >> 23) & 0xFF;
    (exp != 0 && exp != 0xFF) || v & 0x7FFF_FFFF == 0
}

/// `%f` as fxc prints it: six decimals; the legacy CRT keeps only 17
/// significant digits and writes zeros after them.
pub(crate) fn fixed6(f: f64, style: ListingStyle) -> String {
    let exact = format!("{f:.6}");
    if style == ListingStyle::Modern || f == 0.0 {
        return exact;
    }
    let sci = format!("{:.16e}", f.abs());
    let Some((mant, exp)) = sci.split_once('e') else {
        return exact;
    };
    let Ok(exp) = exp.parse::<i32>() else {
        return exact;
    };
    if exp < 10 {
        return exact;
    }
    let digits: String = mant.chars().filter(|c| c.is_ascii_digit()).collect();
    let int_len = (exp + 1) as usize;
    let mut int_part = String::new();
    for i in 0..int_len {
        int_part.push(digits.chars().nth(i).unwrap_or('0'));
    }
    let mut frac = String::new();
    for i in int_len..int_len + 6 {
        frac.push(digits.chars().nth(i).unwrap_or('0'));
    }
    let sign = if f < 0.0 { "-" } else { "" };
    format!("{sign}{int_part}.{frac}")
}

fn interface(i: &InterfaceDecl) -> String {
    let t: Vec<String> = i.tables.iter().map(|b| format!("ft{b}")).collect();
    format!(
        "dcl_interface{} fp{}[{}][{}] = {{{}}}",
        if i.dynamic { "_dynamicindexed" } else { "" },
        i.index,
        i.array_len,
        i.table_len,
        t.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> Printer {
        Printer {
            opts: PrintOptions::default(),
            sm51: false,
        }
    }

    #[test]
    fn untyped_immediates_follow_fxc() {
        let pr = p();
        assert_eq!(pr.imm32_value(0, ImmKind::Untyped), "0");
        assert_eq!(pr.imm32_value(0xFFFF_FFFF, ImmKind::Untyped), "-1");
        assert_eq!(pr.imm32_value(0x8000_0000, ImmKind::Untyped), "-0.000000");
        assert_eq!(pr.imm32_value(0x0000_cccc, ImmKind::Untyped), "0x0000cccc");
        assert_eq!(pr.imm32_value(0xffff_8001, ImmKind::Untyped), "0xffff8001");
        assert_eq!(pr.imm32_value(0x3f00_0000, ImmKind::Untyped), "0.500000");
        assert_eq!(pr.imm32_value(8192, ImmKind::Int), "8192");
        assert_eq!(pr.imm32_value(15872, ImmKind::Int), "0x00003e00");
        assert_eq!(pr.imm32_value(0, ImmKind::Float), "0.000000");
    }

    #[test]
    fn float_styles() {
        let big = f32::from_bits(0x7f7f_ffff) as f64;
        assert_eq!(
            fixed6(big, ListingStyle::Modern),
            "340282346638528859811704183484516925440.000000"
        );
        assert_eq!(
            fixed6(big, ListingStyle::Legacy),
            "340282346638528860000000000000000000000.000000"
        );
        let v = f32::from_bits(0x60ad78ec) as f64;
        assert_eq!(
            fixed6(v, ListingStyle::Legacy),
            "100000002004087730000.000000"
        );
        assert_eq!(fixed6(63.5, ListingStyle::Legacy), "63.500000");
    }

    #[test]
    fn exact_mode_falls_back_to_hex() {
        let pr = Printer {
            opts: PrintOptions {
                exact: true,
                ..Default::default()
            },
            sm51: false,
        };
        // A tiny negative float prints as -0.000000 in fxc style: lossy.
        assert_eq!(pr.imm32_value(0x8080_0000, ImmKind::Untyped), "0x80800000");
        assert_eq!(pr.imm32_value(0xbf80_0000, ImmKind::Float), "-1.000000");
        assert_eq!(pr.imm32_value(0x3dcc_cccd, ImmKind::Float), "0.100000");
        assert_eq!(pr.imm32_value(0x3dcc_cccc, ImmKind::Float), "0x3dcccccc");
    }
}
