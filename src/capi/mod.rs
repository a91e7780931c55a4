//! The C ABI (`include/sm5jit.h`): shaders and bindings behind checked
//! handles, status codes and a per-thread error text.
//!
//! In: calls from C with handles, pointers and sizes. Out: `SM5JIT_OK` (0)
//! or a non-zero status, with the message of the last failure on the
//! calling thread available from [`sm5jit_last_error`]. Invariants: no
//! panic crosses the boundary (every entry point runs under
//! `catch_unwind` and a panic becomes `SM5JIT_ERROR_PANIC`); null pointers,
//! wrong `struct_size`s, views larger than their memory, unknown enum
//! values and stale or foreign handles (use after free, double free) are
//! reported as errors before anything is read through them; output
//! parameters are written only on success. What cannot be checked from
//! Rust is documented in the header: pointers must point at as many bytes
//! as their size says, and bound memory must stay valid until it is
//! rebound, unbound or the bindings are freed.
//!
//! Layout: `handles` (generation-checked tables), `convert` (the C structs
//! and their conversion), this file (the entry points).

pub mod convert;
pub mod handles;
pub mod reflect;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use crate::api::{DispatchConfig, EngineKind, Shader};
use crate::error::Error;
use crate::ir::ProgramKind;
use crate::jit::JitError;
use crate::runtime::{BatchInputs, Bindings, LaneResult, SamplerDesc, Slot, View, DEFAULT_BUDGET};
use convert::{CBufferView, CCompileOptions, CDispatchOptions, CSamplerDesc, CTextureView};
use handles::{lock, HandleError, HandleKind, Table};

/// Status codes (`SM5JIT_OK`, `SM5JIT_ERROR_*` in the header).
pub mod status {
    use std::ffi::c_int;
    pub const OK: c_int = 0;
    pub const NULL_POINTER: c_int = 1;
    pub const BAD_SIZE: c_int = 2;
    pub const INVALID_HANDLE: c_int = 3;
    pub const INVALID_ARGUMENT: c_int = 4;
    pub const DECODE: c_int = 5;
    pub const ASM: c_int = 6;
    pub const VALIDATION: c_int = 7;
    pub const JIT: c_int = 8;
    pub const RUNTIME: c_int = 9;
    pub const PANIC: c_int = 10;
}

/// A failed call: its status and message.
struct Failure {
    status: c_int,
    message: String,
}

fn fail<T>(status: c_int, message: impl Into<String>) -> Result<T, Failure> {
    Err(Failure {
        status,
        message: message.into(),
    })
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        let status = match &e {
            Error::Decode(_) | Error::Encode(_) => status::DECODE,
            Error::Asm(_) => status::ASM,
            Error::Validation(_) | Error::Jit(JitError::Validation(_)) => status::VALIDATION,
            Error::Jit(JitError::Runtime(_)) | Error::Runtime(_) | Error::Io(_) => status::RUNTIME,
            Error::Jit(_) => status::JIT,
        };
        let message = match &e {
            Error::Asm(a) => format!("{}:{}: {}", a.line, a.col, a.message),
            other => other.to_string(),
        };
        Failure { status, message }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Runs one entry point: catches panics, records the message of a failure.
fn guard(f: impl FnOnce() -> Result<(), Failure>) -> c_int {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => status::OK,
        Ok(Err(e)) => {
            set_last_error(&e.message);
            e.status
        }
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            set_last_error(&format!(
                "internal error (panic caught at the C boundary): {what}"
            ));
            status::PANIC
        }
    }
}

// ---------------------------------------------------------------------------
// Handle tables
// ---------------------------------------------------------------------------

static SHADERS: Mutex<Table<Shader>> = Mutex::new(Table::new(HandleKind::Shader));
static BINDINGS: Mutex<Table<Arc<RwLock<CBindings>>>> =
    Mutex::new(Table::new(HandleKind::Bindings));

fn handle_error(what: &str, handle: u64, e: HandleError) -> Failure {
    let why = match e {
        HandleError::NotThisKind => "is not a handle of this kind (0, or another object's handle)",
        HandleError::Stale => "is stale: the object was freed (or the handle never existed)",
    };
    Failure {
        status: status::INVALID_HANDLE,
        message: format!("{what} handle {handle:#x} {why}"),
    }
}

fn shader(handle: u64) -> Result<Shader, Failure> {
    lock(&SHADERS)
        .get(handle)
        .cloned()
        .map_err(|e| handle_error("shader", handle, e))
}

fn bindings(handle: u64) -> Result<Arc<RwLock<CBindings>>, Failure> {
    lock(&BINDINGS)
        .get(handle)
        .cloned()
        .map_err(|e| handle_error("bindings", handle, e))
}

/// Runs `f` with the bindings object locked for writing: binding calls
/// and dispatches, one at a time.
fn with_bindings<T>(
    handle: u64,
    f: impl FnOnce(&mut CBindings) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let b = bindings(handle)?;
    let mut guard = b.write().unwrap_or_else(|e| e.into_inner());
    f(&mut guard)
}

/// Runs `f` with the bindings object locked for reading: the batch entry
/// points, any number at once (the runtime's rules for batches sharing
/// bindings apply).
fn with_bindings_shared<T>(
    handle: u64,
    f: impl FnOnce(&CBindings) -> Result<T, Failure>,
) -> Result<T, Failure> {
    let b = bindings(handle)?;
    let guard = b.read().unwrap_or_else(|e| e.into_inner());
    f(&guard)
}

// ---------------------------------------------------------------------------
// Bindings over C memory
// ---------------------------------------------------------------------------

/// A span of caller memory. The pointer is only turned into a slice (a
/// shared one, or `UavMemory` for UAVs) during a dispatch or batch, under
/// the bindings' lock.
#[derive(Clone, Copy, Debug)]
struct Span {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: a `Span` is an address and a length; the C caller guarantees the
// memory stays valid while bound (documented in the header), and it is only
// dereferenced during a dispatch or batch while the owning bindings are
// locked (UAV memory only through `UavMemory`, whose accesses are atomic).
unsafe impl Send for Span {}
// SAFETY: as above.
unsafe impl Sync for Span {}

impl Span {
    fn new(ptr: *const c_void, len: usize, what: &str) -> Result<Span, Failure> {
        if ptr.is_null() && len != 0 {
            return fail(
                status::NULL_POINTER,
                format!("{what}: data is NULL but size is {len}"),
            );
        }
        if len > isize::MAX as usize {
            return fail(status::BAD_SIZE, format!("{what}: size {len} is too large"));
        }
        Ok(Span {
            ptr: ptr.cast_mut().cast(),
            len,
        })
    }

    fn range(&self) -> (usize, usize) {
        (self.ptr as usize, self.ptr as usize + self.len)
    }

    /// SAFETY: the span must be valid for reads for the returned lifetime.
    unsafe fn bytes<'a>(self) -> &'a [u8] {
        if self.len == 0 {
            &[]
        } else {
            std::slice::from_raw_parts(self.ptr, self.len)
        }
    }
}

#[derive(Debug, Default)]
struct CBindings {
    /// Memory, view and hidden counter (shared by every batch running).
    uavs: BTreeMap<u32, (Span, View, Option<AtomicU32>)>,
    srvs: BTreeMap<u32, (Span, View)>,
    cbs: BTreeMap<u32, Span>,
    samplers: BTreeMap<u32, SamplerDesc>,
}

impl CBindings {
    /// Every UAV must be disjoint from every other bound memory, so the
    /// UAV memory a dispatch writes is never read as a shared slice.
    fn check_disjoint(&self) -> Result<(), Failure> {
        let mut all: Vec<(String, Span)> = Vec::new();
        all.extend(self.uavs.iter().map(|(s, u)| (format!("u{s}"), u.0)));
        all.extend(self.srvs.iter().map(|(s, t)| (format!("t{s}"), t.0)));
        all.extend(self.cbs.iter().map(|(s, c)| (format!("cb{s}"), *c)));
        for (i, (name, span)) in all.iter().enumerate().take(self.uavs.len()) {
            let (a0, a1) = span.range();
            for (other, o) in all.iter().skip(i + 1) {
                let (b0, b1) = o.range();
                if span.len != 0 && o.len != 0 && a0 < b1 && b0 < a1 {
                    return fail(
                        status::INVALID_ARGUMENT,
                        format!("{name} overlaps the memory of {other}; a UAV's memory must not be bound anywhere else"),
                    );
                }
            }
        }
        Ok(())
    }

    /// Whether `span` shares a byte with the memory of a bound UAV.
    fn overlaps_uav(&self, span: Span) -> bool {
        let (a0, a1) = span.range();
        self.uavs.values().any(|u| {
            let (u0, u1) = u.0.range();
            u.0.len != 0 && span.len != 0 && a0 < u1 && u0 < a1
        })
    }

    /// Runs `f` over runtime bindings made from the spans; the UAV
    /// counters are this object's cells, moved in place.
    fn run<T>(&self, f: impl FnOnce(&mut Bindings) -> Result<T, Error>) -> Result<T, Failure> {
        self.check_disjoint()?;
        let mut b = Bindings::new();
        // SAFETY: the caller keeps bound memory valid while it is bound
        // (header contract); UAV spans are disjoint from every other span
        // (checked above), so no shared slice ever covers UAV memory, and
        // UAV memory is reached only through `UavMemory`, which several
        // batches holding this object's read lock may share.
        unsafe {
            for (&s, (span, view, counter)) in &self.uavs {
                b.uav_raw(Slot::new(s), span.ptr, span.len, *view, counter.as_ref());
            }
            for (&s, &(span, view)) in &self.srvs {
                b.srv(Slot::new(s), span.bytes(), view);
            }
            for (&s, &span) in &self.cbs {
                b.cb(Slot::new(s), span.bytes());
            }
        }
        for (&s, &desc) in &self.samplers {
            b.sampler(Slot::new(s), desc);
        }
        Ok(f(&mut b)?)
    }
}

fn check_fits(what: &str, slot: u32, span: Span, view: &View) -> Result<(), Failure> {
    let needed = view.required_bytes();
    if needed > span.len as u64 {
        return fail(
            status::BAD_SIZE,
            format!(
                "{what}{slot}: the {} view needs {needed} bytes but size is {}",
                view.describe(),
                span.len
            ),
        );
    }
    Ok(())
}

fn read<T: Copy>(ptr: *const T, what: &str) -> Result<T, Failure> {
    if ptr.is_null() {
        return fail(status::NULL_POINTER, format!("{what} is NULL"));
    }
    // The struct_size field is read first so that a caller built against a
    // smaller struct is refused before the rest is read.
    // SAFETY: non-null; the caller passes a pointer to a `T` (header contract).
    let size = unsafe { std::ptr::read_unaligned(ptr.cast::<u32>()) };
    if size as usize != size_of::<T>() {
        return fail(
            status::BAD_SIZE,
            format!("{what}: struct_size is {size}, expected {}", size_of::<T>()),
        );
    }
    // SAFETY: as above, and the caller's struct is as large as ours.
    Ok(unsafe { std::ptr::read_unaligned(ptr) })
}

fn out<T>(ptr: *mut T, what: &str) -> Result<*mut T, Failure> {
    if ptr.is_null() {
        return fail(status::NULL_POINTER, format!("{what} is NULL"));
    }
    Ok(ptr)
}

fn invalid(message: String) -> Failure {
    Failure {
        status: status::INVALID_ARGUMENT,
        message,
    }
}

// ---------------------------------------------------------------------------
// Entry points: library, errors
// ---------------------------------------------------------------------------

/// The library version, e.g. `"0.1.0"` (static storage).
#[no_mangle]
pub extern "C" fn sm5jit_version() -> *const c_char {
    static VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(s) => s,
            Err(_) => c"unknown",
        };
    VERSION.as_ptr()
}

/// The message of the last failed call on this thread ("" if none). Valid
/// until the next failing call on the same thread.
#[no_mangle]
pub extern "C" fn sm5jit_last_error() -> *const c_char {
    catch_unwind(|| LAST_ERROR.with(|e| e.borrow().as_ptr())).unwrap_or(c"".as_ptr())
}

/// The name of a status code (static storage), e.g. `"SM5JIT_ERROR_NULL_POINTER"`.
#[no_mangle]
pub extern "C" fn sm5jit_status_name(code: c_int) -> *const c_char {
    let s: &CStr = match code {
        status::OK => c"SM5JIT_OK",
        status::NULL_POINTER => c"SM5JIT_ERROR_NULL_POINTER",
        status::BAD_SIZE => c"SM5JIT_ERROR_BAD_SIZE",
        status::INVALID_HANDLE => c"SM5JIT_ERROR_INVALID_HANDLE",
        status::INVALID_ARGUMENT => c"SM5JIT_ERROR_INVALID_ARGUMENT",
        status::DECODE => c"SM5JIT_ERROR_DECODE",
        status::ASM => c"SM5JIT_ERROR_ASM",
        status::VALIDATION => c"SM5JIT_ERROR_VALIDATION",
        status::JIT => c"SM5JIT_ERROR_JIT",
        status::RUNTIME => c"SM5JIT_ERROR_RUNTIME",
        status::PANIC => c"SM5JIT_ERROR_PANIC",
        _ => c"SM5JIT_UNKNOWN_STATUS",
    };
    s.as_ptr()
}

// ---------------------------------------------------------------------------
// Entry points: shaders
// ---------------------------------------------------------------------------

fn engine(e: c_int) -> Result<EngineKind, Failure> {
    match e {
        0 => Ok(EngineKind::Jit),
        1 => Ok(EngineKind::Interpreter),
        _ => Err(invalid(format!(
            "engine {e} is not SM5JIT_ENGINE_JIT (0) or SM5JIT_ENGINE_INTERPRETER (1)"
        ))),
    }
}

fn register_shader(s: Shader, out_handle: *mut u64) -> Result<(), Failure> {
    let h = lock(&SHADERS)
        .insert(s)
        .ok_or_else(|| invalid("too many live shaders".into()))?;
    // SAFETY: checked non-null by the caller of this function.
    unsafe { out_handle.write(h) };
    Ok(())
}

/// Decodes, validates and compiles a DXBC container (default compile
/// options).
///
/// # Safety
/// `bytes` must point at `size` readable bytes; `out` at a writable handle.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_shader_from_dxbc(
    bytes: *const c_void,
    size: usize,
    engine_kind: c_int,
    out_shader: *mut u64,
) -> c_int {
    // SAFETY: the caller's contract is this function's.
    unsafe { sm5jit_shader_from_dxbc_opts(bytes, size, engine_kind, std::ptr::null(), out_shader) }
}

/// Like `sm5jit_shader_from_dxbc` with compile options (`NULL`: defaults).
///
/// # Safety
/// As `sm5jit_shader_from_dxbc`; `options` is NULL or points at a
/// `sm5jit_compile_options`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_shader_from_dxbc_opts(
    bytes: *const c_void,
    size: usize,
    engine_kind: c_int,
    options: *const CCompileOptions,
    out_shader: *mut u64,
) -> c_int {
    guard(|| {
        let out_shader = out(out_shader, "out_shader")?;
        let span = Span::new(bytes, size, "sm5jit_shader_from_dxbc")?;
        if bytes.is_null() {
            return fail(status::NULL_POINTER, "bytes is NULL");
        }
        let kind = engine(engine_kind)?;
        let options = compile_options(options)?;
        // SAFETY: the caller passes `size` readable bytes.
        let s = Shader::from_dxbc_with(unsafe { span.bytes() }, kind, &options)?;
        register_shader(s, out_shader)
    })
}

/// Parses, validates and compiles assembly text of `len` bytes (UTF-8, no
/// terminator needed; default compile options).
///
/// # Safety
/// `text` must point at `len` readable bytes; `out` at a writable handle.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_shader_from_asm(
    text: *const c_char,
    len: usize,
    engine_kind: c_int,
    out_shader: *mut u64,
) -> c_int {
    // SAFETY: the caller's contract is this function's.
    unsafe { sm5jit_shader_from_asm_opts(text, len, engine_kind, std::ptr::null(), out_shader) }
}

/// Like `sm5jit_shader_from_asm` with compile options (`NULL`: defaults).
///
/// # Safety
/// As `sm5jit_shader_from_asm`; `options` is NULL or points at a
/// `sm5jit_compile_options`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_shader_from_asm_opts(
    text: *const c_char,
    len: usize,
    engine_kind: c_int,
    options: *const CCompileOptions,
    out_shader: *mut u64,
) -> c_int {
    guard(|| {
        let out_shader = out(out_shader, "out_shader")?;
        if text.is_null() {
            return fail(status::NULL_POINTER, "text is NULL");
        }
        let span = Span::new(text.cast(), len, "sm5jit_shader_from_asm")?;
        let kind = engine(engine_kind)?;
        let options = compile_options(options)?;
        // SAFETY: the caller passes `len` readable bytes.
        let bytes = unsafe { span.bytes() };
        let text = std::str::from_utf8(bytes).map_err(|e| Failure {
            status: status::ASM,
            message: format!("byte {}: the text is not UTF-8", e.valid_up_to()),
        })?;
        let s = Shader::from_asm_with(text, kind, &options)?;
        register_shader(s, out_shader)
    })
}

/// The compile options a NULL pointer stands for, or the caller's.
fn compile_options(p: *const CCompileOptions) -> Result<crate::jit::CompileOptions, Failure> {
    if p.is_null() {
        return Ok(crate::jit::CompileOptions::default());
    }
    convert::compile_options(&read(p, "options")?).map_err(invalid)
}

/// Writes the JIT tier the shader's next dispatch runs (0 or 1; -1 on the
/// interpreter) to `out_tier`.
///
/// # Safety
/// `out_tier` must point at a writable `int`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_shader_tier(shader: u64, out_tier: *mut c_int) -> c_int {
    guard(|| {
        let out_tier = out(out_tier, "out_tier")?;
        let tier = self::shader(shader)?.tier().map_or(-1, c_int::from);
        // SAFETY: checked non-null; the caller passes a writable int.
        unsafe { out_tier.write(tier) };
        Ok(())
    })
}

/// Frees a shader. Dispatches already running on other threads finish
/// first (they hold their own reference); the handle is stale afterwards.
#[no_mangle]
pub extern "C" fn sm5jit_shader_free(shader: u64) -> c_int {
    guard(|| {
        let s = lock(&SHADERS)
            .remove(shader)
            .map_err(|e| handle_error("shader", shader, e))?;
        drop(s);
        Ok(())
    })
}

/// Writes the shader's thread-group size to `out_size[0..3]`.
///
/// # Safety
/// `out_size` must point at three writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_shader_thread_group_size(shader: u64, out_size: *mut u32) -> c_int {
    guard(|| {
        let o = out(out_size, "out_size")?;
        let size = self::shader(shader)?.thread_group_size();
        // SAFETY: non-null, three elements (header contract).
        unsafe { std::ptr::copy_nonoverlapping(size.as_ptr(), o, 3) };
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// Entry points: bindings
// ---------------------------------------------------------------------------

/// Creates an empty bindings object.
///
/// # Safety
/// `out_bindings` must point at a writable handle.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_bindings_create(out_bindings: *mut u64) -> c_int {
    guard(|| {
        let o = out(out_bindings, "out_bindings")?;
        let h = lock(&BINDINGS)
            .insert(Arc::new(RwLock::new(CBindings::default())))
            .ok_or_else(|| invalid("too many live bindings".into()))?;
        // SAFETY: non-null.
        unsafe { o.write(h) };
        Ok(())
    })
}

/// Frees a bindings object (not the memory bound to it).
#[no_mangle]
pub extern "C" fn sm5jit_bindings_free(bindings: u64) -> c_int {
    guard(|| {
        let b = lock(&BINDINGS)
            .remove(bindings)
            .map_err(|e| handle_error("bindings", bindings, e))?;
        drop(b);
        Ok(())
    })
}

fn bind_uav(
    b: u64,
    slot: u32,
    data: *mut c_void,
    size: usize,
    view: Result<View, Failure>,
) -> Result<(), Failure> {
    let span = Span::new(data, size, &format!("u{slot}"))?;
    let view = view?;
    check_fits("u", slot, span, &view)?;
    with_bindings(b, |cb| {
        cb.uavs.insert(slot, (span, view, None));
        Ok(())
    })
}

fn bind_srv(
    b: u64,
    slot: u32,
    data: *const c_void,
    size: usize,
    view: Result<View, Failure>,
) -> Result<(), Failure> {
    let span = Span::new(data, size, &format!("t{slot}"))?;
    let view = view?;
    check_fits("t", slot, span, &view)?;
    with_bindings(b, |cb| {
        cb.srvs.insert(slot, (span, view));
        Ok(())
    })
}

fn buffer_view(v: *const CBufferView) -> Result<View, Failure> {
    convert::buffer_view(&read(v, "view")?).map_err(invalid)
}

fn texture_view(v: *const CTextureView) -> Result<View, Failure> {
    convert::texture_view(&read(v, "view")?).map_err(invalid)
}

/// Binds `size` bytes at `data` as a buffer UAV at u#`slot` (replacing any
/// binding there, counter cleared).
///
/// # Safety
/// `data` must point at `size` bytes that stay valid and writable while bound; `view` at a `sm5jit_buffer_view`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_bind_uav_buffer(
    bindings: u64,
    slot: u32,
    data: *mut c_void,
    size: usize,
    view: *const CBufferView,
) -> c_int {
    guard(|| bind_uav(bindings, slot, data, size, buffer_view(view)))
}

/// Binds a texture UAV at u#`slot`.
///
/// # Safety
/// As [`sm5jit_bind_uav_buffer`], `view` pointing at a `sm5jit_texture_view`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_bind_uav_texture(
    bindings: u64,
    slot: u32,
    data: *mut c_void,
    size: usize,
    view: *const CTextureView,
) -> c_int {
    guard(|| bind_uav(bindings, slot, data, size, texture_view(view)))
}

/// Binds a buffer SRV at t#`slot`.
///
/// # Safety
/// `data` must point at `size` bytes that stay valid while bound; `view` at a `sm5jit_buffer_view`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_bind_srv_buffer(
    bindings: u64,
    slot: u32,
    data: *const c_void,
    size: usize,
    view: *const CBufferView,
) -> c_int {
    guard(|| bind_srv(bindings, slot, data, size, buffer_view(view)))
}

/// Binds a texture SRV at t#`slot`.
///
/// # Safety
/// As [`sm5jit_bind_srv_buffer`], `view` pointing at a `sm5jit_texture_view`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_bind_srv_texture(
    bindings: u64,
    slot: u32,
    data: *const c_void,
    size: usize,
    view: *const CTextureView,
) -> c_int {
    guard(|| bind_srv(bindings, slot, data, size, texture_view(view)))
}

/// Binds `size` bytes as constant buffer cb#`slot` (reads past `size` read 0).
///
/// # Safety
/// `data` must point at `size` bytes that stay valid while bound.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_bind_cb(
    bindings: u64,
    slot: u32,
    data: *const c_void,
    size: usize,
) -> c_int {
    guard(|| {
        let span = Span::new(data, size, &format!("cb{slot}"))?;
        with_bindings(bindings, |cb| {
            cb.cbs.insert(slot, span);
            Ok(())
        })
    })
}

/// Sets sampler state s#`slot` (copied; unbound samplers read as the D3D11 default).
///
/// # Safety
/// `desc` must point at a `sm5jit_sampler_desc`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_bind_sampler(
    bindings: u64,
    slot: u32,
    desc: *const CSamplerDesc,
) -> c_int {
    guard(|| {
        let d = convert::sampler(&read(desc, "desc")?).map_err(invalid)?;
        with_bindings(bindings, |cb| {
            cb.samplers.insert(slot, d);
            Ok(())
        })
    })
}

/// Gives the UAV at u#`slot` a hidden counter starting at `value`.
#[no_mangle]
pub extern "C" fn sm5jit_set_uav_counter(bindings: u64, slot: u32, value: u32) -> c_int {
    guard(|| {
        with_bindings(bindings, |cb| match cb.uavs.get_mut(&slot) {
            Some(u) => {
                u.2 = Some(AtomicU32::new(value));
                Ok(())
            }
            None => fail(
                status::INVALID_ARGUMENT,
                format!("no UAV is bound at u{slot}"),
            ),
        })
    })
}

/// Reads the hidden counter of u#`slot` (its value after the last dispatch).
///
/// # Safety
/// `out_value` must point at a writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_get_uav_counter(
    bindings: u64,
    slot: u32,
    out_value: *mut u32,
) -> c_int {
    guard(|| {
        let o = out(out_value, "out_value")?;
        let v = with_bindings_shared(bindings, |cb| match cb.uavs.get(&slot) {
            Some((_, _, Some(c))) => Ok(c.load(Ordering::Acquire)),
            Some(_) => fail(status::INVALID_ARGUMENT, format!("u{slot} has no counter")),
            None => fail(
                status::INVALID_ARGUMENT,
                format!("no UAV is bound at u{slot}"),
            ),
        })?;
        // SAFETY: non-null.
        unsafe { o.write(v) };
        Ok(())
    })
}

/// Removes the binding of register file `kind` (`SM5JIT_SLOT_*`) at `slot`.
#[no_mangle]
pub extern "C" fn sm5jit_unbind(bindings: u64, kind: c_int, slot: u32) -> c_int {
    guard(|| {
        with_bindings(bindings, |cb| {
            let removed = match kind {
                0 => cb.uavs.remove(&slot).is_some(),
                1 => cb.srvs.remove(&slot).is_some(),
                2 => cb.cbs.remove(&slot).is_some(),
                3 => cb.samplers.remove(&slot).is_some(),
                k => {
                    return fail(
                        status::INVALID_ARGUMENT,
                        format!("slot kind {k} is not 0..=3"),
                    )
                }
            };
            if removed {
                Ok(())
            } else {
                fail(
                    status::INVALID_ARGUMENT,
                    format!("nothing is bound at slot {slot} of kind {kind}"),
                )
            }
        })
    })
}

// ---------------------------------------------------------------------------
// Entry points: dispatch
// ---------------------------------------------------------------------------

fn config(opts: *const CDispatchOptions) -> Result<DispatchConfig, Failure> {
    if opts.is_null() {
        return Ok(DispatchConfig::default());
    }
    let o = read(opts, "options")?;
    Ok(DispatchConfig {
        threads: o.threads as usize,
        budget: if o.budget == 0 {
            DEFAULT_BUDGET
        } else {
            o.budget
        },
    })
}

/// Runs `x * y * z` thread groups. `opts` may be NULL (defaults).
///
/// # Safety
/// `opts`, when not NULL, must point at a `sm5jit_dispatch_options`;
/// all memory bound to `bindings` must be valid.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_dispatch(
    shader: u64,
    bindings: u64,
    x: u32,
    y: u32,
    z: u32,
    opts: *const CDispatchOptions,
) -> c_int {
    guard(|| {
        let c = config(opts)?;
        let s = self::shader(shader)?;
        with_bindings(bindings, |cb| cb.run(|b| s.dispatch_with(b, [x, y, z], &c)))?;
        Ok(())
    })
}

/// Reads the group counts (3 x uint32_t, little-endian) at byte `offset`
/// of `args` and dispatches; `offset` must be 4-aligned with 12 bytes inside `args_size`.
///
/// # Safety
/// `args` must point at `args_size` readable bytes; see [`sm5jit_dispatch`].
#[no_mangle]
pub unsafe extern "C" fn sm5jit_dispatch_indirect(
    shader: u64,
    bindings: u64,
    args: *const c_void,
    args_size: usize,
    offset: u64,
    opts: *const CDispatchOptions,
) -> c_int {
    guard(|| {
        if args.is_null() {
            return fail(status::NULL_POINTER, "args is NULL");
        }
        let span = Span::new(args, args_size, "args")?;
        let c = config(opts)?;
        let s = self::shader(shader)?;
        // SAFETY: the caller passes `args_size` readable bytes.
        let a = unsafe { span.bytes() };
        with_bindings(bindings, |cb| {
            if cb.overlaps_uav(span) {
                return fail(status::INVALID_ARGUMENT, "args overlaps a bound UAV");
            }
            cb.run(|b| s.dispatch_indirect(b, a, offset, &c))
        })?;
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// Entry points: invocation batches (vertex and pixel programs)
// ---------------------------------------------------------------------------

/// Lane states written by [`sm5jit_run_pixel_quads`] (`SM5JIT_LANE_*`).
pub mod lane {
    pub const WRITTEN: u8 = 0;
    pub const DISCARDED: u8 = 1;
    pub const HELPER: u8 = 2;
}

/// Writes the shader's declared `o#` registers (declaration order) to
/// `out_registers[0..count]` and their number to `out_count`.
/// `out_registers` may be NULL to ask for the count only.
///
/// # Safety
/// `out_registers`, when not NULL, must point at `capacity` writable
/// `uint32_t`; `out_count` at one.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_shader_output_registers(
    shader: u64,
    out_registers: *mut u32,
    capacity: usize,
    out_count: *mut usize,
) -> c_int {
    guard(|| {
        let n = out(out_count, "out_count")?;
        let s = self::shader(shader)?;
        let regs = s.output_registers();
        if !out_registers.is_null() {
            if capacity < regs.len() {
                return fail(
                    status::BAD_SIZE,
                    format!(
                        "out_registers holds {capacity} but the shader declares {} outputs",
                        regs.len()
                    ),
                );
            }
            // SAFETY: non-null, `capacity >= regs.len()` elements (header contract).
            unsafe { std::ptr::copy_nonoverlapping(regs.as_ptr(), out_registers, regs.len()) };
        }
        // SAFETY: non-null.
        unsafe { n.write(regs.len()) };
        Ok(())
    })
}

/// The `uint32_t` count of `count * per * 4`, or an error naming `what`.
fn dwords(count: usize, per: usize, what: &str) -> Result<usize, Failure> {
    count
        .checked_mul(per)
        .and_then(|n| n.checked_mul(4))
        .filter(|&n| n <= isize::MAX as usize / 4)
        .ok_or_else(|| Failure {
            status: status::BAD_SIZE,
            message: format!("{what}: {count} invocations x {per} registers is too large"),
        })
}

/// One batch call from C: the checked pointers and sizes.
struct CBatch {
    shader: u64,
    bindings: u64,
    inputs: *const u32,
    count: usize,
    input_registers: u32,
    helpers: *const u8,
    outputs: *mut u32,
    outputs_len: usize,
    lanes: *mut u8,
    opts: *const CDispatchOptions,
}

/// Checks and runs one batch for `entry` (needing a program of `kind`),
/// then copies outputs (and lane states) to the caller's buffers.
fn run_c_batch(entry: &str, kind: ProgramKind, c: &CBatch) -> Result<(), Failure> {
    let config = config(c.opts)?;
    let s = self::shader(c.shader)?;
    if s.version().kind != kind {
        return Err(invalid(format!(
            "{entry} runs {} programs; this shader is {}",
            if kind == ProgramKind::Pixel {
                "pixel"
            } else {
                "vertex"
            },
            s.version()
        )));
    }
    if c.outputs.is_null() {
        return fail(status::NULL_POINTER, format!("{entry}: outputs is NULL"));
    }
    let n_in = dwords(c.count, c.input_registers as usize, "inputs")?;
    let inputs = Span::new(c.inputs.cast(), n_in * 4, "inputs")?;
    let need = dwords(c.count, s.output_registers().len(), "outputs")?;
    if c.outputs_len < need {
        return fail(
            status::BAD_SIZE,
            format!(
                "{entry}: outputs holds {} uint32_t but {} invocations x {} output registers need {need}",
                c.outputs_len,
                c.count,
                s.output_registers().len()
            ),
        );
    }
    let helpers_len = if c.helpers.is_null() { 0 } else { c.count };
    let helpers = Span::new(c.helpers.cast(), helpers_len, "helpers")?;
    // SAFETY: the caller passes `count * input_registers * 4` readable
    // u32 at `inputs` and, when not NULL, `count` readable bytes at
    // `helpers` (header contract); both spans were checked above.
    let data = unsafe { std::slice::from_raw_parts(inputs_ptr(inputs), n_in) };
    let flags: Option<Vec<bool>> = (!c.helpers.is_null())
        .then(|| unsafe { helpers.bytes() }.iter().map(|&h| h != 0).collect());
    let mut batch = BatchInputs::new(c.count, c.input_registers, data);
    if let Some(f) = &flags {
        batch = batch.with_helpers(f);
    }
    let result = with_bindings_shared(c.bindings, |cb| {
        for (name, span) in [("inputs", inputs), ("helpers", helpers)] {
            if cb.overlaps_uav(span) {
                return fail(
                    status::INVALID_ARGUMENT,
                    format!("{name} overlaps a bound UAV"),
                );
            }
        }
        cb.run(|b| s.run_batch_with(b, &batch, &config))
    })?;
    let values: Vec<u32> = result.values.iter().flatten().copied().collect();
    // SAFETY: `outputs` holds at least `need == values.len()` u32 and
    // `lanes`, when not NULL, `count` bytes (header contract).
    unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), c.outputs, values.len()) };
    if !c.lanes.is_null() {
        for (i, l) in result.lanes.iter().enumerate() {
            let v = match l {
                LaneResult::Written => lane::WRITTEN,
                LaneResult::Discarded => lane::DISCARDED,
                LaneResult::Helper => lane::HELPER,
            };
            // SAFETY: as above, `i < count`.
            unsafe { c.lanes.add(i).write(v) };
        }
    }
    Ok(())
}

/// The u32 pointer of an input span (a dangling, aligned one when empty).
fn inputs_ptr(span: Span) -> *const u32 {
    if span.len == 0 {
        std::ptr::NonNull::<u32>::dangling().as_ptr()
    } else {
        span.ptr.cast::<u32>()
    }
}

/// Runs `count` vertex-shader invocations; see the header.
///
/// # Safety
/// `inputs` must point at `count * input_registers * 4` readable
/// `uint32_t`, `outputs` at `outputs_len` writable `uint32_t`, `opts`
/// (when not NULL) at a `sm5jit_dispatch_options`; all memory bound to
/// `bindings` must be valid.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_run_vertex_batch(
    shader: u64,
    bindings: u64,
    inputs: *const u32,
    count: usize,
    input_registers: u32,
    outputs: *mut u32,
    outputs_len: usize,
    opts: *const CDispatchOptions,
) -> c_int {
    guard(|| {
        let c = CBatch {
            shader,
            bindings,
            inputs,
            count,
            input_registers,
            helpers: std::ptr::null(),
            outputs,
            outputs_len,
            lanes: std::ptr::null_mut(),
            opts,
        };
        run_c_batch("sm5jit_run_vertex_batch", ProgramKind::Vertex, &c)
    })
}

/// Runs `count / 4` 2x2 pixel quads; see the header.
///
/// # Safety
/// As [`sm5jit_run_vertex_batch`]; `helpers` (when not NULL) must point
/// at `count` readable bytes and `out_lanes` (when not NULL) at `count`
/// writable bytes.
#[no_mangle]
pub unsafe extern "C" fn sm5jit_run_pixel_quads(
    shader: u64,
    bindings: u64,
    inputs: *const u32,
    count: usize,
    input_registers: u32,
    helpers: *const u8,
    outputs: *mut u32,
    outputs_len: usize,
    out_lanes: *mut u8,
    opts: *const CDispatchOptions,
) -> c_int {
    guard(|| {
        let c = CBatch {
            shader,
            bindings,
            inputs,
            count,
            input_registers,
            helpers,
            outputs,
            outputs_len,
            lanes: out_lanes,
            opts,
        };
        run_c_batch("sm5jit_run_pixel_quads", ProgramKind::Pixel, &c)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_become_a_status_and_a_message() {
        let code = guard(|| panic!("boom"));
        assert_eq!(code, status::PANIC);
        // SAFETY: sm5jit_last_error returns a valid C string.
        let msg = unsafe { CStr::from_ptr(sm5jit_last_error()) };
        assert!(msg.to_str().unwrap().contains("boom"));
    }

    #[test]
    fn uav_memory_must_not_alias_other_bindings() {
        let mut mem = [0u8; 64];
        let p = mem.as_mut_ptr();
        let mut b = CBindings::default();
        let view = View::raw(0, 4);
        b.uavs.insert(0, (Span { ptr: p, len: 16 }, view, None));
        b.srvs.insert(
            0,
            (
                Span {
                    ptr: p.wrapping_add(16),
                    len: 16,
                },
                view,
            ),
        );
        assert!(b.check_disjoint().is_ok());
        b.cbs.insert(
            1,
            Span {
                ptr: p.wrapping_add(8),
                len: 16,
            },
        );
        let e = b.check_disjoint().err().unwrap();
        assert!(
            e.message.contains("u0 overlaps the memory of cb1"),
            "{}",
            e.message
        );
    }
}
