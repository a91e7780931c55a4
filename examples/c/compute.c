/*
 * compute.c - sm5jit from C: compile a compute shader from assembly (and,
 * given a path, from a DXBC file), bind caller memory with view windows,
 * dispatch directly and indirectly on both engines, and check that misuse
 * returns errors.
 *
 * Build (from the repository root, after `cargo build --release`):
 *   gcc -std=c99 -Wall -Werror -Iinclude examples/c/compute.c \
 *       -Ltarget/release -lsm5jit -Wl,-rpath,$PWD/target/release -o compute
 *   ./compute [shader.dxbc]
 *
 * The optional argument is a DXBC compute shader with this example's
 * interface: cb0 (x = added constant, y = element count), t0 a structured
 * buffer of 4-byte elements, u0 a raw buffer, 64 threads per group,
 * computing out[i] = in[i] * 3 + cb0.x (e.g. SRC below assembled by
 * `sm5jit asm`, or the same HLSL compiled by fxc). The example reads the
 * file's reflection and refuses, with a message and exit status 1, a
 * shader whose bindings or group size differ; it cannot check the
 * arithmetic, so another formula shows up as wrong sums.
 *
 * Output: the reflection of the assembled shader ("reflect ..." lines),
 * one line per result ("sum ENGINE VALUE", "probe ENGINE I VALUE") and
 * per misuse check ("misuse NAME STATUS"). Exit status 0 when every
 * check passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sm5jit.h"

/* out[i] = in[i] * 3 + cb0[0].x for i < cb0[0].y, one thread per element. */
static const char *SRC =
    "cs_5_0\n"
    "dcl_constantbuffer CB0[1], immediateIndexed\n"
    "dcl_resource_structured t0, 4\n"
    "dcl_uav_raw u0\n"
    "dcl_input vThreadID.x\n"
    "dcl_temps 2\n"
    "dcl_thread_group 64, 1, 1\n"
    "uge r0.x, vThreadID.x, cb0[0].y\n"
    "if_nz r0.x\n"
    "  ret\n"
    "endif\n"
    "ld_structured r0.x, vThreadID.x, l(0), t0.xxxx\n"
    "imad r0.x, r0.x, l(3), cb0[0].x\n"
    "ishl r1.x, vThreadID.x, l(2)\n"
    "store_raw u0.x, r1.x, r0.x\n"
    "ret\n";

#define N 1000u
#define GUARD 4u /* words before and after the UAV window */

static int failures = 0;

static void check(int ok, const char *what) {
    if (!ok) {
        printf("FAILED %s (last error: %s)\n", what, sm5jit_last_error());
        failures++;
    }
}

/* Binds the buffers and runs the shader; prints the sum and two probes. */
static void run(sm5jit_shader shader, const char *name, int indirect) {
    static uint32_t input[N];
    static uint32_t output[N + 2 * GUARD];
    uint32_t cb[4] = {11, N, 0, 0};
    uint32_t args[4] = {0, (N + 63) / 64, 1, 1};
    sm5jit_bindings b = 0;
    sm5jit_buffer_view in_view = SM5JIT_BUFFER_VIEW_INIT;
    sm5jit_buffer_view out_view = SM5JIT_BUFFER_VIEW_INIT;
    sm5jit_dispatch_options opts = SM5JIT_DISPATCH_OPTIONS_INIT;
    uint64_t sum = 0;
    uint32_t i;
    sm5jit_status st;

    for (i = 0; i < N; i++) input[i] = i * 7u % 1013u;
    for (i = 0; i < N + 2 * GUARD; i++) output[i] = 0xDEADBEEFu;
    in_view.kind = SM5JIT_BUFFER_STRUCTURED;
    in_view.stride = 4;
    in_view.num_elements = N;
    out_view.kind = SM5JIT_BUFFER_RAW;
    out_view.first_element = GUARD; /* the window skips the guard words */
    out_view.num_elements = N;
    opts.threads = 2;

    check(sm5jit_bindings_create(&b) == SM5JIT_OK, "bindings_create");
    check(sm5jit_bind_srv_buffer(b, 0, input, sizeof input, &in_view) == SM5JIT_OK, "bind t0");
    check(sm5jit_bind_uav_buffer(b, 0, output, sizeof output, &out_view) == SM5JIT_OK, "bind u0");
    check(sm5jit_bind_cb(b, 0, cb, sizeof cb) == SM5JIT_OK, "bind cb0");
    if (indirect)
        st = sm5jit_dispatch_indirect(shader, b, args, sizeof args, 4, &opts);
    else
        st = sm5jit_dispatch(shader, b, (N + 63) / 64, 1, 1, &opts);
    check(st == SM5JIT_OK, "dispatch");
    for (i = 0; i < N; i++) sum += output[GUARD + i];
    printf("sum %s %llu\n", name, (unsigned long long)sum);
    printf("probe %s 0 %u\n", name, output[GUARD]);
    printf("probe %s 999 %u\n", name, output[GUARD + 999]);
    for (i = 0; i < GUARD; i++) {
        check(output[i] == 0xDEADBEEFu, "guard word before the window");
        check(output[GUARD + N + i] == 0xDEADBEEFu, "guard word after the window");
    }
    check(sm5jit_bindings_free(b) == SM5JIT_OK, "bindings_free");
}

static void expect(const char *name, sm5jit_status got, sm5jit_status want) {
    printf("misuse %s %s\n", name, sm5jit_status_name(got));
    if (got != want) {
        printf("FAILED misuse %s: expected %s\n", name, sm5jit_status_name(want));
        failures++;
    }
}

static void misuse(void) {
    sm5jit_shader s = 0, s2 = 0;
    sm5jit_bindings b = 0;
    uint32_t mem[16];
    uint32_t group[3];
    uint32_t args[3] = {1, 1, 1};
    sm5jit_buffer_view v = SM5JIT_BUFFER_VIEW_INIT;
    size_t len = strlen(SRC);

    expect("null_text", sm5jit_shader_from_asm(NULL, len, SM5JIT_ENGINE_JIT, &s),
           SM5JIT_ERROR_NULL_POINTER);
    expect("null_out", sm5jit_shader_from_asm(SRC, len, SM5JIT_ENGINE_JIT, NULL),
           SM5JIT_ERROR_NULL_POINTER);
    expect("null_dxbc", sm5jit_shader_from_dxbc(NULL, 0, SM5JIT_ENGINE_JIT, &s),
           SM5JIT_ERROR_NULL_POINTER);
    expect("bad_engine", sm5jit_shader_from_asm(SRC, len, 7, &s), SM5JIT_ERROR_INVALID_ARGUMENT);
    expect("bad_asm", sm5jit_shader_from_asm("cs_5_0\nfrobnicate r0\n", 21, 0, &s),
           SM5JIT_ERROR_ASM);
    check(strncmp(sm5jit_last_error(), "2:", 2) == 0, "asm error names line 2");
    expect("bad_dxbc", sm5jit_shader_from_dxbc("DXBCnope", 8, SM5JIT_ENGINE_JIT, &s),
           SM5JIT_ERROR_DECODE);

    check(sm5jit_shader_from_asm(SRC, len, SM5JIT_ENGINE_JIT, &s) == SM5JIT_OK, "create");
    check(sm5jit_bindings_create(&b) == SM5JIT_OK, "bindings_create");
    expect("null_group_size", sm5jit_shader_thread_group_size(s, NULL), SM5JIT_ERROR_NULL_POINTER);
    check(sm5jit_shader_thread_group_size(s, group) == SM5JIT_OK && group[0] == 64 &&
              group[1] == 1 && group[2] == 1,
          "thread group size 64,1,1");

    /* Wrong sizes: a struct from another build, a window past the memory. */
    v.num_elements = 16;
    v.struct_size = 8;
    expect("struct_size", sm5jit_bind_uav_buffer(b, 0, mem, sizeof mem, &v), SM5JIT_ERROR_BAD_SIZE);
    v.struct_size = sizeof v;
    v.first_element = 1;
    expect("window_too_big", sm5jit_bind_uav_buffer(b, 0, mem, sizeof mem, &v),
           SM5JIT_ERROR_BAD_SIZE);
    expect("null_view", sm5jit_bind_uav_buffer(b, 0, mem, sizeof mem, NULL),
           SM5JIT_ERROR_NULL_POINTER);
    expect("null_memory", sm5jit_bind_cb(b, 0, NULL, 16), SM5JIT_ERROR_NULL_POINTER);
    v.kind = 9;
    expect("bad_kind", sm5jit_bind_uav_buffer(b, 0, mem, sizeof mem, &v),
           SM5JIT_ERROR_INVALID_ARGUMENT);
    v.kind = SM5JIT_BUFFER_TYPED;
    v.format = 12345;
    expect("bad_format", sm5jit_bind_uav_buffer(b, 0, mem, sizeof mem, &v),
           SM5JIT_ERROR_INVALID_ARGUMENT);

    /* Nothing bound yet: the dispatch names the missing slot. */
    expect("missing_binding", sm5jit_dispatch(s, b, 1, 1, 1, NULL), SM5JIT_ERROR_RUNTIME);
    /* A UAV overlapping an SRV. */
    v.kind = SM5JIT_BUFFER_RAW;
    v.first_element = 0;
    v.num_elements = 8;
    check(sm5jit_bind_uav_buffer(b, 0, mem, 32, &v) == SM5JIT_OK, "bind u0");
    v.kind = SM5JIT_BUFFER_STRUCTURED;
    v.stride = 4;
    check(sm5jit_bind_srv_buffer(b, 0, mem + 4, 32, &v) == SM5JIT_OK, "bind t0");
    check(sm5jit_bind_cb(b, 0, args, sizeof args) == SM5JIT_OK, "bind cb0");
    expect("overlap", sm5jit_dispatch(s, b, 1, 1, 1, NULL), SM5JIT_ERROR_INVALID_ARGUMENT);
    check(sm5jit_unbind(b, SM5JIT_SLOT_SRV, 0) == SM5JIT_OK, "unbind t0");
    expect("indirect_out_of_range", sm5jit_dispatch_indirect(s, b, args, sizeof args, 4, NULL),
           SM5JIT_ERROR_RUNTIME);
    expect("unbind_nothing", sm5jit_unbind(b, SM5JIT_SLOT_SAMPLER, 3), SM5JIT_ERROR_INVALID_ARGUMENT);

    /* Handles: zero, the wrong kind, freed, freed twice. */
    expect("zero_handle", sm5jit_dispatch(0, b, 1, 1, 1, NULL), SM5JIT_ERROR_INVALID_HANDLE);
    expect("wrong_kind", sm5jit_dispatch(b, b, 1, 1, 1, NULL), SM5JIT_ERROR_INVALID_HANDLE);
    check(sm5jit_shader_free(s) == SM5JIT_OK, "shader_free");
    expect("use_after_free", sm5jit_dispatch(s, b, 1, 1, 1, NULL), SM5JIT_ERROR_INVALID_HANDLE);
    expect("double_free", sm5jit_shader_free(s), SM5JIT_ERROR_INVALID_HANDLE);
    /* A new shader gets a new handle; the stale one stays dead. */
    check(sm5jit_shader_from_asm(SRC, len, SM5JIT_ENGINE_INTERPRETER, &s2) == SM5JIT_OK, "recreate");
    check(s2 != s, "fresh handle differs from the freed one");
    expect("stale_after_reuse", sm5jit_shader_thread_group_size(s, group),
           SM5JIT_ERROR_INVALID_HANDLE);
    check(sm5jit_shader_free(s2) == SM5JIT_OK, "shader_free 2");
    check(sm5jit_bindings_free(b) == SM5JIT_OK, "bindings_free");
    expect("bindings_double_free", sm5jit_bindings_free(b), SM5JIT_ERROR_INVALID_HANDLE);
    expect("bind_after_free", sm5jit_bind_cb(b, 0, args, sizeof args), SM5JIT_ERROR_INVALID_HANDLE);
}

static unsigned char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    unsigned char *data;
    long n;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    data = malloc(n > 0 ? (size_t)n : 1);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

/* Prints what the shader declares, D3D-reflection style. */
static void print_reflection(sm5jit_shader shader) {
    static const char *KINDS[] = {"cb", "srv", "uav", "sampler"};
    sm5jit_shader_desc d = SM5JIT_SHADER_DESC_INIT;
    uint32_t i, kind;
    check(sm5jit_reflect(shader, &d) == SM5JIT_OK, "reflect");
    printf("reflect model %u %u.%u group %u %u %u tgsm %u instructions %u flags 0x%x\n",
           d.kind, d.major, d.minor, d.thread_group[0], d.thread_group[1], d.thread_group[2],
           d.tgsm_bytes, d.instruction_count, d.flags);
    for (i = 0; i < d.input_count; i++) {
        sm5jit_signature_element e = SM5JIT_SIGNATURE_ELEMENT_INIT;
        check(sm5jit_reflect_input(shader, i, &e) == SM5JIT_OK, "reflect input");
        printf("reflect input %s%u register %d mask 0x%x\n", e.semantic, e.semantic_index,
               e.register_index, e.mask);
    }
    for (kind = SM5JIT_BINDING_CONSTANT_BUFFER; kind <= SM5JIT_BINDING_SAMPLER; kind++) {
        uint32_t n = kind == SM5JIT_BINDING_CONSTANT_BUFFER ? d.constant_buffer_count
                     : kind == SM5JIT_BINDING_SRV           ? d.srv_count
                     : kind == SM5JIT_BINDING_UAV           ? d.uav_count
                                                            : d.sampler_count;
        for (i = 0; i < n; i++) {
            sm5jit_binding_desc b = SM5JIT_BINDING_DESC_INIT;
            check(sm5jit_reflect_binding(shader, kind, i, &b) == SM5JIT_OK, "reflect binding");
            printf("reflect %s slot %u space %u size %u dimension %u stride %u flags 0x%x\n",
                   KINDS[kind], b.slot, b.space, b.size, b.dimension, b.stride, b.flags);
        }
    }
}

/* True when `shader` has this example's interface (see the top comment). */
static int has_our_interface(sm5jit_shader shader) {
    sm5jit_shader_desc d = SM5JIT_SHADER_DESC_INIT;
    sm5jit_binding_desc cb = SM5JIT_BINDING_DESC_INIT, t0 = SM5JIT_BINDING_DESC_INIT,
                        u0 = SM5JIT_BINDING_DESC_INIT;
    if (sm5jit_reflect(shader, &d) != SM5JIT_OK || d.kind != 5 || d.thread_group[0] != 64 ||
        d.thread_group[1] != 1 || d.thread_group[2] != 1 || d.constant_buffer_count != 1 ||
        d.srv_count != 1 || d.uav_count != 1) {
        return 0;
    }
    if (sm5jit_reflect_binding(shader, SM5JIT_BINDING_CONSTANT_BUFFER, 0, &cb) != SM5JIT_OK ||
        sm5jit_reflect_binding(shader, SM5JIT_BINDING_SRV, 0, &t0) != SM5JIT_OK ||
        sm5jit_reflect_binding(shader, SM5JIT_BINDING_UAV, 0, &u0) != SM5JIT_OK) {
        return 0;
    }
    return cb.slot == 0 && cb.size >= 8 && t0.slot == 0 && t0.dimension == 12 &&
           t0.stride == 4 && u0.slot == 0 && u0.dimension == 11;
}

int main(int argc, char **argv) {
    sm5jit_shader jit = 0, interp = 0, dxbc = 0;
    printf("sm5jit %s\n", sm5jit_version());
    check(sm5jit_shader_from_asm(SRC, strlen(SRC), SM5JIT_ENGINE_JIT, &jit) == SM5JIT_OK,
          "compile (jit)");
    check(sm5jit_shader_from_asm(SRC, strlen(SRC), SM5JIT_ENGINE_INTERPRETER, &interp) ==
              SM5JIT_OK,
          "compile (interpreter)");
    print_reflection(jit);
    run(jit, "jit", 0);
    run(jit, "jit-indirect", 1);
    run(interp, "interpreter", 0);
    if (argc > 1) {
        size_t size = 0;
        unsigned char *bytes = read_file(argv[1], &size);
        check(bytes != NULL, "read the DXBC file");
        if (bytes) {
            check(sm5jit_shader_from_dxbc(bytes, size, SM5JIT_ENGINE_JIT, &dxbc) == SM5JIT_OK,
                  "compile DXBC");
            free(bytes); /* the shader keeps no reference to the bytes */
            if (!has_our_interface(dxbc)) {
                printf("%s: not this example's interface (cb0, structured t0 of stride 4, raw "
                       "u0, 64x1x1 threads)\n",
                       argv[1]);
                failures++;
            } else {
                run(dxbc, "dxbc", 0);
            }
            check(sm5jit_shader_free(dxbc) == SM5JIT_OK, "free dxbc shader");
        }
    }
    check(sm5jit_shader_free(jit) == SM5JIT_OK, "free jit shader");
    check(sm5jit_shader_free(interp) == SM5JIT_OK, "free interpreter shader");
    misuse();
    printf("%s (%d failures)\n", failures ? "FAILED" : "ok", failures);
    return failures ? 1 : 0;
}
