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
# Pixel kernels (lit blur9 shadow16 noise): `sm5jit bench --peer-setup` also
# writes each one's vs/ps DXBC, textures, sampler states and cb0, and
# scripts/vkd3d-draw (built from scripts/vkd3d-draw.c into target/) draws
# them full screen through vkd3d on lavapipe with one worker thread
# (timestamp queries around the draw); `sm5jit bench --peer-check` compares
# its render target with the native image; then a third table:
# KERNEL sm5jit_ms lavapipe_ms ratio sm5jit_px/s lavapipe_px/s (one frame
# at one worker; ratio = sm5jit_ms / lavapipe_ms, below 1 = sm5jit faster),
# then the same frame in process CPU ms (sm5jit's frame, lavapipe's
# submission) and their ratio: on a loaded machine the steadier comparison.
#
# Usage: scripts/peer-bench.sh [KERNEL...]
# Environment: ENGINE (jit; or interp), RUNS (5: sm5jit runs), ITERS (10: lavapipe
# timed iterations), SIZE (each kernel's bench size; pixel kernels: target width,
# 16:9), VKD3D_RUN and VKD3D_DRAW (built into target/ if unset), SM5JIT
# (target/release/sm5jit, built if missing).
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

pixel_all=(lit blur9 shadow16 noise)
kernels=()
pixels=()
for k in "$@"; do
    if [[ " ${pixel_all[*]} " == *" $k "* ]]; then pixels+=("$k"); else kernels+=("$k"); fi
done
if [ $# -eq 0 ]; then
    kernels=(saxpy mandelbrot reduce scan matmul histogram nbody)
    pixels=("${pixel_all[@]}")
fi
vkd3d_draw="${VKD3D_DRAW:-$root/target/vkd3d-draw}"
if [ ${#pixels[@]} -gt 0 ] && { [ ! -x "$vkd3d_draw" ] || [ "$root/scripts/vkd3d-draw.c" -nt "$vkd3d_draw" ]; }; then
    pkgs="libvkd3d-utils libvkd3d vulkan"
    # shellcheck disable=SC2046
    cc -O2 -g -Wall -Wno-unused-function $(pkg-config --cflags $pkgs) -o "$vkd3d_draw" \
        "$root/scripts/vkd3d-draw.c" $(pkg-config --libs $pkgs)
fi
if [ ${#kernels[@]} -gt 0 ] && [ ! -x "$vkd3d_run" ]; then
    make -s -C "$peers" BIN="$vkd3d_run"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$sm5jit" bench --peer-setup "$work" "${size_args[@]}" "${kernels[@]}" "${pixels[@]}" 2>/dev/null

status=0
compiles=()
# The machine first: the CPU model and its vector extensions, and the load.
model="$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)"
vectors="$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1 | tr ' ' '\n' |
    grep -xE 'sse2|pni|ssse3|sse4_1|sse4_2|avx|avx2|fma|f16c|avx512f|avx512bw|avx512vl|avx512dq' | tr '\n' ' ')"
printf '# cpu: %s (%s hardware threads); vector: %s; %s; load average %s\n' \
    "${model:-unknown}" "$(nproc 2>/dev/null || echo '?')" "${vectors% }" "$(date -u +%Y-%m-%d)" \
    "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
if [ ${#kernels[@]} -gt 0 ]; then
printf '%-11s %10s %12s %8s\n' KERNEL sm5jit_ms lavapipe_ms ratio
fi
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
if [ ${#kernels[@]} -gt 0 ]; then
    echo
    printf '%-11s %17s %19s %8s\n' KERNEL sm5jit_compile_ms lavapipe_compile_ms ratio
    for line in "${compiles[@]}"; do echo "$line"; done
fi

# Pixel kernels: one full-screen frame at one worker.
if [ ${#pixels[@]} -gt 0 ]; then
    [ ${#kernels[@]} -gt 0 ] && echo
    printf '%-11s %10s %12s %8s %12s %14s %10s %12s %9s\n' KERNEL sm5jit_ms lavapipe_ms ratio \
        sm5jit_px/s lavapipe_px/s sm5jit_cpu lavapipe_cpu cpu_ratio
fi
for k in "${pixels[@]}"; do
    mapfile -t args <"$work/$k.args"
    echo "peer-bench: $k: lavapipe draw..." >&2
    peer_out="$(LP_NUM_THREADS=1 "$vkd3d_draw" "${args[@]}" --iters "$iters")"
    lava_ms="$(sed -n 's/^gpu_ms_median //p' <<<"$peer_out")"
    lava_cpu="$(sed -n 's/^cpu_ms_median //p' <<<"$peer_out")"
    if ! check="$("$sm5jit" bench --peer-check "$work" "${size_args[@]}" "$k")"; then
        echo "peer-bench: $k: lavapipe's image is wrong: $check" >&2
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
    python3 - "$json" "$lava_ms" "$lava_cpu" "$k" <<'PY'
import json, sys
r = json.loads(sys.argv[1])
lava_ms, lava_cpu = float(sys.argv[2]), float(sys.argv[3])
# A frame's time; the interpreter's region time scaled to the whole frame.
if r["jit_ms"] is not None:
    ours, cpu = r["jit_ms"], r["jit_cpu_ms"]
else:
    scale = r["pixels"] / r["interp_pixels"]
    ours, cpu = r["interp_ms"] * scale, r["interp_cpu_ms"] * scale
px = r["pixels"]
print("%-11s %10.3f %12.4f %8.2f %12.3e %14.3e %10.1f %12.1f %9.2f" % (sys.argv[4], ours, lava_ms,
      ours / lava_ms, px / (ours / 1e3), px / (lava_ms / 1e3), cpu, lava_cpu, cpu / lava_cpu))
PY
done
exit $status
