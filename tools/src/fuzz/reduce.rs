//! Shrinking a failing program to a small reproducer, and reproducers on disk.
//!
//! In: a program, its inputs and a predicate "still fails". Out: a smaller
//! program and inputs for which the predicate still holds; on disk, a
//! directory with `program.asm` (exact listing) and `inputs.json`.
//! Invariant: every candidate the reducer keeps passes
//! [`sm5jit::validate::validate`] and the predicate; the number of predicate
//! calls is bounded by [`ReduceOptions::max_tries`].

use std::path::{Path, PathBuf};

use sm5jit::asm::{print_program, ListingStyle, PrintOptions};
use sm5jit::ir::{Components, Decl, Index, Modifier, OperandType, Program, Selection};

use super::inputs::{BufferKind, FuzzInputs};

/// Limits of one reduction.
#[derive(Clone, Copy, Debug)]
pub struct ReduceOptions {
    pub max_tries: usize,
}

impl Default for ReduceOptions {
    fn default() -> ReduceOptions {
        ReduceOptions { max_tries: 4000 }
    }
}

/// A program with its inputs.
#[derive(Clone, Debug, PartialEq)]
pub struct Reproducer {
    pub program: Program,
    pub inputs: FuzzInputs,
}

struct Reducer<'a> {
    best: Reproducer,
    fails: &'a mut dyn FnMut(&Program, &FuzzInputs) -> bool,
    tries: usize,
    max_tries: usize,
}

impl Reducer<'_> {
    /// Keeps `cand` if it is valid and still fails.
    fn try_keep(&mut self, cand: Reproducer) -> bool {
        if self.tries >= self.max_tries || cand == self.best {
            return false;
        }
        if sm5jit::validate::validate(&cand.program).is_err() {
            return false;
        }
        self.tries += 1;
        if (self.fails)(&cand.program, &cand.inputs) {
            self.best = cand;
            true
        } else {
            false
        }
    }

    /// Removes runs of instructions, long runs first (ddmin-like).
    fn drop_instructions(&mut self) -> bool {
        let mut progress = false;
        let mut chunk = (self.best.program.insts.len() / 2).max(1);
        loop {
            let mut i = 0;
            while i < self.best.program.insts.len() {
                let mut cand = self.best.clone();
                let end = (i + chunk).min(cand.program.insts.len());
                cand.program.insts.drain(i..end);
                if self.try_keep(cand) {
                    progress = true;
                } else {
                    i += 1;
                }
            }
            if chunk == 1 {
                return progress;
            }
            chunk /= 2;
        }
    }

    /// Removes an `if`/`loop` with its `else`/`endif`/`endloop` (and the
    /// loop's own `break`s and `continue`s), keeping the body: the way out
    /// of nesting that dropping runs of instructions cannot take.
    fn unwrap_blocks(&mut self) -> bool {
        use sm5jit::ir::Opcode::*;
        let mut progress = false;
        let mut i = 0;
        while i < self.best.program.insts.len() {
            let insts = &self.best.program.insts;
            if !matches!(insts[i].opcode, If | Loop) {
                i += 1;
                continue;
            }
            // Matching markers at depth 0 relative to `i`, and (for a
            // loop) exits whose innermost loop or switch is this one.
            let mut drop = vec![i];
            let mut stack: Vec<sm5jit::ir::Opcode> = Vec::new();
            for (k, inst) in insts.iter().enumerate().skip(i + 1) {
                match inst.opcode {
                    If | Loop | Switch => stack.push(inst.opcode),
                    EndIf | EndLoop | EndSwitch if stack.is_empty() => {
                        drop.push(k);
                        break;
                    }
                    EndIf | EndLoop | EndSwitch => {
                        stack.pop();
                    }
                    Else if stack.is_empty() => drop.push(k),
                    Break | Breakc | Continue | Continuec
                        if insts[i].opcode == Loop
                            && !stack.iter().any(|o| matches!(o, Loop | Switch)) =>
                    {
                        drop.push(k)
                    }
                    _ => {}
                }
            }
            let mut cand = self.best.clone();
            for k in drop.iter().rev() {
                cand.program.insts.remove(*k);
            }
            if self.try_keep(cand) {
                progress = true;
            } else {
                i += 1;
            }
        }
        progress
    }

    /// Plain operands: no modifiers, identity swizzles, immediate indices, `_sat` off.
    fn simplify_operands(&mut self) -> bool {
        let mut progress = false;
        for i in 0..self.best.program.insts.len() {
            let n_ops = self.best.program.insts[i].operands.len();
            if self.best.program.insts[i].controls & 0x4 != 0 {
                let mut cand = self.best.clone();
                cand.program.insts[i].controls &= !0x4;
                progress |= self.try_keep(cand);
            }
            for k in 0..n_ops {
                let edits: [fn(&mut sm5jit::ir::Operand) -> bool; 4] = [
                    |op| std::mem::replace(&mut op.modifier, Modifier::None) != Modifier::None,
                    |op| match op.comps {
                        Components::Four(Selection::Swizzle(s)) if s != [0, 1, 2, 3] => {
                            op.comps = Components::Four(Selection::Swizzle([0, 1, 2, 3]));
                            true
                        }
                        _ => false,
                    },
                    |op| {
                        let mut changed = false;
                        for idx in op.indices.iter_mut() {
                            if let Index::Relative(_) | Index::Imm32PlusRelative(..) = idx {
                                *idx = Index::Imm32(0);
                                changed = true;
                            }
                        }
                        changed
                    },
                    |op| {
                        if op.ty == OperandType::Imm32 && op.imm.iter().any(|v| *v != 0) {
                            op.imm.iter_mut().for_each(|v| *v = 0);
                            true
                        } else {
                            false
                        }
                    },
                ];
                for edit in edits {
                    let mut cand = self.best.clone();
                    if edit(&mut cand.program.insts[i].operands[k]) {
                        progress |= self.try_keep(cand);
                    }
                }
            }
        }
        progress
    }

    /// Fewer groups, smaller thread groups, shorter or zeroed buffers.
    fn shrink_inputs(&mut self) -> bool {
        let mut progress = false;
        for axis in 0..3 {
            while self.best.inputs.groups[axis] > 1 {
                let mut cand = self.best.clone();
                cand.inputs.groups[axis] /= 2;
                if !self.try_keep(cand) {
                    break;
                }
                progress = true;
            }
        }
        if let Some(pos) = self
            .best
            .program
            .decls
            .iter()
            .position(|d| matches!(d, Decl::ThreadGroup(_)))
        {
            for axis in 0..3 {
                loop {
                    let mut cand = self.best.clone();
                    let Decl::ThreadGroup(tg) = &mut cand.program.decls[pos] else {
                        break;
                    };
                    if tg[axis] <= 1 {
                        break;
                    }
                    tg[axis] /= 2;
                    if !self.try_keep(cand) {
                        break;
                    }
                    progress = true;
                }
            }
        }
        for b in 0..self.best.inputs.buffers.len() {
            let mut cand = self.best.clone();
            let buf = &mut cand.inputs.buffers[b];
            if buf.words.iter().any(|w| *w != 0) {
                buf.words.iter_mut().for_each(|w| *w = 0);
                progress |= self.try_keep(cand);
            }
            loop {
                let mut cand = self.best.clone();
                let buf = &mut cand.inputs.buffers[b];
                let unit = match buf.kind {
                    BufferKind::Structured => (buf.stride / 4).max(1) as usize,
                    _ => 1,
                };
                let keep = (buf.words.len() / 2 / unit) * unit;
                if keep == buf.words.len() {
                    break;
                }
                buf.words.truncate(keep);
                if !self.try_keep(cand) {
                    break;
                }
                progress = true;
            }
        }
        progress
    }
}

/// Shrinks `start` while `fails` keeps returning true for valid candidates.
/// `fails` should be true for `start` itself; the result is never larger.
pub fn reduce(
    start: Reproducer,
    fails: &mut dyn FnMut(&Program, &FuzzInputs) -> bool,
    opts: ReduceOptions,
) -> Reproducer {
    let mut r = Reducer {
        best: start,
        fails,
        tries: 0,
        max_tries: opts.max_tries,
    };
    loop {
        let mut progress = r.drop_instructions();
        progress |= r.unwrap_blocks();
        progress |= r.simplify_operands();
        progress |= r.shrink_inputs();
        if !progress || r.tries >= r.max_tries {
            return r.best;
        }
    }
}

/// A reproducer directory that cannot be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ReproError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: {message}")]
    Bad { path: PathBuf, message: String },
}

/// Writes `DIR/program.asm`, `DIR/inputs.json` and `DIR/note.txt`.
pub fn save_reproducer(dir: &Path, r: &Reproducer, note: &str) -> Result<(), ReproError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ReproError::Io { path, source }
    };
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let text = print_program(
        &r.program,
        &PrintOptions {
            exact: true,
            style: ListingStyle::Modern,
        },
    );
    let asm = dir.join("program.asm");
    std::fs::write(&asm, text).map_err(io(&asm))?;
    let json = serde_json::to_string_pretty(&r.inputs).map_err(|e| ReproError::Bad {
        path: dir.to_path_buf(),
        message: e.to_string(),
    })?;
    let inputs = dir.join("inputs.json");
    std::fs::write(&inputs, json).map_err(io(&inputs))?;
    let note_path = dir.join("note.txt");
    std::fs::write(&note_path, format!("{note}\n")).map_err(io(&note_path))?;
    Ok(())
}

/// Reads a reproducer directory written by [`save_reproducer`].
pub fn load_reproducer(dir: &Path) -> Result<Reproducer, ReproError> {
    let read = |name: &str| {
        let path = dir.join(name);
        std::fs::read_to_string(&path).map_err(|source| ReproError::Io { path, source })
    };
    let bad = |name: &str, message: String| ReproError::Bad {
        path: dir.join(name),
        message,
    };
    let program = sm5jit::asm::parse_program(&read("program.asm")?)
        .map_err(|e| bad("program.asm", e.to_string()))?;
    let inputs = serde_json::from_str(&read("inputs.json")?)
        .map_err(|e| bad("inputs.json", e.to_string()))?;
    Ok(Reproducer { program, inputs })
}

/// Every directory under `root` (recursively) holding a `program.asm`, sorted.
pub fn find_reproducers(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if dir.join("program.asm").is_file() {
            found.push(dir.clone());
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            stack.extend(entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
        }
    }
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use sm5jit::ir::Opcode;

    #[test]
    fn drops_everything_the_predicate_does_not_need() {
        let text = "cs_5_0\ndcl_uav_raw u0\ndcl_temps 2\ndcl_thread_group 4, 1, 1\n\
            mov r0.x, l(1)\nmov r1.x, l(2)\nudiv r0.x, null, r0.x, r1.x\n\
            iadd r1.x, r1.x, l(3)\nstore_raw u0.x, l(0), r0.x\nret\n";
        let program = sm5jit::asm::parse_program(text).unwrap();
        let start = Reproducer {
            program,
            inputs: FuzzInputs {
                groups: [2, 1, 1],
                buffers: vec![],
            },
        };
        let mut fails =
            |p: &Program, _: &FuzzInputs| p.insts.iter().any(|i| i.opcode == Opcode::UDiv);
        let r = reduce(start, &mut fails, ReduceOptions::default());
        let ops: Vec<Opcode> = r.program.insts.iter().map(|i| i.opcode).collect();
        assert!(ops.contains(&Opcode::UDiv), "{ops:?}");
        assert!(ops.len() <= 3, "{ops:?}");
        assert_eq!(r.inputs.groups, [1, 1, 1]);
        assert!(r.program.decls.contains(&Decl::ThreadGroup([1, 1, 1])));
    }

    #[test]
    fn reproducers_round_trip_through_a_directory() {
        let dir = std::env::temp_dir().join(format!("sm5jit-repro-{}", std::process::id()));
        let program = sm5jit::asm::parse_program(
            "cs_5_0\ndcl_uav_raw u0\ndcl_thread_group 1, 1, 1\nstore_raw u0.x, l(0), l(0x7fc00001)\nret\n",
        )
        .unwrap();
        let r = Reproducer {
            program,
            inputs: FuzzInputs {
                groups: [1, 1, 1],
                buffers: vec![],
            },
        };
        save_reproducer(&dir.join("a"), &r, "test").unwrap();
        assert_eq!(load_reproducer(&dir.join("a")).unwrap(), r);
        assert_eq!(find_reproducers(&dir), vec![dir.join("a")]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
