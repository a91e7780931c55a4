/*
 * sm5jit.h - C interface of sm5jit: run Direct3D 11 Shader Model 4/5
 * compute shaders (and vertex/pixel shaders as invocation batches) on the
 * CPU, from DXBC bytecode or SM4/SM5 assembly.
 *
 * Link against libsm5jit.so (cdylib) or libsm5jit.a (staticlib; also link
 * -lpthread -ldl -lm). C99. See docs/embedding.md for a walk-through.
 *
 * Conventions
 * - Every function that can fail returns an sm5jit_status: SM5JIT_OK (0)
 *   or an SM5JIT_ERROR_* code. On failure sm5jit_last_error() gives a
 *   message for the calling thread. Output parameters are written only on
 *   success.
 * - Shaders and bindings are 64-bit handles, never pointers. A handle is
 *   checked on every call: 0, a handle of the other kind, and a handle
 *   whose object was freed (use after free, double free) all return
 *   SM5JIT_ERROR_INVALID_HANDLE; freed handles are never reused.
 * - Structs passed in start with `struct_size`, which must be
 *   sizeof(the struct) (SM5JIT_ERROR_BAD_SIZE otherwise). Use the
 *   SM5JIT_*_INIT macros to fill defaults.
 * - No Rust panic crosses this interface: an internal error becomes
 *   SM5JIT_ERROR_PANIC.
 *
 * Ownership and threading
 * - The caller owns all buffer memory. Binding stores the pointer and
 *   size; the memory must stay valid (and, for UAVs, writable) until it is
 *   rebound, unbound, or the bindings object is freed. A UAV's memory must
 *   not overlap any other memory bound to the same bindings object
 *   (SM5JIT_ERROR_INVALID_ARGUMENT at dispatch).
 * - What cannot be checked: a non-NULL pointer must really point at as
 *   many bytes as its size says.
 * - A shader is immutable once created: any number of threads may
 *   dispatch the same shader at the same time, each with its own bindings
 *   object. Freeing a shader while another thread dispatches it is safe:
 *   the running dispatch finishes first.
 * - Every function may be called from any thread. On one bindings object,
 *   binding calls and dispatches run one at a time (each holds the object
 *   locked), while the batch entry points (sm5jit_run_vertex_batch,
 *   sm5jit_run_pixel_quads) share it: any number of threads may run
 *   batches against one bindings object at once, e.g. a rasterizer's
 *   tiles on every core. SRVs, constant buffers and samplers are read in
 *   place by all of them; UAVs are written in place with the rules of a
 *   dispatch's thread groups: batches writing different bytes do not
 *   interfere, plain writes of the same bytes race (each DWORD ends with
 *   one of the written values), atomics and hidden counters are atomic
 *   across all threads. A binding call waits for running batches.
 */
#ifndef SM5JIT_H
#define SM5JIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes ------------------------------------------------------ */

typedef int sm5jit_status;

#define SM5JIT_OK 0
#define SM5JIT_ERROR_NULL_POINTER 1     /* a required pointer was NULL */
#define SM5JIT_ERROR_BAD_SIZE 2         /* struct_size wrong, or a view needs more bytes than given */
#define SM5JIT_ERROR_INVALID_HANDLE 3   /* 0, wrong kind, or freed */
#define SM5JIT_ERROR_INVALID_ARGUMENT 4 /* unknown enum value, format, overlapping UAV, ... */
#define SM5JIT_ERROR_DECODE 5           /* the DXBC container or its tokens are malformed */
#define SM5JIT_ERROR_ASM 6              /* assembly text: message starts with LINE:COL */
#define SM5JIT_ERROR_VALIDATION 7       /* the program breaks a shader-model rule */
#define SM5JIT_ERROR_JIT 8              /* the JIT cannot compile this program (try the interpreter) */
#define SM5JIT_ERROR_RUNTIME 9          /* missing/mismatched binding, bad dispatch size, budget exhausted */
#define SM5JIT_ERROR_PANIC 10           /* internal error; please report it */

/* ---- handles ----------------------------------------------------------- */

typedef uint64_t sm5jit_shader;   /* 0 is never a valid handle */
typedef uint64_t sm5jit_bindings; /* 0 is never a valid handle */

/* ---- engines ----------------------------------------------------------- */

#define SM5JIT_ENGINE_JIT 0         /* Cranelift native code, multi-threaded (default) */
#define SM5JIT_ENGINE_INTERPRETER 1 /* the reference interpreter, calling thread only */

/* ---- library and errors ------------------------------------------------ */

/* The library version, e.g. "0.1.0" (static storage). */
const char *sm5jit_version(void);

/* The message of the last failed call on this thread, "" if none. The
 * pointer stays valid until the next failing call on the same thread. */
const char *sm5jit_last_error(void);

/* "SM5JIT_OK", "SM5JIT_ERROR_NULL_POINTER", ... (static storage). */
const char *sm5jit_status_name(sm5jit_status status);

/* ---- shaders ----------------------------------------------------------- */

/* Decodes a DXBC container (checksum verified), validates the program and
 * compiles it for `engine`. `bytes` must hold `size` bytes. */
sm5jit_status sm5jit_shader_from_dxbc(const void *bytes, size_t size, int engine,
                                      sm5jit_shader *out_shader);

/* Parses SM4/SM5 assembly (fxc's dialect, UTF-8, `len` bytes, no
 * terminator needed), validates and compiles it for `engine`. */
sm5jit_status sm5jit_shader_from_asm(const char *text, size_t len, int engine,
                                     sm5jit_shader *out_shader);

/* ---- compile options (JIT tiers) ---------------------------------------- */

#define SM5JIT_TIER_0 0    /* tier 0 only: the fastest compile, slower code */
#define SM5JIT_TIER_1 1    /* tier 1 only: the optimising compile */
#define SM5JIT_TIER_AUTO 2 /* tier 0, then tier 1 compiled on a background thread (default) */

/* How the JIT compiles a shader (the interpreter ignores it). On
 * SM5JIT_TIER_AUTO the shader starts on tier 0; once it has run
 * `tier_up_after` batch calls of 8 invocations (default 256), tier 1 is
 * compiled on a background thread and swapped in between thread groups
 * and batches; no call ever waits for it. With `cache` set, compiling an
 * equal program with equal options again in this process returns the
 * same compiled code (at most 64 shaders are kept). */
typedef struct sm5jit_compile_options {
    uint32_t struct_size; /* sizeof(sm5jit_compile_options) */
    uint32_t tier;        /* SM5JIT_TIER_* */
    uint32_t cache;       /* nonzero: use the in-process cache */
    uint32_t _pad;        /* 0 */
    uint64_t tier_up_after; /* batch calls before tier-up on auto; 0: at once */
} sm5jit_compile_options;

#define SM5JIT_COMPILE_OPTIONS_INIT {sizeof(sm5jit_compile_options), SM5JIT_TIER_AUTO, 1, 0, 256}

/* sm5jit_shader_from_dxbc / _from_asm with compile options; `options`
 * may be NULL (the defaults, SM5JIT_COMPILE_OPTIONS_INIT). */
sm5jit_status sm5jit_shader_from_dxbc_opts(const void *bytes, size_t size, int engine,
                                           const sm5jit_compile_options *options,
                                           sm5jit_shader *out_shader);
sm5jit_status sm5jit_shader_from_asm_opts(const char *text, size_t len, int engine,
                                          const sm5jit_compile_options *options,
                                          sm5jit_shader *out_shader);

/* Writes the JIT tier the shader's next dispatch runs (0 or 1; -1 for an
 * interpreter shader) to out_tier. */
sm5jit_status sm5jit_shader_tier(sm5jit_shader shader, int *out_tier);

/* Frees a shader; its handle becomes invalid. Freeing twice returns
 * SM5JIT_ERROR_INVALID_HANDLE. */
sm5jit_status sm5jit_shader_free(sm5jit_shader shader);

/* Writes the threads per group (dcl_thread_group) to out_size[0..2]. */
sm5jit_status sm5jit_shader_thread_group_size(sm5jit_shader shader, uint32_t *out_size);

/* ---- views ------------------------------------------------------------- */

#define SM5JIT_BUFFER_RAW 0        /* byte-address: elements are 32-bit words */
#define SM5JIT_BUFFER_STRUCTURED 1 /* elements of `stride` bytes (multiple of 4) */
#define SM5JIT_BUFFER_TYPED 2      /* elements are texels of `format` */

/* Common DXGI_FORMAT numbers (any format sm5jit reads is accepted by number). */
#define SM5JIT_FORMAT_R32G32B32A32_FLOAT 2
#define SM5JIT_FORMAT_R32G32B32A32_UINT 3
#define SM5JIT_FORMAT_R8G8B8A8_UNORM 28
#define SM5JIT_FORMAT_R32_FLOAT 41
#define SM5JIT_FORMAT_R32_UINT 42
#define SM5JIT_FORMAT_R32_SINT 43

/* A window onto a buffer: elements first_element .. first_element +
 * num_elements. The window must lie inside the bound memory. */
typedef struct sm5jit_buffer_view {
    uint32_t struct_size; /* sizeof(sm5jit_buffer_view) */
    uint32_t kind;        /* SM5JIT_BUFFER_* */
    uint32_t stride;      /* structured only */
    uint32_t format;      /* typed only: DXGI_FORMAT number */
    uint64_t first_element;
    uint64_t num_elements;
} sm5jit_buffer_view;

#define SM5JIT_BUFFER_VIEW_INIT {sizeof(sm5jit_buffer_view), SM5JIT_BUFFER_RAW, 0, 0, 0, 0}

#define SM5JIT_TEXTURE_1D 0
#define SM5JIT_TEXTURE_1D_ARRAY 1
#define SM5JIT_TEXTURE_2D 2
#define SM5JIT_TEXTURE_2D_ARRAY 3
#define SM5JIT_TEXTURE_3D 4
#define SM5JIT_TEXTURE_CUBE 5       /* faces +X -X +Y -Y +Z -Z as array slices */
#define SM5JIT_TEXTURE_CUBE_ARRAY 6
#define SM5JIT_TEXTURE_2DMS 7
#define SM5JIT_TEXTURE_2DMS_ARRAY 8

/* A texture: mip 0 at byte 0, texel (x, y, z) at z * slice_pitch +
 * y * row_pitch + x * texel bytes; further mips follow tightly packed. */
typedef struct sm5jit_texture_view {
    uint32_t struct_size; /* sizeof(sm5jit_texture_view) */
    uint32_t dim;         /* SM5JIT_TEXTURE_* */
    uint32_t format;      /* DXGI_FORMAT number */
    uint32_t samples;     /* multisampled dims only */
    uint32_t width;
    uint32_t height;
    uint32_t depth_or_array; /* depth (3D), array size or faces; 1 otherwise */
    uint32_t mip_levels;
    uint64_t row_pitch;
    uint64_t slice_pitch;
} sm5jit_texture_view;

/* Sampler state; values as in D3D11_SAMPLER_DESC. */
#define SM5JIT_FILTER_POINT 0
#define SM5JIT_FILTER_LINEAR 1
#define SM5JIT_ADDRESS_WRAP 1
#define SM5JIT_ADDRESS_MIRROR 2
#define SM5JIT_ADDRESS_CLAMP 3
#define SM5JIT_ADDRESS_BORDER 4
#define SM5JIT_ADDRESS_MIRROR_ONCE 5
#define SM5JIT_COMPARISON_NEVER 1
#define SM5JIT_COMPARISON_ALWAYS 8

typedef struct sm5jit_sampler_desc {
    uint32_t struct_size; /* sizeof(sm5jit_sampler_desc) */
    uint32_t min_filter;  /* SM5JIT_FILTER_* */
    uint32_t mag_filter;
    uint32_t mip_filter;
    uint32_t anisotropic; /* non-zero: anisotropic (filtered as linear) */
    uint32_t address_u;   /* SM5JIT_ADDRESS_* */
    uint32_t address_v;
    uint32_t address_w;
    uint32_t comparison;  /* D3D11_COMPARISON_FUNC: 1 never .. 8 always */
    uint32_t max_anisotropy;
    float border_color[4];
    float mip_lod_bias;
    float min_lod;
    float max_lod;
} sm5jit_sampler_desc;

/* ---- bindings ---------------------------------------------------------- */

/* Register files for sm5jit_unbind. Slots are in register space 0. */
#define SM5JIT_SLOT_UAV 0
#define SM5JIT_SLOT_SRV 1
#define SM5JIT_SLOT_CB 2
#define SM5JIT_SLOT_SAMPLER 3

sm5jit_status sm5jit_bindings_create(sm5jit_bindings *out_bindings);

/* Frees the bindings object, never the memory bound to it. */
sm5jit_status sm5jit_bindings_free(sm5jit_bindings bindings);

/* u#slot = `size` bytes at `data` seen through `view`. Replaces any
 * binding at the slot (and its counter). */
sm5jit_status sm5jit_bind_uav_buffer(sm5jit_bindings bindings, uint32_t slot, void *data,
                                     size_t size, const sm5jit_buffer_view *view);
sm5jit_status sm5jit_bind_uav_texture(sm5jit_bindings bindings, uint32_t slot, void *data,
                                      size_t size, const sm5jit_texture_view *view);

/* t#slot, read-only. */
sm5jit_status sm5jit_bind_srv_buffer(sm5jit_bindings bindings, uint32_t slot, const void *data,
                                     size_t size, const sm5jit_buffer_view *view);
sm5jit_status sm5jit_bind_srv_texture(sm5jit_bindings bindings, uint32_t slot, const void *data,
                                      size_t size, const sm5jit_texture_view *view);

/* cb#slot: `size` bytes (reads past the end return 0). */
sm5jit_status sm5jit_bind_cb(sm5jit_bindings bindings, uint32_t slot, const void *data,
                             size_t size);

/* s#slot: the state is copied. Unbound samplers are the D3D11 default. */
sm5jit_status sm5jit_bind_sampler(sm5jit_bindings bindings, uint32_t slot,
                                  const sm5jit_sampler_desc *desc);

/* The hidden counter of the UAV at u#slot (for append/consume and
 * imm_atomic_alloc/consume): set its start value, read it after a dispatch. */
sm5jit_status sm5jit_set_uav_counter(sm5jit_bindings bindings, uint32_t slot, uint32_t value);
sm5jit_status sm5jit_get_uav_counter(sm5jit_bindings bindings, uint32_t slot,
                                     uint32_t *out_value);

/* Removes one binding; `kind` is SM5JIT_SLOT_*. */
sm5jit_status sm5jit_unbind(sm5jit_bindings bindings, int kind, uint32_t slot);

/* ---- dispatch ---------------------------------------------------------- */

typedef struct sm5jit_dispatch_options {
    uint32_t struct_size; /* sizeof(sm5jit_dispatch_options) */
    uint32_t threads;     /* JIT workers: 0 = one per core, 1 = calling thread, at most 4 per core */
    uint64_t budget;      /* instructions per thread group; 0 = default */
} sm5jit_dispatch_options;

#define SM5JIT_DISPATCH_OPTIONS_INIT {sizeof(sm5jit_dispatch_options), 0, 0}

/* Runs x * y * z thread groups of a compute shader. `opts` may be NULL.
 * Bindings are checked against the shader's declarations first; UAV
 * writes made before a failing group (e.g. budget exhausted) stay. */
sm5jit_status sm5jit_dispatch(sm5jit_shader shader, sm5jit_bindings bindings, uint32_t x,
                              uint32_t y, uint32_t z, const sm5jit_dispatch_options *opts);

/* Reads x, y, z (3 x uint32_t, little-endian) at byte `offset` of `args`
 * (4-aligned, 12 bytes inside args_size) and dispatches. cs_4_x shaders
 * run no groups (as D3D11 does). */
sm5jit_status sm5jit_dispatch_indirect(sm5jit_shader shader, sm5jit_bindings bindings,
                                       const void *args, size_t args_size, uint64_t offset,
                                       const sm5jit_dispatch_options *opts);

/* ---- invocation batches (vertex and pixel programs) --------------------
 * A vertex or pixel shader (built with either engine) runs as a batch of
 * `count` invocations on the calling thread, over the same bindings.
 * Thread-safe and concurrent: several threads may run batches of one
 * shader against one bindings object at the same time (see "Ownership
 * and threading" above for the UAV rules).
 *
 * inputs: count * input_registers * 4 uint32_t, invocation-major:
 *   inputs[(i * input_registers + r) * 4 + c] is component c of v<r> of
 *   invocation i (float values as their bits). input_registers must cover
 *   every v# the shader declares (at most 32); the caller interpolates.
 * outputs: count * n * 4 uint32_t where n is the number of o# registers
 *   the shader declares (sm5jit_shader_output_registers):
 *   outputs[(i * n + k) * 4 + c] is component c of the k-th declared
 *   output of invocation i; zeros for lanes that wrote nothing.
 *   outputs_len (in uint32_t) smaller than that: SM5JIT_ERROR_BAD_SIZE.
 * Bad inputs (too few registers, count not a multiple of 4 for pixels,
 * too many invocations) and binding problems: SM5JIT_ERROR_RUNTIME. A
 * shader of the wrong kind (compute, or vertex given to the pixel entry
 * point): SM5JIT_ERROR_INVALID_ARGUMENT. inputs and helpers must not
 * overlap a bound UAV. Output buffers are written only on success. */

/* Writes the declared o# register numbers (declaration order) to
 * out_registers[0..*out_count] and their number to *out_count;
 * out_registers may be NULL to query the count. Compute shaders: 0. */
sm5jit_status sm5jit_shader_output_registers(sm5jit_shader shader, uint32_t *out_registers,
                                             size_t capacity, size_t *out_count);

/* Runs `count` vertex-shader invocations. `opts` may be NULL; only its
 * budget (instructions per invocation) applies. */
sm5jit_status sm5jit_run_vertex_batch(sm5jit_shader shader, sm5jit_bindings bindings,
                                      const uint32_t *inputs, size_t count,
                                      uint32_t input_registers, uint32_t *outputs,
                                      size_t outputs_len, const sm5jit_dispatch_options *opts);

/* What became of one pixel invocation (out_lanes[i]). */
#define SM5JIT_LANE_WRITTEN 0   /* ran to the end; its outputs are reported */
#define SM5JIT_LANE_DISCARDED 1 /* executed discard: outputs are zero */
#define SM5JIT_LANE_HELPER 2    /* helper lane: ran for derivatives only */

/* Runs count / 4 pixel quads (count a multiple of 4): invocations
 * 4q..4q+3 are quad q's top-left, top-right, bottom-left, bottom-right
 * pixels, so ddx/ddy work. helpers (count bytes, may be NULL = none):
 * non-zero marks a helper lane of a partial quad. out_lanes (count
 * bytes, may be NULL) receives SM5JIT_LANE_* per invocation. `opts` may
 * be NULL; only its budget (instructions per quad) applies. */
sm5jit_status sm5jit_run_pixel_quads(sm5jit_shader shader, sm5jit_bindings bindings,
                                     const uint32_t *inputs, size_t count,
                                     uint32_t input_registers, const uint8_t *helpers,
                                     uint32_t *outputs, size_t outputs_len, uint8_t *out_lanes,
                                     const sm5jit_dispatch_options *opts);

/* ---- reflection -----------------------------------------------------
 * What a shader declares, shaped like D3D's shader reflection. Each
 * struct starts with struct_size, which the caller sets (use the _INIT
 * macros); names are copied into the struct (NUL-terminated, at most 63
 * bytes), so nothing points into the library. Semantic and binding
 * names come from the DXBC container; shaders built from assembly get
 * SV_* names for system values and TEXCOORD<register> (SV_Target<n> for
 * pixel outputs) otherwise, and empty binding names. */

#define SM5JIT_REFLECT_DISCARDS 0x1u
#define SM5JIT_REFLECT_WRITES_DEPTH 0x2u
#define SM5JIT_REFLECT_WRITES_COVERAGE 0x4u /* oMask */
#define SM5JIT_REFLECT_WRITES_STENCIL_REF 0x8u
#define SM5JIT_REFLECT_READS_COVERAGE 0x10u /* vCoverage */
#define SM5JIT_REFLECT_PER_SAMPLE 0x20u     /* SV_SampleIndex or sample interpolation */
#define SM5JIT_REFLECT_USES_DERIVATIVES 0x40u
#define SM5JIT_REFLECT_USES_DOUBLES 0x80u
#define SM5JIT_REFLECT_USES_ATOMICS 0x100u
#define SM5JIT_REFLECT_USES_BARRIERS 0x200u
#define SM5JIT_REFLECT_EARLY_DEPTH_STENCIL 0x400u
#define SM5JIT_REFLECT_FROM_CONTAINER 0x800u /* names read from the DXBC container */

typedef struct sm5jit_shader_desc {
    uint32_t struct_size;   /* sizeof(sm5jit_shader_desc) */
    uint32_t kind;          /* 0 pixel, 1 vertex, 2 geometry, 3 hull, 4 domain, 5 compute */
    uint32_t major, minor;  /* shader model */
    uint32_t input_count;   /* signature elements (sm5jit_reflect_input) */
    uint32_t output_count;  /* (sm5jit_reflect_output) */
    uint32_t constant_buffer_count, srv_count, uav_count, sampler_count;
    uint32_t thread_group[3]; /* 1, 1, 1 outside compute */
    uint32_t tgsm_bytes;
    uint32_t instruction_count; /* executable instructions (declarations excluded) */
    uint32_t flags;             /* SM5JIT_REFLECT_* */
    uint32_t depth_output;      /* 0 none, 1 oDepth, 2 oDepthGE, 3 oDepthLE */
} sm5jit_shader_desc;

#define SM5JIT_SHADER_DESC_INIT {.struct_size = sizeof(sm5jit_shader_desc)}

/* One signature element (D3D11_SIGNATURE_PARAMETER_DESC). */
typedef struct sm5jit_signature_element {
    uint32_t struct_size; /* sizeof(sm5jit_signature_element) */
    char semantic[64];
    uint32_t semantic_index;
    int32_t register_index; /* v#/o#; -1 for oDepth, oMask, vCoverage, vThreadID, ... */
    uint32_t mask;          /* components occupied, bit 0 = x */
    uint32_t rw_mask;       /* as the container stores it (inputs: read; outputs: never written) */
    uint32_t declared_mask; /* components the dcl_* declare (0: unused by the shader) */
    uint32_t system_value;  /* D3D_NAME (0 none, 1 position, 9 is_front_face, ...) */
    uint32_t component_type; /* 0 unknown, 1 uint, 2 sint, 3 float */
    uint32_t interpolation;  /* D3D_INTERPOLATION_MODE (pixel inputs), else 0 */
    uint32_t stream;
} sm5jit_signature_element;

#define SM5JIT_SIGNATURE_ELEMENT_INIT {.struct_size = sizeof(sm5jit_signature_element)}

#define SM5JIT_BINDING_CONSTANT_BUFFER 0u
#define SM5JIT_BINDING_SRV 1u
#define SM5JIT_BINDING_UAV 2u
#define SM5JIT_BINDING_SAMPLER 3u

#define SM5JIT_BINDING_FLAG_COUNTER 0x1u        /* UAV hidden counter used */
#define SM5JIT_BINDING_FLAG_APPEND_CONSUME 0x2u /* append/consume buffer */
#define SM5JIT_BINDING_FLAG_COMPARISON 0x4u     /* comparison sampler */
#define SM5JIT_BINDING_FLAG_DYNAMIC_INDEXED 0x8u
#define SM5JIT_BINDING_FLAG_GLOBALLY_COHERENT 0x10u
#define SM5JIT_BINDING_FLAG_RASTERIZER_ORDERED 0x20u
#define SM5JIT_BINDING_FLAG_MONO 0x40u

/* One binding (D3D11_SHADER_INPUT_BIND_DESC plus the buffer size). */
typedef struct sm5jit_binding_desc {
    uint32_t struct_size; /* sizeof(sm5jit_binding_desc) */
    char name[64];        /* empty when the container names none */
    uint32_t kind;        /* SM5JIT_BINDING_* */
    uint32_t slot, space;
    uint32_t count;       /* slots of an SM5.1 range (0xFFFFFFFF unbounded), else 1 */
    uint32_t size;        /* constant buffers: bytes */
    uint32_t dimension;   /* SRV/UAV: 1 buffer, 2 tex1d, 3 tex2d, 4 tex2dms, 5 tex3d,
                             6 cube, 7 tex1darray, 8 tex2darray, 9 tex2dmsarray,
                             10 cubearray, 11 raw, 12 structured */
    uint32_t return_type; /* typed SRV/UAV: 1 unorm, 2 snorm, 3 sint, 4 uint, 5 float */
    uint32_t stride;      /* structured: bytes per element */
    uint32_t sample_count;
    uint32_t flags;       /* SM5JIT_BINDING_FLAG_* */
    uint32_t textures[4]; /* samplers: bit t of textures[t / 32] = SRV slot t sampled with it */
} sm5jit_binding_desc;

#define SM5JIT_BINDING_DESC_INIT {.struct_size = sizeof(sm5jit_binding_desc)}

sm5jit_status sm5jit_reflect(sm5jit_shader shader, sm5jit_shader_desc *out_desc);
/* Index past the list: SM5JIT_ERROR_INVALID_ARGUMENT. */
sm5jit_status sm5jit_reflect_input(sm5jit_shader shader, uint32_t index,
                                   sm5jit_signature_element *out_element);
sm5jit_status sm5jit_reflect_output(sm5jit_shader shader, uint32_t index,
                                    sm5jit_signature_element *out_element);
sm5jit_status sm5jit_reflect_binding(sm5jit_shader shader, uint32_t kind, uint32_t index,
                                     sm5jit_binding_desc *out_binding);
/* The whole reflection as JSON into buf (capacity bytes, NUL-terminated);
 * *out_len = its length without the NUL. buf may be NULL to query the
 * length; too small a capacity: SM5JIT_ERROR_BAD_SIZE. */
sm5jit_status sm5jit_reflect_json(sm5jit_shader shader, char *buf, size_t capacity,
                                  size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif /* SM5JIT_H */
