//! `Shader::reflect` against every DXBC shader of the shared corpus: each
//! `dcl_input*`/`dcl_output*` register and mask is in the reflection as the
//! decoded program says, each container signature element keeps its
//! semantic name, index, register and mask, and each declared binding
//! (cb, t, u, s) is listed at its slot.

use sm5jit::ir::{ConstantBufferDecl, StructuredUavDecl, TypedResourceDecl, TypedUavDecl};
use std::path::{Path, PathBuf};

use sm5jit::dxbc::{read_dxbc, ReadOptions, SignatureElement as ChunkElement};
use sm5jit::ir::{Components, Decl, Operand, OperandType, Selection};
use sm5jit::reflect::SignatureElement;
use sm5jit::{EngineKind, Shader};

use crate::corpus_dir;

fn dxbc_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            dxbc_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "dxbc") {
            out.push(p);
        }
    }
}

fn decl_mask(op: &Operand) -> u8 {
    match op.comps {
        Components::Four(Selection::Mask(m)) => m,
        Components::One => 1,
        _ => 0xF,
    }
}

/// The i/o declarations of a program: (input?, operand).
fn io_decls(decls: &[Decl]) -> Vec<(bool, &Operand)> {
    decls
        .iter()
        .filter_map(|d| match d {
            Decl::Input(op)
            | Decl::InputSgv { op, .. }
            | Decl::InputSiv { op, .. }
            | Decl::InputPs { op, .. }
            | Decl::InputPsSgv { op, .. }
            | Decl::InputPsSiv { op, .. } => Some((true, op)),
            Decl::Output(op) | Decl::OutputSgv { op, .. } | Decl::OutputSiv { op, .. } => {
                Some((false, op))
            }
            _ => None,
        })
        .collect()
}

fn check_decl(
    name: &str,
    list: &[SignatureElement],
    input: bool,
    op: &Operand,
) -> Result<(), String> {
    let mask = decl_mask(op);
    let indexed = matches!(op.ty, OperandType::Input | OperandType::Output);
    let found = list.iter().any(|e| {
        let place = if indexed {
            e.register == op.imm_index(0)
                && e.operand
                    == format!(
                        "{}{}",
                        if input { "v" } else { "o" },
                        e.register.unwrap_or(0)
                    )
        } else {
            e.register.is_none() && e.operand == op.ty.prefix()
        };
        place && e.mask & mask == mask && e.declared_mask & mask == mask
    });
    if found {
        Ok(())
    } else {
        Err(format!(
            "{name}: declaration of {}{:?} mask {mask:#x} is not in the reflection {list:#?}",
            op.ty.prefix(),
            op.imm_index(0)
        ))
    }
}

fn check_container(
    name: &str,
    list: &[SignatureElement],
    sig: &[ChunkElement],
) -> Result<(), String> {
    for c in sig {
        let register = (c.register != u32::MAX).then_some(c.register);
        let hit = list.iter().any(|e| {
            e.semantic == c.name
                && e.semantic_index == c.semantic_index
                && e.register == register
                && e.mask == c.mask
                && e.rw_mask == c.rw_mask
                && e.system_value.0 == c.system_value
        });
        if !hit {
            return Err(format!(
                "{name}: container element {c:?} is not in the reflection"
            ));
        }
    }
    Ok(())
}

#[test]
fn reflection_agrees_with_program_and_container_on_every_corpus_shader() {
    let mut files = Vec::new();
    dxbc_files(&corpus_dir(), &mut files);
    assert!(
        files.len() >= 160,
        "found only {} corpus shaders",
        files.len()
    );
    let mut problems = Vec::new();
    let mut elements = 0;
    let mut bindings = 0;
    for path in &files {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).expect("read corpus shader");
        let decoded = read_dxbc(&bytes, &ReadOptions::default()).expect("decode");
        let shader = Shader::from_dxbc(&bytes, EngineKind::Interpreter)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let r = shader.reflect();
        assert!(r.from_container, "{name}: signatures not read");
        assert_eq!(r.model, decoded.program.version.to_string());
        for (input, op) in io_decls(&decoded.program.decls) {
            let list = if input { &r.inputs } else { &r.outputs };
            elements += 1;
            if let Err(e) = check_decl(&name, list, input, op) {
                problems.push(e);
            }
        }
        let info = &decoded.info;
        for (list, sig) in [
            (&r.inputs, &info.input_signature),
            (&r.outputs, &info.output_signature),
        ] {
            if let Err(e) = check_container(&name, list, sig.as_deref().unwrap_or(&[])) {
                problems.push(e);
            }
        }
        // Every declared binding at its slot (pre-SM5.1: the operand index).
        for d in &decoded.program.decls {
            let (op, list): (&Operand, Vec<u32>) = match d {
                Decl::ConstantBuffer(ConstantBufferDecl { op, .. }) => {
                    (op, r.constant_buffers.iter().map(|c| c.slot).collect())
                }
                Decl::Resource(TypedResourceDecl { op, .. })
                | Decl::ResourceRaw { op, .. }
                | Decl::ResourceStructured { op, .. } => {
                    (op, r.srvs.iter().map(|c| c.slot).collect())
                }
                Decl::UavTyped(TypedUavDecl { op, .. })
                | Decl::UavRaw { op, .. }
                | Decl::UavStructured(StructuredUavDecl { op, .. }) => {
                    (op, r.uavs.iter().map(|c| c.slot).collect())
                }
                Decl::Sampler { op, .. } => (op, r.samplers.iter().map(|c| c.slot).collect()),
                _ => continue,
            };
            bindings += 1;
            // SM5.1 declarations are `[range id][lower][upper]`: the slot is `lower`.
            let slot = match op.indices.len() {
                3 => op.imm_index(1),
                _ => op.imm_index(0),
            }
            .expect("slot");
            if !list.contains(&slot) {
                problems.push(format!("{name}: {d:?} not at slot {slot} in {list:?}"));
            }
        }
        // RDEF names every constant buffer fxc kept.
        if let Some(rdef) = &info.rdef {
            for cb in &r.constant_buffers {
                let named = rdef.resources.iter().any(|b| {
                    b.input_type == 0
                        && b.bind_point == cb.slot
                        && Some(&b.name) == cb.name.as_ref()
                });
                if !named {
                    problems.push(format!("{name}: cb{} has no RDEF name", cb.slot));
                }
            }
        }
        if let Some(stat) = info.stat.as_ref().and_then(|s| s.instruction_count()) {
            assert_eq!(r.instructions.stat_total, Some(stat));
        }
    }
    eprintln!(
        "reflection: {} shaders, {elements} i/o declarations, {bindings} bindings checked",
        files.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
