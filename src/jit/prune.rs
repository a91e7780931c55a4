//! Dead block parameters: values carried around a loop that nothing reads.
//!
//! In: a finished CLIF function (after `FunctionBuilder::finalize`). Out:
//! the same function without the block parameters whose values can never
//! reach an instruction with an effect, without the branch arguments that
//! fed them and without the pure instructions and non-trapping loads whose
//! results nothing needs. Invariant: only parameters of blocks other than
//! the entry are removed, and only when no chain of pure instructions,
//! non-trapping loads and branch arguments leads from them to a root (an
//! instruction that may trap, stores, calls, branches on them or returns
//! them); so what the function does is unchanged.
//!
//! Why: a register written as a uniform scalar (`shadow.rs`) keeps its
//! vector variable too, and a loop counter read only through its scalar
//! leaves the vector copy carried around the loop by a parameter whose
//! only use is its own increment. Cranelift removes unused pure values,
//! but a value that feeds its own block parameter is used, so it stays:
//! a vector add per iteration and a register, or a spill, for nothing.

use cranelift_codegen::ir::{
    Block, BlockArg, Function, Inst, InstBuilder, InstructionData, Opcode, Value, ValueDef,
};
use std::collections::{HashMap, HashSet};

/// Removes the dead block parameters of `func` (see the module doc);
/// returns how many it removed.
pub fn dead_params(func: &mut Function) -> usize {
    let live = live_values(func);
    let entry = func.layout.entry_block();
    let mut dead: Vec<(Block, usize, Value)> = Vec::new();
    for block in func.layout.blocks() {
        if Some(block) == entry {
            continue;
        }
        for (i, &v) in func.dfg.block_params(block).iter().enumerate() {
            if !live.contains(&v) {
                dead.push((block, i, v));
            }
        }
    }
    // The pure instructions (and non-trapping loads) whose results nothing
    // needs go first: those
    // that read a dead parameter are among them (an instruction that
    // reads one and is needed would have made it live).
    let unused: Vec<Inst> = func
        .layout
        .blocks()
        .flat_map(|b| func.layout.block_insts(b))
        .filter(|&inst| {
            let results = func.dfg.inst_results(inst);
            removable(func, inst) && results.len() == 1 && !live.contains(&results[0])
        })
        .collect();
    for inst in unused {
        func.layout.remove_inst(inst);
    }
    // Highest index first, so the indices still to remove stay valid.
    dead.sort_by_key(|d| std::cmp::Reverse(d.1));
    let branches: Vec<Inst> = func
        .layout
        .blocks()
        .filter_map(|b| func.layout.last_inst(b))
        .collect();
    for &(block, i, v) in &dead {
        for &inst in &branches {
            let dfg = &mut func.dfg;
            let calls = dfg.insts[inst]
                .branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables);
            for call in calls {
                if call.block(&dfg.value_lists) == block {
                    call.remove(i, &mut dfg.value_lists);
                }
            }
        }
        func.dfg.remove_block_param(v);
    }
    dead.len()
}

/// Replaces every `brif` on a constant with a `jump` to the target it
/// takes, then removes the blocks the entry no longer reaches (a
/// pretested loop's paths for tests decided at the group's entry,
/// `pretest.rs`), so that nothing they use counts as needed; returns how
/// many branches it folded. The function does what it did: a removed
/// block could not run.
pub fn fold_constant_branches(func: &mut Function) -> usize {
    let mut folded = 0;
    let blocks: Vec<Block> = func.layout.blocks().collect();
    for block in blocks {
        let Some(inst) = func.layout.last_inst(block) else {
            continue;
        };
        let InstructionData::Brif {
            arg,
            blocks: [yes, no],
            ..
        } = func.dfg.insts[inst]
        else {
            continue;
        };
        let arg = func.dfg.resolve_aliases(arg);
        let ValueDef::Result(def, _) = func.dfg.value_def(arg) else {
            continue;
        };
        let InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            imm,
        } = func.dfg.insts[def]
        else {
            continue;
        };
        // `brif` tests the whole value: the constant's bits in its type.
        let bits = func.dfg.value_type(arg).bits();
        let value = (imm.bits() as u64) & (u64::MAX >> (64 - bits.min(64)));
        let taken = if value != 0 { yes } else { no };
        let to = taken.block(&func.dfg.value_lists);
        let args: Vec<BlockArg> = taken.args(&func.dfg.value_lists).collect();
        func.replace(inst).jump(to, &args);
        folded += 1;
    }
    if folded > 0 {
        remove_unreachable(func);
    }
    folded
}

/// Removes the blocks the entry block does not reach.
fn remove_unreachable(func: &mut Function) {
    let Some(entry) = func.layout.entry_block() else {
        return;
    };
    let mut reached: HashSet<Block> = HashSet::from([entry]);
    let mut work = vec![entry];
    while let Some(block) = work.pop() {
        let Some(inst) = func.layout.last_inst(block) else {
            continue;
        };
        let dfg = &func.dfg;
        for call in dfg.insts[inst].branch_destination(&dfg.jump_tables, &dfg.exception_tables) {
            let to = call.block(&dfg.value_lists);
            if reached.insert(to) {
                work.push(to);
            }
        }
    }
    let gone: Vec<Block> = func
        .layout
        .blocks()
        .filter(|b| !reached.contains(b))
        .collect();
    for block in gone {
        let insts: Vec<Inst> = func.layout.block_insts(block).collect();
        for inst in insts {
            func.layout.remove_inst(inst);
        }
        func.layout.remove_block(block);
    }
}

/// Whether `inst`'s only effect is its result: unused, it can go. A load
/// that cannot trap (`notrap`: every address the JIT loads from is checked
/// or in the context) is one: Cranelift keeps such loads even when
/// nothing reads them (a vector's entry mask read before the code knows
/// it needs none).
fn removable(func: &Function, inst: Inst) -> bool {
    match func.dfg.insts[inst] {
        InstructionData::Load {
            opcode:
                Opcode::Load
                | Opcode::Uload8
                | Opcode::Sload8
                | Opcode::Uload16
                | Opcode::Sload16
                | Opcode::Uload32
                | Opcode::Sload32,
            flags,
            ..
        } => func.dfg.mem_flags[flags].notrap(),
        ref data => is_pure(data.opcode()),
    }
}

/// Whether `op`'s only effect is its result.
fn is_pure(op: Opcode) -> bool {
    !(op.can_load()
        || op.can_store()
        || op.can_trap()
        || op.other_side_effects()
        || op.is_call()
        || op.is_branch()
        || op.is_terminator()
        || op.is_return())
}

/// The values some root needs (see the module doc), as a set.
fn live_values(func: &Function) -> HashSet<Value> {
    let dfg = &func.dfg;
    // Which branch arguments feed each block's parameters (`None`: an
    // argument that is not a plain value, which we never see: no
    // `try_call` is emitted).
    let mut feeds: HashMap<Block, Vec<Vec<Option<Value>>>> = HashMap::new();
    let mut live: HashSet<Value> = HashSet::new();
    let mut work: Vec<Value> = Vec::new();
    let mark = |v: Value, live: &mut HashSet<Value>, work: &mut Vec<Value>| {
        let v = dfg.resolve_aliases(v);
        if live.insert(v) {
            work.push(v);
        }
    };
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let data = &dfg.insts[inst];
            for call in data.branch_destination(&dfg.jump_tables, &dfg.exception_tables) {
                let args = call.args(&dfg.value_lists).map(|a| a.as_value()).collect();
                feeds
                    .entry(call.block(&dfg.value_lists))
                    .or_default()
                    .push(args);
            }
            if !removable(func, inst) || dfg.inst_results(inst).len() != 1 {
                for &a in dfg.inst_args(inst) {
                    mark(a, &mut live, &mut work);
                }
            }
        }
    }
    while let Some(v) = work.pop() {
        match dfg.value_def(v) {
            ValueDef::Result(inst, _) if removable(func, inst) => {
                for &a in dfg.inst_args(inst) {
                    mark(a, &mut live, &mut work);
                }
            }
            ValueDef::Param(block, i) => {
                for args in feeds.get(&block).into_iter().flatten() {
                    if let Some(&Some(a)) = args.get(i) {
                        mark(a, &mut live, &mut work);
                    }
                }
            }
            _ => {}
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jit::lower::trusted;
    use cranelift_codegen::ir::{types, AbiParam, InstBuilder, MemFlagsData, Signature};
    use cranelift_codegen::isa::CallConv;
    use cranelift_codegen::settings;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// `f(p, n)`: a loop of `n` rounds carrying a live sum (stored at `p`
    /// at the end), a counter (its exit test) and a vector that only
    /// feeds itself.
    fn looped() -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I64));
        sig.params.push(AbiParam::new(types::I32));
        sig.returns.push(AbiParam::new(types::I32));
        let mut func = Function::with_name_signature(Default::default(), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let (entry, head, exit) = (b.create_block(), b.create_block(), b.create_block());
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let (p, n) = (b.block_params(entry)[0], b.block_params(entry)[1]);
        let zero = b.ins().iconst(types::I32, 0);
        let vzero = b.ins().splat(types::I32X4, zero);
        b.ins()
            .jump(head, &[zero.into(), zero.into(), vzero.into()]);
        for ty in [types::I32, types::I32, types::I32X4] {
            b.append_block_param(head, ty);
        }
        b.switch_to_block(head);
        let (sum, i, dead) = (
            b.block_params(head)[0],
            b.block_params(head)[1],
            b.block_params(head)[2],
        );
        let one = b.ins().iconst(types::I32, 1);
        let sum2 = b.ins().iadd(sum, i);
        let i2 = b.ins().iadd(i, one);
        let vone = b.ins().splat(types::I32X4, one);
        let dead2 = b.ins().iadd(dead, vone);
        let more = b.ins().icmp(
            cranelift_codegen::ir::condcodes::IntCC::UnsignedLessThan,
            i2,
            n,
        );
        b.ins().brif(
            more,
            head,
            &[sum2.into(), i2.into(), dead2.into()],
            exit,
            &[],
        );
        b.switch_to_block(exit);
        b.ins().store(trusted(), sum2, p, 0);
        b.ins().return_(&[i2]);
        b.seal_all_blocks();
        finish(b);
        func
    }

    /// Finalises `b` for the host's ISA.
    fn finish(b: FunctionBuilder) {
        let isa = cranelift_native::builder()
            .expect("a native target")
            .finish(settings::Flags::new(settings::builder()))
            .expect("an ISA");
        b.finalize(isa.frontend_config());
    }

    fn verify(func: &Function) {
        let flags = settings::Flags::new(settings::builder());
        cranelift_codegen::verify_function(func, &flags).expect("the function verifies");
    }

    #[test]
    fn a_value_that_only_feeds_itself_is_removed() {
        let mut func = looped();
        verify(&func);
        assert_eq!(dead_params(&mut func), 1);
        verify(&func);
        let head = func.layout.blocks().nth(1).expect("the loop head");
        let tys: Vec<_> = func
            .dfg
            .block_params(head)
            .iter()
            .map(|&v| func.dfg.value_type(v))
            .collect();
        assert_eq!(tys, [types::I32, types::I32]);
        // Nothing left to remove.
        assert_eq!(dead_params(&mut func), 0);
    }

    #[test]
    fn a_value_read_by_a_store_or_a_branch_stays() {
        let mut func = looped();
        let head = func.layout.blocks().nth(1).expect("the loop head");
        let before = func.dfg.block_params(head).to_vec();
        dead_params(&mut func);
        let after = func.dfg.block_params(head);
        // The sum reaches the store, the counter the branch.
        assert_eq!(&before[..2], after);
    }

    #[test]
    fn an_unused_load_goes_only_when_it_cannot_trap() {
        let mut func = looped();
        let exit = func.layout.blocks().nth(2).expect("the exit block");
        let first = func.layout.first_inst(exit).expect("the store");
        let p = func.dfg.inst_args(first)[1];
        let mut cur = cranelift_codegen::cursor::FuncCursor::new(&mut func).at_inst(first);
        use cranelift_codegen::cursor::Cursor;
        let quiet = cur.ins().load(types::I32X4, trusted(), p, 16);
        let loud = cur.ins().load(types::I32, MemFlagsData::new(), p, 32);
        let before = func.layout.block_insts(exit).count();
        dead_params(&mut func);
        verify(&func);
        let left: Vec<_> = func.layout.block_insts(exit).collect();
        assert_eq!(left.len(), before - 1);
        let results: Vec<Value> = left
            .iter()
            .flat_map(|&i| func.dfg.inst_results(i).to_vec())
            .collect();
        assert!(!results.contains(&quiet) && results.contains(&loud));
    }

    /// `f(p)`: `brif` on the constant `c` (of type `ty`) to a block that
    /// returns 1 or one that returns 2.
    fn branch_on(ty: types::Type, c: i64) -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I32));
        let mut func = Function::with_name_signature(Default::default(), sig);
        let mut fctx = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut fctx);
        let (entry, yes, no) = (b.create_block(), b.create_block(), b.create_block());
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let k = b.ins().iconst(ty, c);
        b.ins().brif(k, yes, &[], no, &[]);
        for (block, r) in [(yes, 1), (no, 2)] {
            b.switch_to_block(block);
            let r = b.ins().iconst(types::I32, r);
            b.ins().return_(&[r]);
        }
        b.seal_all_blocks();
        finish(b);
        func
    }

    /// The value `func` returns: the one `iconst` left before a return.
    fn returned(func: &Function) -> i64 {
        let exits: Vec<Block> = func
            .layout
            .blocks()
            .filter(|&b| {
                func.layout
                    .last_inst(b)
                    .is_some_and(|i| func.dfg.insts[i].opcode() == Opcode::Return)
            })
            .collect();
        assert_eq!(exits.len(), 1, "{}", func.display());
        let first = func.layout.first_inst(exits[0]).expect("the constant");
        match func.dfg.insts[first] {
            InstructionData::UnaryImm { imm, .. } => imm.bits(),
            _ => panic!("{}", func.display()),
        }
    }

    #[test]
    fn a_branch_on_a_constant_takes_the_side_its_whole_value_picks() {
        // 0x3C00 as an i32 is true though its low byte is 0.
        for (ty, c, want) in [
            (types::I32, 0x3C00, 1),
            (types::I32, 0, 2),
            (types::I8, 1, 1),
            (types::I64, 1 << 40, 1),
        ] {
            let mut func = branch_on(ty, c);
            assert_eq!(fold_constant_branches(&mut func), 1);
            verify(&func);
            assert_eq!(returned(&func), want, "{ty} {c:#x}");
        }
    }
}
