/*
 * How far two cores can speed up a plain saxpy loop on this machine under
 * the two protocols of `sm5jit bench` (docs/performance.md): with the
 * in-place buffer `y` set back to its initial contents by the first core
 * before each timed run (the default), and with runs back to back on
 * resident buffers (`--resident`). No sm5jit code runs here: it is the
 * hardware's bound for the engine's two-worker figure on saxpy.
 *
 * The loop is saxpy's arithmetic alone (8 floats a step, 128-bit SSE, no
 * NaN or denormal handling), over 262144 floats, the bench's size. Thread
 * 0 runs on CPU 0 and does the reset; thread 1 runs on CPU 1 and takes
 * the second half at two threads. Medians of 1001 runs.
 *
 * Build and run:
 *   gcc -O2 -mavx2 -pthread -o /tmp/saxpy-two-cores scripts/saxpy-two-cores.c
 *   /tmp/saxpy-two-cores reset; /tmp/saxpy-two-cores resident
 */
#define _GNU_SOURCE
#include <immintrin.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N 262144
#define RUNS 1001

static float *x, *y, *initial;
static atomic_int go, done;

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void pin(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void saxpy(int from, int to) {
    __m128 a = _mm_set1_ps(1.5f);
    for (int i = from; i < to; i += 8) {
        __m128 x0 = _mm_loadu_ps(x + i), x1 = _mm_loadu_ps(x + i + 4);
        __m128 y0 = _mm_loadu_ps(y + i), y1 = _mm_loadu_ps(y + i + 4);
        _mm_storeu_ps(y + i, _mm_add_ps(_mm_mul_ps(a, x0), y0));
        _mm_storeu_ps(y + i + 4, _mm_add_ps(_mm_mul_ps(a, x1), y1));
    }
}

/* The second thread: runs the second half each time `go` moves on. */
static void *helper(void *unused) {
    (void)unused;
    pin(1);
    int seen = 0;
    for (;;) {
        while (atomic_load(&go) == seen)
            ;
        seen = atomic_load(&go);
        if (seen < 0)
            return NULL;
        saxpy(N / 2, N);
        atomic_fetch_add(&done, 1);
    }
}

static int by_value(const void *a, const void *b) {
    double p = *(const double *)a, q = *(const double *)b;
    return p < q ? -1 : p > q;
}

int main(int argc, char **argv) {
    int reset = !(argc > 1 && strcmp(argv[1], "resident") == 0);
    pin(0);
    x = aligned_alloc(64, N * 4);
    y = aligned_alloc(64, N * 4);
    initial = aligned_alloc(64, N * 4);
    if (!x || !y || !initial)
        return 1;
    for (int i = 0; i < N; i++) {
        x[i] = (float)(i % 7) * 0.1f;
        initial[i] = (float)(i % 5) * 0.2f;
        y[i] = initial[i];
    }
    pthread_t h;
    pthread_create(&h, NULL, helper, NULL);
    double ms[2];
    for (int threads = 1; threads <= 2; threads++) {
        static double t[RUNS];
        for (int r = 0; r < RUNS; r++) {
            if (reset)
                memcpy(y, initial, N * 4);
            double start = now_ms();
            if (threads == 1) {
                saxpy(0, N);
            } else {
                atomic_store(&done, 0);
                atomic_fetch_add(&go, 1);
                saxpy(0, N / 2);
                while (atomic_load(&done) < 1)
                    ;
            }
            t[r] = now_ms() - start;
        }
        qsort(t, RUNS, sizeof t[0], by_value);
        ms[threads - 1] = t[RUNS / 2];
    }
    atomic_store(&go, -1);
    pthread_join(h, NULL);
    printf("%s: 1 thread %.4f ms, 2 threads %.4f ms, %.2fx\n",
           reset ? "reset" : "resident", ms[0], ms[1], ms[0] / ms[1]);
    return 0;
}
