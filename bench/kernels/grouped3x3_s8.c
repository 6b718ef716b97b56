/* int8 grouped 3x3 convolution layer (RegNet's), NCHW, stride 1, padding 1 (padded pixels read as
 * the input zero point, so they add nothing), int32 bias, per-channel fixed-point requantization
 * to int8. The C_IN input and C_OUT output channels form GROUPS groups; output channel co reads
 * the C_IN / GROUPS input channels of its group only.
 *     x: C_IN x H x W, w: C_OUT x (C_IN / GROUPS) x 3 x 3 (symmetric, zero point 0), y: C_OUT x H x W.
 * Shapes and the activation zero points are compile-time constants (-D...). */
#include <stdint.h>

#include "requantize.h"

#if !defined(C_IN) || !defined(C_OUT) || !defined(GROUPS) || !defined(H) || !defined(W) || \
    !defined(X_ZERO_POINT) || !defined(Y_ZERO_POINT)
#error "define C_IN, C_OUT, GROUPS, H, W, X_ZERO_POINT and Y_ZERO_POINT"
#endif

#define GROUP_IN (C_IN / GROUPS)
#define GROUP_OUT (C_OUT / GROUPS)

void grouped3x3_s8(const int8_t *x, const int8_t *w, const int32_t *bias, const int32_t *multiplier,
                   const int32_t *shift, int8_t *y) {
    for (int co = 0; co < C_OUT; co++) {
        const int8_t *group = x + (co / GROUP_OUT) * GROUP_IN * H * W;
        for (int oy = 0; oy < H; oy++) {
            for (int ox = 0; ox < W; ox++) {
                int32_t acc = bias[co];
                for (int ci = 0; ci < GROUP_IN; ci++) {
                    const int8_t *plane = group + ci * H * W;
                    const int8_t *taps = w + (co * GROUP_IN + ci) * 9;
                    for (int ky = 0; ky < 3; ky++) {
                        int iy = oy + ky - 1;
                        if (iy < 0 || iy >= H) continue;
                        for (int kx = 0; kx < 3; kx++) {
                            int ix = ox + kx - 1;
                            if (ix < 0 || ix >= W) continue;
                            acc += ((int32_t)plane[iy * W + ix] - X_ZERO_POINT) * taps[ky * 3 + kx];
                        }
                    }
                }
                y[(co * H + oy) * W + ox] = requantize(acc, multiplier[co], shift[co], Y_ZERO_POINT);
            }
        }
    }
}
