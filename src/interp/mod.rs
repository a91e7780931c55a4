//! The reference interpreter: runs a [`Program`] over [`Bindings`],
//! one instruction at a time, exactly as `sm5-semantics.md` says.
//!
//! In: a program (prepared once by [`Interpreter::new`]), bindings, and a
//! dispatch size or one pixel/vertex invocation's inputs. Out: the bound
//! UAV memory and counters changed as the shader says, [`DispatchStats`],
//! or a [`RuntimeError`]. Invariant: every scalar rule comes from
//! [`crate::sem`]; this module only routes components (swizzles, masks,
//! modifiers), resolves operands and walks control flow. Every memory
//! access is bounds-checked against its view window, so no program can
//! reach outside the memory it was given.
//!
//! Layout: declarations and jump tables come from [`crate::analysis`]; `thread` (per-thread
//! registers and operand access), `resources` (binding checks, memory
//! locations), `group` (barrier scheduling of one thread group), and the
//! family functions: `exec_alu` (component routing, moves), `exec_float`,
//! `exec_int` (integer and bit ops), `exec_convert`, `exec_double`,
//! `exec_memory`, `exec_sample` (textures: ld, sample*, gather4*, lod),
//! `exec_atomic` and `exec_flow`; `quad` runs vertex/pixel batches
//! (pixel quads in lock step for derivatives).

mod exec_alu;
mod exec_atomic;
mod exec_convert;
mod exec_double;
mod exec_float;
mod exec_flow;
mod exec_int;
mod exec_memory;
mod exec_sample;
mod group;
mod quad;
mod resources;
mod thread;
mod visit;

use crate::ir::{Program, ProgramKind};
use crate::runtime::{
    BatchInputs, BatchResult, Bindings, DispatchOptions, DispatchStats, RuntimeError,
};

use crate::analysis::{self, Prepared};
pub use crate::runtime::Invocation;

/// A prepared program, ready to dispatch any number of times.
#[derive(Clone, Debug)]
pub struct Interpreter {
    prepared: Prepared,
}

impl Interpreter {
    /// Resolves declarations and control flow once.
    pub fn new(program: &Program) -> Result<Interpreter, RuntimeError> {
        Ok(Interpreter {
            prepared: analysis::prepare(program)?,
        })
    }

    /// The prepared program.
    pub fn prepared(&self) -> &Prepared {
        &self.prepared
    }

    /// Runs `groups` thread groups (compute programs), one after another.
    pub fn dispatch(
        &self,
        b: &mut Bindings,
        groups: [u32; 3],
        o: &DispatchOptions,
    ) -> Result<DispatchStats, RuntimeError> {
        let p = &self.prepared;
        analysis::check_dispatch(p, b, groups)?;
        let mut stats = DispatchStats::default();
        if groups.contains(&0) {
            return Ok(stats);
        }
        for z in 0..groups[2] {
            for y in 0..groups[1] {
                for x in 0..groups[0] {
                    let n = group::run_group(p, b, [x, y, z], o.budget)?;
                    stats.groups += 1;
                    stats.instructions += n;
                }
            }
        }
        Ok(stats)
    }

    /// Reads the group counts (3 × u32) from `args` at `offset` and dispatches.
    pub fn dispatch_indirect(
        &self,
        b: &mut Bindings,
        args: &[u8],
        offset: u64,
        o: &DispatchOptions,
    ) -> Result<DispatchStats, RuntimeError> {
        let groups = analysis::indirect_groups(self.prepared.version(), args, offset)?;
        self.dispatch(b, groups, o)
    }

    /// Runs one pixel or vertex invocation: `inputs` fill v#, the result
    /// lists every declared o# register and whether the pixel was discarded.
    pub fn run_invocation(
        &self,
        b: &mut Bindings,
        inputs: &[(u32, [u32; 4])],
        o: &DispatchOptions,
    ) -> Result<Invocation, RuntimeError> {
        let p = &self.prepared;
        if !matches!(p.version().kind, ProgramKind::Pixel | ProgramKind::Vertex) {
            return Err(RuntimeError::InvalidProgram {
                inst_index: None,
                reason: format!(
                    "run_invocation needs a pixel or vertex program, not {}",
                    p.version()
                ),
            });
        }
        analysis::check_bindings(p, b)?;
        group::run_single(p, b, inputs, o.budget)
    }

    /// Runs a batch of vertex or pixel invocations (pixel quads in lock
    /// step, see `runtime::batch` and `interp::quad`). The budget applies
    /// to each quad (each vertex) separately. Any number of threads may
    /// run batches against the same bindings at once (UAV memory and
    /// counters are changed atomically, `runtime::uav`).
    pub fn run_batch(
        &self,
        b: &Bindings,
        inputs: &BatchInputs,
        o: &DispatchOptions,
    ) -> Result<BatchResult, RuntimeError> {
        crate::runtime::batch::check(&self.prepared.program, inputs)?;
        analysis::check_bindings(&self.prepared, b)?;
        quad::run_batch(&self.prepared, b, inputs, o.budget)
    }

    /// [`Interpreter::run_batch`] for bindings already checked with
    /// [`Interpreter::check_bindings`] (a batch runner checks them once).
    pub fn run_batch_checked(
        &self,
        b: &Bindings,
        inputs: &BatchInputs,
        o: &DispatchOptions,
    ) -> Result<BatchResult, RuntimeError> {
        quad::run_batch(&self.prepared, b, inputs, o.budget)
    }

    /// Checks `b` against the program's declarations as every run does.
    pub fn check_bindings(&self, b: &Bindings) -> Result<(), RuntimeError> {
        analysis::check_bindings(&self.prepared, b)
    }
}
