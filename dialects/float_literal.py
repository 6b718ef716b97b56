"""Float literals spelled as MLIR spells them, so printed quant types match `mlir-opt` text.

MLIR prints a float attribute value (`printFloatValue` in `mlir/lib/IR/AsmPrinter.cpp`) as:
1. six significant digits padded to six fraction digits (`1.000000e-01`, `1.234570e+05`) when
   that text parses back to the same value in the value's float semantics;
2. otherwise `llvm::APFloat::toString()` with its defaults: `2 + floor(p * 59 / 196)` significant
   digits for a `p`-bit significand, trailing zeros dropped, fixed notation unless more than three
   zeros of padding are needed, then `E` notation (`1.2345678900000001E-10`, `123456.7`);
3. the IEEE-754 bit pattern of the double in hex (`0x41678C29C0000000`) when step 2 yields no `.`.

`parse_hex_float` reads step 3's form back: MLIR's `parseFloat` takes a hex integer literal as
the bits of a double.
"""

import math
import struct

DOUBLE_PRECISION = 53
"""Significand bits (with the implicit bit) of IEEE-754 binary64."""

SIGNIFICAND_BITS = {"f16": 11, "bf16": 8, "f32": 24, "f64": DOUBLE_PRECISION}
"""Significand precision `p` of the float types a quant type may express, by MLIR name."""

FORMAT_MAX_PADDING = 3
"""APFloat::toString's default: zeros it may pad before switching to E notation."""


def round_to_precision(value: float, precision: int) -> float:
    """Round `value` to a `precision`-bit significand, ties to even (exponent range ignored)."""
    if precision >= DOUBLE_PRECISION or value == 0.0 or not math.isfinite(value):
        return value
    mantissa, exponent = math.frexp(value)
    scaled = round(mantissa * (1 << precision))  # Python's round() is ties-to-even
    return math.ldexp(scaled, exponent - precision)


def _apfloat_default_string(value: float, precision: int) -> str:
    """`APFloat::toString(str)` with its defaults (precision 0, padding 3, truncate zeros)."""
    significant = 2 + precision * 59 // 196
    mantissa, exp_text = f"{abs(value):.{significant - 1}e}".split("e")
    digits = mantissa.replace(".", "").rstrip("0") or "0"
    # `exp` is the decimal exponent of the last digit: value = digits * 10**exp.
    exp = int(exp_text) - (len(digits) - 1)
    sign = "-" if value < 0 else ""
    n_digits = len(digits)
    if exp >= 0:
        scientific = exp > FORMAT_MAX_PADDING or n_digits + exp > significant
    else:
        most_significant = exp + n_digits - 1
        scientific = most_significant < 0 and -most_significant > FORMAT_MAX_PADDING
    if scientific:
        exp += n_digits - 1
        fraction = digits[1:] or "0"
        return f"{sign}{digits[0]}.{fraction}E{'+' if exp >= 0 else '-'}{abs(exp)}"
    if exp >= 0:
        return sign + digits + "0" * exp
    whole = exp + n_digits
    if whole > 0:
        return f"{sign}{digits[:whole]}.{digits[whole:]}"
    return f"{sign}0.{'0' * -whole}{digits}"


def format_float(value: float, precision: int = DOUBLE_PRECISION) -> str:
    """Spell `value` (held in a float type with a `precision`-bit significand) as MLIR does."""
    if math.isfinite(value):
        mantissa, exponent = f"{value:.5e}".split("e")
        short = f"{mantissa}0e{exponent}"
        if round_to_precision(float(short), precision) == value:
            return short
        default = _apfloat_default_string(value, precision)
        if "." in default:
            return default
    return "0x" + struct.pack(">d", value).hex().upper()


def parse_hex_float(literal: str) -> float:
    """The double whose IEEE-754 bits are the hex integer literal `0x...`."""
    return struct.unpack(">d", int(literal, 16).to_bytes(8, "big"))[0]
