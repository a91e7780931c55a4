//! DXBC: the container format fxc writes and the SM4/SM5 token stream inside.
//!
//! In: container bytes (or a SHEX/SHDR payload as dwords). Out: a
//! [`Container`] of tagged chunks, the parsed reflection chunks
//! ([`ChunkInfo`]) and the [`crate::ir::Program`] of the token stream; and
//! back: [`encode_program`] / [`write_dxbc`] turn a `Program` into tokens and
//! a container with a valid checksum. Invariant: for every program the
//! decoder accepts, `encode_program(&decode_program(x)?)? == x` dword for
//! dword, and bad input is always a typed error naming its byte or dword
//! offset, never a panic.

mod checksum;
mod chunks;
mod container;
mod decode;
mod encode;

pub use checksum::dxbc_checksum;
pub use chunks::{
    BoundResource, ChunkInfo, ConstantBuffer, Rdef, ShaderFeatures, SignatureElement, Stat,
    Variable,
};
pub use container::{Chunk, Container, ReadOptions};
pub use decode::{decode_program, read_dxbc, Shader};
pub use encode::{encode_program, write_dxbc};

use crate::ir::Opcode;

/// A malformed container, chunk or token stream. Every variant says where.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// The container header or chunk table is malformed.
    #[error("byte {offset}: {what}")]
    Container { offset: usize, what: String },
    /// The stored checksum does not match the bytes.
    #[error("checksum mismatch: stored {stored:08x?}, computed {computed:08x?}")]
    Checksum {
        stored: [u32; 4],
        computed: [u32; 4],
    },
    /// A reflection chunk (signature, RDEF, STAT, SFI0) is malformed;
    /// `offset` is a byte offset inside the chunk's data.
    #[error("chunk {tag} byte {offset}: {what}")]
    Chunk {
        tag: String,
        offset: usize,
        what: String,
    },
    /// Neither SHEX nor SHDR is present.
    #[error("the container has no SHEX or SHDR chunk")]
    NoShader,
    /// The container holds DXIL (Shader Model 6).
    #[error("SM6/DXIL is not supported (the container holds a DXIL chunk and no SHEX/SHDR)")]
    Dxil,
    /// The SHEX/SHDR payload is not a whole number of dwords.
    #[error("shader chunk size {size} is not a multiple of 4")]
    Unaligned { size: usize },
    /// The token stream is malformed. `offset` is a dword index into the
    /// token stream (0 = version token); `opcode` is the instruction being
    /// decoded, when known.
    #[error("dword {offset}{}: {what}", opcode_suffix(.opcode))]
    Token {
        offset: usize,
        opcode: Option<Opcode>,
        what: String,
    },
}

fn opcode_suffix(op: &Option<Opcode>) -> String {
    match op {
        Some(op) => format!(" ({})", op.mnemonic()),
        None => String::new(),
    }
}

/// A `Program` that cannot be written as tokens. `inst` is the index into
/// `decls` or `insts` (as `kind` says).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("{kind} {index} ({opcode}): {what}")]
    Item {
        kind: &'static str,
        index: usize,
        opcode: &'static str,
        what: String,
    },
    #[error("program is {len} dwords, more than a token stream can hold")]
    TooLong { len: usize },
}
