//! sm5jit-tools: everything around the `sm5jit` library that is not the
//! library itself.
//!
//! In: the library's public API (`sm5jit`). Out: the `sm5jit` command
//! ([`cli`]), the conformance case runner ([`case`], with the
//! engine-harness trait [`case::Engine`] and its interpreter and JIT
//! implementations), the differential fuzzer ([`fuzz`]), the benchmark
//! harness ([`bench`]), vkd3d's `.shader_test` runner ([`shader_test`]) and
//! terminal progress ([`progress`]). Invariant:
//! nothing here changes what a shader computes; the library never depends
//! on this crate (see `docs/architecture.md`).

pub mod bench;
pub mod case;
pub mod cli;
pub mod fuzz;
pub mod progress;
pub mod shader_test;
