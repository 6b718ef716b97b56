/* The int8 matrix multiply of matmul_s8.c, hand-tuned: register-tiled, weights pre-packed.
 *
 *     c[i][j] = sum_k (a[i][k] - A_ZERO_POINT) * (b[k][j] - B_ZERO_POINT)
 *             = sum_k a[i][k] b[k][j]  - B_ZERO_POINT * sum_k a[i][k]  + col_term[j]
 *     col_term[j] = K * A_ZERO_POINT * B_ZERO_POINT - A_ZERO_POINT * sum_k b[k][j]   (offline, from b)
 *
 * b comes pre-packed in panels of 4 columns, each panel K rows of 4 bytes:
 *     b_panels[(j / 4) * K * 4 + k * 4 + (j % 4)] = b[k][j]
 * A 4 x 4 tile of c is held in 16 local accumulators; k advances by 2 (unrolled), so one step loads
 * 2 x 4 values of a and 2 x 4 of b for 32 multiply-accumulates. M and N multiples of 4, K of 2.
 * The accumulators are machine words (`long`): on RV64, int32 ones make gcc spill the tile (its
 * addw/mulw subregisters); the sum is the same modulo 2^32, which is what c keeps. */
#include <stdint.h>

#include "tiling.h"

#if !defined(M) || !defined(K) || !defined(N) || !defined(A_ZERO_POINT) || !defined(B_ZERO_POINT)
#error "define M, K, N, A_ZERO_POINT and B_ZERO_POINT"
#endif
#if M % 4 || N % 4 || K % 2
#error "M and N must be multiples of 4, K of 2"
#endif

#define MAC_ROW(r, x)                                                                     \
    do {                                                                                  \
        c##r##0 += (x) * w0;                                                              \
        c##r##1 += (x) * w1;                                                              \
        c##r##2 += (x) * w2;                                                              \
        c##r##3 += (x) * w3;                                                              \
    } while (0)

#define STEP(k_offset, panel_offset)                                                      \
    do {                                                                                  \
        word w0 = p[(panel_offset) + 0], w1 = p[(panel_offset) + 1];                      \
        word w2 = p[(panel_offset) + 2], w3 = p[(panel_offset) + 3];                      \
        MAC_ROW(0, (word)row[(k_offset)]);                                                \
        MAC_ROW(1, (word)row[(k_offset) + K]);                                            \
        MAC_ROW(2, (word)row[(k_offset) + 2 * K]);                                        \
        MAC_ROW(3, (word)row[(k_offset) + 3 * K]);                                        \
    } while (0)

#define STORE_ROW(r)                                                                      \
    do {                                                                                  \
        out[(r) * N + 0] = (int32_t)(c##r##0 + row_term[r] + col[0]);                     \
        out[(r) * N + 1] = (int32_t)(c##r##1 + row_term[r] + col[1]);                     \
        out[(r) * N + 2] = (int32_t)(c##r##2 + row_term[r] + col[2]);                     \
        out[(r) * N + 3] = (int32_t)(c##r##3 + row_term[r] + col[3]);                     \
    } while (0)

void matmul_s8_tiled(const int8_t *a, const int8_t *b_panels, const int32_t *col_term, int32_t *c) {
    for (int i = 0; i < M; i += 4) {
        const int8_t *rows = a + i * K;
        int32_t row_term[4];
        for (int r = 0; r < 4; r++) {
            int32_t sum = 0;
            for (int k = 0; k < K; k++) sum += rows[r * K + k];
            row_term[r] = -B_ZERO_POINT * sum;
        }
        for (int j = 0; j < N; j += 4) {
            const int8_t *p = b_panels + j * K;
            const int8_t *row = rows;
            word c00 = 0, c01 = 0, c02 = 0, c03 = 0, c10 = 0, c11 = 0, c12 = 0, c13 = 0;
            word c20 = 0, c21 = 0, c22 = 0, c23 = 0, c30 = 0, c31 = 0, c32 = 0, c33 = 0;
            for (const int8_t *end = rows + K; row != end; row += 2, p += 8) {
                STEP(0, 0);
                STEP(1, 4);
            }
            int32_t *out = c + i * N + j;
            const int32_t *col = col_term + j;
            STORE_ROW(0);
            STORE_ROW(1);
            STORE_ROW(2);
            STORE_ROW(3);
        }
    }
}
