/* The 3x3 convolution layers of conv3x3_s8.c (WEIGHT_BITS 8) and conv3x3_s4w.c (WEIGHT_BITS 4),
 * hand-tuned: register-tiled, weights pre-packed, no bounds checks in the loops.
 *
 *     acc = bias_folded[co] + sum_{ci,ky,kx} padded[ci][oy + ky][ox + kx] * w[co][ci][ky][kx]
 *     bias_folded[co] = bias[co] - X_ZERO_POINT * sum_{ci,ky,kx} w[co][ci][ky][kx]   (offline)
 *
 * `padded` is the input with a border of X_ZERO_POINT, built once per call: a padded pixel then
 * contributes X_ZERO_POINT * w, which bias_folded takes back, as the naive kernel's skipped taps do.
 * Weights come packed in panels of 4 output channels, the 9 taps of one input channel after another:
 *     WEIGHT_BITS 8: w_panels[(((co / 4) * C_IN + ci) * 9 + tap) * 4 + co % 4]     (int8)
 *     WEIGHT_BITS 4: w_panels[((co / 4) * C_IN + ci) * 9 + tap]                  (uint16: the four
 *                    channels' 4-bit weights, co % 4 = 0 in the low nibble)
 * A tile is 4 output channels x 4 adjacent output pixels of a row in 16 accumulators; the 9 taps
 * are unrolled. C_OUT and W multiples of 4. Requantization as requantize.h. */
#include <stdint.h>

#include "requantize.h"
#include "tiling.h"

#if !defined(C_IN) || !defined(C_OUT) || !defined(H) || !defined(W) || !defined(X_ZERO_POINT) || \
    !defined(Y_ZERO_POINT) || !defined(WEIGHT_BITS) || !defined(KERNEL_NAME)
#error "define C_IN, C_OUT, H, W, X_ZERO_POINT, Y_ZERO_POINT, WEIGHT_BITS and KERNEL_NAME"
#endif
#if C_OUT % 4 || W % 4
#error "C_OUT and W must be multiples of 4"
#endif

#define PADDED_W (W + 2)
#define WORD_BITS (8 * (int)sizeof(word))

#if WEIGHT_BITS == 8
typedef int8_t weight_t;
#define TAP_WEIGHTS 4 /* weight_t elements a tap takes */
#define LOAD_WEIGHTS(tap)                                                   \
    word w0 = wp[(tap) * 4 + 0], w1 = wp[(tap) * 4 + 1];                    \
    word w2 = wp[(tap) * 4 + 2], w3 = wp[(tap) * 4 + 3]
#elif WEIGHT_BITS == 4
typedef uint16_t weight_t;
#define TAP_WEIGHTS 1
/* nibble i of h, sign-extended: shift it to the top of a word, then arithmetically back down */
#define NIBBLE(h, i) ((word)((unsigned long)(h) << (WORD_BITS - 4 - 4 * (i))) >> (WORD_BITS - 4))
#define LOAD_WEIGHTS(tap)                                                   \
    unsigned long h = wp[(tap)];                                            \
    word w0 = NIBBLE(h, 0), w1 = NIBBLE(h, 1), w2 = NIBBLE(h, 2), w3 = NIBBLE(h, 3)
#else
#error "WEIGHT_BITS must be 8 or 4"
#endif

#define MAC_CHANNEL(o, w)                                                   \
    do {                                                                    \
        c##o##0 += x0 * (w);                                                \
        c##o##1 += x1 * (w);                                                \
        c##o##2 += x2 * (w);                                                \
        c##o##3 += x3 * (w);                                                \
    } while (0)

#define TAP(ky, kx)                                                         \
    do {                                                                    \
        LOAD_WEIGHTS((ky) * 3 + (kx));                                      \
        const int8_t *at = in + (ky) * PADDED_W + (kx);                     \
        word x0 = at[0], x1 = at[1], x2 = at[2], x3 = at[3];                \
        MAC_CHANNEL(0, w0);                                                 \
        MAC_CHANNEL(1, w1);                                                 \
        MAC_CHANNEL(2, w2);                                                 \
        MAC_CHANNEL(3, w3);                                                 \
    } while (0)

#define STORE_CHANNEL(o)                                                    \
    do {                                                                    \
        int co = cb + (o);                                                  \
        int8_t *out = y + (co * H + oy) * W + ox;                           \
        int32_t m = multiplier[co], s = shift[co], b = bias_folded[co];     \
        out[0] = requantize((int32_t)(c##o##0 + b), m, s, Y_ZERO_POINT);    \
        out[1] = requantize((int32_t)(c##o##1 + b), m, s, Y_ZERO_POINT);    \
        out[2] = requantize((int32_t)(c##o##2 + b), m, s, Y_ZERO_POINT);    \
        out[3] = requantize((int32_t)(c##o##3 + b), m, s, Y_ZERO_POINT);    \
    } while (0)

static int8_t padded[C_IN * (H + 2) * PADDED_W];

void KERNEL_NAME(const int8_t *x, const weight_t *w_panels, const int32_t *bias_folded,
                 const int32_t *multiplier, const int32_t *shift, int8_t *y) {
    for (int ci = 0; ci < C_IN; ci++) {
        int8_t *plane = padded + ci * (H + 2) * PADDED_W;
        for (int i = 0; i < PADDED_W; i++) {
            plane[i] = X_ZERO_POINT;
            plane[(H + 1) * PADDED_W + i] = X_ZERO_POINT;
        }
        for (int iy = 0; iy < H; iy++) {
            int8_t *row = plane + (iy + 1) * PADDED_W;
            row[0] = X_ZERO_POINT;
            row[W + 1] = X_ZERO_POINT;
            for (int ix = 0; ix < W; ix++) row[ix + 1] = x[(ci * H + iy) * W + ix];
        }
    }
    for (int cb = 0; cb < C_OUT; cb += 4) {
        const weight_t *panel = w_panels + (cb / 4) * C_IN * 9 * TAP_WEIGHTS;
        for (int oy = 0; oy < H; oy++) {
            for (int ox = 0; ox < W; ox += 4) {
                word c00 = 0, c01 = 0, c02 = 0, c03 = 0, c10 = 0, c11 = 0, c12 = 0, c13 = 0;
                word c20 = 0, c21 = 0, c22 = 0, c23 = 0, c30 = 0, c31 = 0, c32 = 0, c33 = 0;
                const weight_t *wp = panel;
                const int8_t *in = padded + oy * PADDED_W + ox;
                for (int ci = 0; ci < C_IN; ci++, wp += 9 * TAP_WEIGHTS, in += (H + 2) * PADDED_W) {
                    TAP(0, 0); TAP(0, 1); TAP(0, 2);
                    TAP(1, 0); TAP(1, 1); TAP(1, 2);
                    TAP(2, 0); TAP(2, 1); TAP(2, 2);
                }
                STORE_CHANNEL(0);
                STORE_CHANNEL(1);
                STORE_CHANNEL(2);
                STORE_CHANNEL(3);
            }
        }
    }
}
