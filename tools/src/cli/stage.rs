//! `sm5jit run` for vertex and pixel shaders: a batch of `--vertices N`
//! invocations, or a `--pixels WxH` grid of 2x2 quads, with inputs from
//! `--synthetic` or `--input vN=SPEC`, outputs printed (text or JSON),
//! `--engine both` compared, and `--image` writing a pixel shader's `o0`.
//!
//! In: a validated vertex or pixel program (with its container's chunks),
//! the run options and the bound resources. Out: stdout, an optional PNG,
//! an exit code. Invariants: every engine gets the same inputs and its own
//! copy of the resources; a grid is whole quads in the order the batch
//! wants (quad rows top to bottom, lanes top-left, top-right,
//! bottom-left, bottom-right); synthetic inputs depend only on the
//! invocation, the register and the declaration.
//!
//! Synthetic inputs (documented in docs/cli.md): pixel `(x, y)` of a
//! `W x H` grid has `u = (x + 0.5) / W`, `v = (y + 0.5) / H`;
//! interpolated float inputs get `(u, v, 1 - u, 1 - v)` (so derivatives
//! are `1/W` and `1/H`), `SV_Position` gets `(x + 0.5, y + 0.5, 0.5, 1)`,
//! `SV_IsFrontFace` true, `SV_PrimitiveID` and `SV_SampleIndex` 0 (with
//! `--samples N` a per-sample shader runs the grid once per sample `s`:
//! positions and `u`, `v` at the sample's standard position,
//! `SV_SampleIndex` `s`, `vCoverage` `1 << s`),
//! `constant` inputs `(q, r, 0, 1)` with `q` the quad index and `r` the
//! register (floats for float inputs). Vertex `i` of `N` gets
//! `(t, 1 - t, 0.5, 1)` with `t = i / N` in float inputs, `(i, r, 0, 1)`
//! in integer ones, `SV_VertexID` `i` and `SV_InstanceID` 0.

use std::fmt::Write as _;

use super::error::{CliError, ExitCode};
use super::front::Loaded;
use super::run::{OutputFormat, RunArgs};
use super::EngineChoice;
use crate::case::Resource;
use sm5jit::ir::ProgramKind;
use sm5jit::reflect::{ComponentType, Interpolation, Reflection, SignatureElement, SystemValue};
use sm5jit::runtime::{BatchInputs, BatchResult, LaneResult, RuntimeError};
use sm5jit::{DispatchConfig, EngineKind, Error, Shader};

/// Default vertices of `--vertices` and grid of `--pixels`.
const DEFAULT_VERTICES: usize = 4;
const DEFAULT_GRID: [u32; 2] = [8, 8];
/// The largest grid side and vertex count `run` accepts.
const MAX_SIDE: u32 = 2048;
const MAX_VERTICES: usize = 1 << 20;

/// Parses `WxH` (even, 2..=2048 each).
pub fn parse_pixels(s: &str) -> Result<[u32; 2], String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("`{s}`: expected WxH"))?;
    let side = |t: &str| -> Result<u32, String> {
        let n: u32 = t
            .trim()
            .parse()
            .map_err(|_| format!("`{t}` is not a size"))?;
        if n == 0 || n % 2 != 0 || n > MAX_SIDE {
            return Err(format!(
                "{n}: a grid side is an even number of pixels in 2..={MAX_SIDE}"
            ));
        }
        Ok(n)
    };
    Ok([side(w)?, side(h)?])
}

/// What one run covers.
#[derive(Clone, Copy, Debug)]
enum Grid {
    Vertices(usize),
    /// `passes` > 1: a per-sample shader on a multisampled target, the
    /// grid once per sample (invocations sample-major).
    Pixels {
        width: u32,
        height: u32,
        passes: u32,
    },
}

impl Grid {
    fn count(self) -> usize {
        match self {
            Grid::Vertices(n) => n,
            Grid::Pixels {
                width,
                height,
                passes,
            } => width as usize * height as usize * passes as usize,
        }
    }

    /// The sample a per-sample invocation shades (0 otherwise).
    fn sample(self, inv: usize) -> u32 {
        match self {
            Grid::Pixels { width, height, .. } => (inv / (width as usize * height as usize)) as u32,
            Grid::Vertices(_) => 0,
        }
    }

    /// Pixel of invocation `inv` (quads in rows, lanes TL, TR, BL, BR).
    fn pixel(self, inv: usize) -> (u32, u32) {
        let Grid::Pixels { width, height, .. } = self else {
            return (0, 0);
        };
        let quads_per_row = (width / 2) as usize;
        let inv = inv % (width as usize * height as usize);
        let (q, lane) = (inv / 4, inv % 4);
        let (qx, qy) = ((q % quads_per_row) as u32, (q / quads_per_row) as u32);
        (2 * qx + (lane % 2) as u32, 2 * qy + (lane / 2) as u32)
    }
}

fn input_registers(r: &Reflection) -> u32 {
    r.inputs
        .iter()
        .filter_map(|e| e.register)
        .map(|x| x + 1)
        .max()
        .unwrap_or(0)
}

/// The synthetic value of element `e` for invocation `inv`.
fn synthetic(grid: Grid, inv: usize, e: &SignatureElement) -> [u32; 4] {
    let reg = e.register.unwrap_or(0);
    let int = matches!(e.component_type, ComponentType::Uint | ComponentType::Sint);
    let floats = |v: [f32; 4]| v.map(f32::to_bits);
    match grid {
        Grid::Vertices(n) => match e.system_value {
            SystemValue::VERTEX_ID => [inv as u32; 4],
            SystemValue::INSTANCE_ID => [0; 4],
            _ if int => [inv as u32, reg, 0, 1],
            _ => {
                let t = inv as f32 / n.max(1) as f32;
                floats([t, 1.0 - t, 0.5, 1.0])
            }
        },
        Grid::Pixels {
            width,
            height,
            passes,
        } => {
            let (x, y) = grid.pixel(inv);
            let sample = grid.sample(inv);
            // Per-sample passes evaluate at the sample's standard position.
            let offset = match passes {
                1 => [0.0, 0.0],
                n => sm5jit::sem::sample::sample_position(n, sample).map(f32::from_bits)[..2]
                    .try_into()
                    .unwrap_or([0.0, 0.0]),
            };
            let (sx, sy) = (x as f32 + 0.5 + offset[0], y as f32 + 0.5 + offset[1]);
            let (u, v) = (sx / width as f32, sy / height as f32);
            let mode = e.interpolation.unwrap_or(Interpolation::Linear);
            match e.system_value {
                SystemValue::POSITION => floats([sx, sy, 0.5, 1.0]),
                SystemValue::IS_FRONT_FACE => [u32::MAX; 4],
                SystemValue::PRIMITIVE_ID => [0; 4],
                SystemValue::SAMPLE_INDEX => [sample; 4],
                _ if mode.is_constant() || int => {
                    let q = (inv / 4) as u32;
                    if int {
                        [q, reg, 0, 1]
                    } else {
                        floats([q as f32, reg as f32, 0.0, 1.0])
                    }
                }
                _ => floats([u, v, 1.0 - u, 1.0 - v]),
            }
        }
    }
}

/// One `--input vN=SPEC`: register and a value per invocation.
struct InputSpec {
    reg: u32,
    kind: InputKind,
}

enum InputKind {
    Constant([u32; 4]),
    /// The synthetic value of the register's element(s).
    Synthetic,
    /// `(inv, inv, inv, inv)` as uint.
    Index,
}

fn parse_input(text: &str) -> Result<InputSpec, CliError> {
    let bad = |why: String| CliError::usage(format!("bad --input `{text}`: {why}"));
    let (reg, spec) = text
        .split_once('=')
        .ok_or_else(|| bad("expected vN=SPEC".into()))?;
    let reg: u32 = reg
        .strip_prefix('v')
        .and_then(|n| n.parse().ok())
        .filter(|&n| n < sm5jit::runtime::batch::MAX_INPUT_REGISTERS)
        .ok_or_else(|| bad(format!("`{reg}` is not an input register v0..v31")))?;
    let kind = match spec.split_once(':') {
        None if spec == "synthetic" => InputKind::Synthetic,
        None if spec == "index" => InputKind::Index,
        Some((ty, list)) => {
            let mut v = [0u32; 4];
            let items: Vec<&str> = list.split(',').collect();
            if items.len() > 4 {
                return Err(bad("at most four values".into()));
            }
            for (slot, item) in v.iter_mut().zip(items) {
                let item = item.trim();
                *slot = match ty {
                    "f32" => item.parse::<f32>().map(f32::to_bits).ok(),
                    "u32" => item.parse::<u32>().ok(),
                    "i32" => item.parse::<i32>().map(|x| x as u32).ok(),
                    _ => return Err(bad(format!("unknown type `{ty}` (f32, u32, i32)"))),
                }
                .ok_or_else(|| bad(format!("`{item}` is not a {ty}")))?;
            }
            InputKind::Constant(v)
        }
        None => {
            return Err(bad(
                "expected f32:A,B,C,D, u32:..., i32:..., synthetic or index".into(),
            ))
        }
    };
    Ok(InputSpec { reg, kind })
}

/// The batch's input data.
fn build_inputs(a: &RunArgs, r: &Reflection, grid: Grid) -> Result<(u32, Vec<u32>), CliError> {
    let specs: Vec<InputSpec> = a
        .inputs
        .iter()
        .map(|t| parse_input(t))
        .collect::<Result<_, _>>()?;
    let regs = specs
        .iter()
        .map(|s| s.reg + 1)
        .chain([input_registers(r)])
        .max()
        .unwrap_or(0);
    let count = grid.count();
    let mut data = vec![0u32; count * regs as usize * 4];
    for inv in 0..count {
        let base = inv * regs as usize * 4;
        let mut put = |reg: u32, mask: u8, v: [u32; 4]| {
            for c in 0..4 {
                if mask & (1 << c) != 0 {
                    data[base + reg as usize * 4 + c] = v[c];
                }
            }
        };
        if a.synthetic {
            for e in &r.inputs {
                if let Some(reg) = e.register {
                    put(reg, e.mask, synthetic(grid, inv, e));
                }
            }
        }
        for s in &specs {
            match s.kind {
                InputKind::Constant(v) => put(s.reg, 0xF, v),
                InputKind::Index => put(s.reg, 0xF, [inv as u32; 4]),
                InputKind::Synthetic => {
                    for e in r.inputs.iter().filter(|e| e.register == Some(s.reg)) {
                        put(s.reg, e.mask, synthetic(grid, inv, e));
                    }
                }
            }
        }
    }
    Ok((regs, data))
}

/// One engine's result.
struct StageRun {
    engine: EngineKind,
    result: BatchResult,
    /// Building (validating, compiling) the shader.
    compile: std::time::Duration,
    /// The batch call itself (inputs built before, bindings included).
    run: std::time::Duration,
}

fn engines(choice: EngineChoice) -> Vec<EngineKind> {
    match choice {
        EngineChoice::Interp => vec![EngineKind::Interpreter],
        EngineChoice::Jit => vec![EngineKind::Jit],
        EngineChoice::Both => vec![EngineKind::Interpreter, EngineKind::Jit],
    }
}

fn as_runtime(e: Error) -> RuntimeError {
    match e {
        Error::Runtime(r) => r,
        other => RuntimeError::InvalidProgram {
            inst_index: None,
            reason: other.to_string(),
        },
    }
}

/// `sm5jit run` on a vertex or pixel shader.
pub fn run_stage(
    a: &RunArgs,
    name: &str,
    loaded: &Loaded,
    resources: &[Resource],
) -> Result<ExitCode, CliError> {
    let kind = loaded.program.version.kind;
    let mut grid = match kind {
        ProgramKind::Vertex => {
            if a.pixels.is_some() || a.image.is_some() {
                return Err(CliError::usage(
                    "--pixels and --image are for pixel shaders",
                ));
            }
            let n = a.vertices.unwrap_or(DEFAULT_VERTICES);
            if n == 0 || n > MAX_VERTICES {
                return Err(CliError::usage(format!(
                    "--vertices {n}: expected 1..={MAX_VERTICES}"
                )));
            }
            Grid::Vertices(n)
        }
        _ => {
            if a.vertices.is_some() {
                return Err(CliError::usage("--vertices is for vertex shaders"));
            }
            let [width, height] = a.pixels.unwrap_or(DEFAULT_GRID);
            if !matches!(a.samples, 1 | 2 | 4 | 8 | 16) {
                return Err(CliError::usage(format!(
                    "--samples {}: expected 1, 2, 4, 8 or 16",
                    a.samples
                )));
            }
            // Checked below once the shader is reflected.
            Grid::Pixels {
                width,
                height,
                passes: 1,
            }
        }
    };
    let mut runs = Vec::new();
    let mut reflection = None;
    for engine in engines(a.engine) {
        let t = std::time::Instant::now();
        let shader = Shader::from_decoded(&loaded.program, loaded.chunks.as_ref(), engine)
            .map_err(|e| CliError::input(name.to_string(), e.to_string()))?;
        let compile = t.elapsed();
        let r = shader.reflect().clone();
        if let Grid::Pixels { passes, .. } = &mut grid {
            if r.flags.per_sample {
                *passes = a.samples;
            }
        }
        let (regs, data) = build_inputs(a, &r, grid)?;
        let mut inputs = BatchInputs::new(grid.count(), regs, &data);
        // A per-sample pass covers its own sample; otherwise every sample.
        let coverage: Vec<u32> = (0..grid.count()).map(|i| 1 << grid.sample(i)).collect();
        if let Grid::Pixels { passes, .. } = grid {
            inputs = inputs.with_sample_count(a.samples);
            if passes > 1 {
                inputs = inputs.with_coverage(&coverage);
            }
        }
        let config = DispatchConfig {
            budget: a.budget.unwrap_or(super::run::SYNTHETIC_BUDGET),
            ..DispatchConfig::default()
        };
        let mut res = resources.to_vec();
        let t = std::time::Instant::now();
        let result = crate::case::interp::with_bindings(&mut res, |b| {
            shader
                .run_batch_with(b, &inputs, &config)
                .map_err(as_runtime)
        })
        .map_err(|e| CliError::runtime(format!("{engine}: {e}")))?;
        let run = t.elapsed();
        reflection = Some(r);
        runs.push(StageRun {
            engine,
            result,
            compile,
            run,
        });
    }
    let (Some(first), Some(r)) = (runs.first(), reflection) else {
        return Err(CliError::usage("no engine to run"));
    };
    let disagreement = runs[1..]
        .iter()
        .find_map(|other| compare(grid, first, other));
    if let Some(path) = &a.image {
        write_image(path, grid, &first.result)?;
    }
    let stdout = std::io::stdout();
    let mut w = std::io::BufWriter::new(stdout.lock());
    let written = match a.format {
        OutputFormat::Text => text(&mut w, name, &r, grid, a, &runs),
        OutputFormat::Json => json(&mut w, name, &r, grid, a, &runs, &disagreement),
    };
    written
        .and_then(|()| std::io::Write::flush(&mut w))
        .map_err(|e| CliError::runtime(format!("writing the output: {e}")))?;
    match disagreement {
        Some(d) => Err(CliError::failed(format!("engines disagree: {d}"))),
        None => Ok(ExitCode::Ok),
    }
}

fn where_(grid: Grid, inv: usize) -> String {
    match grid {
        Grid::Vertices(_) => format!("vertex {inv}"),
        Grid::Pixels { passes, .. } => {
            let (x, y) = grid.pixel(inv);
            match passes {
                1 => format!("pixel ({x},{y})"),
                _ => format!("pixel ({x},{y}) sample {}", grid.sample(inv)),
            }
        }
    }
}

/// The first invocation whose fate or outputs differ.
fn compare(grid: Grid, a: &StageRun, b: &StageRun) -> Option<String> {
    let (ra, rb) = (&a.result, &b.result);
    for inv in 0..ra.count() {
        let fa = ra.lanes.get(inv);
        let fb = rb.lanes.get(inv);
        if fa != fb {
            return Some(format!(
                "{}: {} {:?}, {} {:?}",
                where_(grid, inv),
                a.engine,
                fa,
                b.engine,
                fb
            ));
        }
        let oa = (ra.outputs(inv), specials(ra, inv));
        let ob = (rb.outputs(inv), specials(rb, inv));
        if oa != ob {
            return Some(format!(
                "{}: {} {:x?}, {} {:x?}",
                where_(grid, inv),
                a.engine,
                oa,
                b.engine,
                ob
            ));
        }
    }
    None
}

fn specials(r: &BatchResult, inv: usize) -> Vec<(&'static str, u32)> {
    r.specials
        .iter()
        .filter_map(|&s| Some((s.semantic(), r.special(inv, s)?)))
        .collect()
}

fn lane_name(l: LaneResult) -> &'static str {
    match l {
        LaneResult::Written => "written",
        LaneResult::Discarded => "discarded",
        LaneResult::Helper => "helper",
    }
}

/// The semantics held in output register `reg`, joined with `/`.
fn semantic(r: &BatchResult, reg: u32) -> String {
    let names: Vec<String> = r
        .semantics
        .iter()
        .filter(|(_, _, x)| *x == reg)
        .map(|(n, i, _)| format!("{n}{i}"))
        .collect();
    names.join("/")
}

fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The text report, one line per invocation, streamed to `w`.
fn text(
    w: &mut impl std::io::Write,
    name: &str,
    r: &Reflection,
    grid: Grid,
    a: &RunArgs,
    runs: &[StageRun],
) -> std::io::Result<()> {
    let names: Vec<String> = runs.iter().map(|x| x.engine.to_string()).collect();
    let what = match grid {
        Grid::Vertices(n) => format!("{n} vertices"),
        Grid::Pixels {
            width,
            height,
            passes: 1,
        } => format!("{width}x{height} pixels"),
        Grid::Pixels {
            width,
            height,
            passes,
        } => format!("{width}x{height} pixels x {passes} samples (per-sample shading)"),
    };
    writeln!(
        w,
        "{name}: {} over {what} on {}",
        r.model,
        names.join(" and ")
    )?;
    let res = &runs[0].result;
    for inv in 0..res.count() {
        let lane = res.lanes[inv];
        if lane != LaneResult::Written {
            writeln!(w, "{}: {}", where_(grid, inv), lane_name(lane))?;
            continue;
        }
        let mut line = format!("{}:", where_(grid, inv));
        for (reg, v) in res.outputs(inv).unwrap_or_default() {
            let f = v.map(|x| format!("{}", f32::from_bits(x)));
            let _ = write!(
                line,
                " o{reg} {} = ({}) [{:08x} {:08x} {:08x} {:08x}];",
                semantic(res, reg),
                f.join(", "),
                v[0],
                v[1],
                v[2],
                v[3]
            );
        }
        for (s, v) in specials(res, inv) {
            let shown = if s.starts_with("SV_Depth") {
                format!("{}", f32::from_bits(v))
            } else {
                format!("{v:#x}")
            };
            let _ = write!(line, " {s} = {shown};");
        }
        writeln!(w, "{}", line.trim_end_matches(';'))?;
    }
    for x in runs {
        writeln!(
            w,
            "{}: compile {:.3} ms, batch {:.3} ms",
            x.engine,
            ms(x.compile),
            ms(x.run)
        )?;
    }
    if runs.len() > 1 {
        writeln!(
            w,
            "{}: identical outputs and discard state in every invocation",
            names.join(" and ")
        )?;
    }
    if let Some(p) = &a.image {
        writeln!(w, "o0 written to {p}")?;
    }
    Ok(())
}

/// One invocation as JSON.
fn invocation_json(res: &BatchResult, grid: Grid, inv: usize) -> serde_json::Value {
    let mut v = serde_json::json!({
        "index": inv,
        "lane": lane_name(res.lanes[inv]),
    });
    if let Grid::Pixels { .. } = grid {
        let (x, y) = grid.pixel(inv);
        v["x"] = x.into();
        v["y"] = y.into();
        v["sample"] = grid.sample(inv).into();
    }
    let outs: Vec<serde_json::Value> = res
        .outputs(inv)
        .unwrap_or_default()
        .into_iter()
        .map(|(reg, w)| {
            let (sem, idx, _) = res
                .semantics
                .iter()
                .find(|(_, _, x)| *x == reg)
                .cloned()
                .unwrap_or_default();
            serde_json::json!({
                "register": reg,
                "semantic": sem,
                "semantic_index": idx,
                "u32": w,
                "f32": w.map(|x| f32::from_bits(x).to_string()),
            })
        })
        .collect();
    v["outputs"] = outs.into();
    for (s, x) in specials(res, inv) {
        v[s] = x.into();
    }
    v
}

/// The JSON report, one object; the invocations are streamed to `w` one
/// per line, so memory does not grow with the grid beyond the result.
fn json(
    w: &mut impl std::io::Write,
    name: &str,
    r: &Reflection,
    grid: Grid,
    a: &RunArgs,
    runs: &[StageRun],
    disagreement: &Option<String>,
) -> std::io::Result<()> {
    let res = &runs[0].result;
    let (width, height, vertices) = match grid {
        Grid::Vertices(n) => (0, 0, n),
        Grid::Pixels { width, height, .. } => (width, height, 0),
    };
    let engines: Vec<serde_json::Value> = runs
        .iter()
        .map(|x| {
            serde_json::json!({
                "engine": x.engine.to_string(),
                "compile_ms": ms(x.compile),
                "batch_ms": ms(x.run),
            })
        })
        .collect();
    let head = serde_json::json!({
        "shader": name,
        "model": r.model,
        "engines": engines,
        "vertices": vertices,
        "width": width,
        "height": height,
        "samples": a.samples,
        "identical": disagreement.is_none(),
        "disagreement": disagreement,
    });
    let head = serde_json::to_string(&head).unwrap_or_default();
    writeln!(w, "{},\"invocations\":[", head.trim_end_matches('}'))?;
    for inv in 0..res.count() {
        let sep = if inv + 1 < res.count() { "," } else { "" };
        let v = serde_json::to_string(&invocation_json(res, grid, inv)).unwrap_or_default();
        writeln!(w, "{v}{sep}")?;
    }
    writeln!(w, "]}}")
}

/// `o0` of every pixel (sample 0 of a per-sample run) as RGBA8: each
/// float clamped to [0, 1], times 255, rounded; pixels without outputs
/// are (0, 0, 0, 0).
pub fn image_bytes(grid_w: u32, grid_h: u32, res: &BatchResult) -> Vec<u8> {
    let grid = Grid::Pixels {
        width: grid_w,
        height: grid_h,
        passes: 1,
    };
    let mut image = vec![0u8; grid.count() * 4];
    for inv in 0..res.count().min(grid.count()) {
        let Some(v) = res.output(inv, 0) else {
            continue;
        };
        let (x, y) = grid.pixel(inv);
        let at = (y as usize * grid_w as usize + x as usize) * 4;
        for (k, w) in v.iter().enumerate() {
            image[at + k] = (f32::from_bits(*w).clamp(0.0, 1.0) * 255.0).round() as u8;
        }
    }
    image
}

/// An 8-bit RGBA PNG of `rgba` (rows top to bottom).
fn encode_png(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(rgba)?;
    writer.finish()?;
    Ok(out)
}

fn write_image(path: &str, grid: Grid, res: &BatchResult) -> Result<(), CliError> {
    let Grid::Pixels { width, height, .. } = grid else {
        return Err(CliError::usage("--image is for pixel shaders"));
    };
    if !res.registers.contains(&0) {
        return Err(CliError::usage(
            "--image writes o0, which this shader does not declare",
        ));
    }
    let bytes = encode_png(width, height, &image_bytes(width, height, res))
        .map_err(|e| CliError::runtime(format!("encoding {path}: {e}")))?;
    super::front::write_output(path, &bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grid_pixels_are_quads_in_rows() {
        let g = Grid::Pixels {
            width: 4,
            height: 4,
            passes: 2,
        };
        let order: Vec<(u32, u32)> = (0..8).map(|i| g.pixel(i)).collect();
        assert_eq!(
            order,
            [
                (0, 0),
                (1, 0),
                (0, 1),
                (1, 1),
                (2, 0),
                (3, 0),
                (2, 1),
                (3, 1)
            ]
        );
        assert_eq!(g.pixel(15), (3, 3));
        assert_eq!((g.pixel(16), g.sample(16), g.sample(15)), ((0, 0), 1, 0));
        assert_eq!(g.count(), 32);
    }

    #[test]
    fn sizes_and_inputs_are_checked() {
        assert_eq!(parse_pixels("8x4"), Ok([8, 4]));
        assert!(parse_pixels("7x4").is_err());
        assert!(parse_pixels("0x4").is_err());
        assert!(parse_pixels("8").is_err());
        assert!(parse_input("v1=f32:1,2").is_ok());
        assert!(parse_input("v1=f32:1,2,3,4,5").is_err());
        assert!(parse_input("v40=u32:1").is_err());
        assert!(parse_input("r1=u32:1").is_err());
        assert!(parse_input("v1=q32:1").is_err());
    }
}
