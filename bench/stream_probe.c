/* A STREAM-like read-bandwidth probe for bench/generate.py: the best of 5
 * passes summing a float array much larger than the caches (16 independent
 * accumulators, vectorized at -O3), one thread. Prints GB/s.
 *
 *   cc -O3 -march=native -o stream_probe bench/stream_probe.c && ./stream_probe [MiB]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
  size_t n = mib * (1u << 20) / sizeof(float);
  float *a = aligned_alloc(64, n * sizeof(float));
  if (!a) {
    fprintf(stderr, "stream_probe: cannot allocate %zu MiB\n", mib);
    return 1;
  }
  for (size_t i = 0; i < n; ++i)
    a[i] = (float)(i & 7);
  double best = 1e30, total = 0;
  for (int r = 0; r < 6; ++r) {
    float acc[16] = {0};
    double start = now();
    for (size_t i = 0; i + 16 <= n; i += 16)
      for (int j = 0; j < 16; ++j)
        acc[j] += a[i + j];
    double t = now() - start;
    for (int j = 0; j < 16; ++j)
      total += acc[j];
    if (r > 0 && t < best)
      best = t;
  }
  printf("%.3f\n", n * sizeof(float) / best / 1e9);
  return total == -1.0; /* keeps the sums alive */
}
