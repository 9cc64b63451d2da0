/*
 * hand_kernels.c -- FP64 re-creation of the "how to optimize GEMM" ladder.
 *
 * Every kernel computes   C += A * B   in column-major (BLAS) layout:
 *     A is m x k, A(i,p) = a[p*lda + i]
 *     B is k x n, B(p,j) = b[j*ldb + p]
 *     C is m x n, C(i,j) = c[j*ldc + i]
 * and returns 0 on success (-1 only if a packing buffer cannot be allocated).
 *
 * Row-major (NumPy C-order) callers use (A B)^T = B^T A^T: a row-major
 * matrix is its own transpose read column-major, so hand.py calls
 * kernel(n, m, k, B, n, A, k, C, n) with no copies.
 *
 * The file is compiled once per ISA group; hand.py defines exactly one
 * HK_GROUP_* macro per compilation unit and chooses that unit's flags:
 *   HK_GROUP_SCALAR  MMult0 .. MMult_4x4_9        plain C, must stay scalar
 *   HK_GROUP_SSE2    MMult_4x4_10                 128-bit SSE2 mul + add
 *   HK_GROUP_FMA128  MMult_4x4_10_1/_11_1/_15_1   128-bit FMA
 *   HK_GROUP_AVX2    MMult_8x6_avx2               256-bit FMA, packed, blocked
 *   HK_GROUP_AVX512  MMult_16x8_avx512            512-bit FMA, packed, blocked
 * Vector code appears only where written with intrinsics: every unit is
 * built with -fno-tree-vectorize -ffp-contract=off.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define A(i, j) a[(size_t)(j) * lda + (i)]
#define B(i, j) b[(size_t)(j) * ldb + (i)]
#define C(i, j) c[(size_t)(j) * ldc + (i)]

#define UNUSED __attribute__((unused))
#define MIN(x, y) ((x) < (y) ? (x) : (y))

#define GEMM_ARGS int m, int n, int k, const double *a, int lda, \
                  const double *b, int ldb, double *c, int ldc

/* ------------------------------------------------------------------ */
/* Shared scalar helpers (static: one private copy per unit).          */
/* ------------------------------------------------------------------ */

/* C(i,j) += A(i,:) . B(:,j) for i in [i0,m), j in [j0,n). */
static UNUSED void naive_rect(int i0, int m, int j0, int n, int k,
                              const double *a, int lda, const double *b,
                              int ldb, double *c, int ldc)
{
    for (int j = j0; j < n; j++)
        for (int i = i0; i < m; i++)
            for (int p = 0; p < k; p++)
                C(i, j) += A(i, p) * B(p, j);
}

/* Everything outside the tiled region [0,mm) x [0,nn). */
static UNUSED void fringe(int mm, int nn, GEMM_ARGS)
{
    naive_rect(mm, m, 0, n, k, a, lda, b, ldb, c, ldc);   /* bottom rows */
    naive_rect(0, mm, nn, n, k, a, lda, b, ldb, c, ldc);  /* right cols  */
}

/* ------------------------------------------------------------------ */
/* Packed, blocked driver (BLIS loop order) shared by the packing rows. */
/* ------------------------------------------------------------------ */
#if defined(HK_GROUP_FMA128) || defined(HK_GROUP_AVX2) || defined(HK_GROUP_AVX512)

/* micro-kernel: C(0:MR,0:NR) += pa * pb over kc, pa = MR x kc panel
 * (column p at pa + p*MR), pb = kc x NR panel (row p at pb + p*NR). */
typedef void (*ukr_t)(int kc, const double *pa, const double *pb,
                      double *c, int ldc);

#define TILE_MAX (16 * 8)

/* Pack A(0:mc,0:kc) into MR-row panels, zero-padding the last panel. */
static void pack_a(int mc, int kc, const double *a, int lda, int mr,
                   double *pa)
{
    for (int i0 = 0; i0 < mc; i0 += mr) {
        int ib = MIN(mr, mc - i0);
        for (int p = 0; p < kc; p++) {
            for (int ii = 0; ii < ib; ii++) *pa++ = A(i0 + ii, p);
            for (int ii = ib; ii < mr; ii++) *pa++ = 0.0;
        }
    }
}

/* Pack B(0:kc,0:nc) into NR-column panels, zero-padding the last panel. */
static void pack_b(int kc, int nc, const double *b, int ldb, int nr,
                   double *pb)
{
    for (int j0 = 0; j0 < nc; j0 += nr) {
        int jb = MIN(nr, nc - j0);
        for (int p = 0; p < kc; p++) {
            for (int jj = 0; jj < jb; jj++) *pb++ = B(p, j0 + jj);
            for (int jj = jb; jj < nr; jj++) *pb++ = 0.0;
        }
    }
}

static size_t round_up(size_t x, size_t r) { return (x + r - 1) / r * r; }

static void *alloc64(size_t n_doubles)
{
    return aligned_alloc(64, round_up(n_doubles * sizeof(double), 64));
}

/* Edge tile: run the micro-kernel into a zeroed MR x NR buffer (ld = MR,
 * so the kernel's NR columns land inside TILE_MAX), then add
 * the valid iw x jw corner into C. */
static void edge_tile(ukr_t ukr, int mr, int iw, int jw, int kc,
                      const double *pa, const double *pb, double *c, int ldc)
{
    double t[TILE_MAX] __attribute__((aligned(64)));
    memset(t, 0, sizeof t);
    ukr(kc, pa, pb, t, mr);
    for (int j = 0; j < jw; j++)
        for (int i = 0; i < iw; i++)
            C(i, j) += t[j * mr + i];
}

/* jc (NC) -> pc (KC): pack B -> ic (MC): pack A -> jr (NR) -> ir (MR). */
static inline __attribute__((always_inline)) int
blocked_packed(GEMM_ARGS, int mr, int nr, int mc, int kc, int nc, ukr_t ukr)
{
    if (m <= 0 || n <= 0 || k <= 0) return 0;
    mc = MIN(mc, (int)round_up(m, mr));
    kc = MIN(kc, k);
    nc = (int)round_up(MIN(nc, n), nr);
    double *pa = alloc64((size_t)mc * kc);
    double *pb = alloc64((size_t)nc * kc);
    if (!pa || !pb) { free(pa); free(pb); return -1; }

    for (int jc = 0; jc < n; jc += nc) {
        int nb = MIN(nc, n - jc);
        for (int pc = 0; pc < k; pc += kc) {
            int kb = MIN(kc, k - pc);
            pack_b(kb, nb, &B(pc, jc), ldb, nr, pb);
            for (int ic = 0; ic < m; ic += mc) {
                int ib = MIN(mc, m - ic);
                pack_a(ib, kb, &A(ic, pc), lda, mr, pa);
                for (int jr = 0; jr < nb; jr += nr) {
                    int jw = MIN(nr, nb - jr);
                    const double *bp = pb + (size_t)jr * kb;
                    for (int ir = 0; ir < ib; ir += mr) {
                        int iw = MIN(mr, ib - ir);
                        const double *ap = pa + (size_t)ir * kb;
                        double *cc = &C(ic + ir, jc + jr);
                        if (iw == mr && jw == nr)
                            ukr(kb, ap, bp, cc, ldc);
                        else
                            edge_tile(ukr, mr, iw, jw, kb, ap, bp, cc, ldc);
                    }
                }
            }
        }
    }
    free(pa);
    free(pb);
    return 0;
}
#endif

/* ================================================================== */
#if defined(HK_GROUP_SCALAR)

/* Row MMult0: naive triple loop, one inner product per C(i,j). */
int MMult0(GEMM_ARGS)
{
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            for (int p = 0; p < k; p++)
                C(i, j) += A(i, p) * B(p, j);
    return 0;
}

/* 1x4 block of C (one row, four columns): four inner products share one
 * p loop, so A(0,p) is loaded once per p.  C stays in memory. */
static void dot1x4_mem(int k, const double *a, int lda, const double *b,
                       int ldb, double *c, int ldc)
{
    for (int p = 0; p < k; p++) {
        C(0, 0) += A(0, p) * B(p, 0);
        C(0, 1) += A(0, p) * B(p, 1);
        C(0, 2) += A(0, p) * B(p, 2);
        C(0, 3) += A(0, p) * B(p, 3);
    }
}

int MMult_1x4_5(GEMM_ARGS)
{
    int nn = n - n % 4;
    for (int j = 0; j < nn; j += 4)
        for (int i = 0; i < m; i++)
            dot1x4_mem(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
    fringe(m, nn, m, n, k, a, lda, b, ldb, c, ldc);
    return 0;
}

/* 1x4 with the four C values and A(0,p) in registers, B walked through
 * column pointers, p unrolled by 4 (indexed from the pointers). */
static void dot1x4_reg(int k, const double *a, int lda, const double *b,
                       int ldb, double *c, int ldc)
{
    register double c0 = 0.0, c1 = 0.0, c2 = 0.0, c3 = 0.0, ap;
    const double *b0 = &B(0, 0), *b1 = &B(0, 1), *b2 = &B(0, 2), *b3 = &B(0, 3);
    int p = 0;
#define STEP1x4(q)                                         \
    ap = a[(size_t)(q) * lda];                             \
    c0 += ap * b0[q]; c1 += ap * b1[q];                    \
    c2 += ap * b2[q]; c3 += ap * b3[q];
    for (; p + 4 <= k; p += 4) {
        STEP1x4(0) STEP1x4(1) STEP1x4(2) STEP1x4(3)
        a += (size_t)4 * lda;
        b0 += 4; b1 += 4; b2 += 4; b3 += 4;
    }
    for (; p < k; p++) {
        STEP1x4(0)
        a += lda;
        b0++; b1++; b2++; b3++;
    }
#undef STEP1x4
    C(0, 0) += c0; C(0, 1) += c1; C(0, 2) += c2; C(0, 3) += c3;
}

int MMult_1x4_9(GEMM_ARGS)
{
    int nn = n - n % 4;
    for (int j = 0; j < nn; j += 4)
        for (int i = 0; i < m; i++)
            dot1x4_reg(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
    fringe(m, nn, m, n, k, a, lda, b, ldb, c, ldc);
    return 0;
}

/* 4x4 block of C: sixteen inner products share one p loop; C in memory. */
static void dot4x4_mem(int k, const double *a, int lda, const double *b,
                       int ldb, double *c, int ldc)
{
#define COL4(j)                            \
    C(0, j) += A(0, p) * B(p, j);          \
    C(1, j) += A(1, p) * B(p, j);          \
    C(2, j) += A(2, p) * B(p, j);          \
    C(3, j) += A(3, p) * B(p, j);
    for (int p = 0; p < k; p++) {
        COL4(0) COL4(1) COL4(2) COL4(3)
    }
#undef COL4
}

int MMult_4x4_5(GEMM_ARGS)
{
    int mm = m - m % 4, nn = n - n % 4;
    for (int j = 0; j < nn; j += 4)
        for (int i = 0; i < mm; i += 4)
            dot4x4_mem(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
    fringe(mm, nn, m, n, k, a, lda, b, ldb, c, ldc);
    return 0;
}

/* 4x4 with the 16 C values, A(0:4,p) and B(p,0:4) in registers; updates
 * ordered by row pairs (0,1) then (2,3) -- the shape 2-wide SIMD uses. */
static void dot4x4_reg(int k, const double *a, int lda, const double *b,
                       int ldb, double *c, int ldc)
{
    register double c00 = 0, c01 = 0, c02 = 0, c03 = 0, c10 = 0, c11 = 0,
                    c12 = 0, c13 = 0, c20 = 0, c21 = 0, c22 = 0, c23 = 0,
                    c30 = 0, c31 = 0, c32 = 0, c33 = 0;
    const double *b0 = &B(0, 0), *b1 = &B(0, 1), *b2 = &B(0, 2), *b3 = &B(0, 3);
    for (int p = 0; p < k; p++) {
        register double a0 = A(0, p), a1 = A(1, p), a2 = A(2, p), a3 = A(3, p);
        register double bp0 = *b0++, bp1 = *b1++, bp2 = *b2++, bp3 = *b3++;
        c00 += a0 * bp0; c10 += a1 * bp0;
        c01 += a0 * bp1; c11 += a1 * bp1;
        c02 += a0 * bp2; c12 += a1 * bp2;
        c03 += a0 * bp3; c13 += a1 * bp3;
        c20 += a2 * bp0; c30 += a3 * bp0;
        c21 += a2 * bp1; c31 += a3 * bp1;
        c22 += a2 * bp2; c32 += a3 * bp2;
        c23 += a2 * bp3; c33 += a3 * bp3;
    }
    C(0, 0) += c00; C(1, 0) += c10; C(2, 0) += c20; C(3, 0) += c30;
    C(0, 1) += c01; C(1, 1) += c11; C(2, 1) += c21; C(3, 1) += c31;
    C(0, 2) += c02; C(1, 2) += c12; C(2, 2) += c22; C(3, 2) += c32;
    C(0, 3) += c03; C(1, 3) += c13; C(2, 3) += c23; C(3, 3) += c33;
}

int MMult_4x4_9(GEMM_ARGS)
{
    int mm = m - m % 4, nn = n - n % 4;
    for (int j = 0; j < nn; j += 4)
        for (int i = 0; i < mm; i += 4)
            dot4x4_reg(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
    fringe(mm, nn, m, n, k, a, lda, b, ldb, c, ldc);
    return 0;
}

/* ================================================================== */
#elif defined(HK_GROUP_SSE2)
#include <emmintrin.h>

/* 4x4 in eight 2-wide registers: (rows 0-1, rows 2-3) x 4 columns.
 * A column pair is one load; B(p,j) is broadcast; separate mul + add. */
static void dot4x4_sse2(int k, const double *a, int lda, const double *b,
                        int ldb, double *c, int ldc)
{
    __m128d c0l = _mm_setzero_pd(), c0h = c0l, c1l = c0l, c1h = c0l,
            c2l = c0l, c2h = c0l, c3l = c0l, c3h = c0l;
    const double *b0 = &B(0, 0), *b1 = &B(0, 1), *b2 = &B(0, 2), *b3 = &B(0, 3);
#define UPD(j)                                                  \
    bb = _mm_load1_pd(b##j++);                                  \
    c##j##l = _mm_add_pd(c##j##l, _mm_mul_pd(al, bb));          \
    c##j##h = _mm_add_pd(c##j##h, _mm_mul_pd(ah, bb));
    for (int p = 0; p < k; p++) {
        __m128d al = _mm_loadu_pd(&A(0, p)), ah = _mm_loadu_pd(&A(2, p)), bb;
        UPD(0) UPD(1) UPD(2) UPD(3)
    }
#undef UPD
#define STORE(j)                                                          \
    _mm_storeu_pd(&C(0, j), _mm_add_pd(_mm_loadu_pd(&C(0, j)), c##j##l)); \
    _mm_storeu_pd(&C(2, j), _mm_add_pd(_mm_loadu_pd(&C(2, j)), c##j##h));
    STORE(0) STORE(1) STORE(2) STORE(3)
#undef STORE
}

int MMult_4x4_10(GEMM_ARGS)
{
    int mm = m - m % 4, nn = n - n % 4;
    for (int j = 0; j < nn; j += 4)
        for (int i = 0; i < mm; i += 4)
            dot4x4_sse2(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
    fringe(mm, nn, m, n, k, a, lda, b, ldb, c, ldc);
    return 0;
}

/* ================================================================== */
#elif defined(HK_GROUP_FMA128)
#include <immintrin.h>

#define FMA128_MC 128
#define FMA128_KC 256

/* Same 4x4 register block as MMult_4x4_10, mul+add fused (vfmadd xmm). */
static void dot4x4_fma128(int k, const double *a, int lda, const double *b,
                          int ldb, double *c, int ldc)
{
    __m128d c0l = _mm_setzero_pd(), c0h = c0l, c1l = c0l, c1h = c0l,
            c2l = c0l, c2h = c0l, c3l = c0l, c3h = c0l;
    const double *b0 = &B(0, 0), *b1 = &B(0, 1), *b2 = &B(0, 2), *b3 = &B(0, 3);
#define UPD(j)                                      \
    bb = _mm_load1_pd(b##j++);                      \
    c##j##l = _mm_fmadd_pd(al, bb, c##j##l);        \
    c##j##h = _mm_fmadd_pd(ah, bb, c##j##h);
    for (int p = 0; p < k; p++) {
        __m128d al = _mm_loadu_pd(&A(0, p)), ah = _mm_loadu_pd(&A(2, p)), bb;
        UPD(0) UPD(1) UPD(2) UPD(3)
    }
#undef UPD
#define STORE(j)                                                          \
    _mm_storeu_pd(&C(0, j), _mm_add_pd(_mm_loadu_pd(&C(0, j)), c##j##l)); \
    _mm_storeu_pd(&C(2, j), _mm_add_pd(_mm_loadu_pd(&C(2, j)), c##j##h));
    STORE(0) STORE(1) STORE(2) STORE(3)
#undef STORE
}

/* Whole (unblocked) product with 4x4 FMA tiles plus scalar fringe. */
static void tiles4x4_fma128(GEMM_ARGS)
{
    int mm = m - m % 4, nn = n - n % 4;
    for (int j = 0; j < nn; j += 4)
        for (int i = 0; i < mm; i += 4)
            dot4x4_fma128(k, &A(i, 0), lda, &B(0, j), ldb, &C(i, j), ldc);
    fringe(mm, nn, m, n, k, a, lda, b, ldb, c, ldc);
}

int MMult_4x4_10_1(GEMM_ARGS)
{
    tiles4x4_fma128(m, n, k, a, lda, b, ldb, c, ldc);
    return 0;
}

/* + cache blocking: KC-deep, MC-tall block of A reused across all of n. */
int MMult_4x4_11_1(GEMM_ARGS)
{
    for (int p = 0; p < k; p += FMA128_KC) {
        int pb = MIN(FMA128_KC, k - p);
        for (int i = 0; i < m; i += FMA128_MC) {
            int ib = MIN(FMA128_MC, m - i);
            tiles4x4_fma128(ib, n, pb, &A(i, p), lda, &B(p, 0), ldb,
                            &C(i, 0), ldc);
        }
    }
    return 0;
}

/* Micro-kernel on packed panels: contiguous, aligned, unit-stride reads. */
static void ukr_4x4_fma128(int kc, const double *pa, const double *pb,
                           double *c, int ldc)
{
    __m128d c0l = _mm_setzero_pd(), c0h = c0l, c1l = c0l, c1h = c0l,
            c2l = c0l, c2h = c0l, c3l = c0l, c3h = c0l;
#define UPD(j)                                      \
    bb = _mm_load1_pd(pb + j);                      \
    c##j##l = _mm_fmadd_pd(al, bb, c##j##l);        \
    c##j##h = _mm_fmadd_pd(ah, bb, c##j##h);
    for (int p = 0; p < kc; p++, pa += 4, pb += 4) {
        __m128d al = _mm_load_pd(pa), ah = _mm_load_pd(pa + 2), bb;
        UPD(0) UPD(1) UPD(2) UPD(3)
    }
#undef UPD
#define STORE(j)                                                          \
    _mm_storeu_pd(&C(0, j), _mm_add_pd(_mm_loadu_pd(&C(0, j)), c##j##l)); \
    _mm_storeu_pd(&C(2, j), _mm_add_pd(_mm_loadu_pd(&C(2, j)), c##j##h));
    STORE(0) STORE(1) STORE(2) STORE(3)
#undef STORE
}

/* + packing: A block packed per (p,i) block, B packed once per p block
 * (NC unbounded = the historical loop nest without a jc loop). */
int MMult_4x4_15_1(GEMM_ARGS)
{
    return blocked_packed(m, n, k, a, lda, b, ldb, c, ldc, 4, 4, FMA128_MC,
                          FMA128_KC, 1 << 30, ukr_4x4_fma128);
}

/* ================================================================== */
#elif defined(HK_GROUP_AVX2)
#include <immintrin.h>

/* 8x6 register block: 12 ymm accumulators + 2 A + 1 broadcast = 15 of 16. */
#define AVX2_MR 8
#define AVX2_NR 6
#define AVX2_MC 128   /* A block 128 x 256 doubles = 256 KiB (L2)      */
#define AVX2_KC 256   /* B micro-panel 256 x 6 doubles = 12 KiB (L1)   */
#define AVX2_NC 3072  /* B block 256 x 3072 doubles = 6 MiB (L3)       */

static void ukr_8x6_avx2(int kc, const double *pa, const double *pb,
                         double *c, int ldc)
{
    __m256d c0l = _mm256_setzero_pd(), c0h = c0l, c1l = c0l, c1h = c0l,
            c2l = c0l, c2h = c0l, c3l = c0l, c3h = c0l, c4l = c0l,
            c4h = c0l, c5l = c0l, c5h = c0l;
#define UPD(j)                                          \
    bb = _mm256_broadcast_sd(pb + j);                   \
    c##j##l = _mm256_fmadd_pd(al, bb, c##j##l);         \
    c##j##h = _mm256_fmadd_pd(ah, bb, c##j##h);
    for (int p = 0; p < kc; p++, pa += AVX2_MR, pb += AVX2_NR) {
        __m256d al = _mm256_load_pd(pa), ah = _mm256_load_pd(pa + 4), bb;
        UPD(0) UPD(1) UPD(2) UPD(3) UPD(4) UPD(5)
    }
#undef UPD
#define STORE(j)                                                               \
    _mm256_storeu_pd(&C(0, j), _mm256_add_pd(_mm256_loadu_pd(&C(0, j)), c##j##l)); \
    _mm256_storeu_pd(&C(4, j), _mm256_add_pd(_mm256_loadu_pd(&C(4, j)), c##j##h));
    STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5)
#undef STORE
}

int MMult_8x6_avx2(GEMM_ARGS)
{
    return blocked_packed(m, n, k, a, lda, b, ldb, c, ldc, AVX2_MR, AVX2_NR,
                          AVX2_MC, AVX2_KC, AVX2_NC, ukr_8x6_avx2);
}

/* ================================================================== */
#elif defined(HK_GROUP_AVX512)
#include <immintrin.h>

/* 16x8 register block: 16 zmm accumulators + 2 A + 1 broadcast (of 32). */
#define AVX512_MR 16
#define AVX512_NR 8
#define AVX512_MC 128
#define AVX512_KC 256
#define AVX512_NC 3072

static void ukr_16x8_avx512(int kc, const double *pa, const double *pb,
                            double *c, int ldc)
{
    __m512d c0l = _mm512_setzero_pd(), c0h = c0l, c1l = c0l, c1h = c0l,
            c2l = c0l, c2h = c0l, c3l = c0l, c3h = c0l, c4l = c0l,
            c4h = c0l, c5l = c0l, c5h = c0l, c6l = c0l, c6h = c0l,
            c7l = c0l, c7h = c0l;
#define UPD(j)                                          \
    bb = _mm512_set1_pd(pb[j]);                         \
    c##j##l = _mm512_fmadd_pd(al, bb, c##j##l);         \
    c##j##h = _mm512_fmadd_pd(ah, bb, c##j##h);
    for (int p = 0; p < kc; p++, pa += AVX512_MR, pb += AVX512_NR) {
        __m512d al = _mm512_load_pd(pa), ah = _mm512_load_pd(pa + 8), bb;
        UPD(0) UPD(1) UPD(2) UPD(3) UPD(4) UPD(5) UPD(6) UPD(7)
    }
#undef UPD
#define STORE(j)                                                               \
    _mm512_storeu_pd(&C(0, j), _mm512_add_pd(_mm512_loadu_pd(&C(0, j)), c##j##l)); \
    _mm512_storeu_pd(&C(8, j), _mm512_add_pd(_mm512_loadu_pd(&C(8, j)), c##j##h));
    STORE(0) STORE(1) STORE(2) STORE(3) STORE(4) STORE(5) STORE(6) STORE(7)
#undef STORE
}

int MMult_16x8_avx512(GEMM_ARGS)
{
    return blocked_packed(m, n, k, a, lda, b, ldb, c, ldc, AVX512_MR,
                          AVX512_NR, AVX512_MC, AVX512_KC, AVX512_NC,
                          ukr_16x8_avx512);
}

#else
#error "define exactly one HK_GROUP_* macro (see hand.py)"
#endif
