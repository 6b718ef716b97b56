"""Float islands in the scalar code generator: each f32 op of the island contract (IEEE binary32,
round to nearest even, no contraction, fptosi toward zero, NaN-propagating maximumf/minimumf)
compiled for the hardware-float targets (and soft float on rv32im / rv64im, `soft_float.py`),
run under qemu restricted to the target ISA, and compared bit for bit with numpy float32 computing
the same op, and with bitfold-run on the same IR. NaN results compare as NaN (RISC-V gives the
canonical NaN, numpy propagates an operand's payload)."""

import numpy as np
import pytest
from conftest import require_tools
from xdsl.parser import Parser

from bitfold.backends.kernel.harness import run_assembly
from bitfold.backends.riscv import compile_to_assembly
from bitfold.backends.riscv.regalloc.register_allocation import RegisterAllocationError
from bitfold.interpreter import run
from bitfold.load import full_context

HARD_FLOAT = ("rv32imf", "rv32imfc", "rv64imfd")
SOFT_FLOAT = ("rv32im", "rv64im")
N = 64
@pytest.fixture(scope="module")
def riscv_toolchain():
    require_tools("riscv64-linux-gnu-gcc", "riscv64-unknown-elf-gcc", "qemu-riscv64", "qemu-riscv32")


def special_floats(seed: int) -> np.ndarray:
    """Zeros, infinities, NaN, subnormals, ties, values around 2^23 and 2^24, random ones: N of them."""
    fixed = np.array(
        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-45, -1e-45, 1.1754942e-38, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5,
         8388607.5, -8388607.5, 8388608.0, 16777217.0, 3.4028235e38, -3.4028235e38, 1.0, -1.0, 0.49999997, 1e-3],
        dtype=np.float32,
    )
    rng = np.random.default_rng(seed)
    rest = (rng.standard_normal(N - len(fixed)) * rng.choice([1.0, 100.0, 1e6], N - len(fixed))).astype(np.float32)
    return np.concatenate([fixed, rest])


def integers(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    fixed = np.array([0, 1, -1, 2**24 + 1, -(2**24) - 1, 2**31 - 1, -(2**31), 16777219, 12345678], dtype=np.int32)
    return np.concatenate([fixed, rng.integers(-(2**31), 2**31, N - len(fixed), dtype=np.int32)])


def in_range(x: np.ndarray) -> np.ndarray:
    """Values fptosi is defined on (MLIR: poison outside i32): finite, within (-2^31 - 1, 2^31)."""
    x = np.where(np.isfinite(x) & (x > -2147483648.0 - 1) & (x < 2147483648.0), x, np.float32(0.5))
    return x.astype(np.float32)


def kernel(body: str, arguments: list[str], result: str, n: int = N) -> str:
    """A one-op elementwise linalg.generic over n elements: `body` reads %x (and %y) and defines %r."""
    names = ["%x", "%y", "%z"][: len(arguments)]
    tensors = [f"tensor<{n}x{t}>" for t in arguments]
    maps = ", ".join(["affine_map<(d0) -> (d0)>"] * (len(arguments) + 1))
    block = ", ".join(f"{n}: {t}" for n, t in zip(names, arguments))
    return f"""
func.func @kernel({', '.join(f'%a{i}: {t}' for i, t in enumerate(tensors))}) -> tensor<{n}x{result}> {{
  %e = tensor.empty() : tensor<{n}x{result}>
  %r = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel"]}} ins({', '.join(f'%a{i}' for i in range(len(arguments)))} : {', '.join(tensors)}) outs(%e : tensor<{n}x{result}>) {{
  ^bb0({block}, %o: {result}):
    {body}
    linalg.yield %r : {result}
  }} -> tensor<{n}x{result}>
  func.return %r : tensor<{n}x{result}>
}}"""


def ieee_maximum(x, y):
    """IEEE 754-2019 maximum (MLIR's maximumf): NaN if either is NaN, +0 above -0. (np.maximum
    returns its first operand for a pair of zeros.)"""
    both_zero = (x == 0) & (y == 0)
    return np.where(both_zero, np.where(np.signbit(x) & np.signbit(y), x, np.abs(x)), np.maximum(x, y))


def ieee_minimum(x, y):
    """IEEE 754-2019 minimum (MLIR's minimumf): NaN if either is NaN, -0 below +0."""
    both_zero = (x == 0) & (y == 0)
    return np.where(both_zero, np.where(np.signbit(x) | np.signbit(y), -np.abs(x), x), np.minimum(x, y))


def ieee_maximum_number(x, y):
    """IEEE 754-2019 maximumNumber (MLIR's maxnumf, RISC-V's fmax.s): a NaN operand gives the
    other one, +0 above -0."""
    return np.where((x == 0) & (y == 0), ieee_maximum(x, y), np.fmax(x, y))


def ieee_minimum_number(x, y):
    """IEEE 754-2019 minimumNumber (MLIR's minnumf, RISC-V's fmin.s)."""
    return np.where((x == 0) & (y == 0), ieee_minimum(x, y), np.fmin(x, y))


def _bits(x):
    return np.asarray(x, np.float32).view(np.uint32)


F32, I32 = np.float32, np.int32


def _ops():
    """name -> (body, argument types, result type, numpy reference, inputs)."""
    a, b = special_floats(1), special_floats(2)
    b[:24] = special_floats(1)[::-1][40:64]  # pairs of specials with each other
    i = integers(3)
    f = {
        "addf": ("%r = arith.addf %x, %y : f32", lambda x, y: x + y),
        "subf": ("%r = arith.subf %x, %y : f32", lambda x, y: x - y),
        "mulf": ("%r = arith.mulf %x, %y : f32", lambda x, y: x * y),
        "divf": ("%r = arith.divf %x, %y : f32", lambda x, y: x / y),
        "maximumf": ("%r = arith.maximumf %x, %y : f32", ieee_maximum),
        "minimumf": ("%r = arith.minimumf %x, %y : f32", ieee_minimum),
        "maxnumf": ("%r = arith.maxnumf %x, %y : f32", ieee_maximum_number),
        "minnumf": ("%r = arith.minnumf %x, %y : f32", ieee_minimum_number),
    }
    ops = {name: (body, ["f32", "f32"], "f32", ref, [a, b]) for name, (body, ref) in f.items()}
    zeros = np.array([0.0, -0.0, -0.0, 0.0], F32), np.array([-0.0, 0.0, -0.0, 0.0], F32)
    for name in ("maximumf", "minimumf", "maxnumf", "minnumf"):
        ops[f"{name}_signed_zeros"] = (*ops[name][:4], list(zeros))
    ops["minimumf_constant"] = ("%c = arith.constant 127.0 : f32\n    %r = arith.minimumf %x, %c : f32", ["f32"], "f32",
                                lambda x: ieee_minimum(x, F32(127.0)), [a])
    ops["negf"] = ("%r = arith.negf %x : f32", ["f32"], "f32", np.negative, [a])
    ops["constant"] = ("%c = arith.constant -3.1415927 : f32\n    %r = arith.mulf %x, %c : f32", ["f32"], "f32",
                       lambda x: x * F32(-3.1415927), [a])
    ops["sitofp"] = ("%r = arith.sitofp %x : i32 to f32", ["i32"], "f32", lambda x: x.astype(F32), [i])
    ops["uitofp"] = ("%r = arith.uitofp %x : i32 to f32", ["i32"], "f32", lambda x: x.view(np.uint32).astype(F32), [i])
    ops["fptosi"] = ("%r = arith.fptosi %x : f32 to i32", ["f32"], "i32", lambda x: np.trunc(x).astype(I32),
                     [in_range(a)])
    ops["bitcast_to_f32"] = ("%r = arith.bitcast %x : i32 to f32", ["i32"], "f32", lambda x: x.view(F32), [i])
    ops["bitcast_to_i32"] = ("%r = arith.bitcast %x : f32 to i32", ["f32"], "i32", lambda x: x.view(I32), [a])
    ops["select"] = ("%c = arith.cmpf olt, %x, %y : f32\n    %r = arith.select %c, %x, %y : f32", ["f32", "f32"], "f32",
                     lambda x, y: np.where(x < y, x, y), [a, b])
    for predicate, ref in {"oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal, "olt": np.less,
                           "ole": np.less_equal, "one": lambda x, y: (x < y) | (x > y),
                           "ord": lambda x, y: ~np.isnan(x) & ~np.isnan(y), "ueq": lambda x, y: ~((x < y) | (x > y)),
                           "ugt": lambda x, y: ~(x <= y), "uge": lambda x, y: ~(x < y), "ult": lambda x, y: ~(x >= y),
                           "ule": lambda x, y: ~(x > y), "une": np.not_equal,
                           "uno": lambda x, y: np.isnan(x) | np.isnan(y)}.items():
        ops[f"cmpf_{predicate}"] = (
            f"%c = arith.cmpf {predicate}, %x, %y : f32\n    %r = arith.extui %c : i1 to i32", ["f32", "f32"], "i32",
            lambda x, y, ref=ref: ref(x, y).astype(I32), [a, b])
    for name, ref in {"roundeven": np.rint, "trunc": np.trunc, "floor": np.floor, "ceil": np.ceil}.items():
        ops[name] = (f"%r = math.{name} %x : f32", ["f32"], "f32", ref, [a])
    return ops


OPS = _ops()
QUICK = ("addf", "maximumf", "fptosi", "roundeven")
"""One run per target of these outside the slow set."""


def check_equal(got: np.ndarray, want: np.ndarray) -> None:
    if got.dtype == np.float32:
        assert np.array_equal(np.isnan(got), np.isnan(want))
        keep = ~np.isnan(want)
        np.testing.assert_array_equal(_bits(got[keep]), _bits(want[keep]))
    else:
        np.testing.assert_array_equal(got, want)


def op_module(name: str):
    body, arguments, result, _, inputs = OPS[name]
    return Parser(full_context(), kernel(body, arguments, result, len(inputs[0]))).parse_module()


def result_dtype(name: str) -> np.dtype:
    return np.dtype(np.float32 if OPS[name][2] == "f32" else np.int32)


def run_op(name: str, target: str, tmp_path) -> np.ndarray:
    """The op under qemu, checked against numpy; returns qemu's result."""
    reference, inputs = OPS[name][3:]
    module = op_module(name)
    assembly = compile_to_assembly(module, target, "kernel")
    dtype = result_dtype(name)
    with np.errstate(all="ignore"):
        want = reference(*inputs).astype(dtype)
    (got,) = run_assembly(assembly, target, "kernel", inputs, [(want.shape, dtype)], tmp_path)
    check_equal(got, want)
    return got


def interpreted(name: str) -> np.ndarray:
    with np.errstate(all="ignore"):
        (result,) = run(op_module(name), list(OPS[name][4])).values()
    return np.asarray(result, result_dtype(name))


CASES = [
    pytest.param(name, target, marks=() if name in QUICK else pytest.mark.slow)
    for target in (*HARD_FLOAT, *SOFT_FLOAT)
    for name in OPS
]


@pytest.mark.usefixtures("riscv_toolchain")
@pytest.mark.parametrize("name, target", CASES)
def test_float_op_under_qemu(name, target, tmp_path):
    check_equal(run_op(name, target, tmp_path), interpreted(name))


@pytest.mark.parametrize("name", [f"{name}_signed_zeros" for name in ("maximumf", "minimumf", "maxnumf", "minnumf")])
def test_interpreter_orders_signed_zeros(name):
    reference, inputs = OPS[name][3:]
    check_equal(interpreted(name), reference(*inputs))


LIVE_CONSTANTS = 24
"""f32 constants live through the loop at once: more than ft0..ft11 and fa0..fa7 hold, so the
allocator takes fs registers, which the prologue must save (the harness checks them)."""


def many_constants_kernel(count: int = LIVE_CONSTANTS) -> tuple[str, list[float]]:
    constants = [1.0 + 0.125 * i for i in range(count)]
    body = ["%v0 = arith.addf %x, %x : f32"]
    for i, c in enumerate(constants):
        operation = "mulf" if i % 2 else "addf"
        body += [f"%c{i} = arith.constant {c!r} : f32", f"%v{i + 1} = arith.{operation} %v{i}, %c{i} : f32"]
    body.append(f"%r = arith.subf %v{count}, %x : f32")
    return kernel("\n    ".join(body), ["f32"], "f32"), constants


@pytest.mark.usefixtures("riscv_toolchain")
@pytest.mark.parametrize("target", ["rv32imf", "rv64imfd"])
def test_callee_saved_float_registers(target, tmp_path):
    ir, constants = many_constants_kernel()
    assembly = compile_to_assembly(Parser(full_context(), ir).parse_module(), target, "kernel")
    assert ("fsw fs0" if target == "rv32imf" else "fsd fs0") in assembly
    x = special_floats(4)
    with np.errstate(all="ignore"):
        want = x + x
        for i, c in enumerate(constants):
            want = want * F32(c) if i % 2 else want + F32(c)
        want = want - x
    (got,) = run_assembly(assembly, target, "kernel", [x], [((N,), np.dtype(np.float32))], tmp_path)
    check_equal(got, want)


REDUCTION = """
func.func @kernel(%a: tensor<8x16xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%e : tensor<8xf32>) {
  ^bb0(%o: f32):
    %c0 = arith.constant 0.0 : f32
    linalg.yield %c0 : f32
  } -> tensor<8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a : tensor<8x16xf32>) outs(%z : tensor<8xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %p = arith.mulf %x, %x : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  func.return %r : tensor<8xf32>
}"""


@pytest.mark.usefixtures("riscv_toolchain")
@pytest.mark.parametrize("target", ["rv32imf", "rv64imfd", "rv32im", "rv64im"])
def test_float_reduction_sums_in_order(target, tmp_path):
    """A loop-carried f32 accumulator: sum of squares, one rounding per product and per addition
    (no fused multiply-add), in index order, as numpy float32 computes it step by step."""
    module = Parser(full_context(), REDUCTION).parse_module()
    x = (np.random.default_rng(5).standard_normal((8, 16)) * 3).astype(np.float32)
    want = np.zeros(8, np.float32)
    for j in range(16):
        want = want + x[:, j] * x[:, j]
    (got,) = run_assembly(compile_to_assembly(module, target, "kernel"), target, "kernel", [x],
                          [((8,), np.dtype(np.float32))], tmp_path)
    check_equal(got, want)
    (interpreted_sum,) = run(module, [x]).values()
    check_equal(got, np.asarray(interpreted_sum, np.float32))


def test_too_many_live_floats_is_one_clear_error():
    ir, _ = many_constants_kernel(40)
    with pytest.raises(RegisterAllocationError, match=r"^riscv: @kernel: more f32 values live at once than the 32 f "):
        compile_to_assembly(Parser(full_context(), ir).parse_module(), "rv32imf", "kernel")


MATMUL = """func.func @kernel(%a: tensor<5x7xf32>, %w: tensor<7x3xf32>) -> tensor<5x3xf32> {
  %e = tensor.empty() : tensor<5x3xf32>
  %z = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<5x3xf32>) {
  ^bb0(%o: f32):
    %c0 = arith.constant 0.0 : f32
    linalg.yield %c0 : f32
  } -> tensor<5x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<5x7xf32>, tensor<7x3xf32>) outs(%z : tensor<5x3xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<5x3xf32>
  func.return %r : tensor<5x3xf32>
}
"""


@pytest.mark.usefixtures("riscv_toolchain")
@pytest.mark.parametrize(
    "target", ["rv32imf", *(pytest.param(t, marks=pytest.mark.slow) for t in ("rv64imfd", "rv32im", "rv64im"))]
)
def test_float_matmul_register_tiled(target, tmp_path):
    """A float contraction through bitfold-riscv-register-tiled-loops (a register tile of f32
    accumulators): products and sums rounded one at a time, in reduction order, never fused."""
    module = Parser(full_context(), MATMUL).parse_module()
    rng = np.random.default_rng(6)
    a, w = rng.standard_normal((5, 7)).astype(np.float32), rng.standard_normal((7, 3)).astype(np.float32)
    want = np.zeros((5, 3), np.float32)
    for k in range(7):
        want = want + a[:, k : k + 1] * w[k : k + 1, :]
    assembly = compile_to_assembly(module, target, "kernel")
    assert "fmadd" not in assembly
    (got,) = run_assembly(assembly, target, "kernel", [a, w], [((5, 3), np.dtype(np.float32))], tmp_path)
    check_equal(got, want)
    (interpreted_product,) = run(module, [a, w]).values()
    check_equal(got, np.asarray(interpreted_product, np.float32))
