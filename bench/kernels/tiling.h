/* Shared by the hand-tuned, register-tiled kernels (*_tiled.c).
 *
 * `word`: the accumulators and operands of a tile are machine words. On RV64, int32 locals make gcc
 * keep 32-bit subregisters (addw, mulw, sign extensions) and spill the tile; a 64-bit sum of int32
 * products equals the int32 wrapping sum modulo 2^32, which is what the kernels store.
 *
 * gcc's pre-allocation instruction scheduler hoists the loads of an unrolled step above the
 * multiply-accumulates of the previous one, which needs more than the 31 registers a 4 x 4 tile
 * leaves, so the tile spills: the kernels turn that pass off (clang's scheduler does not do this). */
#ifndef BENCH_TILING_H
#define BENCH_TILING_H

typedef long word;

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-schedule-insns")
#endif

#endif
