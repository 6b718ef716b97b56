/* int8 pointwise (1x1) convolution layer, NCHW, int32 bias, per-channel fixed-point requantization
 * to int8.
 *     x: C_IN x H x W, w: C_OUT x C_IN (symmetric, zero point 0), y: C_OUT x H x W.
 * Shapes and the activation zero points are compile-time constants (-D...). */
#include <stdint.h>

#include "requantize.h"

#if !defined(C_IN) || !defined(C_OUT) || !defined(H) || !defined(W) || !defined(X_ZERO_POINT) || \
    !defined(Y_ZERO_POINT)
#error "define C_IN, C_OUT, H, W, X_ZERO_POINT and Y_ZERO_POINT"
#endif

void pointwise_s8(const int8_t *x, const int8_t *w, const int32_t *bias, const int32_t *multiplier,
                  const int32_t *shift, int8_t *y) {
    for (int co = 0; co < C_OUT; co++) {
        for (int p = 0; p < H * W; p++) {
            int32_t acc = bias[co];
            for (int ci = 0; ci < C_IN; ci++)
                acc += ((int32_t)x[ci * H * W + p] - X_ZERO_POINT) * w[co * C_IN + ci];
            y[co * H * W + p] = requantize(acc, multiplier[co], shift[co], Y_ZERO_POINT);
        }
    }
}
