//! SM4/SM5 assembly text in fxc's listing dialect: printer and parser.
//!
//! In: a [`Program`](crate::ir::Program) (to print) or listing text (to parse).
//! Out: fxc-style text, or a `Program`, or an [`AsmError`] with `line:column`.
//!
//! Invariant: for every `Program` `p`,
//! `parse_program(&print_program(&p, &PrintOptions { exact: true, ..Default::default() })) == Ok(p)`.
//! With `exact = false` the printer mimics fxc exactly, including its lossy
//! float text; the parser accepts real fxc listings (comment header, blank
//! lines, any whitespace, the slot-count trailer).
//!
//! Spellings fxc never prints (non-default component modes, 64-bit indices,
//! raw declarations of other stages, ...) use a documented spelling of ours,
//! listed in [`names`].

mod lexer;
pub mod names;
mod parse;
mod print;

pub use parse::parse_program;
pub use print::{print_program, ListingStyle, PrintOptions};

/// Malformed assembly text: where (1-based line and column) and what.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct AsmError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

impl AsmError {
    pub(crate) fn new(line: u32, col: u32, message: impl Into<String>) -> AsmError {
        AsmError {
            line,
            col,
            message: message.into(),
        }
    }
}
