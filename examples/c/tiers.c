/*
 * tiers.c - sm5jit compile options from C: the same compute shader compiled
 * on tier 0, on tier 1 and on auto (tier 0 first, tier 1 from a background
 * thread), dispatched on each; the outputs must be identical, auto must
 * reach tier 1 without any call waiting for it, and bad options must be
 * refused.
 *
 * Build (from the repository root, after `cargo build --release`):
 *   gcc -std=c99 -Wall -Werror -Iinclude examples/c/tiers.c \
 *       -Ltarget/release -lsm5jit -Wl,-rpath,$PWD/target/release -o tiers
 *   ./tiers
 *
 * Output: "tier NAME COMPILED_TIER SUM" per shader, "auto reached tier 1
 * after N dispatches", and "misuse NAME STATUS" lines. Exit status 0 when
 * every check passed.
 */
#include <stdio.h>
#include <string.h>

#include "sm5jit.h"

/* out[i] = a small loop over i: sum of (i * k) ^ k for k < 16. */
static const char *SRC =
    "cs_5_0\n"
    "dcl_uav_raw u0\n"
    "dcl_input vThreadID.x\n"
    "dcl_temps 3\n"
    "dcl_thread_group 64, 1, 1\n"
    "mov r0.xy, l(0, 0, 0, 0)\n"
    "loop\n"
    "  uge r0.z, r0.y, l(16)\n"
    "  breakc_nz r0.z\n"
    "  imul null, r1.x, vThreadID.x, r0.y\n"
    "  xor r1.x, r1.x, r0.y\n"
    "  iadd r0.x, r0.x, r1.x\n"
    "  iadd r0.y, r0.y, l(1)\n"
    "endloop\n"
    "ishl r2.x, vThreadID.x, l(2)\n"
    "store_raw u0.x, r2.x, r0.x\n"
    "ret\n";

#define N 4096u

static int failures = 0;

static void check(int ok, const char *what) {
    if (!ok) {
        printf("FAILED %s (last error: %s)\n", what, sm5jit_last_error());
        failures++;
    }
}

/* Dispatches `shader` over N threads into `out`; returns the sum. */
static unsigned long long run(sm5jit_shader shader, uint32_t *out) {
    sm5jit_bindings b = 0;
    sm5jit_buffer_view view = SM5JIT_BUFFER_VIEW_INIT;
    sm5jit_dispatch_options opts = SM5JIT_DISPATCH_OPTIONS_INIT;
    unsigned long long sum = 0;
    uint32_t i;

    memset(out, 0, N * sizeof *out);
    view.kind = SM5JIT_BUFFER_RAW;
    view.num_elements = N;
    opts.threads = 1;
    check(sm5jit_bindings_create(&b) == SM5JIT_OK, "bindings_create");
    check(sm5jit_bind_uav_buffer(b, 0, out, N * sizeof *out, &view) == SM5JIT_OK, "bind u0");
    check(sm5jit_dispatch(shader, b, N / 64, 1, 1, &opts) == SM5JIT_OK, "dispatch");
    check(sm5jit_bindings_free(b) == SM5JIT_OK, "bindings_free");
    for (i = 0; i < N; i++) sum += out[i];
    return sum;
}

static void expect(const char *name, sm5jit_status got, sm5jit_status want) {
    printf("misuse %s %s\n", name, sm5jit_status_name(got));
    if (got != want) {
        printf("FAILED misuse %s: expected %s\n", name, sm5jit_status_name(want));
        failures++;
    }
}

int main(void) {
    static uint32_t out[3][N];
    const char *names[3] = {"0", "1", "auto"};
    const uint32_t tiers[3] = {SM5JIT_TIER_0, SM5JIT_TIER_1, SM5JIT_TIER_AUTO};
    sm5jit_shader s[3] = {0, 0, 0};
    size_t len = strlen(SRC);
    int k, tier, dispatches;
    uint32_t i;

    for (k = 0; k < 3; k++) {
        sm5jit_compile_options o = SM5JIT_COMPILE_OPTIONS_INIT;
        unsigned long long sum;
        o.tier = tiers[k];
        o.cache = 0;
        check(sm5jit_shader_from_asm_opts(SRC, len, SM5JIT_ENGINE_JIT, &o, &s[k]) == SM5JIT_OK,
              "compile with options");
        tier = -2;
        check(sm5jit_shader_tier(s[k], &tier) == SM5JIT_OK, "shader_tier");
        check(tier == (k == 1 ? 1 : 0), "the first code's tier");
        sum = run(s[k], out[k]);
        printf("tier %s %d %llu\n", names[k], tier, sum);
    }
    for (i = 0; i < N; i++) {
        uint32_t want = 0, m;
        for (m = 0; m < 16; m++) want += (i * m) ^ m;
        check(out[0][i] == want, "tier 0 result");
        check(out[1][i] == want, "tier 1 result");
        check(out[2][i] == want, "auto result");
    }
    /* Auto has run 512 batch calls (past the default 256): its tier-1
     * compile is queued; dispatches keep running until it is in. */
    tier = 0;
    for (dispatches = 1; dispatches <= 100000 && tier != 1; dispatches++) {
        run(s[2], out[2]);
        check(sm5jit_shader_tier(s[2], &tier) == SM5JIT_OK, "shader_tier");
    }
    check(tier == 1, "auto reaches tier 1");
    printf("auto reached tier 1 after %d dispatches\n", dispatches);
    for (i = 0; i < N; i++) check(out[2][i] == out[1][i], "auto on tier 1 matches tier 1");

    {
        sm5jit_compile_options o = SM5JIT_COMPILE_OPTIONS_INIT;
        sm5jit_shader t = 0;
        o.tier = 7;
        expect("bad_tier", sm5jit_shader_from_asm_opts(SRC, len, SM5JIT_ENGINE_JIT, &o, &t),
               SM5JIT_ERROR_INVALID_ARGUMENT);
        o.tier = SM5JIT_TIER_AUTO;
        o.struct_size = 8;
        expect("struct_size", sm5jit_shader_from_asm_opts(SRC, len, SM5JIT_ENGINE_JIT, &o, &t),
               SM5JIT_ERROR_BAD_SIZE);
        expect("null_tier", sm5jit_shader_tier(s[0], NULL), SM5JIT_ERROR_NULL_POINTER);
        /* NULL options: the defaults. */
        check(sm5jit_shader_from_asm_opts(SRC, len, SM5JIT_ENGINE_JIT, NULL, &t) == SM5JIT_OK,
              "NULL options");
        check(sm5jit_shader_free(t) == SM5JIT_OK, "free");
        check(sm5jit_shader_from_asm_opts(SRC, len, SM5JIT_ENGINE_INTERPRETER, NULL, &t) ==
                  SM5JIT_OK,
              "interpreter");
        check(sm5jit_shader_tier(t, &tier) == SM5JIT_OK && tier == -1, "interpreter tier -1");
        check(sm5jit_shader_free(t) == SM5JIT_OK, "free");
    }
    for (k = 0; k < 3; k++) check(sm5jit_shader_free(s[k]) == SM5JIT_OK, "shader_free");
    if (failures) {
        printf("%d checks failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
