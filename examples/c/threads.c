/*
 * threads.c - several threads run pixel quads of one shader against one
 * bindings object at the same time through the sm5jit C interface.
 *
 *   gcc -std=c99 -Wall -I include examples/c/threads.c \
 *       target/release/libsm5jit.a -lpthread -ldl -lm -o threads && ./threads
 *
 * The pixel shader samples a 4x4 RGBA8 texture (t0; s0 unbound, so the
 * default linear sampler) at texel centres v0.xy, and counts its pixels with an atomic on a raw UAV (u1[0]).
 * Each of THREADS threads runs BATCHES batches of QUADS quads with
 * sm5jit_run_pixel_quads; every output must equal the one the same batch
 * gives when run alone, and the atomic must count every pixel once.
 * Prints "ok <engine>" per engine and exits 0 when all of that holds.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sm5jit.h"

static const char PS[] = "ps_5_0\n"
                         "dcl_sampler s0, mode_default\n"
                         "dcl_resource_texture2d (float,float,float,float) t0\n"
                         "dcl_uav_raw u1\n"
                         "dcl_input_ps linear v0.xy\n"
                         "dcl_output o0.xyzw\n"
                         "sample_l o0.xyzw, v0.xyxx, t0.xyzw, s0, l(0.0)\n"
                         "atomic_iadd u1, l(0), l(1)\n"
                         "ret\n";

#define THREADS 4
#define BATCHES 50
#define QUADS 16
#define PIXELS (QUADS * 4)

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

/* The v0 of pixel i of batch k: texture coordinates that walk the texture. */
static void batch_inputs(int k, uint32_t *inputs) {
    for (int i = 0; i < PIXELS; i++) {
        int x = (k * 3 + i) % 4, y = (k + i / 4) % 4;
        inputs[i * 4 + 0] = bits((x + 0.5f) / 4.0f);
        inputs[i * 4 + 1] = bits((y + 0.5f) / 4.0f);
        inputs[i * 4 + 2] = 0;
        inputs[i * 4 + 3] = 0;
    }
}

struct job {
    sm5jit_shader ps;
    sm5jit_bindings b;
    int first;                            /* this thread runs batches first, first + THREADS, ... */
    uint32_t (*outputs)[PIXELS * 4];      /* BATCHES rows */
    sm5jit_status status;
};

static void *worker(void *arg) {
    struct job *j = arg;
    uint32_t inputs[PIXELS * 4];
    for (int k = j->first; k < BATCHES; k += THREADS) {
        batch_inputs(k, inputs);
        j->status = sm5jit_run_pixel_quads(j->ps, j->b, inputs, PIXELS, 1, NULL, j->outputs[k],
                                           PIXELS * 4, NULL, NULL);
        if (j->status != SM5JIT_OK) break;
    }
    return NULL;
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

static uint32_t alone[BATCHES][PIXELS * 4];
static uint32_t together[BATCHES][PIXELS * 4];

static int run(int engine, const char *name) {
    sm5jit_shader ps;
    sm5jit_bindings b;
    CHECK(sm5jit_shader_from_asm(PS, strlen(PS), engine, &ps));
    CHECK(sm5jit_bindings_create(&b));

    uint8_t texels[4 * 4 * 4];
    for (int i = 0; i < 16; i++) {
        texels[i * 4 + 0] = (uint8_t)(i * 16);
        texels[i * 4 + 1] = (uint8_t)(255 - i * 16);
        texels[i * 4 + 2] = (uint8_t)(i * 5);
        texels[i * 4 + 3] = 255;
    }
    sm5jit_texture_view tv = {sizeof(sm5jit_texture_view), SM5JIT_TEXTURE_2D, 28 /* RGBA8 */,
                              1, 4, 4, 1, 1, 16, 64};
    CHECK(sm5jit_bind_srv_texture(b, 0, texels, sizeof texels, &tv));
    uint32_t count = 0;
    sm5jit_buffer_view raw = SM5JIT_BUFFER_VIEW_INIT;
    raw.num_elements = 1;
    CHECK(sm5jit_bind_uav_buffer(b, 1, &count, sizeof count, &raw));

    uint32_t inputs[PIXELS * 4];
    for (int k = 0; k < BATCHES; k++) {
        batch_inputs(k, inputs);
        CHECK(sm5jit_run_pixel_quads(ps, b, inputs, PIXELS, 1, NULL, alone[k], PIXELS * 4, NULL,
                                     NULL));
    }
    EXPECT(count == BATCHES * PIXELS);

    count = 0;
    pthread_t threads[THREADS];
    struct job jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (struct job){ps, b, t, together, SM5JIT_OK};
        EXPECT(pthread_create(&threads[t], NULL, worker, &jobs[t]) == 0);
    }
    for (int t = 0; t < THREADS; t++) {
        EXPECT(pthread_join(threads[t], NULL) == 0);
        CHECK(jobs[t].status);
    }
    EXPECT(count == BATCHES * PIXELS);
    EXPECT(memcmp(alone, together, sizeof alone) == 0);
    /* The texture was really sampled: texel (1, 2) of batch 0's pixel 9. */
    float red = value(alone[0][9 * 4 + 0]);
    EXPECT(red > 143.99f / 255.0f && red < 144.01f / 255.0f);

    CHECK(sm5jit_shader_free(ps));
    CHECK(sm5jit_bindings_free(b));
    printf("ok %s\n", name);
    return 0;
}

int main(void) {
    if (run(SM5JIT_ENGINE_JIT, "jit") != 0) return 1;
    if (run(SM5JIT_ENGINE_INTERPRETER, "interpreter") != 0) return 1;
    return 0;
}
