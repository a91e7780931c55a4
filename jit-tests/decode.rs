//! DXBC container, decoder and encoder against the shared corpus, plus
//! hostile input: truncation, bit flips, absurd counts, random bytes.

use proptest::prelude::*;
use sm5jit::dxbc::{
    decode_program, dxbc_checksum, encode_program, read_dxbc, write_dxbc, Container, DecodeError,
    ReadOptions,
};
use sm5jit::ir::{Components, Decl, Instruction, Opcode, Operand, OperandType, Program, Selection};
use std::path::PathBuf;

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

/// The smallest corpus shader (fastest for exhaustive mutation).
fn small_shader() -> Vec<u8> {
    let mut files = corpus_shaders();
    files.sort_by_key(|f| std::fs::metadata(f).unwrap().len());
    std::fs::read(&files[0]).unwrap()
}

const NO_CHECKSUM: ReadOptions = ReadOptions {
    ignore_checksum: true,
};

/// Rebuilds a container around patched SHEX/SHDR dwords (valid checksum).
fn with_tokens(bytes: &[u8], patch: impl FnOnce(&mut Vec<u32>)) -> Vec<u8> {
    let mut c = Container::parse(bytes, &ReadOptions::default()).unwrap();
    let chunk = c
        .chunks
        .iter_mut()
        .find(|c| &c.tag == b"SHEX" || &c.tag == b"SHDR")
        .unwrap();
    let mut dwords: Vec<u32> = chunk
        .data
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .collect();
    patch(&mut dwords);
    chunk.data = dwords.iter().flat_map(|w| w.to_le_bytes()).collect();
    c.to_bytes()
}

fn token_error(bytes: &[u8]) -> (usize, Option<Opcode>, String) {
    match read_dxbc(bytes, &ReadOptions::default()) {
        Err(DecodeError::Token {
            offset,
            opcode,
            what,
        }) => (offset, opcode, what),
        other => panic!("expected a token error, got {:?}", other.map(|s| s.program)),
    }
}

#[test]
fn truncation_at_every_length_is_an_error() {
    let bytes = small_shader();
    for n in 0..bytes.len() {
        assert!(
            read_dxbc(&bytes[..n], &ReadOptions::default()).is_err(),
            "truncated to {n}"
        );
        assert!(
            read_dxbc(&bytes[..n], &NO_CHECKSUM).is_err(),
            "truncated to {n} (no checksum)"
        );
    }
    assert!(read_dxbc(&bytes, &ReadOptions::default()).is_ok());
}

#[test]
fn every_single_bit_flip_is_caught_by_the_checksum() {
    let bytes = small_shader();
    let mut accepted_unchecked = 0;
    for bit in 0..bytes.len() * 8 {
        let mut b = bytes.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        assert!(
            read_dxbc(&b, &ReadOptions::default()).is_err(),
            "flip of bit {bit} accepted"
        );
        // Without the checksum: any outcome but a panic.
        if read_dxbc(&b, &NO_CHECKSUM).is_ok() {
            accepted_unchecked += 1;
        }
    }
    // Flips inside the checksum field itself are fine without verification.
    assert!(
        accepted_unchecked >= 128,
        "only {accepted_unchecked} flips accepted without checksum"
    );
}

#[test]
fn wrong_checksum_is_an_error_unless_ignored() {
    let mut bytes = small_shader();
    bytes[10] ^= 0x40;
    match read_dxbc(&bytes, &ReadOptions::default()) {
        Err(e @ DecodeError::Checksum { .. }) => {
            assert!(e.to_string().contains("checksum mismatch"))
        }
        other => panic!(
            "expected a checksum error, got {:?}",
            other.map(|s| s.program)
        ),
    }
    assert!(read_dxbc(&bytes, &NO_CHECKSUM).is_ok());
}

#[test]
fn absurd_counts_and_offsets_are_errors_with_offsets() {
    let bytes = small_shader();
    let patched = |at: usize| {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        read_dxbc(&b, &NO_CHECKSUM).map(|s| s.program)
    };
    assert!(
        matches!(patched(28), Err(DecodeError::Container { offset: 28, .. })),
        "chunk count"
    );
    assert!(
        matches!(patched(32), Err(DecodeError::Container { offset: 32, .. })),
        "chunk offset"
    );
    assert!(
        matches!(patched(24), Err(DecodeError::Container { offset: 24, .. })),
        "total size"
    );
    let first_chunk = u32::from_le_bytes(bytes[32..36].try_into().unwrap()) as usize;
    let size_at = first_chunk + 4;
    assert!(
        matches!(patched(size_at), Err(DecodeError::Container { offset, .. }) if offset == size_at),
        "chunk size"
    );
}

#[test]
fn bad_token_streams_in_real_containers() {
    let bytes = small_shader();
    // Unknown opcode in the first instruction.
    let b = with_tokens(&bytes, |d| d[2] = (d[2] & !0x7FF) | 0x1FF);
    let (off, _, what) = token_error(&b);
    assert_eq!(off, 2);
    assert!(what.contains("unknown opcode 0x1ff"), "{what}");
    // Last instruction claims 127 dwords.
    let b = with_tokens(&bytes, |d| {
        let last = d[1] as usize - 1;
        d[last] = (d[last] & 0x80FF_FFFF) | (127 << 24);
    });
    assert!(token_error(&b).2.contains("length 127"));
    // Last instruction with length 0 (escape with no length dword).
    let b = with_tokens(&bytes, |d| {
        let last = d[1] as usize - 1;
        d[last] &= 0x80FF_FFFF;
    });
    assert!(token_error(&b).2.contains("no length dword"));
    // The final ret grown by one dword that is not an operand.
    let b = with_tokens(&bytes, |d| {
        let last = d[1] as usize - 1;
        assert_eq!(d[last], 0x0100003e, "the small shader ends in ret");
        d[last] = 0x0200003e;
        d.truncate(last + 1);
        d.push(0xFFFF_FFFF);
        d[1] += 1;
    });
    assert!(read_dxbc(&b, &ReadOptions::default()).is_err());
    // A stream shorter than its length token.
    let b = with_tokens(&bytes, |d| d[1] += 10);
    assert_eq!(token_error(&b).0, 1);
}

#[test]
fn dxil_and_missing_shader_chunks() {
    let bytes = small_shader();
    let mut c = Container::parse(&bytes, &ReadOptions::default()).unwrap();
    c.chunks.retain(|c| &c.tag != b"SHEX" && &c.tag != b"SHDR");
    assert_eq!(
        read_dxbc(&c.to_bytes(), &ReadOptions::default()).unwrap_err(),
        DecodeError::NoShader
    );
    c.chunks.push(sm5jit::dxbc::Chunk {
        tag: *b"DXIL",
        data: vec![0; 8],
    });
    let e = read_dxbc(&c.to_bytes(), &ReadOptions::default()).unwrap_err();
    assert_eq!(e, DecodeError::Dxil);
    assert!(e.to_string().contains("SM6/DXIL is not supported"));
}

#[test]
fn describe_reports_the_chunks() {
    let bytes = small_shader();
    let s = read_dxbc(&bytes, &ReadOptions::default()).unwrap();
    let text = s.info.describe();
    assert!(text.starts_with("chunks: "), "{text}");
    assert!(text.contains("SHEX") || text.contains("SHDR"), "{text}");
    // The corpus blobs are stripped to ISGN, OSGN and SHEX; the empty
    // signatures still parse.
    assert_eq!(s.info.input_signature, Some(vec![]));
    assert_eq!(s.info.output_signature, Some(vec![]));
    assert!(s.info.rdef.is_none() && s.info.stat.is_none());
}

fn header_then(dwords: &[u32]) -> Vec<u32> {
    let mut s = vec![0x0005_0050, dwords.len() as u32 + 2];
    s.extend_from_slice(dwords);
    s
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(10_000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = read_dxbc(&bytes, &ReadOptions::default());
        let _ = read_dxbc(&bytes, &NO_CHECKSUM);
    }

    #[test]
    fn random_containers_after_a_valid_header_never_panic(
        count in 0u32..6,
        tail in proptest::collection::vec(any::<u8>(), 0..400),
    ) {
        let mut b = b"DXBC".to_vec();
        b.extend_from_slice(&[0; 16]);
        b.extend_from_slice(&1u32.to_le_bytes());
        b.extend_from_slice(&((32 + tail.len()) as u32).to_le_bytes());
        b.extend_from_slice(&count.to_le_bytes());
        b.extend_from_slice(&tail);
        let _ = read_dxbc(&b, &NO_CHECKSUM);
    }

    #[test]
    fn random_token_streams_never_panic_and_round_trip(
        dwords in proptest::collection::vec(
            prop_oneof![any::<u32>(), 0u32..16, Just(0x0100003e), Just(0x00100012), Just(0x00004001)],
            0..40,
        ),
    ) {
        if let Ok(p) = decode_program(&header_then(&dwords)) {
            // Whatever the decoder accepts, the encoder writes back as an equal program.
            let tokens = encode_program(&p).expect("decoded programs encode");
            prop_assert_eq!(decode_program(&tokens).unwrap(), p);
        }
    }
}

#[test]
fn mutated_corpus_streams_never_panic() {
    let bytes = small_shader();
    let c = Container::parse(&bytes, &ReadOptions::default()).unwrap();
    let base = shader_dwords(&c);
    let mut seed = 0x1234_5678u32;
    let mut rand = || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    let mut ok = 0;
    for _ in 0..5000 {
        let mut d = base.clone();
        let i = 2 + (rand() as usize) % (d.len() - 2);
        d[i] ^= 1 << (rand() % 32);
        if let Ok(p) = decode_program(&d) {
            ok += 1;
            let tokens = encode_program(&p).expect("decoded programs encode");
            assert_eq!(decode_program(&tokens).unwrap(), p);
        }
    }
    assert!(ok > 0, "no mutation decoded at all");
}

#[test]
fn hand_built_program_round_trips_through_a_container() {
    let mut dst = Operand::new(OperandType::Temp, Components::Four(Selection::Mask(0x1)));
    dst.indices.push(sm5jit::ir::Index::Imm32(0));
    let mut src = Operand::new(OperandType::Imm32, Components::One);
    src.imm.push(7);
    let p = Program {
        version: sm5jit::ir::Version {
            kind: sm5jit::ir::ProgramKind::Compute,
            major: 5,
            minor: 0,
        },
        decls: vec![Decl::Temps(1), Decl::ThreadGroup([1, 1, 1])],
        insts: vec![
            Instruction::new(Opcode::Mov, vec![dst, src]),
            Instruction::new(Opcode::Ret, vec![]),
        ],
    };
    let bytes = write_dxbc(&p, None, None).unwrap();
    assert_eq!(dxbc_checksum(&bytes), stored_checksum(&bytes));
    assert_eq!(
        read_dxbc(&bytes, &ReadOptions::default()).unwrap().program,
        p
    );
}

#[test]
fn corpus_signatures_and_features_parse() {
    let mut ps_targets = 0;
    let mut features = 0;
    for f in corpus_shaders() {
        let s = read_dxbc(&std::fs::read(&f).unwrap(), &ReadOptions::default()).unwrap();
        let out = s
            .info
            .output_signature
            .as_ref()
            .expect("every corpus shader has OSGN");
        if s.program.version.kind == sm5jit::ir::ProgramKind::Compute {
            assert!(out.is_empty(), "{}: compute output signature", f.display());
        }
        for e in out
            .iter()
            .filter(|e| e.name.eq_ignore_ascii_case("SV_Target"))
        {
            assert_eq!(e.register, e.semantic_index, "{}", f.display());
            assert_ne!(e.mask, 0);
            ps_targets += 1;
        }
        if let Some(c) = s.container.chunk(b"SFI0") {
            let bits = u64::from_le_bytes(c.data[..8].try_into().unwrap());
            assert_eq!(s.info.features.map(|f| f.0), Some(bits));
            assert!(!s.info.features.unwrap().names().is_empty());
            features += 1;
        }
    }
    assert!(ps_targets > 0, "no pixel shader declared SV_Target");
    assert_eq!(features, 18);
}

#[test]
fn deep_relative_nesting_is_rejected_in_a_real_container() {
    let bytes = small_shader();
    // mov r0.x, x0[0 + x1[1 + r0.x].x].x, inserted before the final ret:
    // two levels of relative indexing, one more than the format allows.
    let x_rel = 0x0620_300a; // x#.x, 2D, [imm32][imm32 + relative]
    let nested = [
        0x0b00_0036,
        0x0010_0012,
        0,
        x_rel,
        0,
        0,
        x_rel,
        1,
        1,
        0x0010_000a,
        0,
    ];
    let b = with_tokens(&bytes, |d| {
        let last = d[1] as usize - 1;
        d.splice(last..last, nested);
        d[1] += nested.len() as u32;
    });
    let (off, op, what) = token_error(&b);
    assert_eq!(op, Some(Opcode::Mov));
    assert!(what.contains("nested more than one level"), "{what}");
    assert!(off > 2);
    // The same with one level decodes.
    let single = [0x0800_0036, 0x0010_0012, 0, x_rel, 0, 0, 0x0010_000a, 0];
    let b = with_tokens(&bytes, |d| {
        let last = d[1] as usize - 1;
        d.splice(last..last, single);
        d[1] += single.len() as u32;
    });
    assert!(read_dxbc(&b, &ReadOptions::default()).is_ok());
}
