// Interleaved fork-to-exit timer: runs `BIN disasm FILE` for each BIN in turn, N rounds, so
// that every command sees the same drift of a shared VM's speed (which moved by up to 2x within
// minutes on the development VM: timing one command's runs after the other's compares two
// different machines). Prints, per command, the tenth percentile and the median of its N
// fork-to-reap times in microseconds. A BIN of the form `NAME=VALUE@PATH` runs PATH with that
// variable set. Stdout of the runs goes to /dev/null.
// With -w first, each timed run follows 10 ms of untimed runs of the same command (at least
// one: every command timed warm; the benchmark scripts use it).
//   gcc -O2 -o /tmp/interleave tools/interleave_timer.c
//   /tmp/interleave 200 fixtures/nvidia/bin/fp64.sm86.cubin OLD_BIN NEW_BIN
//   /tmp/interleave 10 F target/x86_64-unknown-linux-musl/release/isabridge /opt/oracles/nvdisasm12
// (a BIN whose name ends in nvdisasm12 or llvm-objdump-22 gets `FILE` resp. `-d FILE`). A BIN
// with spaces is a whole command line, split at the spaces, `{}` standing for FILE:
//   /tmp/interleave 20 F "B disasm {}" "/usr/bin/llvm-objdump-22 -d {}" target/bench/empty_process
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static unsigned long long now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static int by_value(const void *a, const void *b) {
  unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
  return x < y ? -1 : x > y;
}

static int ends_with(const char *s, const char *t) {
  size_t n = strlen(s), m = strlen(t);
  return n >= m && strcmp(s + n - m, t) == 0;
}

// Runs one command on `file` with stdout to /dev/null; its fork-to-reap time in microseconds,
// or -1 when it fails.
static long long run(const char *cmd, char *file) {
  unsigned long long t0 = now();
  pid_t p = fork();
  if (p == 0) {
    char *bin = strdup(cmd), *at = strchr(bin, '@');
    if (at && !strchr(bin, ' ')) {
      *at = 0;
      putenv(bin);
      bin = at + 1;
    }
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    if (strchr(bin, ' ')) {
      char *args[64];
      int k = 0;
      for (char *w = strtok(bin, " "); w && k < 63; w = strtok(0, " ")) args[k++] = strcmp(w, "{}") ? w : file;
      args[k] = 0;
      execv(args[0], args);
      _exit(127);
    }
    char *dis[] = {bin, "disasm", file, 0}, *nv[] = {bin, file, 0}, *llvm[] = {bin, "-d", file, 0};
    execv(bin, ends_with(bin, "nvdisasm12") ? nv : ends_with(bin, "llvm-objdump-22") ? llvm : dis);
    _exit(127);
  }
  int st;
  waitpid(p, &st, 0);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return -1;
  return (long long)((now() - t0) / 1000);
}

// Microseconds of untimed runs before each timed one under -w.
#define WARM_US 10000

int main(int argc, char **argv) {
  // -w: each timed run follows untimed runs of the same command (10 ms of them, at least one),
  // so that every command is timed warm, as in a series of its own runs: the runs of a 0.4 ms
  // listing right after a 120 ms nvdisasm run took 893, 525, 508, 442, 422, 353 us (medians of
  // 15 rounds), the machine settling from the other command, not our work.
  int warm = argc > 1 && strcmp(argv[1], "-w") == 0;
  argv += warm;
  argc -= warm;
  if (argc < 4) {
    fprintf(stderr, "usage: %s [-w] ROUNDS FILE BIN...\n", argv[0]);
    return 2;
  }
  int n = atoi(argv[1]), nb = argc - 3;
  char *file = argv[2];
  unsigned long long *t = calloc((size_t)n * nb, sizeof *t);
  if (n < 1 || !t) return 2;
  for (int i = 0; i < n; i++) {
    for (int b = 0; b < nb; b++) {
      long long us = 0;
      // Warm: untimed runs of the same command for at least WARM_US (at least one).
      for (long long spent = 0; warm && us >= 0 && spent < WARM_US; spent += us) us = run(argv[3 + b], file);
      if (us >= 0) us = run(argv[3 + b], file);
      if (us < 0) {
        fprintf(stderr, "%s failed\n", argv[3 + b]);
        return 1;
      }
      t[(size_t)b * n + i] = (unsigned long long)us;
    }
  }
  for (int b = 0; b < nb; b++) {
    qsort(t + (size_t)b * n, n, sizeof *t, by_value);
    printf("%-50s p10 %llu median %llu\n", argv[3 + b], t[(size_t)b * n + n / 10], t[(size_t)b * n + n / 2]);
  }
  return 0;
}
