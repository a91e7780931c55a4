//! The assembly printer and parser against the corpus.
//!
//! - fxc's own listings (`realworld/*/listing.asm`): our printer reproduces
//!   them line for line, and parsing them re-encodes to the original tokens
//!   except for immediate-constant-buffer values whose fxc text is lossy
//!   (each such exception is proven);
//! - every corpus shader: decode → print(exact) → parse is the identity;
//! - broken text gives an `AsmError` at the right line:column, never a panic.

use proptest::prelude::*;
use sm5jit::asm::{parse_program, print_program, ListingStyle, PrintOptions};
use sm5jit::dxbc::{encode_program, read_dxbc, ReadOptions};
use sm5jit::ir::{
    Components, Decl, ExtOpcode, Index, Instruction, Modifier, Opcode, Operand, OperandType,
    Program, ProgramKind, ResourceDim, ReturnType, Selection, Version,
};
use std::path::{Path, PathBuf};

fn shaders_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            shaders_under(&p, out);
        } else if p.file_name().is_some_and(|n| n == "shader.dxbc") {
            out.push(p);
        }
    }
}

fn all_shaders() -> Vec<PathBuf> {
    let mut v = Vec::new();
    shaders_under(&crate::corpus_dir(), &mut v);
    v
}

/// The realworld cases that carry fxc's listing.
fn listing_dirs() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = all_shaders()
        .into_iter()
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .filter(|d| d.join("listing.asm").exists())
        .collect();
    v.sort();
    v
}

fn decode(path: &Path) -> (Program, Vec<u32>) {
    let bytes = std::fs::read(path).unwrap();
    let shader = read_dxbc(&bytes, &ReadOptions::default()).unwrap();
    let chunk = shader
        .container
        .chunks
        .iter()
        .find(|c| &c.tag == b"SHEX" || &c.tag == b"SHDR")
        .unwrap();
    let words: Vec<u32> = chunk
        .data
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let len = words[1] as usize;
    (shader.program, words[..len].to_vec())
}

/// The 2013 DirectXTex shaders were built by an fxc on the pre-2015 CRT.
fn style_for(dir: &Path) -> ListingStyle {
    if dir.to_string_lossy().contains("2013") {
        ListingStyle::Legacy
    } else {
        ListingStyle::Modern
    }
}

fn normalise(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .collect()
}

#[test]
fn printer_reproduces_all_fxc_listings() {
    let dirs = listing_dirs();
    assert_eq!(dirs.len(), 14, "expected the 14 DirectXTex listings");
    for dir in dirs {
        let (prog, _) = decode(&dir.join("shader.dxbc"));
        let opts = PrintOptions {
            exact: false,
            style: style_for(&dir),
        };
        let ours = normalise(&print_program(&prog, &opts));
        let theirs = normalise(&std::fs::read_to_string(dir.join("listing.asm")).unwrap());
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(a, b, "{}: line {} differs", dir.display(), i + 1);
        }
        assert_eq!(ours.len(), theirs.len(), "{}: line count", dir.display());
    }
}

/// The dword range of the immediate constant buffer's payload.
fn icb_range(words: &[u32]) -> Option<std::ops::Range<usize>> {
    let mut pos = 2;
    while pos < words.len() {
        let tok = words[pos];
        if tok & 0x7FF == 0x35 {
            let len = *words.get(pos + 1)? as usize;
            if (tok >> 11) == 3 {
                return Some(pos + 2..pos + len);
            }
            pos += len.max(2);
        } else {
            pos += (((tok >> 24) & 0x7F) as usize).max(1);
        }
    }
    None
}

/// The value texts of the listing's ICB block, in order.
fn icb_texts(listing: &str) -> Vec<String> {
    let start = listing.find("dcl_immediateConstantBuffer").unwrap();
    let end = start + listing[start..].find("} }").unwrap();
    listing[start + "dcl_immediateConstantBuffer".len()..end]
        .split(['{', '}', ','])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

fn icb_of(p: &Program) -> Vec<u32> {
    p.decls
        .iter()
        .find_map(|d| match d {
            Decl::ImmediateConstantBuffer(v) => Some(v.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

#[test]
fn parsed_listings_encode_to_the_original_tokens() {
    let mut lossy_total = 0;
    for dir in listing_dirs() {
        let (_, original) = decode(&dir.join("shader.dxbc"));
        let listing = std::fs::read_to_string(dir.join("listing.asm")).unwrap();
        let parsed = parse_program(&listing).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let encoded = encode_program(&parsed).unwrap();
        assert_eq!(encoded.len(), original.len(), "{}", dir.display());
        let icb = icb_range(&original).unwrap_or(0..0);
        let texts = icb_texts(&listing);
        for (i, (a, b)) in encoded.iter().zip(&original).enumerate() {
            if a == b {
                continue;
            }
            assert!(
                icb.contains(&i),
                "{}: dword {i} differs outside the ICB",
                dir.display()
            );
            // Prove the exception: fxc's text of the original value is the
            // listing's text, and that text does not give the original bits.
            let text = &texts[i - icb.start];
            let one = Program {
                version: parsed.version,
                decls: vec![Decl::ImmediateConstantBuffer(vec![*b, 0, 0, 0])],
                insts: Vec::new(),
            };
            let printed = print_program(
                &one,
                &PrintOptions {
                    exact: false,
                    style: style_for(&dir),
                },
            );
            let first = icb_texts(&printed)[0].clone();
            assert_eq!(&first, text, "{}: dword {i}", dir.display());
            let reparsed = icb_of(&parse_program(&printed).unwrap())[0];
            assert_ne!(reparsed, *b);
            assert_eq!(reparsed, *a);
            lossy_total += 1;
        }
    }
    // fxc prints tiny negative ICB floats as -0.000000: such values exist.
    assert!(lossy_total > 0);
}

#[test]
fn every_corpus_shader_round_trips_through_exact_text() {
    let shaders = all_shaders();
    assert_eq!(shaders.len(), 166);
    let exact = PrintOptions {
        exact: true,
        ..Default::default()
    };
    for path in shaders {
        let (prog, _) = decode(&path);
        let text = print_program(&prog, &exact);
        let back = parse_program(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            back == prog,
            "{}: exact print/parse changed the program",
            path.display()
        );
        // The fxc-style text parses too (its float text may be lossy).
        let fxc = print_program(&prog, &PrintOptions::default());
        let lossy = parse_program(&fxc).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(lossy.insts.len(), prog.insts.len(), "{}", path.display());
    }
}

fn err_pos(text: &str) -> (u32, u32) {
    let e = parse_program(text).expect_err(text);
    (e.line, e.col)
}

#[test]
fn broken_text_reports_line_and_column() {
    let head = "//\n// comment\ncs_5_0\ndcl_temps 2\n";
    // unknown opcode
    assert_eq!(err_pos(&format!("{head}  movx r0.x, r1.x\n")), (5, 3));
    // bad register
    assert_eq!(err_pos(&format!("{head}mov r0.x, k1.x\n")), (5, 11));
    // bad swizzle and bad mask
    assert_eq!(err_pos(&format!("{head}mov r0.x, r1.xyq\n")), (5, 14));
    assert_eq!(err_pos(&format!("{head}mov r0.zx, r1.x\n")), (5, 8));
    // truncated line: missing operand, wrong count
    assert_eq!(err_pos(&format!("{head}add r0.x, r1.x,\n")), (5, 16));
    assert_eq!(err_pos(&format!("{head}add r0.x, r1.x\n")), (5, 1));
    assert_eq!(err_pos(&format!("{head}mov r0.x, l(1\n")), (5, 14));
    // unterminated ICB, at the first token that cannot continue it
    assert_eq!(
        err_pos("cs_4_0\ndcl_immediateConstantBuffer { { 1, 2, 3, 4},\n   { 5, 6, 7, 8},\n"),
        (4, 1)
    );
    // huge numbers
    assert_eq!(
        err_pos(&format!("{head}mov r0.x, l(4294967296)\n")),
        (5, 13)
    );
    assert_eq!(err_pos(&format!("{head}mov r4294967296.x, r0.x\n")), (5, 5));
    assert_eq!(err_pos(&format!("{head}dcl_temps 99999999999\n")), (5, 11));
    // garbage bytes
    assert_eq!(err_pos(&format!("{head}mov r0.x, \u{1}r1.x\n")), (5, 11));
    assert_eq!(err_pos("cs_5_0\nmov r0.x, r1.x ~\n"), (2, 16));
    // absurd nesting is an error, not a stack overflow
    let deep = format!(
        "{head}mov r0.x, {}r0.x{}\n",
        "x0[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_eq!(err_pos(&deep), (5, 38));
    // missing model line
    assert_eq!(err_pos("dcl_temps 1\n"), (1, 1));
    let e = parse_program(&format!("{head}movx r0.x, r1.x\n")).unwrap_err();
    assert_eq!(e.to_string(), "5:1: unknown instruction `movx`");
}

fn small_listing() -> String {
    let dir = listing_dirs().into_iter().next().unwrap();
    let full = std::fs::read_to_string(dir.join("listing.asm")).unwrap();
    full.lines().take(260).collect::<Vec<_>>().join("\n")
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(s in "\\PC{0,200}") {
        let _ = parse_program(&s);
        let _ = parse_program(&format!("cs_5_0\n{s}"));
    }

    #[test]
    fn random_statements_never_panic(s in "[a-z_0-9 ().,\\[\\]{}|+:=*-]{0,80}") {
        let _ = parse_program(&format!("cs_5_0\n{s}\n"));
    }

    #[test]
    fn mutated_listings_never_panic(cut in 0usize..20000, byte in any::<u8>(), del in 0usize..8) {
        let base = small_listing();
        let mut b = base.into_bytes();
        let at = cut % b.len();
        let end = (at + del).min(b.len());
        b.splice(at..end, [byte]);
        let text = String::from_utf8_lossy(&b);
        if let Err(e) = parse_program(&text) {
            prop_assert!(e.line >= 1 && e.col >= 1);
        }
    }
}

/// A small deterministic generator for random programs (xorshift).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn u32(&mut self) -> u32 {
        match self.below(4) {
            0 => self.below(20) as u32,
            1 => (self.below(20) as u32).wrapping_neg(),
            _ => self.next() as u32,
        }
    }
    fn comps(&mut self) -> Components {
        match self.below(6) {
            0 => Components::Zero,
            1 => Components::One,
            2 | 3 => Components::Four(Selection::Mask(self.below(16) as u8)),
            4 => Components::Four(Selection::Swizzle(
                [0, 1, 2, 3].map(|_| self.below(4) as u8),
            )),
            _ => Components::Four(Selection::Select1(self.below(4) as u8)),
        }
    }
    fn register(&mut self, depth: u32) -> Operand {
        const TYPES: [OperandType; 14] = [
            OperandType::Temp,
            OperandType::Input,
            OperandType::Output,
            OperandType::IndexableTemp,
            OperandType::ConstantBuffer,
            OperandType::ImmConstantBuffer,
            OperandType::Resource,
            OperandType::Uav,
            OperandType::Tgsm,
            OperandType::Sampler,
            OperandType::ThreadId,
            OperandType::OutputDepth,
            OperandType::Label,
            OperandType::InputControlPoint,
        ];
        let ty = TYPES[self.below(TYPES.len() as u64) as usize];
        let mut op = Operand::new(ty, self.comps());
        for _ in 0..self.below(4) {
            let ix = match (self.below(5), depth) {
                (0, 0) => Index::Relative(Box::new(self.register(1))),
                (1, 0) => {
                    Index::Imm32PlusRelative(self.below(3) as u32, Box::new(self.register(1)))
                }
                (2, 0) => Index::Imm64PlusRelative(self.below(3), Box::new(self.register(1))),
                (3, _) => Index::Imm64(self.next() >> 1),
                _ => Index::Imm32(self.u32()),
            };
            op.indices.push(ix);
        }
        self.extras(&mut op);
        op
    }
    fn extras(&mut self, op: &mut Operand) {
        op.modifier = [
            Modifier::None,
            Modifier::Neg,
            Modifier::Abs,
            Modifier::AbsNeg,
        ][self.below(4) as usize];
        op.min_precision = if self.below(4) == 0 {
            self.below(8) as u8
        } else {
            0
        };
        op.nonuniform = self.below(6) == 0;
    }
    fn operand(&mut self) -> Operand {
        match self.below(5) {
            0 => {
                let n = if self.below(2) == 0 { 1 } else { 4 };
                let mut op = Operand::new(OperandType::Imm32, self.comps());
                op.imm = (0..n).map(|_| self.u32()).collect();
                self.extras(&mut op);
                op
            }
            1 => {
                let n = if self.below(2) == 0 { 2 } else { 4 };
                let mut op = Operand::new(OperandType::Imm64, self.comps());
                op.imm = (0..n).map(|_| self.u32()).collect();
                op
            }
            2 => Operand::new(OperandType::Null, Components::Zero),
            _ => self.register(0),
        }
    }
    fn controls(&mut self, op: Opcode) -> u32 {
        let mut c = 0;
        if self.below(3) == 0 {
            c |= 0x4;
        }
        if self.below(4) == 0 {
            c |= (self.below(16) as u32) << 8;
        }
        match op {
            Opcode::If | Opcode::Breakc | Opcode::Discard | Opcode::Retc | Opcode::Callc => {
                c |= (self.below(2) as u32) << 7
            }
            Opcode::ResInfo => c |= self.below(4) as u32,
            Opcode::SampleInfo => c |= self.below(2) as u32,
            Opcode::Sync => c |= self.below(16) as u32,
            _ => {}
        }
        c
    }
    fn ext(&mut self) -> ExtOpcode {
        match self.below(3) {
            0 => ExtOpcode::SampleControls([0; 3].map(|_| self.below(16) as i8 - 8)),
            1 => ExtOpcode::ResourceDim {
                dim: ResourceDim::from_u32(self.below(13) as u32).unwrap(),
                stride: if self.below(2) == 0 {
                    0
                } else {
                    self.below(100) as u32
                },
            },
            _ => ExtOpcode::ReturnType(
                [0; 4].map(|_| ReturnType::from_u32(1 + self.below(9) as u32).unwrap()),
            ),
        }
    }
    fn program(&mut self) -> Program {
        let kinds = [
            ProgramKind::Compute,
            ProgramKind::Pixel,
            ProgramKind::Vertex,
        ];
        let minor = if self.below(3) == 0 { 1 } else { 0 };
        let version = Version {
            kind: kinds[self.below(3) as usize],
            major: 4 + (self.below(2) as u8),
            minor,
        };
        let ops: Vec<Opcode> = Opcode::ALL
            .iter()
            .copied()
            .filter(|o| !o.is_declaration() && *o != Opcode::CustomData && operand_count_known(*o))
            .collect();
        let mut insts = Vec::new();
        for _ in 0..self.below(12) {
            let op = ops[self.below(ops.len() as u64) as usize];
            let n = sm5jit_operand_count(op);
            let mut inst = Instruction::new(op, (0..n).map(|_| self.operand()).collect());
            inst.controls = self.controls(op);
            inst.ext = (0..self.below(3)).map(|_| self.ext()).collect();
            insts.push(inst);
        }
        let mut decls = vec![Decl::GlobalFlags((self.below(1 << 10) as u32) << 11)];
        for _ in 0..self.below(6) {
            let op = self.register(0);
            decls.push(match self.below(6) {
                0 => Decl::Input(op),
                1 => Decl::OutputSiv {
                    op,
                    name: self.below(30) as u32,
                },
                2 => Decl::InputPsSgv {
                    op,
                    interp: self.below(8) as u32,
                    name: self.below(30) as u32,
                },
                3 => Decl::IndexRange {
                    op,
                    count: self.u32(),
                },
                4 => Decl::TgsmStructured {
                    op,
                    stride: self.u32(),
                    count: self.u32(),
                },
                _ => Decl::ImmediateConstantBuffer(
                    (0..4 * self.below(3)).map(|_| self.u32()).collect(),
                ),
            });
        }
        Program {
            version,
            decls,
            insts,
        }
    }
}

/// Parses `mnemonic` with no operands to learn whether the count is fixed:
/// the parser reports "takes N operand(s)" for fixed-count opcodes.
fn fixed_count(op: Opcode) -> Option<usize> {
    let text = format!("cs_5_0\n{}{}\n", op.mnemonic(), test_suffix(op));
    match parse_program(&text) {
        Ok(_) => Some(0),
        Err(e) => {
            let m = e.message;
            let n = m.split("takes ").nth(1)?.split(' ').next()?;
            n.parse().ok()
        }
    }
}

fn test_suffix(op: Opcode) -> &'static str {
    match op {
        Opcode::If
        | Opcode::Breakc
        | Opcode::Discard
        | Opcode::Retc
        | Opcode::Callc
        | Opcode::Continuec => "_z",
        _ => "",
    }
}

fn operand_count_known(op: Opcode) -> bool {
    fixed_count(op).is_some() && op != Opcode::Continuec
}

fn sm5jit_operand_count(op: Opcode) -> usize {
    fixed_count(op).unwrap_or(0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn random_programs_round_trip_through_exact_text(seed in 1u64..u64::MAX) {
        let p = Gen(seed).program();
        let text = print_program(&p, &PrintOptions { exact: true, ..Default::default() });
        let back = parse_program(&text);
        prop_assert!(back.is_ok(), "{:?}\n{}", back, text);
        prop_assert_eq!(back.unwrap(), p, "{}", text);
    }
}
