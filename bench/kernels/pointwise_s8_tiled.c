/* The pointwise (1x1) convolution layer of pointwise_s8.c, hand-tuned: register-tiled, weights
 * pre-packed.
 *
 *     acc = bias_folded[co] + sum_ci x[ci][p] * w[co][ci]
 *     bias_folded[co] = bias[co] - X_ZERO_POINT * sum_ci w[co][ci]   (offline)
 *
 * Weights come packed in panels of 4 output channels: w_panels[((co / 4) * C_IN + ci) * 4 + co % 4].
 * A tile is 4 output channels x 4 adjacent pixels in 16 accumulators; ci advances by 2 (unrolled).
 * C_OUT and H * W multiples of 4, C_IN of 2. Requantization as requantize.h. */
#include <stdint.h>

#include "requantize.h"
#include "tiling.h"

#if !defined(C_IN) || !defined(C_OUT) || !defined(H) || !defined(W) || !defined(X_ZERO_POINT) || \
    !defined(Y_ZERO_POINT)
#error "define C_IN, C_OUT, H, W, X_ZERO_POINT and Y_ZERO_POINT"
#endif
#if C_OUT % 4 || (H * W) % 4 || C_IN % 2
#error "C_OUT and H * W must be multiples of 4, C_IN of 2"
#endif

#define PIXELS (H * W)

#define MAC_CHANNEL(o, w)                                                   \
    do {                                                                    \
        c##o##0 += x0 * (w);                                                \
        c##o##1 += x1 * (w);                                                \
        c##o##2 += x2 * (w);                                                \
        c##o##3 += x3 * (w);                                                \
    } while (0)

#define STEP(k)                                                             \
    do {                                                                    \
        word w0 = wp[(k) * 4 + 0], w1 = wp[(k) * 4 + 1];                    \
        word w2 = wp[(k) * 4 + 2], w3 = wp[(k) * 4 + 3];                    \
        const int8_t *at = in + (k) * PIXELS;                               \
        word x0 = at[0], x1 = at[1], x2 = at[2], x3 = at[3];                \
        MAC_CHANNEL(0, w0);                                                 \
        MAC_CHANNEL(1, w1);                                                 \
        MAC_CHANNEL(2, w2);                                                 \
        MAC_CHANNEL(3, w3);                                                 \
    } while (0)

#define STORE_CHANNEL(o)                                                    \
    do {                                                                    \
        int co = cb + (o);                                                  \
        int8_t *out = y + co * PIXELS + p;                                  \
        int32_t m = multiplier[co], s = shift[co], b = bias_folded[co];     \
        out[0] = requantize((int32_t)(c##o##0 + b), m, s, Y_ZERO_POINT);    \
        out[1] = requantize((int32_t)(c##o##1 + b), m, s, Y_ZERO_POINT);    \
        out[2] = requantize((int32_t)(c##o##2 + b), m, s, Y_ZERO_POINT);    \
        out[3] = requantize((int32_t)(c##o##3 + b), m, s, Y_ZERO_POINT);    \
    } while (0)

void pointwise_s8_tiled(const int8_t *x, const int8_t *w_panels, const int32_t *bias_folded,
                        const int32_t *multiplier, const int32_t *shift, int8_t *y) {
    for (int cb = 0; cb < C_OUT; cb += 4) {
        for (int p = 0; p < PIXELS; p += 4) {
            word c00 = 0, c01 = 0, c02 = 0, c03 = 0, c10 = 0, c11 = 0, c12 = 0, c13 = 0;
            word c20 = 0, c21 = 0, c22 = 0, c23 = 0, c30 = 0, c31 = 0, c32 = 0, c33 = 0;
            const int8_t *wp = w_panels + cb * C_IN;
            const int8_t *in = x + p;
            for (const int8_t *end = wp + C_IN * 4; wp != end; wp += 8, in += 2 * PIXELS) {
                STEP(0);
                STEP(1);
            }
            STORE_CHANNEL(0);
            STORE_CHANNEL(1);
            STORE_CHANNEL(2);
            STORE_CHANNEL(3);
        }
    }
}
