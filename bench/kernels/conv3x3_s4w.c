/* The int8 3x3 convolution layer of conv3x3_s8.c with 4-bit weights: w_packed holds the
 * C_OUT x C_IN x 3 x 3 signed 4-bit weights in row-major order, two per byte, the even-indexed
 * one in the low nibble. Each weight is unpacked where it is used. */
#include <stdint.h>

#include "requantize.h"

#if !defined(C_IN) || !defined(C_OUT) || !defined(H) || !defined(W) || !defined(X_ZERO_POINT) || \
    !defined(Y_ZERO_POINT)
#error "define C_IN, C_OUT, H, W, X_ZERO_POINT and Y_ZERO_POINT"
#endif

static inline int32_t weight_s4(const uint8_t *packed, int index) {
    uint8_t byte = packed[index >> 1];
    int32_t nibble = (index & 1) ? (byte >> 4) : (byte & 0x0F);
    return (nibble ^ 8) - 8; /* sign-extend 4 bits */
}

void conv3x3_s4w(const int8_t *x, const uint8_t *w_packed, const int32_t *bias, const int32_t *multiplier,
                 const int32_t *shift, int8_t *y) {
    for (int co = 0; co < C_OUT; co++) {
        for (int oy = 0; oy < H; oy++) {
            for (int ox = 0; ox < W; ox++) {
                int32_t acc = bias[co];
                for (int ci = 0; ci < C_IN; ci++) {
                    const int8_t *plane = x + ci * H * W;
                    int taps = (co * C_IN + ci) * 9;
                    for (int ky = 0; ky < 3; ky++) {
                        int iy = oy + ky - 1;
                        if (iy < 0 || iy >= H) continue;
                        for (int kx = 0; kx < 3; kx++) {
                            int ix = ox + kx - 1;
                            if (ix < 0 || ix >= W) continue;
                            acc += ((int32_t)plane[iy * W + ix] - X_ZERO_POINT) * weight_s4(w_packed, taps + ky * 3 + kx);
                        }
                    }
                }
                y[(co * H + oy) * W + ox] = requantize(acc, multiplier[co], shift[co], Y_ZERO_POINT);
            }
        }
    }
}
