/*
 * batch.c - run a pixel shader on 2x2 quads through the sm5jit C
 * interface, check the outputs and lane states, then check that misuse
 * returns error codes.
 *
 *   gcc -std=c99 -Wall -I include examples/c/batch.c \
 *       target/release/libsm5jit.a -lpthread -ldl -lm -o batch && ./batch
 *
 * The pixel shader: o0 = (v0.x * 2, ddx_fine(v0.x), v0.y, 1); a pixel
 * whose v0.y is negative discards. Prints "ok <engine>" per engine and
 * exits 0 when every value matches.
 */
#include <stdio.h>
#include <string.h>

#include "sm5jit.h"

static const char PS[] = "ps_5_0\n"
                         "dcl_input_ps linear v0.xy\n"
                         "dcl_output o0.xyzw\n"
                         "dcl_temps 1\n"
                         "lt r0.x, v0.y, l(0.0)\n"
                         "discard_nz r0.x\n"
                         "add o0.x, v0.x, v0.x\n"
                         "deriv_rtx_fine o0.y, v0.x\n"
                         "mov o0.z, v0.y\n"
                         "mov o0.w, l(1.0)\n"
                         "ret\n";

static const char CS[] = "cs_5_0\ndcl_thread_group 1, 1, 1\nret\n";

static uint32_t bits(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static float value(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

#define CHECK(call)                                                                      \
    do {                                                                                 \
        sm5jit_status s_ = (call);                                                       \
        if (s_ != SM5JIT_OK) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, sm5jit_status_name(s_), \
                    sm5jit_last_error());                                                \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

#define EXPECT(cond)                                                        \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond); \
            return 1;                                                       \
        }                                                                   \
    } while (0)

/* Two quads; one register (v0) per pixel. Quad 0: v0.x = 1, 2, 5, 7 (so
 * ddx_fine is 1 on the top row and 2 on the bottom), lane 3 a helper.
 * Quad 1: every v0.x = 3, lane 1 discards (v0.y < 0). */
static int run(int engine, const char *name) {
    sm5jit_shader ps;
    sm5jit_bindings b;
    CHECK(sm5jit_shader_from_asm(PS, strlen(PS), engine, &ps));
    CHECK(sm5jit_bindings_create(&b));

    size_t n_out = 0;
    uint32_t regs[4];
    CHECK(sm5jit_shader_output_registers(ps, regs, 4, &n_out));
    EXPECT(n_out == 1 && regs[0] == 0);

    const float x[8] = {1, 2, 5, 7, 3, 3, 3, 3};
    const float y[8] = {0.5f, 0.5f, 0.5f, 0.5f, 0.25f, -1, 0.25f, 0.25f};
    uint32_t inputs[8 * 4];
    for (int i = 0; i < 8; i++) {
        inputs[i * 4 + 0] = bits(x[i]);
        inputs[i * 4 + 1] = bits(y[i]);
        inputs[i * 4 + 2] = 0;
        inputs[i * 4 + 3] = 0;
    }
    const uint8_t helpers[8] = {0, 0, 0, 1, 0, 0, 0, 0};
    uint32_t outputs[8 * 4];
    uint8_t lanes[8];
    CHECK(sm5jit_run_pixel_quads(ps, b, inputs, 8, 1, helpers, outputs, 8 * 4, lanes, NULL));

    const uint8_t want_lanes[8] = {SM5JIT_LANE_WRITTEN,   SM5JIT_LANE_WRITTEN,
                                   SM5JIT_LANE_WRITTEN,   SM5JIT_LANE_HELPER,
                                   SM5JIT_LANE_WRITTEN,   SM5JIT_LANE_DISCARDED,
                                   SM5JIT_LANE_WRITTEN,   SM5JIT_LANE_WRITTEN};
    const float want_ddx[8] = {1, 1, 2, 0, 0, 0, 0, 0};
    for (int i = 0; i < 8; i++) {
        EXPECT(lanes[i] == want_lanes[i]);
        if (lanes[i] != SM5JIT_LANE_WRITTEN) {
            EXPECT(outputs[i * 4] == 0 && outputs[i * 4 + 3] == 0);
            continue;
        }
        EXPECT(value(outputs[i * 4 + 0]) == 2 * x[i]);
        EXPECT(value(outputs[i * 4 + 1]) == want_ddx[i]);
        EXPECT(value(outputs[i * 4 + 2]) == y[i]);
        EXPECT(value(outputs[i * 4 + 3]) == 1.0f);
    }

    /* Misuse: every one is an error code, and the outputs stay untouched. */
    uint32_t small[4] = {9, 9, 9, 9};
    EXPECT(sm5jit_run_pixel_quads(ps, b, inputs, 8, 1, NULL, small, 4, NULL, NULL) ==
           SM5JIT_ERROR_BAD_SIZE);
    EXPECT(small[0] == 9);
    EXPECT(sm5jit_run_pixel_quads(ps, b, inputs, 8, 1, NULL, NULL, 32, NULL, NULL) ==
           SM5JIT_ERROR_NULL_POINTER);
    EXPECT(sm5jit_run_pixel_quads(ps, b, NULL, 8, 1, NULL, outputs, 32, NULL, NULL) ==
           SM5JIT_ERROR_NULL_POINTER);
    EXPECT(sm5jit_run_pixel_quads(ps, b, inputs, 6, 1, NULL, outputs, 32, NULL, NULL) ==
           SM5JIT_ERROR_RUNTIME); /* not whole quads */
    EXPECT(sm5jit_run_vertex_batch(ps, b, inputs, 8, 1, outputs, 32, NULL) ==
           SM5JIT_ERROR_INVALID_ARGUMENT); /* a pixel shader */

    sm5jit_shader cs;
    CHECK(sm5jit_shader_from_asm(CS, strlen(CS), engine, &cs));
    EXPECT(sm5jit_run_pixel_quads(cs, b, inputs, 8, 1, NULL, outputs, 32, NULL, NULL) ==
           SM5JIT_ERROR_INVALID_ARGUMENT);
    CHECK(sm5jit_shader_free(cs));

    CHECK(sm5jit_shader_free(ps));
    EXPECT(sm5jit_run_pixel_quads(ps, b, inputs, 8, 1, NULL, outputs, 32, NULL, NULL) ==
           SM5JIT_ERROR_INVALID_HANDLE);
    CHECK(sm5jit_bindings_free(b));
    printf("ok %s\n", name);
    return 0;
}

int main(void) {
    if (run(SM5JIT_ENGINE_JIT, "jit") != 0) return 1;
    if (run(SM5JIT_ENGINE_INTERPRETER, "interpreter") != 0) return 1;
    return 0;
}
