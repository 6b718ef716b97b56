"""float32 inputs on which rounding into a minifloat format is decided (the float8 / float4 tests' inputs)."""

import numpy as np

RNG = np.random.default_rng(20261126)


def rounding_cases() -> np.ndarray:
    """float32 values of both signs: every biased exponent with random fractions, then for every
    position k of the rounding point the fraction's low k bits at half - 1, half and half + 1 (ties and
    their neighbours), infinities and NaNs."""
    exponents = np.arange(256, dtype=np.uint32)[:, None]
    fractions = RNG.integers(0, 1 << 23, (1, 48)).astype(np.uint32)
    every_exponent = (exponents << 23 | fractions).ravel()
    high = RNG.integers(0, 1 << 23, 600).astype(np.uint32)
    near_ties = []
    for k in range(1, 24):
        for low in ((1 << (k - 1)) - 1, 1 << (k - 1), (1 << (k - 1)) + 1):
            exponent = RNG.integers(90, 160, high.size).astype(np.uint32)
            near_ties.append(exponent << 23 | ((high >> k) << k | low) & 0x7FFFFF)
    specials = np.array([0, 0x7F800000, 0x7FC00000, 0x7F800001, 0x7FFFFFFF], dtype=np.uint32)
    magnitudes = np.concatenate([every_exponent, *near_ties, specials])
    return np.concatenate([magnitudes, magnitudes | 0x80000000]).view(np.float32)


CASES = rounding_cases()
