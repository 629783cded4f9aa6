/* What a first touch of memory costs on this host, the number behind the page-fault notes in
 * BENCHMARKS.md. Prints the time per page of touching fresh anonymous pages, per fault of
 * reading a file mapping once every 64 KiB (the kernel maps up to 16 pages around each
 * fault), and per page of MADV_POPULATE_WRITE on fresh anonymous pages.
 *
 *   gcc -O2 -o /tmp/fault_cost tools/fault_cost.c
 *   /tmp/fault_cost FILE [PAGES]     FILE: any file in the page cache (the release command)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FILE [PAGES]\n", argv[0]);
    return 2;
  }
  int n = argc > 2 ? atoi(argv[2]) : 48;
  long page = sysconf(_SC_PAGESIZE);
  if (n <= 0) {
    fprintf(stderr, "PAGES must be positive\n");
    return 2;
  }
  char *a = mmap(0, (size_t)n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  char *b = mmap(0, (size_t)n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  int fd = open(argv[1], O_RDONLY);
  off_t size = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
  if (a == MAP_FAILED || b == MAP_FAILED || size <= 0) {
    fprintf(stderr, "%s: cannot map memory or read %s\n", argv[0], argv[1]);
    return 2;
  }
  char *f = mmap(0, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (f == MAP_FAILED) {
    fprintf(stderr, "%s: cannot map %s\n", argv[0], argv[1]);
    return 2;
  }
  double t0 = now_us();
  for (int i = 0; i < n; i++) a[(size_t)i * page] = 1;
  double t1 = now_us();
  volatile int sum = 0;
  int faults = 0;
  for (off_t o = 0; o < size; o += 65536, faults++) sum += f[o];
  double t2 = now_us();
  int populated = madvise(b, (size_t)n * page, MADV_POPULATE_WRITE) == 0;
  double t3 = now_us();
  printf("anonymous: %d pages, %.1f us, %.2f us a page\n", n, t1 - t0, (t1 - t0) / n);
  printf("file: %d faults 64 KiB apart, %.1f us, %.2f us a fault\n", faults, t2 - t1, (t2 - t1) / faults);
  if (populated)
    printf("MADV_POPULATE_WRITE: %d pages, %.1f us, %.2f us a page\n", n, t3 - t2, (t3 - t2) / n);
  else
    printf("MADV_POPULATE_WRITE: not supported here\n");
  return 0;
}
