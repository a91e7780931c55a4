//! Reading a `.shader_test` file into the items a runner executes.
//!
//! In: the file's text. Out: a [`Script`]: [`Item`]s in the order they take
//! effect (a section when it ends, each `[test]` line at once), each with
//! its 1-based line number. Invariant: nothing here runs anything or
//! panics; a line this reader cannot understand becomes an
//! [`Item::Bad`] naming it, so the runner reports it as a failure instead
//! of silently dropping it.

use super::values;

/// The stage of a shader section.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Vertex,
    Pixel,
    Compute,
}

/// The kind of a resource section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ResKind {
    Srv,
    Uav,
    Rtv,
    Dsv,
    Vb,
}

impl ResKind {
    pub fn name(self) -> &'static str {
        match self {
            ResKind::Srv => "srv",
            ResKind::Uav => "uav",
            ResKind::Rtv => "rtv",
            ResKind::Dsv => "dsv",
            ResKind::Vb => "vb",
        }
    }
}

/// The `size (...)` of a resource.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Tex2d { w: u32, h: u32 },
    Tex2dMs { samples: u32, w: u32, h: u32 },
    Tex3d { w: u32, h: u32, d: u32 },
    Cube { w: u32 },
    Buffer { n: u32 },
    RawBuffer { n: u32 },
}

/// A resource section as written.
#[derive(Clone, Debug, PartialEq)]
pub struct ResourceDesc {
    pub kind: ResKind,
    pub slot: u32,
    /// The format name (`r32g32b32a32-float`, ...), if given.
    pub format: Option<String>,
    pub shape: Option<Shape>,
    pub levels: u32,
    pub data: Vec<u32>,
}

/// A `[sampler N]` section as written.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SamplerText {
    pub slot: u32,
    /// min, mag, mip: `true` for linear.
    pub linear: [bool; 3],
    pub address: [String; 3],
    pub comparison: Option<String>,
}

/// One `[input layout]` line.
#[derive(Clone, Debug, PartialEq)]
pub struct LayoutElement {
    pub slot: u32,
    pub format: String,
    pub semantic: String,
    pub index: u32,
}

/// What a `[require]` section asks for.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Require {
    /// `shader model >= X` as `10 * X + Y` (40 when absent).
    pub min_model: Option<u32>,
    pub max_model: Option<u32>,
    pub float64: bool,
    /// `format <fmt> uav-load` lines.
    pub uav_load: Vec<String>,
    /// Lines this reader does not know: the span cannot run.
    pub unknown: Vec<String>,
}

/// The prefixes of a `[test]` line.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Qualifiers {
    /// `todo` / `todo(COND)` conditions (empty string: unconditional).
    pub todo: Vec<String>,
    pub bug: Vec<String>,
    pub cond: Vec<String>,
}

/// One item of a script.
#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Require(Require),
    Shader {
        stage: Stage,
        blob: Vec<u8>,
    },
    Resource(ResourceDesc),
    Sampler(SamplerText),
    Layout(Vec<LayoutElement>),
    /// A `[test]` line: qualifiers and the directive text after them.
    Test {
        quals: Qualifiers,
        directive: String,
    },
    /// A line or section that could not be read.
    Bad(String),
}

/// A parsed file: items with their line numbers.
#[derive(Clone, Debug, Default)]
pub struct Script {
    pub items: Vec<(usize, Item)>,
}

enum Section {
    None,
    Require(Require),
    Shader(Stage, Vec<u8>),
    Resource(ResourceDesc),
    Sampler(SamplerText),
    Layout(Vec<LayoutElement>),
    Test,
    /// An unknown header: its lines are ignored, the header is reported.
    Unknown,
}

/// Reads a whole file.
pub fn parse(text: &str) -> Script {
    let mut script = Script::default();
    let mut section = Section::None;
    let mut start = 0;
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end();
        if line.starts_with('%') || line.trim().is_empty() {
            continue;
        }
        if line.starts_with('[') {
            finish(
                &mut script,
                start,
                std::mem::replace(&mut section, Section::None),
            );
            start = n;
            section = match header(line) {
                Ok(s) => s,
                Err(e) => {
                    script.items.push((n, Item::Bad(e)));
                    Section::Unknown
                }
            };
            continue;
        }
        if let Err(e) = body_line(&mut script, &mut section, n, line) {
            script.items.push((n, Item::Bad(e)));
        }
    }
    finish(&mut script, start, section);
    script
}

fn header(line: &str) -> Result<Section, String> {
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or_else(|| format!("bad section header `{line}`"))?;
    let words: Vec<&str> = inner.split_whitespace().collect();
    let slot = |w: Option<&&str>| -> Result<u32, String> {
        w.and_then(|s| s.parse().ok())
            .ok_or_else(|| format!("section `{line}` needs a slot number"))
    };
    let resource = |kind, slot| {
        Section::Resource(ResourceDesc {
            kind,
            slot,
            format: None,
            shape: None,
            levels: 1,
            data: Vec::new(),
        })
    };
    Ok(match words.as_slice() {
        ["require"] => Section::Require(Require::default()),
        ["test"] => Section::Test,
        [stage, "shader", "dxbc-tpf-hex"] => {
            let stage = match *stage {
                "vertex" => Stage::Vertex,
                "pixel" => Stage::Pixel,
                "compute" => Stage::Compute,
                _ => return Err(format!("unsupported shader stage in `{line}`")),
            };
            Section::Shader(stage, Vec::new())
        }
        ["srv", n] => resource(ResKind::Srv, slot(Some(n))?),
        ["uav", n] => resource(ResKind::Uav, slot(Some(n))?),
        ["rtv", n] => resource(ResKind::Rtv, slot(Some(n))?),
        ["vb", n] => resource(ResKind::Vb, slot(Some(n))?),
        ["dsv"] => resource(ResKind::Dsv, 0),
        ["sampler", n] => Section::Sampler(SamplerText {
            slot: slot(Some(n))?,
            linear: [false; 3],
            address: ["clamp".into(), "clamp".into(), "clamp".into()],
            comparison: None,
        }),
        ["input", "layout"] => Section::Layout(Vec::new()),
        _ => return Err(format!("unsupported section `{line}`")),
    })
}

fn finish(script: &mut Script, start: usize, section: Section) {
    let item = match section {
        Section::None | Section::Test | Section::Unknown => return,
        Section::Require(r) => Item::Require(r),
        Section::Shader(stage, blob) => Item::Shader { stage, blob },
        Section::Resource(r) => Item::Resource(r),
        Section::Sampler(s) => Item::Sampler(s),
        Section::Layout(l) => Item::Layout(l),
    };
    script.items.push((start, item));
}

fn body_line(
    script: &mut Script,
    section: &mut Section,
    n: usize,
    line: &str,
) -> Result<(), String> {
    match section {
        Section::None => Err(format!("`{line}` outside any section")),
        Section::Unknown => Ok(()),
        Section::Require(r) => {
            require_line(r, line.trim());
            Ok(())
        }
        Section::Shader(_, blob) => hex_line(blob, line),
        Section::Resource(r) => resource_line(r, line.trim()),
        Section::Sampler(s) => sampler_line(s, line.trim()),
        Section::Layout(l) => {
            l.push(layout_line(line.trim())?);
            Ok(())
        }
        Section::Test => {
            let (quals, directive) = qualifiers(line.trim())?;
            script.items.push((n, Item::Test { quals, directive }));
            Ok(())
        }
    }
}

fn require_line(r: &mut Require, line: &str) {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["shader", "model", ">=", m] if values::model(m).is_some() => {
            r.min_model = values::model(m)
        }
        ["shader", "model", "<", m] if values::model(m).is_some() => r.max_model = values::model(m),
        ["float64"] => r.float64 = true,
        ["format", f, "uav-load"] => r.uav_load.push((*f).to_string()),
        ["options:", ..] => {}
        _ => r.unknown.push(line.to_string()),
    }
}

fn hex_line(blob: &mut Vec<u8>, line: &str) -> Result<(), String> {
    let code = line.split('%').next().unwrap_or("");
    for word in code.split_whitespace() {
        if word.len() != 8 {
            return Err(format!("hex word `{word}` is not 8 digits"));
        }
        let v = u32::from_str_radix(word, 16).map_err(|_| format!("bad hex word `{word}`"))?;
        blob.extend_from_slice(&v.to_le_bytes());
    }
    Ok(())
}

fn resource_line(r: &mut ResourceDesc, line: &str) -> Result<(), String> {
    if let Some(f) = line.strip_prefix("format ") {
        r.format = Some(f.trim().to_string());
        return Ok(());
    }
    if let Some(s) = line.strip_prefix("size") {
        r.shape = Some(shape(s.trim()).ok_or_else(|| format!("bad size `{line}`"))?);
        return Ok(());
    }
    if let Some(l) = line.strip_prefix("levels ") {
        r.levels = l
            .trim()
            .parse()
            .map_err(|_| format!("bad levels `{line}`"))?;
        return Ok(());
    }
    let before = r.data.len();
    for tok in line.split_whitespace() {
        match values::data_word(tok) {
            Some(w) => r.data.push(w),
            None => break,
        }
    }
    if r.data.len() == before {
        return Err(format!("unsupported resource line `{line}`"));
    }
    Ok(())
}

fn shape(s: &str) -> Option<Shape> {
    let inner = s.strip_prefix('(')?.strip_suffix(')')?;
    let parts: Vec<&str> = inner.split(',').map(str::trim).collect();
    let num = |i: usize| -> Option<u32> { parts.get(i)?.parse().ok() };
    Some(match (parts.first()?, parts.len()) {
        (&"2d", 3) => Shape::Tex2d {
            w: num(1)?,
            h: num(2)?,
        },
        (&"2dms", 4) => Shape::Tex2dMs {
            samples: num(1)?,
            w: num(2)?,
            h: num(3)?,
        },
        (&"3d", 4) => Shape::Tex3d {
            w: num(1)?,
            h: num(2)?,
            d: num(3)?,
        },
        (&"cube", 2) => Shape::Cube { w: num(1)? },
        (&"buffer", 2) => Shape::Buffer { n: num(1)? },
        (&"raw_buffer", 2) => Shape::RawBuffer { n: num(1)? },
        _ => return None,
    })
}

fn sampler_line(s: &mut SamplerText, line: &str) -> Result<(), String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        ["filter", a, b, c] => {
            for (k, w) in [a, b, c].iter().enumerate() {
                s.linear[k] = match **w {
                    "linear" => true,
                    "point" => false,
                    _ => return Err(format!("bad filter `{line}`")),
                };
            }
        }
        ["address", a, b, c] => s.address = [a.to_string(), b.to_string(), c.to_string()],
        ["comparison", rest @ ..] if !rest.is_empty() => s.comparison = Some(rest.join(" ")),
        _ => return Err(format!("unsupported sampler line `{line}`")),
    }
    Ok(())
}

fn layout_line(line: &str) -> Result<LayoutElement, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let bad = || format!("bad input layout line `{line}`");
    let (slot, format, semantic, index) = match words.as_slice() {
        [s, f, n] => (s, f, n, "0"),
        [s, f, n, i] => (s, f, n, *i),
        _ => return Err(bad()),
    };
    Ok(LayoutElement {
        slot: slot.parse().map_err(|_| bad())?,
        format: format.to_string(),
        semantic: semantic.to_string(),
        index: index.parse().map_err(|_| bad())?,
    })
}

/// Splits `todo(msl) if(sm<6) probe ...` into its prefixes and directive.
pub fn qualifiers(mut line: &str) -> Result<(Qualifiers, String), String> {
    let mut q = Qualifiers::default();
    loop {
        line = line.trim_start();
        let (name, list) = if let Some(r) = line.strip_prefix("todo") {
            ("todo", r)
        } else if let Some(r) = line.strip_prefix("bug") {
            ("bug", r)
        } else if let Some(r) = line.strip_prefix("if") {
            ("if", r)
        } else {
            break;
        };
        if let Some(r) = list.strip_prefix('(') {
            let end = r
                .find(')')
                .ok_or_else(|| format!("unclosed `{name}(` in `{line}`"))?;
            let cond = r[..end].to_string();
            match name {
                "todo" => q.todo.push(cond),
                "bug" => q.bug.push(cond),
                _ => q.cond.push(cond),
            }
            line = &r[end + 1..];
        } else if name == "todo" && list.starts_with(char::is_whitespace) {
            q.todo.push(String::new());
            line = list;
        } else {
            break;
        }
    }
    Ok((q, line.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_take_effect_when_they_end() {
        let s = parse(
            "% comment\n[require]\nshader model >= 5.0\n\n[srv 0]\nsize (2d, 2, 1)\n\
             0.25 0.5 0.75 1.0    1 2 3 4\n[pixel shader dxbc-tpf-hex]\n43425844 00000001 % note\n\
             [test]\ntodo(msl) if(sm>=6) probe (0, 0) rgba (1, 2, 3, 4)\n",
        );
        let kinds: Vec<usize> = s.items.iter().map(|(n, _)| *n).collect();
        assert_eq!(kinds, vec![2, 5, 8, 11]);
        match &s.items[1].1 {
            Item::Resource(r) => {
                assert_eq!(r.shape, Some(Shape::Tex2d { w: 2, h: 1 }));
                assert_eq!(r.data[0], 0.25f32.to_bits());
                assert_eq!(&r.data[4..], &[1, 2, 3, 4]);
            }
            other => panic!("{other:?}"),
        }
        match &s.items[2].1 {
            Item::Shader { stage, blob } => {
                assert_eq!(*stage, Stage::Pixel);
                assert_eq!(&blob[..4], b"DXBC");
                assert_eq!(blob.len(), 8);
            }
            other => panic!("{other:?}"),
        }
        match &s.items[3].1 {
            Item::Test { quals, directive } => {
                assert_eq!(quals.todo, vec!["msl".to_string()]);
                assert_eq!(quals.cond, vec!["sm>=6".to_string()]);
                assert_eq!(directive, "probe (0, 0) rgba (1, 2, 3, 4)");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn bad_lines_are_items_not_panics() {
        let s = parse("[frobnicate]\nx\n[pixel shader dxbc-tpf-hex]\n123\n[srv 0]\nwhat\n");
        let bad = s
            .items
            .iter()
            .filter(|(_, i)| matches!(i, Item::Bad(_)))
            .count();
        assert_eq!(bad, 3);
    }

    #[test]
    fn bare_todo_and_todo_words() {
        let (q, d) = qualifiers("todo probe (0,0) rgba(1,1,1,1)").unwrap();
        assert_eq!(q.todo, vec![String::new()]);
        assert_eq!(d, "probe (0,0) rgba(1,1,1,1)");
        let (q, d) = qualifiers("bug(mvk<1.2.11) draw quad").unwrap();
        assert_eq!(q.bug, vec!["mvk<1.2.11".to_string()]);
        assert_eq!(d, "draw quad");
    }
}
