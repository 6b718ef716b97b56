"""Float literals spelled as MLIR spells them, so printed quant types match `mlir-opt` text.

MLIR prints a float attribute value (`printFloatValue` in `mlir/lib/IR/AsmPrinter.cpp`) as:
1. `APFloat::toString(6, 0, false)`: six significant digits, padded to six fraction digits
   (`1.000000e-01`, `1.234570e+05`), when that text parses back to the same value in the
   value's float semantics;
2. otherwise `llvm::APFloat::toString()` with its defaults: `2 + floor(p * 59 / 196)` significant
   digits for a `p`-bit significand, trailing zeros dropped, fixed notation unless more than three
   zeros of padding are needed, then `E` notation (`1.2345678900000001E-10`, `123456.7`);
3. the IEEE-754 bit pattern of the double in hex (`0x41678C29C0000000`) when step 2 yields no `.`.

`parse_hex_float` reads step 3's form back: MLIR's `parseFloat` takes a hex integer literal as
the bits of a double.
"""

import math
import struct
from typing import NamedTuple


class FloatFormat(NamedTuple):
    """An IEEE-754 binary format: significand bits `p` (with the implicit bit) and the
    exponent `e_min` of its smallest normal number 2**e_min."""

    precision: int
    min_exponent: int
    max_exponent: int

    @property
    def smallest_subnormal(self) -> float:
        return math.ldexp(1.0, self.min_exponent - self.precision + 1)

    @property
    def smallest_normal(self) -> float:
        return math.ldexp(1.0, self.min_exponent)

    @property
    def largest(self) -> float:
        return math.ldexp(2.0 - math.ldexp(1.0, 1 - self.precision), self.max_exponent)


FLOAT_FORMATS = {
    "f16": FloatFormat(11, -14, 15),
    "bf16": FloatFormat(8, -126, 127),
    "f32": FloatFormat(24, -126, 127),
    "f64": FloatFormat(53, -1022, 1023),
}
"""The float types a quantized type may express, by MLIR name."""

DOUBLE = FLOAT_FORMATS["f64"]

FORMAT_MAX_PADDING = 3
"""APFloat::toString's default: zeros it may pad before switching to E notation."""


def round_to_format(value: float, fmt: FloatFormat) -> float:
    """Round a double to the nearest value of `fmt`, ties to even, subnormals included
    (overflow past `fmt.largest` is not handled: callers check ranges)."""
    if value == 0.0 or not math.isfinite(value):
        return value
    exponent = math.frexp(value)[1]  # |value| in [2**(exponent-1), 2**exponent)
    quantum = max(exponent - fmt.precision, fmt.min_exponent - fmt.precision + 1)
    return math.ldexp(round(math.ldexp(value, -quantum)), quantum)  # round(): ties to even


def _decimal_digits(value: float, format_precision: int) -> tuple[str, int]:
    """APFloat::toString's digits of |value| (nonzero, finite): at most `format_precision`
    significant digits and the decimal exponent of the last one (|value| ~ digits * 10**exp).

    APFloat first truncates whole decimal digits while the exact integer has more than
    `(P * 196 + 58) / 59` bits, then rounds the rest half up to P digits. So its digits are
    not always the correctly rounded ones (0.0999755859375 at P = 6 gives 999755)."""
    numerator, denominator = abs(value).as_integer_ratio()
    twos = denominator.bit_length() - 1  # denominator == 2**twos
    significand, exp = numerator * 5**twos, -twos  # exact: |value| = significand * 10**exp
    bits_required = (format_precision * 196 + 58) // 59
    if significand.bit_length() > bits_required:
        removable = (significand.bit_length() - bits_required) * 59 // 196
        significand //= 10**removable
        exp += removable
    digits = str(significand)
    stripped = digits.rstrip("0")
    exp += len(digits) - len(stripped)
    digits = stripped
    if len(digits) > format_precision:
        dropped = len(digits) - format_precision
        round_up = digits[format_precision] >= "5"
        kept = int(digits[:format_precision]) + round_up
        exp += dropped
        digits = str(kept)
        if len(digits) > format_precision:  # carried into a new digit: 999.. -> 1000..
            digits, exp = digits[:-1], exp + 1
        stripped = digits.rstrip("0")
        exp += len(digits) - len(stripped)
        digits = stripped
    return digits, exp


def _scientific_padded(value: float) -> str:
    """`APFloat::toString(str, 6, 0, false)`: 6 significant digits, always `d.dddddde+XX`."""
    digits, exp = _decimal_digits(value, 6)
    exp += len(digits) - 1
    fraction = (digits[1:] + "0" * 6)[:6]
    sign = "-" if value < 0 else ""
    return f"{sign}{digits[0]}.{fraction}e{'+' if exp >= 0 else '-'}{abs(exp):02d}"


def _apfloat_default_string(value: float, fmt: FloatFormat) -> str:
    """`APFloat::toString(str)` with its defaults (precision 0, padding 3, truncate zeros)."""
    significant = 2 + fmt.precision * 59 // 196
    digits, exp = _decimal_digits(value, significant)
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


def format_float(value: float, fmt: FloatFormat = DOUBLE) -> str:
    """Spell `value`, a value of the float format `fmt`, as MLIR does."""
    if value == 0.0:
        return "-0.000000e+00" if math.copysign(1.0, value) < 0 else "0.000000e+00"
    if math.isfinite(value):
        short = _scientific_padded(value)
        if round_to_format(float(short), fmt) == value:
            return short
        default = _apfloat_default_string(value, fmt)
        if "." in default:
            return default
    return "0x" + struct.pack(">d", value).hex().upper()


def parse_hex_float(literal: str) -> float:
    """The double whose IEEE-754 bits are the hex integer literal `0x...`."""
    return struct.unpack(">d", int(literal, 16).to_bytes(8, "big"))[0]
