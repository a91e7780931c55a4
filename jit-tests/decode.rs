//! DXBC container, decoder and encoder against the shared corpus, plus
//! hostile input: truncation, bit flips, absurd counts, random bytes.

use proptest::prelude::*;
use sm5jit::dxbc::{
    decode_program, dxbc_checksum, encode_program, read_dxbc, write_dxbc, Container, DecodeError,
    ReadOptions,
};
use sm5jit::ir::{Components, Decl, Instruction, Opcode, Operand, OperandType, Program, Selection};
use std::path::{Path, PathBuf};

/// Every `shader.dxbc` under the three corpus folders.
fn corpus_shaders() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["conformance", "conformance_ps", "realworld"] {
        let root = crate::corpus_dir().join(dir);
        let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
            .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
            .map(|e| e.unwrap().path())
            .collect();
        cases.sort();
        for case in cases {
            let f = case.join("shader.dxbc");
            if f.is_file() {
                out.push(f);
            }
        }
    }
    out
}

fn shader_dwords(c: &Container) -> Vec<u32> {
    let chunk = c
        .chunk(b"SHEX")
        .or_else(|| c.chunk(b"SHDR"))
        .expect("shader chunk");
    chunk
        .data
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect()
}

fn stored_checksum(bytes: &[u8]) -> [u32; 4] {
    [4, 8, 12, 16].map(|o| u32::from_le_bytes(bytes[o..o + 4].try_into().unwrap()))
}

#[test]
fn corpus_decodes_and_round_trips() {
    let files = corpus_shaders();
    assert_eq!(files.len(), 166, "corpus shader count");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let name = f.display();
        assert_eq!(
            dxbc_checksum(&bytes),
            stored_checksum(&bytes),
            "{name}: checksum"
        );
        let shader =
            read_dxbc(&bytes, &ReadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let dwords = shader_dwords(&shader.container);
        let len = dwords[1] as usize;
        let encoded = encode_program(&shader.program).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(encoded, dwords[..len], "{name}: re-encoded tokens differ");
        let written = write_dxbc(&shader.program, None, None).unwrap();
        let again = read_dxbc(&written, &ReadOptions::default())
            .unwrap_or_else(|e| panic!("{name}: rewritten: {e}"));
        assert_eq!(
            again.program, shader.program,
            "{name}: write_dxbc round trip"
        );
    }
}

/// The mnemonic as `opcodes.txt` spells it: `_sat`, `_z`/`_nz` and sync
/// flags, but no resinfo return type.
fn mnemonic(inst: &Instruction) -> String {
    let mut s = inst.opcode.mnemonic().to_string();
    match inst.opcode {
        Opcode::If
        | Opcode::Breakc
        | Opcode::Continuec
        | Opcode::Retc
        | Opcode::Callc
        | Opcode::Discard => {
            s += if inst.test_nz() { "_nz" } else { "_z" };
        }
        Opcode::Sync => {
            let f = inst.sync_flags();
            for (bit, name) in [
                (0x8, "_uglobal"),
                (0x4, "_ugroup"),
                (0x2, "_g"),
                (0x1, "_t"),
            ] {
                if f & bit != 0 {
                    s += name;
                }
            }
        }
        _ if inst.saturate() => s += "_sat",
        _ => {}
    }
    s
}

fn decl_mnemonic(d: &Decl) -> String {
    match d {
        Decl::ImmediateConstantBuffer(_) => "dcl_immediateConstantBuffer".into(),
        Decl::Other { opcode, .. } => opcode.mnemonic().into(),
        _ => {
            let p = Program {
                version: sm5jit::ir::Version {
                    kind: sm5jit::ir::ProgramKind::Compute,
                    major: 5,
                    minor: 0,
                },
                decls: vec![d.clone()],
                insts: vec![],
            };
            let tokens = encode_program(&p).unwrap();
            Opcode::from_u32(tokens[2] & 0x7FF)
                .unwrap()
                .mnemonic()
                .into()
        }
    }
}

#[test]
fn realworld_opcode_sequences_match_opcodes_txt() {
    let root = crate::corpus_dir().join("realworld");
    let mut checked = 0;
    for f in corpus_shaders().iter().filter(|f| f.starts_with(&root)) {
        let dir = f.parent().unwrap();
        let listing = std::fs::read_to_string(dir.join("opcodes.txt")).unwrap();
        let expected: Vec<&str> = listing
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(str::trim)
            .collect();
        let shader = read_dxbc(&std::fs::read(f).unwrap(), &ReadOptions::default()).unwrap();
        let got: Vec<String> = shader
            .program
            .decls
            .iter()
            .map(decl_mnemonic)
            .chain(shader.program.insts.iter().map(mnemonic))
            .collect();
        assert_eq!(got, expected, "{}", dir.display());
        checked += 1;
    }
    assert_eq!(checked, 36);
}
