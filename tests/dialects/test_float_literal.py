"""bitfold spells scales exactly as upstream MLIR does: the oracle is mlir-opt-22's printer."""

import math
import random
import re
import struct

import pytest

from bitfold.dialects.float_literal import FLOAT_FORMATS, format_float, parse_hex_float, round_to_format


def _random_doubles(count: int, seed: int) -> list[float]:
    """Positive finite doubles: random bit patterns, decimal-looking values, integers, powers of two."""
    rng = random.Random(seed)
    values = []
    for _ in range(count):
        kind = rng.randrange(4)
        if kind == 0:
            bits = rng.getrandbits(63)
            value = struct.unpack(">d", bits.to_bytes(8, "big"))[0]
            if not math.isfinite(value) or value == 0.0:
                continue
        elif kind == 1:
            value = float(f"{rng.randint(1, 10**rng.randint(1, 9))}e{rng.randint(-30, 30)}")
        elif kind == 2:
            value = float(rng.randint(1, 10**rng.randint(1, 12)))
        else:
            value = math.ldexp(1.0, rng.randint(-1000, 1000))
        values.append(value)
    return values


def _hex(value: float) -> str:
    return "0x" + struct.pack(">d", value).hex().upper()


def test_double_scales_print_as_mlir_opt_prints_them(mlir_opt):
    values = _random_doubles(400, seed=1)
    # Hex input: both parsers then hold the same double; only the printers are compared.
    text = "".join(f'"test.op"() {{s = !quant.uniform<i8:f64, {_hex(v)}>}} : () -> ()\n' for v in values)
    upstream = re.findall(r"i8:f64, ([^>]*)>", mlir_opt(text))
    assert upstream == [format_float(v) for v in values]


@pytest.mark.parametrize("expressed", ["f16", "bf16", "f32"])
def test_sub_channel_scales_print_in_expressed_precision(mlir_opt, expressed):
    fmt = FLOAT_FORMATS[expressed]
    values = [v for v in _random_doubles(300, seed=2) if fmt.smallest_normal <= v <= fmt.largest / 2]
    scales = ", ".join(f"{{{_hex(v)}}}" for v in values)
    text = f'"test.op"() {{s = !quant.uniform<i8:{expressed}:{{0:1}}, {{{scales}}}>}} : () -> ()\n'
    upstream = re.findall(r"\{([^{}]*)\}", mlir_opt(text).split("}, ", 1)[1])
    ours = [format_float(round_to_format(v, fmt), fmt) for v in values]
    # Where no decimal form fits, upstream prints the expressed type's bits, which its own
    # parser then reads as a double's bits (a different number); bitfold prints the double's
    # bits, which both parsers read back exactly.
    decimal = [(u, o) for u, o in zip(upstream, ours, strict=True) if not u.startswith("0x")]
    assert [u for u, _ in decimal] == [o for _, o in decimal]
    for u, o, v in zip(upstream, ours, values):
        if u.startswith("0x"):
            assert parse_hex_float(o) == round_to_format(v, fmt)


def test_hex_literal_is_the_double_bit_pattern():
    assert parse_hex_float("0x3FF0000000000000") == 1.0
    assert format_float(12345678.0) == "0x41678C29C0000000"
    assert parse_hex_float(format_float(12345678.0)) == 12345678.0


def test_round_to_format_matches_ieee_conversions():
    import numpy as np

    rng = random.Random(3)
    for _ in range(2000):
        value = math.ldexp(rng.random() + 0.5, rng.randint(-160, 127))
        assert round_to_format(value, FLOAT_FORMATS["f32"]) == float(np.float32(value))
        if value < 65504:
            assert round_to_format(value, FLOAT_FORMATS["f16"]) == float(np.float16(value))
