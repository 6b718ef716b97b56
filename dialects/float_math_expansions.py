"""bitfold's definition of `math.exp`, `math.tanh`, `math.roundeven`, `math.sqrt` and `math.erf` on f32:
fixed sequences of IEEE binary32 arith ops (docs/float-islands.md), emitted by `EXPANSIONS[type(op)]`
into an `Emitter`. The pass `expand-float-math` replaces the ops by them and the interpreter
(`bitfold.interpreters.math`) runs them, so no backend calls libm and every backend and the
interpreter compute the same bits; they sit below both (layers point down only). Every constant is
an f32; every op rounds to nearest even.

exp(x) (Cephes' expf: range reduction by ln 2 in two parts, a degree-6 polynomial, 2^n by
building the exponent field):

    x  = minimumf(maximumf(x, EXP_LOW), EXP_HIGH)
    f  = x * log2(e) + 0.5;  t = (f + M) - M;  n = t > f ? t - 1 : t     (floor, M = 1.5 * 2^23)
    r  = (x - n * C1) - n * C2                       C1 + C2 = ln 2, C1 exact in 9 bits
    p  = ((((((P0 r + P1) r + P2) r + P3) r + P4) r + P5) r * r + r) + 1
    exp = p * bitcast<f32>((bitcast<i32>(n + (M + 127)) - bits(M)) << 23)

    t is f rounded to an integer by the addition's own rounding (|f| < 2^22: f + M lies in
    [2^23, 2^24), where f32 steps are 1); n + M + 127 is exact and its bits are bits(M) + n + 127,
    the biased exponent of 2^n. No float-integer conversion is needed.

    |exp - e^x| / e^x < 2 ulp (Cephes' bound) for x in [EXP_LOW, EXP_HIGH]; below, the clamp
    gives e^EXP_LOW (1.2e-38) instead of a smaller value, above e^EXP_HIGH (1.65e38), never inf.

tanh(x) (Cephes' tanhf): with a = maximumf(x, -x),

    a < 0.625:  x + x z (((((T0 z + T1) z + T2) z + T3) z + T4)),  z = x * x
    otherwise:  s (1 - 2 / (exp(2 a) + 1)),  s = x < 0 ? -1 : 1

both computed, one selected (`arith.select`).

roundeven(x) (ties to even; lower-quant's qcast rounds with it), exact: with a = maximumf(x, -x),
(a + 2^23) - 2^23 rounds a to an integer by the addition's own rounding (to nearest even) for
a < 2^23; a >= 2^23 is an integer already; x's sign bit is put back (-0.0 for x in [-0.5, -0.0]).

sqrt(a), correctly rounded (IEEE 754 squareRoot, the reference's bits), by the digit-by-digit
integer root of the significand (no float op but one exact scaling):

    a subnormal:  a' = a * 2^24 (exact, normal), the root's exponent field lowered by 12 at the end
    E = bits(a') >> 23, M = (bits(a') & 0x7FFFFF) | 2^23, o = 1 - (E & 1)   (o: E - 127 is odd)
    q = floor(sqrt((M << o) << 25))   SQRT_ROOT_BITS = 25 digits (M << o < 2^25): 24 bits and
                                      the rounding bit; a root never falls on a midpoint, so
    bits(sqrt) = (((E + 125 - o) >> 1) << 23) + ((q + 1) >> 1)   (a carry moves into the exponent)

    each digit: r = (r << 2) | the next two bits, t = (q << 2) | 1, r >= t ? (r - t, 2q + 1) : (r, 2q)
    (r <= 2q throughout: below 2^28). +0, -0 and +inf are their own roots; any other negative
    value and every NaN give the canonical quiet NaN 0x7FC00000 (as `onnx.Sqrt`'s reference).

erf(x) (two branches, both computed, one selected, with a = maximumf(x, -x)):

    a < 1:  x P(x^2), P the Taylor series 2/sqrt(pi) sum_n (-1)^n z^n / (n! (2n + 1)), n <= 10
            (truncation below 1.3e-9)
    a >= 1: s (1 - (((((A5 t + A4) t + A3) t + A2) t + A1) t) exp(-a a)),  t = 1 / (1 + p a),
            s = x < 0 ? -1 : 1  (Abramowitz and Stegun 7.1.26: |error| <= 1.5e-7)

    measured: |erf - erf_exact| < 2.5e-7 for every x (exp clamps -a a at EXP_LOW, so large a give 1).

Integer ops used: `subi`, `shli`, `shrui`, `addi`, `andi`, `ori`, `xori`, `cmpi` (slt, ult, uge, ugt,
eq), `select` on i32 and `extui` i1 -> i32 (and `bitcast` i32 <-> f32).
"""

from math import factorial, pi, sqrt

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import Float32Type, i32
from xdsl.ir import SSAValue

from bitfold.dialects.op_sequence import OpSequence

F32 = Float32Type()
EXP_HIGH = 88.0  # n = floor(x log2(e) + 1/2) <= 127: 2^n stays a normal f32
EXP_LOW = -87.3365478515625  # ln(2^-126): n >= -126, exponent fields stay normal
LOG2E = 1.44269504088896341
EXP_C1 = 0.693359375  # ln 2 = C1 + C2, C1 with 9 significant bits: n C1 is exact
EXP_C2 = -2.12194440e-4
EXP_POLYNOMIAL = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1)
TANH_SMALL = 0.625
TANH_POLYNOMIAL = (-5.70498872745e-3, 2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1)
F32_EXPONENT_BIAS = 127
ROUNDING_MAGIC = 12582912.0  # 1.5 * 2^23: x + M - M rounds |x| < 2^22 to an integer (to nearest even)
ROUNDING_MAGIC_BITS = 0x4B400000  # the f32 bits of ROUNDING_MAGIC
F32_MANTISSA_BITS = 23
F32_MANTISSA_MASK = 0x7FFFFF
F32_MIN_NORMAL_BITS = 0x00800000
F32_INFINITY_BITS = 0x7F800000
CANONICAL_NAN_BITS = 0x7FC00000  # the quiet NaN RISC-V's F extension returns for an invalid operation
SQRT_SUBNORMAL_SCALE = 2.0**24  # a subnormal times 2^24 is normal; its root is then 2^12 too large
SQRT_SUBNORMAL_EXPONENT = 12
SQRT_ROOT_BITS = 25  # the significand's 24 bits and the rounding bit
ERF_TAYLOR_TERMS = 11
ERF_SMALL = 1.0
ERF_P = 0.3275911
ERF_POLYNOMIAL = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592, 0.0)  # A5 .. A1, then 0


class Emitter(OpSequence):
    """The expansion of one op (`OpSequence`), with Horner's scheme for the polynomials."""

    def horner(self, coefficients, x: SSAValue) -> SSAValue:
        """((c0 x + c1) x + ...) + c_last, a mulf and an addf per step."""
        value = self.f32(coefficients[0])
        for c in coefficients[1:]:
            value = self(arith.AddfOp(self(arith.MulfOp(value, x)), self.f32(c)))
        return value


def emit_exp(e: Emitter, x: SSAValue) -> SSAValue:
    """exp(x) in f32 (module docstring)."""
    x = e(arith.MinimumfOp(e(arith.MaximumfOp(x, e.f32(EXP_LOW))), e.f32(EXP_HIGH)))
    f = e(arith.AddfOp(e(arith.MulfOp(x, e.f32(LOG2E))), e.f32(0.5)))
    magic = e.f32(ROUNDING_MAGIC)
    t = e(arith.SubfOp(e(arith.AddfOp(f, magic)), magic))
    n = e(arith.SelectOp(e(arith.CmpfOp(t, f, "ogt")), e(arith.SubfOp(t, e.f32(1.0))), t))
    r = e(arith.SubfOp(e(arith.SubfOp(x, e(arith.MulfOp(n, e.f32(EXP_C1))))), e(arith.MulfOp(n, e.f32(EXP_C2)))))
    p = e(arith.MulfOp(e.horner(EXP_POLYNOMIAL, r), e(arith.MulfOp(r, r))))
    p = e(arith.AddfOp(e(arith.AddfOp(p, r)), e.f32(1.0)))
    field = e(arith.BitcastOp(e(arith.AddfOp(n, e.f32(ROUNDING_MAGIC + F32_EXPONENT_BIAS))), i32))
    biased = e(arith.SubiOp(field, e.i32(ROUNDING_MAGIC_BITS)))
    power = e(arith.BitcastOp(e(arith.ShLIOp(biased, e.i32(F32_MANTISSA_BITS))), F32))
    return e(arith.MulfOp(p, power))


def emit_tanh(e: Emitter, x: SSAValue) -> SSAValue:
    """tanh(x) in f32 (module docstring)."""
    a = e(arith.MaximumfOp(x, e(arith.NegfOp(x))))
    z = e(arith.MulfOp(x, x))
    small = e(arith.AddfOp(x, e(arith.MulfOp(e(arith.MulfOp(x, z)), e.horner(TANH_POLYNOMIAL, z)))))
    one = e.f32(1.0)
    grown = e(arith.AddfOp(emit_exp(e, e(arith.AddfOp(a, a))), one))
    magnitude = e(arith.SubfOp(one, e(arith.DivfOp(e.f32(2.0), grown))))
    large = e(arith.SelectOp(e(arith.CmpfOp(x, e.f32(0.0), "olt")), e(arith.NegfOp(magnitude)), magnitude))
    return e(arith.SelectOp(e(arith.CmpfOp(a, e.f32(TANH_SMALL), "olt")), small, large))


ROUNDING_MAGNITUDE = 8388608.0  # 2^23: f32 values at or above it are integers


def emit_roundeven(e: Emitter, x: SSAValue) -> SSAValue:
    """roundeven(x) in f32 (module docstring)."""
    a = e(arith.MaximumfOp(x, e(arith.NegfOp(x))))
    shift = e.f32(ROUNDING_MAGNITUDE)
    rounded = e(arith.SubfOp(e(arith.AddfOp(a, shift)), shift))
    magnitude = e(arith.SelectOp(e(arith.CmpfOp(a, shift, "oge")), a, rounded))
    negative = e(arith.CmpiOp(e(arith.BitcastOp(x, i32)), e.i32(0), "slt"))  # the sign bit: -0.0 too
    return e(arith.SelectOp(negative, e(arith.NegfOp(magnitude)), magnitude))


def emit_sqrt(e: Emitter, a: SSAValue) -> SSAValue:
    """sqrt(a) in f32, correctly rounded (module docstring)."""
    bits = e(arith.BitcastOp(a, i32))
    subnormal = e(arith.CmpiOp(bits, e.i32(F32_MIN_NORMAL_BITS), "ult"))
    scaled = e(arith.SelectOp(subnormal, e(arith.MulfOp(a, e.f32(SQRT_SUBNORMAL_SCALE))), a))
    normal_bits = e(arith.BitcastOp(scaled, i32))
    one = e.i32(1)
    exponent = e(arith.ShRUIOp(normal_bits, e.i32(F32_MANTISSA_BITS)))
    odd = e(arith.XOrIOp(e(arith.AndIOp(exponent, one)), one))
    significand = e(arith.OrIOp(e(arith.AndIOp(normal_bits, e.i32(F32_MANTISSA_MASK))), e.i32(1 << F32_MANTISSA_BITS)))
    q = integer_root(e, e(arith.ShLIOp(significand, odd)))
    field = e(arith.ShRUIOp(e(arith.SubiOp(e(arith.AddiOp(exponent, e.i32(F32_EXPONENT_BIAS - 2))), odd)), one))
    rounded = e(arith.ShRUIOp(e(arith.AddiOp(q, one)), one))
    root = e(arith.AddiOp(e(arith.ShLIOp(field, e.i32(F32_MANTISSA_BITS))), rounded))
    lowered = e(arith.SelectOp(subnormal, e.i32(SQRT_SUBNORMAL_EXPONENT << F32_MANTISSA_BITS), e.i32(0)))
    root = e(arith.SubiOp(root, lowered))
    invalid = e(arith.CmpiOp(bits, e.i32(F32_INFINITY_BITS), "ugt"))
    root = e(arith.SelectOp(invalid, e.i32(CANONICAL_NAN_BITS), root))
    zero = e(arith.CmpiOp(e(arith.ShLIOp(bits, one)), e.i32(0), "eq"))
    itself = e(arith.OrIOp(zero, e(arith.CmpiOp(bits, e.i32(F32_INFINITY_BITS), "eq"))))
    return e(arith.BitcastOp(e(arith.SelectOp(itself, bits, root)), F32))


def integer_root(e: Emitter, m: SSAValue) -> SSAValue:
    """floor(sqrt(m << 25)) for 0 <= m < 2^25, SQRT_ROOT_BITS digits (module docstring)."""
    zero, one, two, three = (e.i32(v) for v in (0, 1, 2, 3))
    q, r = zero, zero
    for digit in reversed(range(SQRT_ROOT_BITS)):
        shift = 2 * digit - SQRT_ROOT_BITS  # the two bits of m << 25 at 2 digit + 1 and 2 digit
        r = e(arith.ShLIOp(r, two))
        if shift >= 0:
            r = e(arith.OrIOp(r, e(arith.AndIOp(e(arith.ShRUIOp(m, e.i32(shift))), three))))
        elif shift == -1:
            r = e(arith.OrIOp(r, e(arith.AndIOp(e(arith.ShLIOp(m, one)), three))))
        t = e(arith.OrIOp(e(arith.ShLIOp(q, two)), one))
        fits = e(arith.CmpiOp(r, t, "uge"))
        r = e(arith.SelectOp(fits, e(arith.SubiOp(r, t)), r))
        q = e(arith.OrIOp(e(arith.ShLIOp(q, one)), e(arith.ExtUIOp(fits, i32))))
    return q


def erf_taylor_coefficients() -> tuple[float, ...]:
    """P's coefficients, highest power first: 2/sqrt(pi) (-1)^n / (n! (2n + 1))."""
    scale = 2 / sqrt(pi)
    return tuple(scale * (-1) ** n / (factorial(n) * (2 * n + 1)) for n in reversed(range(ERF_TAYLOR_TERMS)))


def emit_erf(e: Emitter, x: SSAValue) -> SSAValue:
    """erf(x) in f32 (module docstring)."""
    a = e(arith.MaximumfOp(x, e(arith.NegfOp(x))))
    small = e(arith.MulfOp(x, e.horner(erf_taylor_coefficients(), e(arith.MulfOp(x, x)))))
    one = e.f32(1.0)
    t = e(arith.DivfOp(one, e(arith.AddfOp(one, e(arith.MulfOp(e.f32(ERF_P), a))))))
    decay = emit_exp(e, e(arith.NegfOp(e(arith.MulfOp(a, a)))))
    magnitude = e(arith.SubfOp(one, e(arith.MulfOp(e.horner(ERF_POLYNOMIAL, t), decay))))
    large = e(arith.SelectOp(e(arith.CmpfOp(x, e.f32(0.0), "olt")), e(arith.NegfOp(magnitude)), magnitude))
    return e(arith.SelectOp(e(arith.CmpfOp(a, e.f32(ERF_SMALL), "olt")), small, large))


EXPANSIONS = {math.ExpOp: emit_exp, math.TanhOp: emit_tanh, math.RoundEvenOp: emit_roundeven, math.SqrtOp: emit_sqrt,
              math.ErfOp: emit_erf}
