#!/usr/bin/env bash
# Compares sm5jit with vkd3d over Mesa's lavapipe on the benchmark kernels.
#
# For each kernel: sm5jit assembles it and writes its inputs and vkd3d-run
# arguments (`sm5jit bench --peer-setup`), vkd3d-run runs it on lavapipe with
# one worker thread, sm5jit checks lavapipe's output against the native
# baseline (`sm5jit bench --peer-check`; float kernels within the kernel's
# stated peer tolerance, because vkd3d fuses mad), and sm5jit times the same
# problem on one thread (`sm5jit bench --json`, which checks its own output).
#
# Prints the machine (CPU model, vector extensions, date, load average),
# then one line per kernel: KERNEL sm5jit_ms lavapipe_ms ratio
# (dispatch medians in ms; lavapipe = gpu_ms_median, execution only, from
# timestamp queries; ratio = sm5jit_ms / lavapipe_ms), then a second table
# KERNEL sm5jit_compile_ms lavapipe_compile_ms ratio: sm5jit's median
# compile (validate, prepare, Cranelift) against lavapipe's pipeline
# creation plus the extra time of its first dispatch, where LLVM compiles
# the shader (compile_ms + first_dispatch_ms - dispatch_ms_median).
#
# Usage: scripts/peer-bench.sh [KERNEL...]
# Environment: ENGINE (jit; or interp), RUNS (5: sm5jit runs), ITERS (10: lavapipe
# timed iterations), SIZE (each kernel's bench size), VKD3D_RUN (built into
# target/ if unset), SM5JIT (target/release/sm5jit, built if missing).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
peers="$root/../shared/peers"
engine="${ENGINE:-jit}"
runs="${RUNS:-5}"
iters="${ITERS:-10}"
size_args=()
if [ -n "${SIZE:-}" ]; then size_args=(--size "$SIZE"); fi

sm5jit="${SM5JIT:-$root/target/release/sm5jit}"
if [ ! -x "$sm5jit" ]; then
    (cd "$root" && cargo build --release --quiet)
fi
vkd3d_run="${VKD3D_RUN:-$root/target/vkd3d-run}"
if [ ! -x "$vkd3d_run" ]; then
    make -s -C "$peers" BIN="$vkd3d_run"
fi

kernels=("$@")
if [ ${#kernels[@]} -eq 0 ]; then
    kernels=(saxpy mandelbrot reduce scan matmul histogram nbody)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$sm5jit" bench --peer-setup "$work" "${size_args[@]}" "${kernels[@]}" 2>/dev/null

status=0
compiles=()
# The machine first: the CPU model and its vector extensions, and the load.
model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
vectors="$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1 | tr ' ' '\n' |
    grep -xE 'sse2|pni|ssse3|sse4_1|sse4_2|avx|avx2|fma|f16c|avx512f|avx512bw|avx512vl|avx512dq' | tr '\n' ' ')"
printf '# cpu: %s (%s hardware threads); vector: %s; %s; load average %s\n' \
    "${model:-unknown}" "$(nproc 2>/dev/null || echo '?')" "${vectors% }" "$(date -u +%Y-%m-%d)" \
    "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
printf '%-11s %10s %12s %8s\n' KERNEL sm5jit_ms lavapipe_ms ratio
for k in "${kernels[@]}"; do
    mapfile -t args <"$work/$k.args"
    echo "peer-bench: $k: lavapipe..." >&2
    peer_out="$(LP_NUM_THREADS=1 "$vkd3d_run" "$work/$k.dxbc" "${args[@]}" \
        --iters "$iters" --reset)"
    lava_ms="$(sed -n 's/^gpu_ms_median //p' <<<"$peer_out")"
    field() { sed -n "s/^$1 \([0-9.]*\).*/\1/p" <<<"$peer_out"; }
    lava_compile="$(python3 -c 'import sys; a=[float(x) for x in sys.argv[1:]]; print("%.3f" % (a[0] + a[1] - a[2]))' \
        "$(field compile_ms)" "$(field first_dispatch_ms)" "$(field dispatch_ms_median)")"
    if ! check="$("$sm5jit" bench --peer-check "$work" "${size_args[@]}" "$k")"; then
        echo "peer-bench: $k: lavapipe's output is wrong: $check" >&2
        status=1
        continue
    fi
    echo "peer-bench: $k: sm5jit ($engine)..." >&2
    json="$("$sm5jit" bench --json --threads 1 --runs "$runs" --engine "$engine" \
        "${size_args[@]}" "$k" 2>/dev/null)" || {
        echo "peer-bench: $k: sm5jit failed or disagrees with native" >&2
        status=1
        continue
    }
    ours_ms="$(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["jit_ms"] if r["jit_ms"] is not None else r["interp_ms"])' "$json")"
    ratio="$(python3 -c 'import sys; print("%.2f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$ours_ms" "$lava_ms")"
    printf '%-11s %10.3f %12.4f %8s\n' "$k" "$ours_ms" "$lava_ms" "$ratio"
    ours_compile="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["compile_ms"])' "$json")"
    compiles+=("$(printf '%-11s %17.3f %19s %8s' "$k" "$ours_compile" "$lava_compile" \
        "$(python3 -c 'import sys; print("%.3f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$ours_compile" "$lava_compile")")")
done
echo
printf '%-11s %17s %19s %8s\n' KERNEL sm5jit_compile_ms lavapipe_compile_ms ratio
for line in "${compiles[@]}"; do echo "$line"; done
exit $status
