//! The JIT as a case-runner [`Engine`] (`sm5jit case --engine jit`).
//!
//! In: a program and case [`Resource`]s. Out: the resources updated in
//! place by a JIT dispatch. Invariant: resources are bound with exactly the
//! views the interpreter engine uses (same window, stride, format), so the
//! two engines see the same memory; a program the JIT cannot compile yet is
//! a skip naming the instruction ([`EngineError::Unsupported`]), never a
//! silent run on the interpreter.

use crate::case::spec::ResourceKindSpec;
use crate::case::{Engine, EngineError, EngineOptions, Resource, SlotClass};
use crate::ir::Program;
use crate::runtime::{
    Bindings, BufferKind, BufferView, DispatchOptions, Format, RuntimeError, Slot, TextureView,
    View,
};

use super::{JitError, JitShader};

/// Compiles each program once and dispatches it with the JIT.
pub struct JitEngine {
    options: DispatchOptions,
    threads: usize,
    compiled: Option<(Program, JitShader)>,
}

impl JitEngine {
    pub fn new(opts: EngineOptions) -> JitEngine {
        let mut options = DispatchOptions::default();
        if let Some(b) = opts.budget {
            options.budget = b;
        }
        let threads = opts
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        JitEngine {
            options,
            threads,
            compiled: None,
        }
    }

    fn shader(&mut self, program: &Program) -> Result<JitShader, EngineError> {
        if let Some((p, s)) = &self.compiled {
            if p == program {
                return Ok(s.clone());
            }
        }
        let s = JitShader::compile(program).map_err(|e| match e {
            JitError::Unsupported { .. } | JitError::NotCompute(_) | JitError::Host(_) => {
                EngineError::Unsupported(format!("jit: {e}"))
            }
            JitError::Runtime(RuntimeError::Unsupported { .. }) => {
                EngineError::Unsupported(format!("jit: {e}"))
            }
            other => EngineError::Failed(other.to_string()),
        })?;
        self.compiled = Some((program.clone(), s.clone()));
        Ok(s)
    }
}

fn runtime_error(e: RuntimeError) -> EngineError {
    match e {
        RuntimeError::Unsupported { .. } => EngineError::Unsupported(format!("needs {e}")),
        other => EngineError::Failed(other.to_string()),
    }
}

fn view(r: &Resource) -> Result<View, EngineError> {
    let format = || -> Result<Format, EngineError> {
        let name = r.format.as_deref().unwrap_or("");
        Format::from_dxgi_name(name)
            .ok_or_else(|| EngineError::Unsupported(format!("needs format {name}")))
    };
    let buffer = |kind: BufferKind| {
        View::Buffer(BufferView {
            kind,
            first_element: u64::from(r.first_element),
            num_elements: u64::from(r.num_elements),
        })
    };
    Ok(match r.kind {
        ResourceKindSpec::Raw | ResourceKindSpec::Constant => buffer(BufferKind::Raw),
        ResourceKindSpec::Structured => buffer(BufferKind::Structured { stride: r.stride }),
        ResourceKindSpec::Typed => buffer(BufferKind::Typed(format()?)),
        ResourceKindSpec::Texture2d => {
            View::Texture(TextureView::tex2d(format()?, r.width, r.height))
        }
        ResourceKindSpec::Texture { dim, layers } => View::Texture(TextureView::packed(
            dim,
            format()?,
            [r.width, r.height, layers],
            1,
        )),
    })
}

/// Binds `resources` as the interpreter engine does, runs `f`, and copies
/// the hidden counters back.
fn with_bindings<T>(
    resources: &mut [Resource],
    f: impl FnOnce(&mut Bindings) -> Result<T, RuntimeError>,
) -> Result<T, EngineError> {
    let views: Vec<View> = resources.iter().map(view).collect::<Result<_, _>>()?;
    let slots: Vec<(SlotClass, Slot)> = resources
        .iter()
        .map(|r| {
            (
                r.slot.class,
                Slot {
                    space: r.slot.space,
                    index: r.slot.index,
                },
            )
        })
        .collect();
    let mut counters = Vec::new();
    let out = {
        let mut b = Bindings::new();
        for ((r, v), &(class, slot)) in resources.iter_mut().zip(views).zip(&slots) {
            match class {
                SlotClass::ConstantBuffer => {
                    b.cb(slot, &r.data);
                }
                SlotClass::Srv => {
                    b.srv(slot, &r.data, v);
                }
                SlotClass::Uav => match r.counter {
                    Some(c) => {
                        b.uav_with_counter(slot, &mut r.data, v, c);
                    }
                    None => {
                        b.uav(slot, &mut r.data, v);
                    }
                },
                SlotClass::Output => {}
            }
        }
        b.check_fits().map_err(runtime_error)?;
        let out = f(&mut b).map_err(runtime_error)?;
        for (i, &(class, slot)) in slots.iter().enumerate() {
            if class == SlotClass::Uav {
                if let Some(c) = b.counter(slot) {
                    counters.push((i, c));
                }
            }
        }
        out
    };
    for (i, c) in counters {
        if let Some(r) = resources.get_mut(i) {
            r.counter = Some(c);
        }
    }
    Ok(out)
}

impl Engine for JitEngine {
    fn name(&self) -> &'static str {
        "jit"
    }

    fn prepare(&mut self, program: &Program) -> Result<(), EngineError> {
        self.shader(program).map(|_| ())
    }

    fn dispatch(
        &mut self,
        program: &Program,
        resources: &mut [Resource],
        groups: [u32; 3],
    ) -> Result<(), EngineError> {
        let s = self.shader(program)?;
        let (o, threads) = (self.options, self.threads);
        with_bindings(resources, |b| s.dispatch_threads(b, groups, &o, threads)).map(|_| ())
    }

    fn invoke(
        &mut self,
        _program: &Program,
        _resources: &mut [Resource],
    ) -> Result<Vec<(u32, [u32; 4])>, EngineError> {
        Err(EngineError::Unsupported(
            "jit: pixel-shader invocations are not compiled yet".into(),
        ))
    }
}
