//! Running one `.shader_test` script on one engine.
//!
//! In: a [`Script`] and an engine. Out: a [`Run`]: the verdict of every
//! probe (and every draw or dispatch that could not run), with the bytes
//! each probe read so two engines can be compared. Invariant: state
//! persists across the file exactly as the format page says (resources by
//! kind and slot, samplers, shaders per stage, input layout, uniforms);
//! a span whose `[require]` cannot be met runs none of its `[test]` lines
//! and creates none of its resources, and each of its probes is reported
//! as skipped with the reason.

use std::collections::BTreeMap;

use super::draw::{self, Topology};
use super::probe;
use super::resource::{self, Resource};
use super::script::Shape;
use super::script::{Item, Qualifiers, Require, ResKind, SamplerText, Script, Stage};
use super::shaders::Loaded;
use super::values;
use sm5jit::ir::{Decl, Program, ResourceDim};
use sm5jit::{
    AddressMode, Bindings, ComparisonFunc, DispatchConfig, EngineKind, Filter, FilterMode,
    SamplerDesc, Slot, TextureDim, TextureView, View,
};

/// What happened to one checked line.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Pass,
    Fail(String),
    Skip(String),
}

/// One checked line of one run.
#[derive(Clone, Debug)]
pub struct Record {
    pub line: usize,
    /// The directive as written (after its qualifiers).
    pub text: String,
    /// Marked `todo` or `bug` for this runner.
    pub todo: bool,
    pub verdict: Verdict,
    /// Probes: the bytes read, element by element (compared across engines).
    pub read: Vec<u8>,
}

/// Every record of one run, in file order.
#[derive(Clone, Debug, Default)]
pub struct Run {
    pub records: Vec<Record>,
}

/// The mutable pipeline state of a file.
pub struct State {
    pub engine: EngineKind,
    pub model: u32,
    /// Why the current span cannot run, if it cannot.
    pub unmet: Option<String>,
    pub vs: Option<Loaded>,
    pub ps: Option<Loaded>,
    pub cs: Option<Loaded>,
    pub builtin_vs: Option<Loaded>,
    pub srvs: BTreeMap<u32, Resource>,
    pub uavs: BTreeMap<u32, Resource>,
    pub rtvs: BTreeMap<u32, Resource>,
    pub vbs: BTreeMap<u32, Resource>,
    pub dsv: Option<Resource>,
    pub samplers: BTreeMap<u32, SamplerDesc>,
    pub layout: Vec<super::script::LayoutElement>,
    pub uniforms: Vec<u32>,
    pub depth_func: ComparisonFunc,
    pub sample_mask: u32,
    /// Resources a skipped draw or dispatch would have written, with the
    /// reason: probes of them are skipped for it until they are recreated
    /// or cleared.
    pub tainted: BTreeMap<(ResKind, u32), String>,
}

/// Runs a script on `engine`.
pub fn run(script: &Script, engine: EngineKind) -> Run {
    let mut st = State {
        engine,
        model: 40,
        unmet: None,
        vs: None,
        ps: None,
        cs: None,
        builtin_vs: None,
        srvs: BTreeMap::new(),
        uavs: BTreeMap::new(),
        rtvs: BTreeMap::new(),
        vbs: BTreeMap::new(),
        dsv: None,
        samplers: BTreeMap::new(),
        layout: Vec::new(),
        uniforms: Vec::new(),
        depth_func: ComparisonFunc::Less,
        sample_mask: u32::MAX,
        tainted: BTreeMap::new(),
    };
    let mut out = Run::default();
    for (line, item) in &script.items {
        let fail = |text: &str, why: String| Record {
            line: *line,
            text: text.to_string(),
            todo: false,
            verdict: Verdict::Fail(why),
            read: Vec::new(),
        };
        match item {
            Item::Require(r) => {
                st.model = r.min_model.unwrap_or(40);
                st.unmet = unmet(r);
            }
            Item::Shader { stage, blob } => {
                let l = Some(Loaded::from_dxbc(blob, engine));
                match stage {
                    Stage::Vertex => st.vs = l,
                    Stage::Pixel => st.ps = l,
                    Stage::Compute => st.cs = l,
                }
            }
            Item::Resource(d) => {
                if st.unmet.is_some() {
                    continue;
                }
                st.tainted.remove(&(d.kind, d.slot));
                match Resource::new(d) {
                    Ok(r) => {
                        let map = match d.kind {
                            ResKind::Srv => &mut st.srvs,
                            ResKind::Uav => &mut st.uavs,
                            ResKind::Rtv => &mut st.rtvs,
                            ResKind::Vb => &mut st.vbs,
                            ResKind::Dsv => {
                                st.dsv = Some(r);
                                continue;
                            }
                        };
                        map.insert(d.slot, r);
                    }
                    Err(e) => out.records.push(fail("resource", e)),
                }
            }
            Item::Sampler(s) => match sampler(s) {
                Ok(d) => {
                    st.samplers.insert(s.slot, d);
                }
                Err(e) => out.records.push(fail("sampler", e)),
            },
            Item::Layout(l) => st.layout = l.clone(),
            Item::Bad(e) => out.records.push(fail("", e.clone())),
            Item::Test { quals, directive } => {
                if let Some(r) = test_line(&mut st, *line, quals, directive) {
                    out.records.push(r);
                }
            }
        }
    }
    out
}

/// Why a span's requirements cannot be met here, if they cannot.
fn unmet(r: &Require) -> Option<String> {
    if let Some(line) = r.unknown.first() {
        return Some(format!("unknown requirement `{line}`"));
    }
    for f in &r.uav_load {
        if resource::format(f).is_none() {
            return Some(format!("typed UAV loads of unknown format `{f}`"));
        }
    }
    let model = r.min_model.unwrap_or(40);
    if !(40..=51).contains(&model) {
        return Some(format!("shader model {}.{}", model / 10, model % 10));
    }
    None
}

fn sampler(s: &SamplerText) -> Result<SamplerDesc, String> {
    let mode = |linear: bool| {
        if linear {
            FilterMode::Linear
        } else {
            FilterMode::Point
        }
    };
    let address = |a: &str| -> Result<AddressMode, String> {
        Ok(match a {
            "clamp" => AddressMode::Clamp,
            "wrap" => AddressMode::Wrap,
            "mirror" => AddressMode::Mirror,
            "mirror_once" => AddressMode::MirrorOnce,
            "border" => AddressMode::Border,
            _ => return Err(format!("unknown address mode `{a}`")),
        })
    };
    let comparison = match &s.comparison {
        Some(c) => compare_func(c)?,
        None => ComparisonFunc::Never,
    };
    Ok(SamplerDesc {
        filter: Filter {
            min: mode(s.linear[0]),
            mag: mode(s.linear[1]),
            mip: mode(s.linear[2]),
            anisotropic: false,
        },
        address_u: address(&s.address[0])?,
        address_v: address(&s.address[1])?,
        address_w: address(&s.address[2])?,
        border_color: [0.0; 4],
        comparison,
        mip_lod_bias: 0.0,
        min_lod: 0.0,
        max_lod: f32::INFINITY,
        max_anisotropy: 1,
    })
}

fn compare_func(name: &str) -> Result<ComparisonFunc, String> {
    Ok(match name.trim() {
        "never" => ComparisonFunc::Never,
        "less" => ComparisonFunc::Less,
        "equal" => ComparisonFunc::Equal,
        "less equal" => ComparisonFunc::LessEqual,
        "greater" => ComparisonFunc::Greater,
        "not equal" => ComparisonFunc::NotEqual,
        "greater equal" => ComparisonFunc::GreaterEqual,
        "always" => ComparisonFunc::Always,
        other => return Err(format!("unknown comparison `{other}`")),
    })
}

/// Runs one `[test]` line; returns a record for probes and for other
/// directives that failed.
fn test_line(st: &mut State, line: usize, q: &Qualifiers, directive: &str) -> Option<Record> {
    let mut rec = Record {
        line,
        text: directive.to_string(),
        todo: false,
        verdict: Verdict::Pass,
        read: Vec::new(),
    };
    let eval = |conds: &[String]| -> Result<Vec<bool>, String> {
        conds
            .iter()
            .map(|c| {
                if c.is_empty() {
                    Ok(true)
                } else {
                    values::condition(c, st.model)
                }
            })
            .collect()
    };
    let (cond, todo, bug) = match (eval(&q.cond), eval(&q.todo), eval(&q.bug)) {
        (Ok(c), Ok(t), Ok(b)) => (c, t, b),
        (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => {
            rec.verdict = Verdict::Fail(e);
            return Some(rec);
        }
    };
    if cond.iter().any(|c| !c) {
        return None;
    }
    rec.todo = todo.iter().any(|t| *t) || bug.iter().any(|b| *b);
    let is_probe = directive.starts_with("probe");
    if let Some(why) = &st.unmet {
        if is_probe {
            rec.verdict = Verdict::Skip(why.clone());
            return Some(rec);
        }
        return None;
    }
    if is_probe {
        if let Ok(p) = probe::parse(&directive["probe".len()..]) {
            if let Some(why) = st.tainted.get(&(p.target.kind, p.target.slot)) {
                rec.verdict = Verdict::Skip(why.clone());
                return Some(rec);
            }
        }
        match run_probe(st, &directive["probe".len()..]) {
            Ok((true, read, _)) => rec.read = read,
            Ok((false, read, why)) => {
                rec.read = read;
                rec.verdict = Verdict::Fail(why);
            }
            Err(e) => rec.verdict = Verdict::Fail(e),
        }
        return Some(rec);
    }
    match directive_line(st, directive) {
        Ok(()) => None,
        Err(Outcome::Fail(e)) => {
            rec.verdict = Verdict::Fail(e);
            Some(rec)
        }
        Err(Outcome::Skip(e)) => {
            // Nothing is counted for the directive itself; the probes that
            // would observe it are skipped with its reason.
            let written: Vec<(ResKind, u32)> = if directive.starts_with("dispatch") {
                st.uavs.keys().map(|n| (ResKind::Uav, *n)).collect()
            } else {
                let rtvs = st.rtvs.keys().map(|n| (ResKind::Rtv, *n));
                let uavs = st.uavs.keys().map(|n| (ResKind::Uav, *n));
                rtvs.chain(uavs).chain([(ResKind::Dsv, 0)]).collect()
            };
            for k in written {
                st.tainted.insert(k, e.clone());
            }
            None
        }
    }
}

/// A directive that did not simply work.
pub enum Outcome {
    Fail(String),
    /// The directive needs something D3D11 hardware has and this runner
    /// does not; the reason names it.
    Skip(String),
}

impl From<String> for Outcome {
    fn from(s: String) -> Outcome {
        Outcome::Fail(s)
    }
}

impl From<&str> for Outcome {
    fn from(s: &str) -> Outcome {
        Outcome::Fail(s.to_string())
    }
}

fn directive_line(st: &mut State, d: &str) -> Result<(), Outcome> {
    let words: Vec<&str> = d.split_whitespace().collect();
    let num = |s: &str| -> Result<u32, String> {
        s.parse().map_err(|_| format!("bad number `{s}` in `{d}`"))
    };
    match words.as_slice() {
        ["draw", "quad"] => draw::draw(st, Topology::Quad, 3, 1),
        ["draw", "triangle", kind, n, rest @ ..] => {
            let topo = match *kind {
                "list" => Topology::List,
                "strip" => Topology::Strip,
                _ => return Err(format!("unknown topology `{kind}`").into()),
            };
            let instances = match rest {
                [] => 1,
                [i] => num(i)?,
                _ => return Err(format!("bad draw `{d}`").into()),
            };
            draw::draw(st, topo, num(n)?, instances)
        }
        ["dispatch", x, y, z] => dispatch(st, [num(x)?, num(y)?, num(z)?]).map_err(Outcome::from),
        ["clear", "rtv", n, r, g, b, a] => {
            let v = [r, g, b, a].map(|t| {
                values::float(t)
                    .map(f32::to_bits)
                    .ok_or(format!("bad float `{t}`"))
            });
            let v = [v[0].clone()?, v[1].clone()?, v[2].clone()?, v[3].clone()?];
            let slot = num(n)?;
            if slot == 0 {
                draw::default_target(st);
            }
            let t = st
                .rtvs
                .get_mut(&slot)
                .ok_or(format!("clear: no render target {slot}"))?;
            t.clear(v);
            st.tainted.remove(&(ResKind::Rtv, slot));
            Ok(())
        }
        ["clear", "dsv", v] => {
            let v = values::float(v).ok_or(format!("bad float `{v}`"))?;
            let t = st
                .dsv
                .as_mut()
                .ok_or("clear: no depth buffer".to_string())?;
            t.clear([v.to_bits(); 4]);
            st.tainted.remove(&(ResKind::Dsv, 0));
            Ok(())
        }
        ["copy", dk, dn, sk, sn] => copy(st, (dk, num(dn)?), (sk, num(sn)?)).map_err(Outcome::from),
        ["uniform", off, ty, vals @ ..] => uniform(st, num(off)?, ty, vals).map_err(Outcome::from),
        ["depth", rest @ ..] => {
            st.depth_func = compare_func(&rest.join(" "))?;
            Ok(())
        }
        ["sample", "mask", m] => {
            st.sample_mask = values::c_int(m).ok_or(format!("bad sample mask `{m}`"))?;
            Ok(())
        }
        _ => Err(format!("unsupported directive `{d}`").into()),
    }
}

fn uniform(st: &mut State, off: u32, ty: &str, vals: &[&str]) -> Result<(), String> {
    let bad = |t: &str| format!("bad {ty} value `{t}`");
    let words: Vec<u32> = match ty {
        "float" | "float4" => vals
            .iter()
            .map(|t| values::float(t).map(f32::to_bits).ok_or_else(|| bad(t)))
            .collect::<Result<_, _>>()?,
        "int" | "uint" | "int4" | "uint4" => vals
            .iter()
            .map(|t| values::c_int(t).ok_or_else(|| bad(t)))
            .collect::<Result<_, _>>()?,
        "double2" => vals
            .iter()
            .map(|t| values::double(t).map(f64::to_bits).ok_or_else(|| bad(t)))
            .collect::<Result<Vec<u64>, _>>()?
            .into_iter()
            .flat_map(|d| [d as u32, (d >> 32) as u32])
            .collect(),
        _ => return Err(format!("unknown uniform type `{ty}`")),
    };
    let want = match ty {
        "float" | "int" | "uint" => 1,
        _ => 4,
    };
    if words.len() != want {
        return Err(format!(
            "uniform {ty} needs {want} words, got {}",
            words.len()
        ));
    }
    let end = off as usize + want;
    if end > 1 << 16 {
        return Err(format!("uniform offset {off} is past 64K words"));
    }
    let len = end.div_ceil(4) * 4;
    if st.uniforms.len() < len {
        st.uniforms.resize(len, 0x7f7f_7f7f);
    }
    st.uniforms[off as usize..end].copy_from_slice(&words);
    Ok(())
}

fn copy(st: &mut State, dst: (&&str, u32), src: (&&str, u32)) -> Result<(), String> {
    let get = |st: &State, k: &str, n: u32| -> Option<Resource> {
        match k {
            "srv" => st.srvs.get(&n).cloned(),
            "uav" => st.uavs.get(&n).cloned(),
            "rtv" => st.rtvs.get(&n).cloned(),
            "dsv" => st.dsv.clone(),
            _ => None,
        }
    };
    let s = get(st, src.0, src.1).ok_or(format!("copy: no {} {}", src.0, src.1))?;
    let d = match *dst.0 {
        "srv" => st.srvs.get_mut(&dst.1),
        "uav" => st.uavs.get_mut(&dst.1),
        "rtv" => st.rtvs.get_mut(&dst.1),
        "dsv" => st.dsv.as_mut(),
        _ => None,
    }
    .ok_or(format!("copy: no {} {}", dst.0, dst.1))?;
    if d.shape != s.shape || d.levels != s.levels || d.data.len() != s.data.len() {
        return Err("copy: the resources differ in size, levels or samples".into());
    }
    d.data.copy_from_slice(&s.data);
    Ok(())
}

/// The uniform words as the bytes of `cb0`.
pub fn uniform_bytes(st: &State) -> Vec<u8> {
    st.uniforms.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Binds SRVs, UAVs, samplers and `cb0` (when uniforms were set).
///
/// A typed buffer bound where `program` declares a 1D or 2D texture UAV is
/// viewed as a one-row texture of its elements: D3D11 hardware addresses
/// the same memory that way (vkd3d's `uav-atomics` test binds one so and
/// expects it to work).
pub fn bind<'a>(
    b: &mut Bindings<'a>,
    srvs: &'a BTreeMap<u32, Resource>,
    uavs: &'a mut BTreeMap<u32, Resource>,
    samplers: &BTreeMap<u32, SamplerDesc>,
    cb: &'a [u8],
    program: Option<&Program>,
) {
    for (n, r) in srvs {
        b.srv(Slot::new(*n), &r.data, r.view());
    }
    for (n, r) in uavs.iter_mut() {
        let mut view = r.view();
        if let (Shape::Buffer { n: len }, Some(dim)) =
            (r.shape, program.and_then(|p| uav_dim(p, *n)))
        {
            let tex = match dim {
                ResourceDim::Texture2D => Some(TextureDim::Tex2D),
                ResourceDim::Texture1D => Some(TextureDim::Tex1D),
                _ => None,
            };
            if let Some(t) = tex {
                view = View::texture(TextureView::packed(t, r.format, [len, 1, 1], 1));
            }
        }
        b.uav(Slot::new(*n), &mut r.data, view);
    }
    for (n, s) in samplers {
        b.sampler(Slot::new(*n), *s);
    }
    if !cb.is_empty() {
        b.cb(Slot::new(0), cb);
    }
}

/// The dimension `program` declares for typed UAV `u{slot}`.
fn uav_dim(program: &Program, slot: u32) -> Option<ResourceDim> {
    program.decls.iter().find_map(|d| match d {
        Decl::UavTyped(u) if u.op.imm_index(0) == Some(slot) => Some(u.dim),
        _ => None,
    })
}

fn dispatch(st: &mut State, groups: [u32; 3]) -> Result<(), String> {
    let cs = st.cs.as_ref().ok_or("dispatch: no compute shader")?;
    let shader = cs.get().map_err(|e| format!("compute shader: {e}"))?;
    let cb = uniform_bytes(st);
    let mut b = Bindings::new();
    bind(
        &mut b,
        &st.srvs,
        &mut st.uavs,
        &st.samplers,
        &cb,
        cs.program.as_ref(),
    );
    let config = DispatchConfig {
        threads: 1,
        ..DispatchConfig::default()
    };
    shader
        .dispatch_with(&mut b, groups, &config)
        .map(|_| ())
        .map_err(|e| format!("dispatch: {e}"))
}

/// Reads and checks a probe: (matched, bytes read, why not).
fn run_probe(st: &State, text: &str) -> Result<(bool, Vec<u8>, String), String> {
    let p = probe::parse(text)?;
    let r = match p.target.kind {
        ResKind::Rtv => st.rtvs.get(&p.target.slot),
        ResKind::Uav => st.uavs.get(&p.target.slot),
        ResKind::Dsv => st.dsv.as_ref(),
        _ => None,
    }
    .ok_or_else(|| format!("probe: no {} {}", p.target.kind.name(), p.target.slot))?;
    let size = p.expect.element_bytes();
    let [l, t, rt, bm] = p.rect;
    let mut read = Vec::new();
    let mut first_bad = None;
    let mut bad = 0u64;
    for y in t..bm {
        for x in l..rt {
            let e = r
                .element(x, y, size)
                .ok_or_else(|| format!("probe: ({x}, {y}) is outside the resource"))?;
            if !p.expect.matches(&e) {
                bad += 1;
                first_bad.get_or_insert_with(|| (x, y, p.expect.show(&e)));
            }
            read.extend_from_slice(&e);
        }
    }
    match first_bad {
        None => Ok((true, read, String::new())),
        Some((x, y, got)) => {
            let more = if bad > 1 {
                format!(" ({bad} elements differ)")
            } else {
                String::new()
            };
            Ok((
                false,
                read,
                format!(
                    "({x}, {y}): got {got}, expected {}{more}",
                    p.expect.describe()
                ),
            ))
        }
    }
}
