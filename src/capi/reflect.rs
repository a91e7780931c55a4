//! The C ABI of [`Shader::reflect`](crate::Shader::reflect), shaped like
//! D3D's shader reflection: a shader description
//! (`sm5jit_reflect`), one signature element by index
//! (`sm5jit_reflect_input`/`_output`), one binding by kind and index
//! (`sm5jit_reflect_binding`), and the whole reflection as JSON
//! (`sm5jit_reflect_json`).
//!
//! In: a shader handle and caller structs whose `struct_size` says which
//! layout the caller was built against. Out: the structs filled, names
//! copied into their fixed arrays (NUL-terminated, truncated to 63
//! bytes), so nothing returned points into the library. Invariant: an
//! index past the list is `SM5JIT_ERROR_INVALID_ARGUMENT`; outputs are
//! written only on success.

use std::ffi::{c_char, c_int};

use super::convert::check_size;
use super::{fail, guard, invalid, out, shader, status, Failure};
use crate::reflect::{DepthOutput, Reflection, SignatureElement};

/// `SM5JIT_REFLECT_*` flag bits of [`CShaderDesc::flags`].
pub mod flag {
    pub const DISCARDS: u32 = 1;
    pub const WRITES_DEPTH: u32 = 2;
    pub const WRITES_COVERAGE: u32 = 4;
    pub const WRITES_STENCIL_REF: u32 = 8;
    pub const READS_COVERAGE: u32 = 0x10;
    pub const PER_SAMPLE: u32 = 0x20;
    pub const USES_DERIVATIVES: u32 = 0x40;
    pub const USES_DOUBLES: u32 = 0x80;
    pub const USES_ATOMICS: u32 = 0x100;
    pub const USES_BARRIERS: u32 = 0x200;
    pub const EARLY_DEPTH_STENCIL: u32 = 0x400;
    pub const FROM_CONTAINER: u32 = 0x800;
}

/// Binding kinds (`SM5JIT_BINDING_*`).
pub mod binding {
    pub const CONSTANT_BUFFER: u32 = 0;
    pub const SRV: u32 = 1;
    pub const UAV: u32 = 2;
    pub const SAMPLER: u32 = 3;
}

/// Binding flag bits (`SM5JIT_BINDING_FLAG_*`).
pub mod binding_flag {
    pub const COUNTER: u32 = 1;
    pub const APPEND_CONSUME: u32 = 2;
    pub const COMPARISON: u32 = 4;
    pub const DYNAMIC_INDEXED: u32 = 8;
    pub const GLOBALLY_COHERENT: u32 = 0x10;
    pub const RASTERIZER_ORDERED: u32 = 0x20;
    pub const MONO: u32 = 0x40;
}

const NAME: usize = 64;

/// `sm5jit_shader_desc`.
#[repr(C)]
pub struct CShaderDesc {
    pub struct_size: u32,
    /// Program kind: 0 pixel, 1 vertex, ..., 5 compute.
    pub kind: u32,
    pub major: u32,
    pub minor: u32,
    pub input_count: u32,
    pub output_count: u32,
    pub constant_buffer_count: u32,
    pub srv_count: u32,
    pub uav_count: u32,
    pub sampler_count: u32,
    pub thread_group: [u32; 3],
    pub tgsm_bytes: u32,
    pub instruction_count: u32,
    pub flags: u32,
    /// 0 none, 1 oDepth, 2 oDepthGE, 3 oDepthLE.
    pub depth_output: u32,
}

/// `sm5jit_signature_element`.
#[repr(C)]
pub struct CSignatureElement {
    pub struct_size: u32,
    pub semantic: [c_char; NAME],
    pub semantic_index: u32,
    /// v#/o# number, -1 for special registers (oDepth, vCoverage, ...).
    pub register_index: i32,
    pub mask: u32,
    pub rw_mask: u32,
    pub declared_mask: u32,
    pub system_value: u32,
    pub component_type: u32,
    pub interpolation: u32,
    pub stream: u32,
}

/// `sm5jit_binding_desc`.
#[repr(C)]
pub struct CBindingDesc {
    pub struct_size: u32,
    pub name: [c_char; NAME],
    pub kind: u32,
    pub slot: u32,
    pub space: u32,
    pub count: u32,
    /// Constant buffers: bytes.
    pub size: u32,
    /// SRV/UAV: the resource-dimension number (1 buffer, 3 texture2d, ...,
    /// 11 raw, 12 structured).
    pub dimension: u32,
    /// SRV/UAV typed: return type of x (1 unorm, 2 snorm, 3 sint, 4 uint, 5 float).
    pub return_type: u32,
    pub stride: u32,
    pub sample_count: u32,
    pub flags: u32,
    /// Samplers: bit `t` of word `t / 32` set when SRV slot `t` (< 128)
    /// is sampled with it.
    pub textures: [u32; 4],
}

fn name_into(dst: &mut [c_char; NAME], s: &str) {
    *dst = [0; NAME];
    for (d, b) in dst.iter_mut().zip(s.bytes().take(NAME - 1)) {
        *d = b as c_char;
    }
}

/// Reads the caller's `struct_size` and checks it.
///
/// # Safety
/// `p` is non-null and points at a struct starting with a `u32`.
unsafe fn size_of_caller<T>(p: *mut T, name: &str) -> Result<(), Failure> {
    // SAFETY: the header's contract: the struct starts with struct_size.
    let got = unsafe { p.cast::<u32>().read() };
    check_size(name, got, std::mem::size_of::<T>()).map_err(|m| Failure {
        status: status::BAD_SIZE,
        message: m,
    })
}

fn desc(r: &Reflection, kind: u32, major: u32, minor: u32) -> CShaderDesc {
    let f = &r.flags;
    let bits = [
        (f.discards, flag::DISCARDS),
        (f.writes_depth != DepthOutput::None, flag::WRITES_DEPTH),
        (f.writes_coverage, flag::WRITES_COVERAGE),
        (f.writes_stencil_ref, flag::WRITES_STENCIL_REF),
        (f.reads_coverage, flag::READS_COVERAGE),
        (f.per_sample, flag::PER_SAMPLE),
        (f.uses_derivatives, flag::USES_DERIVATIVES),
        (f.uses_doubles, flag::USES_DOUBLES),
        (f.uses_atomics, flag::USES_ATOMICS),
        (f.uses_barriers, flag::USES_BARRIERS),
        (f.early_depth_stencil, flag::EARLY_DEPTH_STENCIL),
        (r.from_container, flag::FROM_CONTAINER),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .fold(0, |a, (_, b)| a | b);
    let n = |len: usize| len as u32;
    CShaderDesc {
        struct_size: std::mem::size_of::<CShaderDesc>() as u32,
        kind,
        major,
        minor,
        input_count: n(r.inputs.len()),
        output_count: n(r.outputs.len()),
        constant_buffer_count: n(r.constant_buffers.len()),
        srv_count: n(r.srvs.len()),
        uav_count: n(r.uavs.len()),
        sampler_count: n(r.samplers.len()),
        thread_group: r.thread_group,
        tgsm_bytes: r.tgsm_bytes,
        instruction_count: r.instructions.total,
        flags: bits,
        depth_output: match f.writes_depth {
            DepthOutput::None => 0,
            DepthOutput::Any => 1,
            DepthOutput::GreaterEqual => 2,
            DepthOutput::LessEqual => 3,
        },
    }
}

fn element(e: &SignatureElement) -> CSignatureElement {
    let mut out = CSignatureElement {
        struct_size: std::mem::size_of::<CSignatureElement>() as u32,
        semantic: [0; NAME],
        semantic_index: e.semantic_index,
        register_index: e.register.map_or(-1, |r| r as i32),
        mask: e.mask.into(),
        rw_mask: e.rw_mask.into(),
        declared_mask: e.declared_mask.into(),
        system_value: e.system_value.0,
        component_type: e.component_type as u32,
        interpolation: e.interpolation.map_or(0, |m| m as u32),
        stream: e.stream,
    };
    name_into(&mut out.semantic, &e.semantic);
    out
}

fn ret_code(name: &str) -> u32 {
    match name {
        "unorm" => 1,
        "snorm" => 2,
        "sint" => 3,
        "uint" => 4,
        "float" => 5,
        "mixed" => 6,
        "double" => 7,
        _ => 0,
    }
}

fn binding_desc(r: &Reflection, kind: u32, index: u32) -> Option<CBindingDesc> {
    let mut d = CBindingDesc {
        struct_size: std::mem::size_of::<CBindingDesc>() as u32,
        name: [0; NAME],
        kind,
        slot: 0,
        space: 0,
        count: 1,
        size: 0,
        dimension: 0,
        return_type: 0,
        stride: 0,
        sample_count: 0,
        flags: 0,
        textures: [0; 4],
    };
    let i = index as usize;
    let name = match kind {
        binding::CONSTANT_BUFFER => {
            let c = r.constant_buffers.get(i)?;
            (d.slot, d.space, d.count, d.size) = (c.slot, c.space, c.count, c.size);
            if c.dynamic {
                d.flags |= binding_flag::DYNAMIC_INDEXED;
            }
            c.name.clone()
        }
        binding::SRV | binding::UAV => {
            let list = if kind == binding::SRV {
                &r.srvs
            } else {
                &r.uavs
            };
            let x = list.get(i)?;
            (d.slot, d.space, d.count) = (x.slot, x.space, x.count);
            d.dimension = x.dimension_code;
            d.return_type = x.return_type.as_ref().map_or(0, |t| ret_code(&t[0]));
            d.stride = x.stride.unwrap_or(0);
            d.sample_count = x.sample_count;
            for (on, bit) in [
                (x.counter, binding_flag::COUNTER),
                (x.append_consume, binding_flag::APPEND_CONSUME),
                (x.globally_coherent, binding_flag::GLOBALLY_COHERENT),
                (x.rasterizer_ordered, binding_flag::RASTERIZER_ORDERED),
            ] {
                if on {
                    d.flags |= bit;
                }
            }
            x.name.clone()
        }
        binding::SAMPLER => {
            let s = r.samplers.get(i)?;
            (d.slot, d.space, d.count) = (s.slot, s.space, s.count);
            d.flags |= match s.mode.as_str() {
                "comparison" => binding_flag::COMPARISON,
                "mono" => binding_flag::MONO,
                _ => 0,
            };
            for &t in s.textures.iter().filter(|&&t| t < 128) {
                d.textures[(t / 32) as usize] |= 1 << (t % 32);
            }
            s.name.clone()
        }
        _ => return None,
    };
    name_into(&mut d.name, name.as_deref().unwrap_or(""));
    Some(d)
}

/// Fills `*out_desc` (its `struct_size` set by the caller) with the
/// shader's counts, thread group, TGSM bytes, instruction count and flags.
///
/// # Safety
/// `out_desc` must point at a writable `sm5jit_shader_desc`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_reflect(shader: u64, out_desc: *mut CShaderDesc) -> c_int {
    guard(|| {
        let o = out(out_desc, "out_desc")?;
        // SAFETY: non-null; the caller's struct.
        unsafe { size_of_caller(o, "sm5jit_shader_desc")? };
        let s = self::shader(shader)?;
        let v = s.version();
        let d = desc(s.reflect(), v.kind as u32, v.major.into(), v.minor.into());
        // SAFETY: non-null, the size was checked.
        unsafe { o.write(d) };
        Ok(())
    })
}

unsafe fn signature(
    shader: u64,
    index: u32,
    out_element: *mut CSignatureElement,
    input: bool,
) -> c_int {
    guard(|| {
        let o = out(out_element, "out_element")?;
        // SAFETY: non-null; the caller's struct.
        unsafe { size_of_caller(o, "sm5jit_signature_element")? };
        let s = self::shader(shader)?;
        let r = s.reflect();
        let list = if input { &r.inputs } else { &r.outputs };
        let e = list.get(index as usize).ok_or_else(|| {
            invalid(format!(
                "{} element {index} does not exist (the shader has {})",
                if input { "input" } else { "output" },
                list.len()
            ))
        })?;
        // SAFETY: non-null, the size was checked.
        unsafe { o.write(element(e)) };
        Ok(())
    })
}

/// Input signature element `index` (0 .. `input_count`).
///
/// # Safety
/// `out_element` must point at a writable `sm5jit_signature_element`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_reflect_input(
    shader: u64,
    index: u32,
    out_element: *mut CSignatureElement,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { signature(shader, index, out_element, true) }
}

/// Output signature element `index` (0 .. `output_count`).
///
/// # Safety
/// `out_element` must point at a writable `sm5jit_signature_element`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_reflect_output(
    shader: u64,
    index: u32,
    out_element: *mut CSignatureElement,
) -> c_int {
    // SAFETY: forwarded contract.
    unsafe { signature(shader, index, out_element, false) }
}

/// Binding `index` of `kind` (`SM5JIT_BINDING_*`).
///
/// # Safety
/// `out_binding` must point at a writable `sm5jit_binding_desc`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_reflect_binding(
    shader: u64,
    kind: u32,
    index: u32,
    out_binding: *mut CBindingDesc,
) -> c_int {
    guard(|| {
        let o = out(out_binding, "out_binding")?;
        // SAFETY: non-null; the caller's struct.
        unsafe { size_of_caller(o, "sm5jit_binding_desc")? };
        if kind > binding::SAMPLER {
            return Err(invalid(format!(
                "binding kind {kind} is not SM5JIT_BINDING_*"
            )));
        }
        let s = self::shader(shader)?;
        let d = binding_desc(s.reflect(), kind, index)
            .ok_or_else(|| invalid(format!("binding {index} of kind {kind} does not exist")))?;
        // SAFETY: non-null, the size was checked.
        unsafe { o.write(d) };
        Ok(())
    })
}

/// The reflection as JSON (what `sm5jit info --format json` prints under
/// `reflection`), NUL-terminated, into `buf[0..capacity]`; `*out_len` is
/// the text's length without the NUL. `buf` may be NULL to ask for the
/// length; a `capacity` of at most the length is `SM5JIT_ERROR_BAD_SIZE`.
///
/// # Safety
/// `buf`, when not NULL, must point at `capacity` writable bytes;
/// `out_len` at a writable `size_t`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_reflect_json(
    shader: u64,
    buf: *mut c_char,
    capacity: usize,
    out_len: *mut usize,
) -> c_int {
    guard(|| {
        let n = out(out_len, "out_len")?;
        let s = self::shader(shader)?;
        let text = serde_json::to_string(s.reflect()).unwrap_or_default();
        if !buf.is_null() {
            if capacity <= text.len() {
                return fail(
                    status::BAD_SIZE,
                    format!(
                        "the JSON needs {} bytes, buf has {capacity}",
                        text.len() + 1
                    ),
                );
            }
            // SAFETY: non-null, `capacity > text.len()` bytes (header contract).
            unsafe {
                std::ptr::copy_nonoverlapping(text.as_ptr().cast(), buf, text.len());
                buf.add(text.len()).write(0);
            }
        }
        // SAFETY: non-null.
        unsafe { n.write(text.len()) };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    #[test]
    fn layouts_match_the_header() {
        assert_eq!(size_of::<CShaderDesc>(), 17 * 4);
        assert_eq!(size_of::<CSignatureElement>(), 4 + 64 + 9 * 4);
        assert_eq!(size_of::<CBindingDesc>(), 4 + 64 + 10 * 4 + 16);
    }

    #[test]
    fn reflection_through_the_c_entry_points() {
        let text = "ps_5_0
dcl_sampler s2, mode_comparison
dcl_resource_texture2d (float,float,float,float) t40
dcl_input_ps linear v1.xy
dcl_output oDepthLE
sample_c_lz oDepthLE, v1.xyxx, t40.xxxx, s2, l(0.5)
ret
";
        let mut h = 0u64;
        // SAFETY: valid text and out pointer.
        let st = unsafe {
            super::super::sm5jit_shader_from_asm(text.as_ptr().cast(), text.len(), 1, &mut h)
        };
        assert_eq!(st, status::OK);
        let mut d: CShaderDesc = unsafe { std::mem::zeroed() };
        d.struct_size = size_of::<CShaderDesc>() as u32;
        // SAFETY: a valid struct.
        assert_eq!(unsafe { sm5jit_reflect(h, &mut d) }, status::OK);
        assert_eq!(
            (d.kind, d.input_count, d.output_count, d.depth_output),
            (0, 1, 1, 3)
        );
        assert_eq!(d.flags & flag::WRITES_DEPTH, flag::WRITES_DEPTH);
        let mut e: CSignatureElement = unsafe { std::mem::zeroed() };
        e.struct_size = size_of::<CSignatureElement>() as u32;
        // SAFETY: a valid struct.
        assert_eq!(unsafe { sm5jit_reflect_output(h, 0, &mut e) }, status::OK);
        assert_eq!(e.register_index, -1);
        let name: Vec<u8> = e
            .semantic
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        assert_eq!(name, b"SV_DepthLessEqual");
        // SAFETY: a valid struct; index 1 does not exist.
        assert_eq!(
            unsafe { sm5jit_reflect_input(h, 1, &mut e) },
            status::INVALID_ARGUMENT
        );
        let mut b: CBindingDesc = unsafe { std::mem::zeroed() };
        b.struct_size = size_of::<CBindingDesc>() as u32;
        // SAFETY: a valid struct.
        assert_eq!(
            unsafe { sm5jit_reflect_binding(h, binding::SAMPLER, 0, &mut b) },
            status::OK
        );
        assert_eq!((b.slot, b.flags), (2, binding_flag::COMPARISON));
        assert_eq!(b.textures, [0, 1 << 8, 0, 0]);
        b.struct_size = 4;
        // SAFETY: struct_size is read first and refused.
        assert_eq!(
            unsafe { sm5jit_reflect_binding(h, binding::SRV, 0, &mut b) },
            status::BAD_SIZE
        );
        let mut len = 0usize;
        // SAFETY: NULL buf asks for the length.
        assert_eq!(
            unsafe { sm5jit_reflect_json(h, std::ptr::null_mut(), 0, &mut len) },
            status::OK
        );
        let mut buf = vec![0 as c_char; len + 1];
        // SAFETY: len + 1 bytes.
        assert_eq!(
            unsafe { sm5jit_reflect_json(h, buf.as_mut_ptr(), buf.len(), &mut len) },
            status::OK
        );
        let json: Vec<u8> = buf[..len].iter().map(|&c| c as u8).collect();
        let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
        assert_eq!(v["flags"]["writes_depth"], "less_equal");
        // SAFETY: one byte short.
        assert_eq!(
            unsafe { sm5jit_reflect_json(h, buf.as_mut_ptr(), len, &mut len) },
            status::BAD_SIZE
        );
        assert_eq!(super::super::sm5jit_shader_free(h), status::OK);
        // SAFETY: a stale handle is reported, not used.
        assert_eq!(unsafe { sm5jit_reflect(h, &mut d) }, status::INVALID_HANDLE);
    }
}
