//! The interpreter's side of the instruction visitor.
//!
//! In: one instruction of a running thread. Out: its effect on the thread
//! and memory. Invariant: every class of the instruction table has a method
//! here that hands the class's enum to the class's `exec_*` module, whose
//! match on it is exhaustive (no wildcard arms): an instruction added to
//! the table that the interpreter does not handle fails to compile.

use crate::ir::{
    AtomicInst, CompareInst, ConvertInst, CustomDataInst, DeclInst, DoubleInst, FloatInst,
    FlowInst, GraphicsInst, InstVisitor, Instruction, IntInst, MemoryInst, MiscInst, MoveInst,
    SampleInst, SyncInst,
};
use crate::runtime::RuntimeError;

use super::thread::{Ctx, Thread};
use super::{exec_alu, exec_atomic, exec_convert, exec_double, exec_float, exec_flow, exec_int};
use super::{exec_memory, exec_sample};

/// One thread executing one instruction.
pub struct Exec<'x, 'p, 'b, 'a> {
    pub cx: &'x mut Ctx<'p, 'b, 'a>,
    pub t: &'x mut Thread,
}

impl InstVisitor for Exec<'_, '_, '_, '_> {
    type Out = Result<(), RuntimeError>;

    fn float(&mut self, op: FloatInst, inst: &Instruction, _: usize) -> Self::Out {
        exec_float::exec(self.cx, self.t, op, inst)
    }
    fn int(&mut self, op: IntInst, inst: &Instruction, _: usize) -> Self::Out {
        exec_int::exec(self.cx, self.t, op, inst)
    }
    fn compare(&mut self, op: CompareInst, inst: &Instruction, _: usize) -> Self::Out {
        exec_alu::compare(self.cx, self.t, op, inst)
    }
    fn convert(&mut self, op: ConvertInst, inst: &Instruction, _: usize) -> Self::Out {
        exec_convert::exec(self.cx, self.t, op, inst)
    }
    fn moves(&mut self, op: MoveInst, inst: &Instruction, _: usize) -> Self::Out {
        exec_alu::moves(self.cx, self.t, op, inst)
    }
    fn double(&mut self, op: DoubleInst, inst: &Instruction, _: usize) -> Self::Out {
        exec_double::exec(self.cx, self.t, op, inst)
    }
    fn flow(&mut self, op: FlowInst, inst: &Instruction, i: usize) -> Self::Out {
        exec_flow::flow(self.cx, self.t, op, inst, i)
    }
    fn memory(&mut self, op: MemoryInst, inst: &Instruction, i: usize) -> Self::Out {
        exec_memory::exec(self.cx, self.t, op, inst, i)
    }
    fn sample(&mut self, op: SampleInst, inst: &Instruction, i: usize) -> Self::Out {
        exec_sample::exec(self.cx, self.t, op, inst, i)
    }
    fn atomic(&mut self, op: AtomicInst, inst: &Instruction, i: usize) -> Self::Out {
        exec_atomic::exec(self.cx, self.t, op, inst, i)
    }
    fn sync(&mut self, op: SyncInst, inst: &Instruction, _: usize) -> Self::Out {
        exec_flow::sync(self.t, op, inst);
        Ok(())
    }
    fn graphics(&mut self, op: GraphicsInst, inst: &Instruction, i: usize) -> Self::Out {
        exec_flow::graphics(self.cx, self.t, op, inst, i)
    }
    fn misc(&mut self, op: MiscInst, inst: &Instruction, i: usize) -> Self::Out {
        exec_flow::misc(self.cx, self.t, op, inst, i)
    }
    /// Declarations live in `Program::decls` and were read by `prepare`;
    /// one in the instruction stream does nothing.
    fn decl(&mut self, _: DeclInst, _: &Instruction, _: usize) -> Self::Out {
        Ok(())
    }
    /// Custom data (comments, an immediate constant buffer read by `prepare`) does nothing.
    fn custom_data(&mut self, _: CustomDataInst, _: &Instruction, _: usize) -> Self::Out {
        Ok(())
    }
}
