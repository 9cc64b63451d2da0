/* Peak floating-point throughput of one core: a loop of independent vector FMAs.
 *
 * ACC independent accumulators hide the FMA latency (4-5 cycles on current x86
 * cores, two FMA pipes: at least 8-10 chains are needed). Each step computes
 * acc = acc * x + y, which the compiler contracts to one vfmadd. With x = 1 and
 * y = 1 every lane ends at exactly `iters`, so the result checks itself.
 * VEC_BYTES (32 = AVX2 ymm, 64 = AVX-512 zmm) is set on the command line.
 */
#define ACC 12

#define PEAK_KERNEL(NAME, T)                                                   \
  typedef T NAME##_vec __attribute__((vector_size(VEC_BYTES)));                \
  double NAME(long iters, T x, T y) {                                          \
    NAME##_vec acc[ACC];                                                       \
    NAME##_vec vx, vy;                                                         \
    for (unsigned l = 0; l < VEC_BYTES / sizeof(T); l++) { vx[l] = x; vy[l] = y; } \
    for (int i = 0; i < ACC; i++) acc[i] = vx - vx;                            \
    for (long it = 0; it < iters; it++) {                                      \
      _Pragma("GCC unroll 12")                                                 \
      for (int i = 0; i < ACC; i++) acc[i] = acc[i] * vx + vy;                 \
    }                                                                          \
    double sum = 0;                                                            \
    for (int i = 0; i < ACC; i++)                                              \
      for (unsigned l = 0; l < VEC_BYTES / sizeof(T); l++) sum += acc[i][l];   \
    return sum;                                                                \
  }

PEAK_KERNEL(peak_f32, float)
PEAK_KERNEL(peak_f64, double)

int peak_accumulators(void) { return ACC; }
int peak_vec_bytes(void) { return VEC_BYTES; }
