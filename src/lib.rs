//! sm5jit: Direct3D 11 Shader Model 4/5 shaders on the CPU.
//!
//! Pipeline (see `docs/architecture.md`):
//!
//! ```text
//!  .dxbc bytes ─► dxbc (container + token decoder) ─┐
//!                                                   ├─► ir::Program ─► validate ─┬─► interp (reference)
//!  .asm text ──► asm (parser) ──────────────────────┘                            └─► jit (Cranelift)
//!  ir::Program ─► asm::print (fxc-style text)        runtime: bindings, dispatch, thread groups
//!  ir::Program ─► dxbc::encode (valid checksum)
//! ```
//!
//! Each instruction's scalar meaning lives once, in [`sem`].

pub mod asm;
pub mod bench;
pub mod case;
pub mod cli;
pub mod dxbc;
pub mod error;
pub mod fuzz;
pub mod interp;
pub mod ir;
pub mod jit;
pub mod runtime;
pub mod sem;
pub mod validate;

pub use error::Error;
pub use ir::Program;
