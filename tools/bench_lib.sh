# Shared by tools/bench_disasm.sh and tools/bench_nv_disasm.sh (sourced, not run).
#
# The two disassemblers and the floor program are timed interleaved, one run of each in turn
# per round (tools/interleave_timer.c), not one command's runs after the other's: the
# development VM's speed drifts by up to 2x for seconds at a time, and a series of 20 runs of a
# 1 ms command fits inside one slow spell (atomics.sm86: hyperfine medians of 1.35, 1.14 and
# 0.60 ms in three series a minute apart), while the 20 runs of a 300 ms reference tool spread
# over six seconds. Interleaved, every command samples the same spells. Each timed run follows
# 10 ms of untimed runs of the same command (at least one; the timer's -w), so each command is
# timed warm, as in a series of its own runs: right after a 120 ms nvdisasm run, eight runs of
# a 0.4 ms listing in a row took 893, 525, 508, 442, 422, 353, 379 and 433 us (medians of 15
# rounds, tensor.sm50), the machine settling from the other command.

# Builds the timer (once) and prints its path.
bench_timer() {
  local t=target/bench/interleave
  mkdir -p target/bench
  if [ ! -x "$t" ] || [ tools/interleave_timer.c -nt "$t" ]; then
    gcc -O2 -o "$t" tools/interleave_timer.c >&2
  fi
  echo "$PWD/$t"
}

# medians ROUNDS FILE CMD...: the median wall time of each command in ms, in order, over
# ROUNDS interleaved rounds (each timed run after 10 ms of untimed ones of the same command). A
# CMD is a command line whose `{}` stands for FILE (no spaces in paths); a lone path is run
# with `disasm FILE` (the floor program ignores its arguments).
medians() {
  local rounds=$1 file=$2 timer
  shift 2
  timer=$(bench_timer)
  "$timer" -w "$rounds" "$file" "$@" | awk '{printf "%s ", $NF / 1000} END {print ""}'
}

# ratio A B: A / B.
ratio() {
  python3 -c "import sys; print(float(sys.argv[1]) / float(sys.argv[2]))" "$1" "$2"
}
