//! Helpers shared by the integration tests: assembly text to a Program,
//! byte/word conversions and buffer views.

use sm5jit::ir::Program;
use sm5jit::runtime::{BufferKind, BufferView, Format, View};

pub fn parse(text: &str) -> Program {
    sm5jit::asm::parse_program(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

pub fn to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

pub fn to_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn raw(words: u64) -> View {
    View::Buffer(BufferView {
        kind: BufferKind::Raw,
        first_element: 0,
        num_elements: words,
    })
}

pub fn structured(stride: u32, first: u64, n: u64) -> View {
    View::Buffer(BufferView {
        kind: BufferKind::Structured { stride },
        first_element: first,
        num_elements: n,
    })
}

pub fn typed(format: Format, first: u64, n: u64) -> View {
    View::Buffer(BufferView {
        kind: BufferKind::Typed(format),
        first_element: first,
        num_elements: n,
    })
}
