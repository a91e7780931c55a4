//! Fuzz-target bodies as plain functions, shared by the cargo-fuzz crate in
//! `fuzz/`, property tests and the integration tests.
//!
//! In: arbitrary bytes. Out: nothing on success; a panic (which the fuzzer
//! records) when an invariant breaks. Invariant checked: bad input never
//! panics the decoder or the parser, whatever decodes re-encodes and
//! re-decodes to the same program, whatever parses prints and re-parses to
//! the same program, and two engines agree on every generated program.

use sm5jit::asm::{parse_program, print_program, ListingStyle, PrintOptions};
use sm5jit::dxbc::{decode_program, encode_program, read_dxbc, ReadOptions};

use super::compare::{compare_engines, Verdict};
use super::gen::{generate, GenConfig};
use super::run::make_engine;

const EXACT: PrintOptions = PrintOptions {
    exact: true,
    style: ListingStyle::Modern,
};

/// The `decode` target: a container, then the bytes as a bare token stream.
pub fn decode_target(data: &[u8]) {
    let _ = read_dxbc(
        data,
        &ReadOptions {
            ignore_checksum: true,
        },
    );
    let dwords: Vec<u32> = data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    if let Ok(p) = decode_program(&dwords) {
        if let Ok(again) = encode_program(&p) {
            let back = decode_program(&again).expect("re-encoded program must decode");
            assert_eq!(back, p, "decode(encode(p)) != p");
        }
    }
}

/// The `parse` target: any UTF-8 text through the assembly parser.
pub fn parse_target(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(p) = parse_program(text) {
        let printed = print_program(&p, &EXACT);
        let back = parse_program(&printed).expect("printed program must parse");
        assert_eq!(back, p, "parse(print(p)) != p for:\n{printed}");
    }
}

/// The `differential` target: the first 8 bytes are a seed; the generated
/// program must validate and the first engine must agree with each other.
pub fn differential_target<const K: usize>(data: &[u8], engines: [&str; K]) {
    let mut seed = [0u8; 8];
    for (d, s) in seed.iter_mut().zip(data) {
        *d = *s;
    }
    let seed = u64::from_le_bytes(seed);
    let g = generate(seed, &GenConfig::default()).unwrap_or_else(|e| panic!("{e}"));
    for other in engines.iter().skip(1) {
        let (Ok(mut a), Ok(mut b)) = (make_engine(engines[0]), make_engine(other)) else {
            panic!("unknown engine in {engines:?}");
        };
        match compare_engines(a.as_mut(), b.as_mut(), &g.program, &g.inputs) {
            Verdict::Agree | Verdict::BothOutOfBudget => {}
            other => panic!("seed {seed}: {other:?}\n{}", g.text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_accept_junk_and_real_input() {
        decode_target(b"DXBC\0\0\0\0junk");
        decode_target(&[0x50, 0, 5, 0, 3, 0, 0, 0, 0x3e, 0, 0, 1]);
        parse_target(b"cs_5_0\ndcl_thread_group 1, 1, 1\nret\n");
        parse_target(b"cs_5_0\nmov r0.q, l(\n");
        parse_target(&[0xFF, 0xFE]);
        differential_target(&7u64.to_le_bytes(), super::super::run::DEFAULT_ENGINES);
    }
}
