// Time a kernel of a native cubin (CUDA driver API) the way `isabridge run --via spirv --time N` times
// the translated one: ntime CUBIN KERNEL GRID BLOCK REPEATS OUTDIR ARG...
// ARG: buf=PATH, zeros=BYTES, u32=N, i32=N, u64=N, f32=X (declaration order). One untimed launch
// (its buffers written to OUTDIR/argN.bin), then REPEATS launches each between two events.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s; cuGetErrorString(r_, &s); fprintf(stderr, "%s: %s\n", #x, s); exit(2); } } while (0)
static int cmp(const void *a, const void *b) { float x = *(const float *)a, y = *(const float *)b; return (x > y) - (x < y); }
int main(int argc, char **argv) {
  if (argc < 7) { fprintf(stderr, "usage: ntime CUBIN KERNEL GRID BLOCK REPEATS OUTDIR ARG...\n"); return 2; }
  int grid = atoi(argv[3]), block = atoi(argv[4]), reps = atoi(argv[5]);
  const char *outdir = argv[6];
  int na = argc - 7;
  CK(cuInit(0)); CUdevice dev; CK(cuDeviceGet(&dev, 0)); CUcontext ctx; CK(cuCtxCreate(&ctx, NULL, 0, dev));
  char name[256]; cuDeviceGetName(name, sizeof name, dev);
  CUmodule m; CK(cuModuleLoad(&m, argv[1])); CUfunction f; CK(cuModuleGetFunction(&f, m, argv[2]));
  void **params = calloc(na, sizeof(void *)); CUdeviceptr *ptrs = calloc(na, sizeof(CUdeviceptr)); size_t *lens = calloc(na, sizeof(size_t));
  unsigned long long *vals = calloc(na, 8);
  for (int i = 0; i < na; i++) {
    char *a = argv[7 + i];
    if (!strncmp(a, "buf=", 4) || !strncmp(a, "zeros=", 6)) {
      void *host; size_t n;
      if (a[0] == 'b') { FILE *fp = fopen(a + 4, "rb"); if (!fp) { perror(a + 4); return 2; } fseek(fp, 0, SEEK_END); n = ftell(fp); fseek(fp, 0, SEEK_SET); host = malloc(n); if (fread(host, 1, n, fp) != n) return 2; fclose(fp); }
      else { n = strtoull(a + 6, 0, 0); host = calloc(n, 1); }
      CK(cuMemAlloc(&ptrs[i], n ? n : 1)); CK(cuMemcpyHtoD(ptrs[i], host, n)); lens[i] = n; free(host);
      params[i] = &ptrs[i];
    } else if (!strncmp(a, "f32=", 4)) { float x = strtof(a + 4, 0); memcpy(&vals[i], &x, 4); params[i] = &vals[i]; }
    else if (!strncmp(a, "u32=", 4) || !strncmp(a, "i32=", 4) || !strncmp(a, "u64=", 4)) { vals[i] = strtoull(a + 4, 0, 0); params[i] = &vals[i]; }
    else { fprintf(stderr, "argument %s?\n", a); return 2; }
  }
  CK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, 0, params, 0)); CK(cuCtxSynchronize());
  for (int i = 0; i < na; i++) if (lens[i]) {
    void *host = malloc(lens[i]); CK(cuMemcpyDtoH(host, ptrs[i], lens[i]));
    char p[1024]; snprintf(p, sizeof p, "%s/arg%d.bin", outdir, i); FILE *fp = fopen(p, "wb"); fwrite(host, 1, lens[i], fp); fclose(fp); free(host);
  }
  float *ms = calloc(reps, sizeof(float)); CUevent e0, e1; CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));
  for (int r = 0; r < reps; r++) {
    CK(cuEventRecord(e0, 0)); CK(cuLaunchKernel(f, grid, 1, 1, block, 1, 1, 0, 0, params, 0)); CK(cuEventRecord(e1, 0));
    CK(cuEventSynchronize(e1)); CK(cuEventElapsedTime(&ms[r], e0, e1));
  }
  qsort(ms, reps, sizeof(float), cmp);
  printf("%s: native GPU time per launch on %s: median %.2f us, min %.2f us, max %.2f us (%d timed launches)\n", argv[2], name, ms[reps / 2] * 1e3, ms[0] * 1e3, ms[reps - 1] * 1e3, reps);
  return 0;
}
