#!/bin/sh
# On the device: Vulkan loader from debs, native timing harness, then per kernel the sm_86 corpus
# cubin translated to SPIR-V (isabridge run --via spirv --time) against the same source built for sm_90.
cd "$(dirname "$0")"
for d in debs/*.deb; do dpkg -x "$d" / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
LOG=${OUT:-/tmp}/timing.txt
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$LOG"
CU=$(ls -d /usr/local/cuda* 2>/dev/null | head -1)
gcc -O2 -I"$CU/include" ntime.c -o ntime -L"$CU/lib64/stubs" -L"$CU/lib64" -lcuda 2>>"$LOG" || nvcc -O2 ntime.c -o ntime -lcuda 2>>"$LOG"
REPS=${REPS:-30}
one() { # stem kernel grid block args...
  s=$1; k=$2; g=$3; b=$4; shift 4
  rm -rf /tmp/t /tmp/n; mkdir -p /tmp/t /tmp/n
  echo "== $k (grid $g x block $b)" >> "$LOG"
  timeout 240 bin/isabridge --vk-device 0 run cubins/$s.sm86.cubin --kernel $k --grid $g --block $b --via spirv --time $REPS --out /tmp/t $(for a in "$@"; do printf -- "--arg %s " "$a"; done) >> "$LOG" 2>&1
  ./ntime native/$s.sm90.cubin $k $g $b $REPS /tmp/n "$@" >> "$LOG" 2>&1
  python3 - >> "$LOG" <<'PY'
import os
for f in sorted(os.listdir('/tmp/n')):
    if not os.path.exists('/tmp/t/'+f): print(f, 'missing from the translated run'); continue
    a=open('/tmp/t/'+f,'rb').read(); b=open('/tmp/n/'+f,'rb').read()
    w=[(a[i:i+4]==b[i:i+4]) for i in range(0,min(len(a),len(b)),4)]
    print(f"{f}: {sum(w)} of {len(w)} words equal between translated and native")
PY
}
I=in
one fp32 fp32_arith 128 128 zeros=33554432 buf=$I/fA buf=$I/fB buf=$I/fC f32=1.25
one int int32_ops 128 128 zeros=16777216 buf=$I/iA buf=$I/iB buf=$I/iC i32=12345 u32=7
one control divergent 512 128 zeros=262144 buf=$I/div_in buf=$I/div_sel i32=65536
one control loops 128 128 zeros=65536 buf=$I/loops_in i32=16 i32=16
one special predicates 512 128 zeros=4194304 buf=$I/pa buf=$I/pb
one fp64 fp64_arith 64 128 zeros=16777216 buf=$I/dA buf=$I/dB buf=$I/dC u64=0x3ff8000000000000
cat "$LOG"
