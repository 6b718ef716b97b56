/* Fixed-point requantization of an int32 accumulator to int8 (per output channel):
 *     y = clamp(((acc * multiplier + 2^(shift - 1)) >> shift) + Y_ZERO_POINT, -128, 127)
 * with a 64-bit product, an arithmetic shift and rounding half up. multiplier * 2^-shift
 * approximates x_scale * w_scale[c] / y_scale; multiplier is in [2^30, 2^31), shift in [1, 62]
 * (the bench passes bitfold's own fixed-point form of the ratio, passes/requantization.py). */
#ifndef BENCH_REQUANTIZE_H
#define BENCH_REQUANTIZE_H

#include <stdint.h>

static inline int8_t requantize(int32_t acc, int32_t multiplier, int32_t shift, int32_t zero_point) {
    int64_t product = (int64_t)acc * multiplier + ((int64_t)1 << (shift - 1));
    int32_t y = (int32_t)(product >> shift) + zero_point;
    if (y < -128) y = -128;
    if (y > 127) y = 127;
    return (int8_t)y;
}

#endif
