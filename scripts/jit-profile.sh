#!/usr/bin/env bash
# Counts how often each machine instruction of a shader's tier-1 code runs.
#
# Usage: scripts/jit-profile.sh DIV SHADER [sm5jit run options...]
#   e.g. scripts/jit-profile.sh 256 tools/benches/kernels/scan.asm \
#          --groups 256,1,1 --srv t0=raw:iota:262144 --uav u0=raw:zeros:262144
#
# Runs `sm5jit run SHADER --tier 1 --threads 1 OPTIONS` under callgrind
# (`--dump-instr=yes`, counting only inside `dispatch_threads`), writes
# the same code's bytes with `--dump-code` (the dump compiles the shader
# once more, under the same emulated CPU, so its instructions and offsets
# are those that ran), disassembles them with objdump and prints each
# instruction with its count divided by DIV (the groups, say, for counts
# per group), then the total and the instructions outside the generated
# code (shims, runner) from callgrind_annotate.
#
# Needs valgrind, objdump (binutils) and python3. Output: the annotated
# listing on stdout; the raw files stay in $OUT (default a temp dir).
set -euo pipefail
[ $# -ge 2 ] || { sed -n '2,16p' "$0"; exit 2; }
div=$1
shader=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${SM5JIT:-$root/target/release/sm5jit}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
valgrind --tool=callgrind --dump-instr=yes \
  --callgrind-out-file="$out/callgrind.out" \
  --toggle-collect='*JitShader*dispatch_threads*' \
  "$bin" run "$shader" --tier 1 --threads 1 --dump-code "$out/code.bin" "$@" \
  >"$out/run.txt" 2>"$out/valgrind.txt"
# The generated function: named by its address, in no object file.
entry=$(callgrind_annotate "$out/callgrind.out" 2>/dev/null |
  grep -o '???:0x[0-9a-f]* \[???\]' | head -1 | grep -o '0x[0-9a-f]*' || true)
[ -n "$entry" ] || { echo "no generated code found in $out/callgrind.out" >&2; exit 1; }
objdump -D -b binary -mi386:x86-64 --adjust-vma="$entry" "$out/code.bin" >"$out/code.dis"
python3 - "$out/callgrind.out" "$entry" "$out/code.dis" "$div" <<'EOF'
import re, sys
lines = open(sys.argv[1]).read().split('\n')
entry = int(sys.argv[2], 16)
div = float(sys.argv[4])
# Function ids whose name is the entry address.
ids = {m.group(1) for l in lines
       for m in [re.match(r'^c?fn=(\(\d+\)) 0x0*%x$' % entry, l)] if m}
counts, inside, addr, skip = {}, False, 0, False
for l in lines:
    if l.startswith('fn='):
        inside, skip = l.split()[0][3:] in ids, False
        continue
    if not inside:
        continue
    if l.startswith('calls='):
        skip = True  # the next cost line is the call's inclusive cost
        continue
    m = re.match(r'^(0x[0-9a-f]+|\+\d+|-\d+|\*)\s+\S+\s+(\d+)', l)
    if not m:
        continue
    a = m.group(1)
    if a.startswith('0x'):
        addr = int(a, 16)
    elif a[0] in '+-':
        addr += int(a)
    if skip:
        skip = False
        continue
    counts[addr] = counts.get(addr, 0) + int(m.group(2))
total = 0
for l in open(sys.argv[3]):
    m = re.match(r'^\s*([0-9a-f]+):\t', l)
    if m:
        c = counts.get(int(m.group(1), 16), 0)
        total += c
        print(f"{c / div:10.1f} {l.rstrip()}")
print(f"generated code: {total / div:.1f} instructions per {div:g} "
      f"(callgrind: {sum(counts.values()) / div:.1f})")
EOF
callgrind_annotate "$out/callgrind.out" 2>/dev/null | grep -E '^ *[0-9,]+ .*(PROGRAM TOTALS|\?\?\?:)' | head -8
