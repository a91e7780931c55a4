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
//!
//! # Embedding
//!
//! The stable surface is at the crate root: [`Shader`] (load from DXBC or
//! assembly, compile once with an [`EngineKind`], dispatch from any
//! thread), [`Bindings`] with [`View`]s over caller-owned memory by
//! [`Slot`], [`DispatchConfig`] and the one [`Error`] type. C programs use
//! the same through [`capi`] and `include/sm5jit.h`. See
//! `docs/embedding.md`.
//!
//! ```rust
//! use sm5jit::{Bindings, EngineKind, Shader, Slot, View};
//!
//! let shader = Shader::from_asm(
//!     "cs_5_0
//!      dcl_uav_typed_buffer (uint,uint,uint,uint) u1
//!      dcl_input vThreadID.x
//!      dcl_thread_group 16, 1, 1
//!      store_uav_typed u1.xyzw, vThreadID.xxxx, vThreadID.xxxx
//!      ret",
//!     EngineKind::default(), // the JIT
//! )?;
//! let mut texels = vec![0u8; 16 * 4];
//! let mut b = Bindings::new();
//! b.uav(Slot::new(1), &mut texels, View::typed(sm5jit::Format::R32Uint, 0, 16));
//! shader.dispatch(&mut b, [1, 1, 1])?;
//! drop(b);
//! assert_eq!(&texels[60..64], &15u32.to_le_bytes());
//! # Ok::<(), sm5jit::Error>(())
//! ```

pub mod analysis;
pub mod api;
pub mod asm;
pub mod capi;
pub mod dxbc;
pub mod error;
pub mod interp;
pub mod interpolate;
pub mod ir;
pub mod jit;
pub mod limits;
pub mod reflect;
pub mod runtime;
pub mod sem;
pub mod validate;

pub use api::{BatchRunner, DispatchConfig, EngineKind, Shader};
pub use error::Error;
pub use ir::Program;
pub use jit::{CompileOptions, Tier};
pub use reflect::Reflection;
pub use runtime::Bindings;
pub use runtime::{
    AddressMode, BatchInputs, BatchResult, BufferKind, BufferView, ComparisonFunc, DispatchStats,
    Filter, FilterMode, Format, LaneResult, RuntimeError, SamplerDesc, Slot, SpecialOutput,
    TextureDim, TextureView, View,
};

/// Runs the Rust walk-through of `docs/embedding.md` as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../docs/embedding.md")]
pub struct EmbeddingGuide;
