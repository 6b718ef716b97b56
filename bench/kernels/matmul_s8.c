/* int8 matrix multiply with zero points and int32 accumulation, as plain C:
 *     c[i][j] = sum_k (a[i][k] - A_ZERO_POINT) * (b[k][j] - B_ZERO_POINT)
 * a is M x K, b is K x N, c is M x N, all row-major. Sizes and zero points are compile-time
 * constants (-D...), as a layer's would be in firmware. */
#include <stdint.h>

#if !defined(M) || !defined(K) || !defined(N) || !defined(A_ZERO_POINT) || !defined(B_ZERO_POINT)
#error "define M, K, N, A_ZERO_POINT and B_ZERO_POINT"
#endif

void matmul_s8(const int8_t *a, const int8_t *b, int32_t *c) {
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < N; j++) {
            int32_t acc = 0;
            for (int k = 0; k < K; k++)
                acc += ((int32_t)a[i * K + k] - A_ZERO_POINT) * ((int32_t)b[k * N + j] - B_ZERO_POINT);
            c[i * N + j] = acc;
        }
    }
}
