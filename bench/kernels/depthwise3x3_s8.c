/* int8 depthwise 3x3 convolution layer, NCHW, one filter per channel, stride 1, padding 1 (padded
 * pixels read as the input zero point, so they add nothing), int32 bias, per-channel fixed-point
 * requantization to int8.
 *     x: C x H x W, w: C x 3 x 3 (symmetric, zero point 0), y: C x H x W.
 * Shapes and the activation zero points are compile-time constants (-D...). */
#include <stdint.h>

#include "requantize.h"

#if !defined(C) || !defined(H) || !defined(W) || !defined(X_ZERO_POINT) || !defined(Y_ZERO_POINT)
#error "define C, H, W, X_ZERO_POINT and Y_ZERO_POINT"
#endif

void depthwise3x3_s8(const int8_t *x, const int8_t *w, const int32_t *bias, const int32_t *multiplier,
                     const int32_t *shift, int8_t *y) {
    for (int c = 0; c < C; c++) {
        const int8_t *plane = x + c * H * W;
        const int8_t *taps = w + c * 9;
        for (int oy = 0; oy < H; oy++) {
            for (int ox = 0; ox < W; ox++) {
                int32_t acc = bias[c];
                for (int ky = 0; ky < 3; ky++) {
                    int iy = oy + ky - 1;
                    if (iy < 0 || iy >= H) continue;
                    for (int kx = 0; kx < 3; kx++) {
                        int ix = ox + kx - 1;
                        if (ix < 0 || ix >= W) continue;
                        acc += ((int32_t)plane[iy * W + ix] - X_ZERO_POINT) * taps[ky * 3 + kx];
                    }
                }
                y[(c * H + oy) * W + ox] = requantize(acc, multiplier[c], shift[c], Y_ZERO_POINT);
            }
        }
    }
}
