/* The C model behind docs/design.md's "Zen 4: the f32 ceiling": one core's
 * peak for independent zmm FMAs and for vdpbf16ps, then a GEMM
 * C[M, N] = A[M, K] W[N, K]^T with 4 x 64 register tiles and k tiles of KT,
 * once in f32 (weights packed as [N/64, K, 64], Attune's panels) and once
 * with bf16 operands and f32 accumulation (weights packed as k-pairs
 * [N/64, K/2, 64, 2], A rounded to bf16 once, one 32-bit broadcast of a
 * row's k-pair per vdpbf16ps step). Prints GFLOP/s and the largest
 * difference between the two results. Needs AVX512-BF16 (Zen 4, Sapphire
 * Rapids and later).
 *
 *   cc -O3 -mavx512f -mavx512bw -mavx512vl -mavx512bf16 -mfma \
 *      -o bf16_dot_probe bench/bf16_dot_probe.c -lm
 *   ./bf16_dot_probe [M K N [KT]]     (default 512 768 3072 128)
 */
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static int M = 512, K = 768, N = 3072, KT = 128;

/* Round to nearest even, as vcvtneps2bf16 (finite inputs). */
static uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  u += 0x7fff + ((u >> 16) & 1);
  return (uint16_t)(u >> 16);
}

/* CHAINS independent accumulators (more than FMA latency x throughput),
 * `it` steps of FMAs or, with `dot`, of vdpbf16ps. */
#define CHAINS 12
__attribute__((noinline)) static void peak(long it, int dot, float *out) {
  __m512 a[CHAINS], b = _mm512_set1_ps(1.0001f), c = _mm512_set1_ps(0.9999f);
  __m512bh ones = (__m512bh)_mm512_set1_epi16(0x3f80);
  for (int i = 0; i < CHAINS; i++)
    a[i] = _mm512_set1_ps((float)i);
  if (dot)
    for (long t = 0; t < it; t++)
      for (int i = 0; i < CHAINS; i++)
        a[i] = _mm512_dpbf16_ps(a[i], ones, ones);
  else
    for (long t = 0; t < it; t++)
      for (int i = 0; i < CHAINS; i++)
        a[i] = _mm512_fmadd_ps(a[i], b, c);
  for (int i = 1; i < CHAINS; i++)
    a[0] = _mm512_add_ps(a[0], a[i]);
  _mm512_storeu_ps(out, a[0]);
}

/* A 4 x 64 tile of C in 16 registers: zero in the first k tile, else
 * loaded; stored after each k tile. */
static inline void load_tile(__m512 c[4][4], const float *Cp, int k0) {
  for (int r = 0; r < 4; r++)
    for (int v = 0; v < 4; v++)
      c[r][v] = k0 ? _mm512_loadu_ps(Cp + r * N + v * 16) : _mm512_setzero_ps();
}

static inline void store_tile(__m512 c[4][4], float *Cp) {
  for (int r = 0; r < 4; r++)
    for (int v = 0; v < 4; v++)
      _mm512_storeu_ps(Cp + r * N + v * 16, c[r][v]);
}

/* f32 (`A`, `Bp`: [N/64][K][64]) or, with `A16`, bf16 (`A16`: [M][K],
 * `Bq`: [N/64][K/2][64][2]): one k loop per 4 x 64 tile and k tile. */
__attribute__((noinline)) static void gemm(const float *A, const float *Bp,
                                           const uint16_t *A16,
                                           const uint16_t *Bq, float *C) {
  for (int k0 = 0; k0 < K; k0 += KT)
    for (int p = 0; p < N / 64; p++)
      for (int m = 0; m < M; m += 4) {
        __m512 c[4][4];
        float *Cp = C + (size_t)m * N + p * 64;
        load_tile(c, Cp, k0);
        if (!A16) {
          const float *b = Bp + ((size_t)p * K + k0) * 64;
          const float *a = A + (size_t)m * K + k0;
          for (int k = 0; k < KT; k++) {
            __m512 b0 = _mm512_load_ps(b + k * 64),
                   b1 = _mm512_load_ps(b + k * 64 + 16),
                   b2 = _mm512_load_ps(b + k * 64 + 32),
                   b3 = _mm512_load_ps(b + k * 64 + 48);
            for (int r = 0; r < 4; r++) {
              __m512 x = _mm512_set1_ps(a[r * K + k]);
              c[r][0] = _mm512_fmadd_ps(x, b0, c[r][0]);
              c[r][1] = _mm512_fmadd_ps(x, b1, c[r][1]);
              c[r][2] = _mm512_fmadd_ps(x, b2, c[r][2]);
              c[r][3] = _mm512_fmadd_ps(x, b3, c[r][3]);
            }
          }
        } else {
          const uint16_t *b = Bq + ((size_t)p * (K / 2) + k0 / 2) * 128;
          const uint16_t *a = A16 + (size_t)m * K + k0;
          for (int k = 0; k < KT / 2; k++) {
            __m512bh b0 = (__m512bh)_mm512_load_si512(b + k * 128),
                     b1 = (__m512bh)_mm512_load_si512(b + k * 128 + 32),
                     b2 = (__m512bh)_mm512_load_si512(b + k * 128 + 64),
                     b3 = (__m512bh)_mm512_load_si512(b + k * 128 + 96);
            for (int r = 0; r < 4; r++) {
              int32_t pair;
              memcpy(&pair, a + r * K + 2 * k, 4);
              __m512bh x = (__m512bh)_mm512_set1_epi32(pair);
              c[r][0] = _mm512_dpbf16_ps(c[r][0], x, b0);
              c[r][1] = _mm512_dpbf16_ps(c[r][1], x, b1);
              c[r][2] = _mm512_dpbf16_ps(c[r][2], x, b2);
              c[r][3] = _mm512_dpbf16_ps(c[r][3], x, b3);
            }
          }
        }
        store_tile(c, Cp);
      }
}

__attribute__((noinline)) static void round_a(const float *A, uint16_t *A16) {
  for (size_t i = 0; i < (size_t)M * K; i += 32) {
    __m512 lo = _mm512_loadu_ps(A + i), hi = _mm512_loadu_ps(A + i + 16);
    _mm512_storeu_si512(A16 + i, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
  }
}

int main(int argc, char **argv) {
  if (!__builtin_cpu_supports("avx512bf16")) {
    fprintf(stderr, "bf16_dot_probe: this CPU has no AVX512-BF16\n");
    return 1;
  }
  if (argc > 3) {
    M = atoi(argv[1]);
    K = atoi(argv[2]);
    N = atoi(argv[3]);
  }
  if (argc > 4)
    KT = atoi(argv[4]);
  if (M % 4 || N % 64 || K % KT || KT % 2 || (M * K) % 32) {
    fprintf(stderr, "bf16_dot_probe: needs M %% 4, N %% 64, K %% KT, KT %% 2 "
                    "and M K %% 32 all zero\n");
    return 1;
  }
  float out[16];
  long it = 20000000;
  double t0 = now();
  peak(it, 0, out);
  double t1 = now();
  peak(it, 1, out);
  double t2 = now();
  printf("peak: FMA %.1f GFLOP/s, vdpbf16ps %.1f GFLOP/s\n",
         it * CHAINS * 32.0 / (t1 - t0) / 1e9,
         it * CHAINS * 64.0 / (t2 - t1) / 1e9);

  float *A = aligned_alloc(64, (size_t)M * K * 4),
        *W = malloc((size_t)N * K * 4),
        *Bp = aligned_alloc(64, (size_t)N * K * 4),
        *C1 = aligned_alloc(64, (size_t)M * N * 4),
        *C2 = aligned_alloc(64, (size_t)M * N * 4);
  uint16_t *A16 = aligned_alloc(64, (size_t)M * K * 2),
           *Bq = aligned_alloc(64, (size_t)N * K * 2);
  srand(1);
  for (size_t i = 0; i < (size_t)M * K; i++)
    A[i] = rand() / (float)RAND_MAX - .5f;
  for (size_t i = 0; i < (size_t)N * K; i++)
    W[i] = rand() / (float)RAND_MAX - .5f;
  for (int n = 0; n < N; n++)
    for (int k = 0; k < K; k++) {
      int p = n / 64, w = n % 64;
      Bp[((size_t)p * K + k) * 64 + w] = W[(size_t)n * K + k];
      Bq[(((size_t)p * (K / 2) + k / 2) * 64 + w) * 2 + (k & 1)] =
          to_bf16(W[(size_t)n * K + k]);
    }
  double flops = 2.0 * M * N * K;
  for (int r = 0; r < 4; r++) {
    t0 = now();
    gemm(A, Bp, NULL, NULL, C1);
    t1 = now();
    round_a(A, A16);
    gemm(NULL, NULL, A16, Bq, C2);
    t2 = now();
    printf("%d x %d -> %d, k tiles of %d: f32 %.2f ms (%.1f GFLOP/s), bf16 "
           "with A's rounding %.2f ms (%.1f GFLOP/s), %.2fx\n",
           M, K, N, KT, (t1 - t0) * 1e3, flops / (t1 - t0) / 1e9,
           (t2 - t1) * 1e3, flops / (t2 - t1) / 1e9, (t1 - t0) / (t2 - t1));
  }
  double diff = 0, largest = 0;
  for (size_t i = 0; i < (size_t)M * N; i++) {
    diff = fmax(diff, fabs(C1[i] - C2[i]));
    largest = fmax(largest, fabs(C1[i]));
  }
  printf("largest |f32 - bf16| %.3g on outputs up to %.3g\n", diff, largest);
  return 0;
}
