//! The text form of a [`Reflection`] (what `sm5jit info` prints): one
//! section per kind, one line per element, masks as `xyzw` letters.

use std::fmt::Write as _;

use super::{Reflection, SignatureElement};

/// `xy_w`-style mask letters (`-` for an empty mask).
pub fn mask_text(m: u8) -> String {
    if m == 0 {
        return "-".to_string();
    }
    "xyzw"
        .chars()
        .enumerate()
        .map(|(i, c)| if m & (1 << i) != 0 { c } else { '_' })
        .collect()
}

fn element(out: &mut String, e: &SignatureElement) {
    let sv = match e.system_value.semantic() {
        Some(n) => n.to_string(),
        None if e.system_value.0 == 0 => "-".to_string(),
        None => format!("sv{}", e.system_value.0),
    };
    let interp = e
        .interpolation
        .map(|m| format!(" {m:?}").to_lowercase())
        .unwrap_or_default();
    let stream = if e.stream != 0 {
        format!(" stream {}", e.stream)
    } else {
        String::new()
    };
    let _ = writeln!(
        out,
        "  {:<24} {:<10} mask {} rw {} declared {} sv {} {:?}{interp}{stream}",
        format!("{}{}", e.semantic, e.semantic_index),
        e.operand,
        mask_text(e.mask),
        mask_text(e.rw_mask),
        mask_text(e.declared_mask),
        sv,
        e.component_type,
    );
}

fn name(n: &Option<String>) -> String {
    n.as_ref().map(|s| format!(" \"{s}\"")).unwrap_or_default()
}

fn range(slot: u32, count: u32) -> String {
    match count {
        1 => slot.to_string(),
        u32::MAX => format!("{slot}.."),
        n => format!("{slot}..{}", slot.saturating_add(n - 1)),
    }
}

pub fn text(r: &Reflection) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "model: {}", r.model);
    for (title, list) in [("inputs", &r.inputs), ("outputs", &r.outputs)] {
        let _ = writeln!(o, "{title}: {}", list.len());
        for e in list {
            element(&mut o, e);
        }
    }
    let _ = writeln!(o, "constant buffers: {}", r.constant_buffers.len());
    for c in &r.constant_buffers {
        let dynamic = if c.dynamic { " dynamic" } else { "" };
        let _ = writeln!(
            o,
            "  cb{} space {} {} bytes{dynamic}{}",
            range(c.slot, c.count),
            c.space,
            c.size,
            name(&c.name)
        );
        for v in &c.variables {
            let used = if v.used { "" } else { " (unused)" };
            let _ = writeln!(o, "    {} @{} {} bytes{used}", v.name, v.offset, v.size);
        }
    }
    for (title, prefix, list) in [("srvs", "t", &r.srvs), ("uavs", "u", &r.uavs)] {
        let _ = writeln!(o, "{title}: {}", list.len());
        for s in list {
            let mut extra = String::new();
            if let Some(t) = &s.return_type {
                let _ = write!(extra, " ({})", t.join(","));
            }
            if let Some(st) = s.stride {
                let _ = write!(extra, " stride {st}");
            }
            if s.sample_count > 0 {
                let _ = write!(extra, " samples {}", s.sample_count);
            }
            if s.counter {
                extra.push_str(" counter");
            }
            if s.append_consume {
                extra.push_str(" append/consume");
            }
            if s.globally_coherent {
                extra.push_str(" glc");
            }
            if s.rasterizer_ordered {
                extra.push_str(" rov");
            }
            let _ = writeln!(
                o,
                "  {prefix}{} space {} {}{extra}{}",
                range(s.slot, s.count),
                s.space,
                s.dimension,
                name(&s.name)
            );
        }
    }
    let _ = writeln!(o, "samplers: {}", r.samplers.len());
    for s in &r.samplers {
        let tex: Vec<String> = s.textures.iter().map(|t| format!("t{t}")).collect();
        let _ = writeln!(
            o,
            "  s{} space {} {} with [{}]{}",
            range(s.slot, s.count),
            s.space,
            s.mode,
            tex.join(", "),
            name(&s.name)
        );
    }
    let [x, y, z] = r.thread_group;
    let _ = writeln!(o, "thread group: {x} x {y} x {z}");
    let _ = writeln!(o, "tgsm bytes: {}", r.tgsm_bytes);
    let c = &r.instructions;
    let stat = c
        .stat_total
        .map(|s| format!(" (STAT says {s})"))
        .unwrap_or_default();
    let _ = writeln!(
        o,
        "instructions: {}{stat}: float {}, int {}, compare {}, convert {}, move {}, double {}, flow {}, memory {}, sample {}, atomic {}, sync {}, graphics {}",
        c.total, c.float, c.int, c.compare, c.convert, c.movement, c.double, c.flow, c.memory,
        c.sample, c.atomic, c.sync, c.graphics
    );
    let f = &r.flags;
    let mut names: Vec<String> = Vec::new();
    let mut flag = |on: bool, n: &str| {
        if on {
            names.push(n.to_string());
        }
    };
    flag(f.discards, "discards");
    flag(
        f.writes_depth != super::DepthOutput::None,
        &format!("writes depth ({:?})", f.writes_depth).to_lowercase(),
    );
    flag(f.writes_coverage, "writes coverage");
    flag(f.writes_stencil_ref, "writes stencil ref");
    flag(f.reads_coverage, "reads coverage");
    flag(f.per_sample, "per-sample");
    flag(f.uses_derivatives, "derivatives");
    flag(f.uses_doubles, "doubles");
    flag(f.uses_atomics, "atomics");
    flag(f.uses_barriers, "barriers");
    flag(f.early_depth_stencil, "early depth-stencil");
    let _ = writeln!(
        o,
        "flags: {}",
        if names.is_empty() {
            "none".to_string()
        } else {
            names.join(", ")
        }
    );
    o
}
