"""Run integer ONNX data-movement ops before (their numpy `evaluate`) and after
`onnx-data-movement-to-linalg` (the interpreter on tensor / linalg ops) on random inputs:
bit-exact, over shapes, axes, permutations, pads and element types; the lowered IR holds only
the ops the backend consumes, and upstream MLIR accepts it."""

from collections.abc import Sequence

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import PassFailedException

from bitfold.interpreter import run
from bitfold.load import full_context
from bitfold.passes.onnx_data_movement_to_linalg import OnnxDataMovementToLinalgPass

RNG = np.random.default_rng(23)

BACKEND_OPS = {
    "builtin.module", "func.func", "func.return", "tensor.empty", "tensor.extract", "tensor.collapse_shape",
    "tensor.expand_shape", "linalg.generic", "linalg.index", "linalg.yield",
}  # fmt: skip
"""Besides `arith.*`: the ops docs/integer-ir.md lists as the backend's input."""

RANGES = {"i1": (0, 1), "i4": (-8, 7), "i8": (-128, 127), "i16": (-(2**15), 2**15 - 1), "i32": (-(2**31), 2**31 - 1)}
DTYPES = {"i1": np.bool_, "i4": np.int8, "i8": np.int8, "i16": np.int16, "i32": np.int32}


def _tensor(shape: Sequence[int], element: str) -> str:
    return f"tensor<{'x'.join(map(str, shape))}{'x' if len(shape) else ''}{element}>"


def _random(shape: Sequence[int], element: str) -> np.ndarray:
    low, high = RANGES[element]
    return RNG.integers(low, high, shape, endpoint=True).astype(DTYPES[element])


def _module(
    inputs: dict[str, tuple[Sequence[int], str]],
    constants: dict[str, np.ndarray],
    op: str,
    operands: Sequence[str],
    result: str,
) -> str:
    """One function: `inputs` as arguments, `constants` as i64 (or given dtype) onnx.Constants,
    then `op` (its text up to the type) applied to `operands`, returning a tensor `result`."""
    types = {name: _tensor(shape, element) for name, (shape, element) in inputs.items()}
    lines = []
    for name, value in constants.items():
        element = {np.dtype(np.int64): "i64", np.dtype(np.int8): "i8", np.dtype(np.int32): "i32"}[value.dtype]
        types[name] = _tensor(value.shape, element)
        literal = np.array2string(value.reshape(-1), separator=", ") if value.ndim else str(value)
        lines.append(
            f'  %{name} = "onnx.Constant"() {{value = dense<{literal}> : {types[name]}}} : () -> {types[name]}'
        )
    arguments = ", ".join(f"%{name}: {types[name]}" for name in inputs)
    operand_types = ", ".join(types[name] for name in operands)
    return "\n".join(
        [
            f"func.func @main({arguments}) -> {result} {{",
            *lines,
            f"  %r = {op} : ({operand_types}) -> {result}",
            f"  func.return %r : {result}",
            "}",
        ]
    )


def _parse(text: str) -> ModuleOp:
    module = Parser(full_context(), text).parse_module()
    module.verify()
    return module


def _lower(text: str) -> ModuleOp:
    module = _parse(text)
    OnnxDataMovementToLinalgPass().apply(Context(), module)
    module.verify()
    return module


def _check(text: str, inputs: Sequence[np.ndarray]) -> ModuleOp:
    """Interpreter before == after, bit for bit; returns the lowered module."""
    (expected,) = run(_parse(text), list(inputs)).values()
    lowered = _lower(text)
    names = {op.name for op in lowered.walk()}
    assert {name for name in names if not name.startswith("arith.")} <= BACKEND_OPS, names
    (actual,) = run(lowered, list(inputs)).values()
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)
    return lowered


# ---------------------------------------------------------------------------------------------
# Reshapes: Flatten, Reshape, Squeeze, Unsqueeze


@pytest.mark.parametrize("axis", [0, 1, 2, 3, 4, -1, -3])
def test_flatten(axis: int):
    shape = (2, 3, 4, 5)
    x = _random(shape, "i8")
    split = axis + len(shape) if axis < 0 else axis
    result = x.reshape(int(np.prod(shape[:split])), int(np.prod(shape[split:])))
    op = f'"onnx.Flatten"(%x) {{axis = {axis} : i64}}'
    _check(_module({"x": (shape, "i8")}, {}, op, ["x"], _tensor(result.shape, "i8")), [x])


RESHAPES = [
    ((2, 3, 4), [6, 4]), ((2, 3, 4), [2, 12]), ((2, 3, 4), [24]), ((2, 3, 4), [2, -1]), ((2, 3, 4), [0, 12]),
    ((2, 3, 4), [3, 2, 4]), ((2, 3, 4), [4, 3, 2]), ((2, 3, 4), [1, 24, 1]), ((2, 3, 4), [2, 3, 4]),
    ((2, 3, 4), [2, 3, 2, 2]), ((6, 4), [2, 3, 4]), ((1, 8, 1, 1), [1, 8]), ((1, 8, 1, 1), [8]),
    ((4, 6), [3, 8]), ((2, 2, 3, 2), [4, 6]), ((1,), []), ((), [1, 1]), ((5, 1), [1, 5]),
]  # fmt: skip


@pytest.mark.parametrize("shape, target", RESHAPES, ids=[f"{s}->{t}" for s, t in RESHAPES])
@pytest.mark.parametrize("element", ["i8", "i32", "i1"])
def test_reshape(shape, target, element: str):
    x = _random(shape, element)
    target_array = np.array(target, dtype=np.int64)
    result = x.reshape([shape[i] if size == 0 else size for i, size in enumerate(target)])
    op = '"onnx.Reshape"(%x, %shape) {allowzero = 0 : i64}'
    _check(
        _module({"x": (shape, element)}, {"shape": target_array}, op, ["x", "shape"], _tensor(result.shape, element)),
        [x],
    )


def test_reshape_is_one_collapse_or_one_expand_when_it_can_be():
    collapse = _module(
        {"x": ((2, 3, 4), "i8")},
        {"s": np.array([6, 4])},
        '"onnx.Reshape"(%x, %s) {allowzero = 0 : i64}',
        ["x", "s"],
        "tensor<6x4xi8>",
    )
    assert [op.name for op in _lower(collapse).walk()][2:4] == ["tensor.collapse_shape", "func.return"]
    expand = _module(
        {"x": ((6, 4), "i8")},
        {"s": np.array([2, 3, 2, 2])},
        '"onnx.Reshape"(%x, %s) {allowzero = 0 : i64}',
        ["x", "s"],
        "tensor<2x3x2x2xi8>",
    )
    assert [op.name for op in _lower(expand).walk()][2:4] == ["tensor.expand_shape", "func.return"]


@pytest.mark.parametrize(
    "shape, axes", [((1, 3, 4), [0]), ((1, 3, 1, 4), [0, 2]), ((2, 1, 1), [-1]), ((1, 3, 1, 1), None), ((1, 1), [0, 1])]
)
def test_squeeze(shape, axes):
    x = _random(shape, "i16")
    result = np.squeeze(x, axis=None if axes is None else tuple(axes))
    if axes is None:
        op, operands, constants = '"onnx.Squeeze"(%x) <{operandSegmentSizes = array<i32: 1, 0>}>', ["x"], {}
    else:
        op, operands, constants = (
            '"onnx.Squeeze"(%x, %a) <{operandSegmentSizes = array<i32: 1, 1>}>',
            ["x", "a"],
            {"a": np.array(axes)},
        )
    _check(_module({"x": (shape, "i16")}, constants, op, operands, _tensor(result.shape, "i16")), [x])


@pytest.mark.parametrize("shape, axes", [((3, 4), [0]), ((3, 4), [1, 3]), ((3, 4), [-1]), ((8,), [0, 2, 3]), ((), [0])])
def test_unsqueeze(shape, axes):
    x = _random(shape, "i8")
    result = np.expand_dims(x, tuple(a % (len(shape) + len(axes)) for a in axes))
    op = '"onnx.Unsqueeze"(%x, %a)'
    _check(_module({"x": (shape, "i8")}, {"a": np.array(axes)}, op, ["x", "a"], _tensor(result.shape, "i8")), [x])


# ---------------------------------------------------------------------------------------------
# Transpose


@pytest.mark.parametrize(
    "shape, perm",
    [((3, 4), [1, 0]), ((2, 3, 4), [2, 0, 1]), ((2, 3, 4), [1, 2, 0]), ((2, 3, 4), None), ((1, 3, 4, 5), [0, 2, 3, 1]),
     ((1, 4, 5, 3), [0, 3, 1, 2]), ((2, 3, 4, 5), [3, 1, 0, 2]), ((2, 3), [0, 1])],
)  # fmt: skip
@pytest.mark.parametrize("element", ["i8", "i4"])
def test_transpose(shape, perm, element: str):
    x = _random(shape, element)
    result = np.transpose(x, perm)
    attribute = "" if perm is None else f" {{perm = array<i64: {', '.join(map(str, perm))}>}}"
    _check(
        _module({"x": (shape, element)}, {}, f'"onnx.Transpose"(%x){attribute}', ["x"], _tensor(result.shape, element)),
        [x],
    )


# ---------------------------------------------------------------------------------------------
# Pad

PADS = [
    ((1, 3, 5, 5), [0, 0, 1, 1, 0, 0, 1, 1], None),  # Conv padding
    ((1, 3, 5, 5), [0, 0, 0, 2, 0, 0, 3, 0], None),
    ((4,), [2, 3], None),
    ((2, 6), [1, -2, -1, 3], None),  # negative pads remove first
    ((3, 4, 5), [-1, 0, 2, 1, -2, 0], None),
    ((1, 3, 5, 5), [1, 2, 2, 1], [2, 3]),  # axes
    ((1, 3, 5, 5), [1, 1, 0, 2], [-1, 1]),
    ((2, 3), [0, 0, 0, 0], None),
]  # fmt: skip


def _pad_case(shape, pads, axes, element: str, value: int | None, mode: str = "constant") -> tuple[str, np.ndarray]:
    x = _random(shape, element)
    rank = len(shape)
    axes_list = list(range(rank)) if axes is None else [a % rank for a in axes]
    out_shape = list(shape)
    for i, axis in enumerate(axes_list):
        out_shape[axis] += pads[i] + pads[len(axes_list) + i]
    constants = {"pads": np.array(pads, dtype=np.int64)}
    operands = ["x", "pads"]
    if value is not None:
        constants["v"] = np.array(value, dtype=DTYPES[element])
        operands.append("v")
    if axes is not None:
        constants["axes"] = np.array(axes, dtype=np.int64)
        operands.append("axes")
    segments = f"1, 1, {int(value is not None)}, {int(axes is not None)}"
    arguments = ", ".join("%" + o for o in operands)
    op = f'"onnx.Pad"({arguments}) <{{operandSegmentSizes = array<i32: {segments}>}}> {{mode = "{mode}"}}'
    return _module({"x": (shape, element)}, constants, op, operands, _tensor(out_shape, element)), x


@pytest.mark.parametrize("shape, pads, axes", PADS, ids=[f"{s}{p}{a}" for s, p, a in PADS])
@pytest.mark.parametrize("element, value", [("i8", None), ("i8", -3), ("i8", 127), ("i32", -70000)])
def test_pad_constant(shape, pads, axes, element: str, value):
    text, x = _pad_case(shape, pads, axes, element, value)
    _check(text, [x])


@pytest.mark.parametrize("shape, pads, axes", PADS[:5], ids=[f"{s}{p}{a}" for s, p, a in PADS[:5]])
def test_pad_edge(shape, pads, axes):
    text, x = _pad_case(shape, pads, axes, "i8", None, mode="edge")
    _check(text, [x])


# ---------------------------------------------------------------------------------------------
# Concat

CONCATS = [
    ([(2, 3), (2, 5)], 1), ([(2, 3), (4, 3)], 0), ([(1, 2, 4, 4), (1, 3, 4, 4), (1, 1, 4, 4)], 1),
    ([(1, 2, 4, 4), (1, 2, 4, 4)], -1), ([(3,), (1,), (2,), (4,)], 0), ([(2, 3)], 1), ([(2, 2, 2), (2, 2, 2)], -3),
]  # fmt: skip


@pytest.mark.parametrize("shapes, axis", CONCATS, ids=[f"{s}@{a}" for s, a in CONCATS])
@pytest.mark.parametrize("element", ["i8", "i32"])
def test_concat(shapes, axis: int, element: str):
    xs = [_random(shape, element) for shape in shapes]
    result = np.concatenate(xs, axis=axis)
    names = [f"x{k}" for k in range(len(shapes))]
    op = f'"onnx.Concat"({", ".join("%" + n for n in names)}) {{axis = {axis} : i64}}'
    inputs = {name: (shape, element) for name, shape in zip(names, shapes)}
    _check(_module(inputs, {}, op, names, _tensor(result.shape, element)), xs)


# ---------------------------------------------------------------------------------------------
# What stays, what fails, what MLIR says


def test_non_f32_float_ops_stay():
    """f32 data movement is a float island's and lowers; other float types stay ONNX ops."""
    text = _module(
        {"x": ((2, 3), "f16")}, {}, '"onnx.Transpose"(%x) {perm = array<i64: 1, 0>}', ["x"], "tensor<3x2xf16>"
    )
    assert '"onnx.Transpose"' in str(_lower(text))


@pytest.mark.parametrize("mode", ["reflect", "wrap"])
def test_pad_mode_fails_naming_the_op(mode: str):
    text, _ = _pad_case((4, 4), [1, 1, 1, 1], None, "i8", None, mode=mode)
    with pytest.raises(
        PassFailedException, match=f"onnx-data-movement-to-linalg: 'onnx.Pad'.*mode '{mode}' is not supported"
    ):
        _lower(text)


def test_dynamic_pads_fail_naming_the_node():
    text = """
func.func @main(%x: tensor<4xi8>, %pads: tensor<2xi64>) -> tensor<6xi8> {
  %r = "onnx.Pad"(%x, %pads) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>}> {mode = "constant"} : (tensor<4xi8>, tensor<2xi64>) -> tensor<6xi8> loc("pad_node")
  func.return %r : tensor<6xi8>
}"""
    with pytest.raises(
        PassFailedException,
        match=r"^onnx-data-movement-to-linalg: 'onnx.Pad' \(pad_node\): pads is not a constant",
    ):
        _lower(text)


def test_dynamic_reshape_shape_fails():
    text = """
func.func @main(%x: tensor<2x3xi8>, %s: tensor<1xi64>) -> tensor<6xi8> {
  %r = "onnx.Reshape"(%x, %s) {allowzero = 0 : i64} : (tensor<2x3xi8>, tensor<1xi64>) -> tensor<6xi8>
  func.return %r : tensor<6xi8>
}"""
    with pytest.raises(PassFailedException, match="'onnx.Reshape': shape is not a constant"):
        _lower(text)


def test_mlir_accepts_the_lowered_ir(mlir_opt):
    """Upstream mlir-opt parses and verifies every pattern's output (reshape groups, the
    transpose map, pad and concat bodies)."""
    texts = [
        _module(
            {"x": ((2, 3, 4), "i8")},
            {"s": np.array([3, 2, 4])},
            '"onnx.Reshape"(%x, %s) {allowzero = 0 : i64}',
            ["x", "s"],
            "tensor<3x2x4xi8>",
        ),
        _module({"x": ((), "i8")}, {"a": np.array([0, 1])}, '"onnx.Unsqueeze"(%x, %a)', ["x", "a"], "tensor<1x1xi8>"),
        _module(
            {"x": ((1, 1), "i8")},
            {"s": np.array([], dtype=np.int64)},
            '"onnx.Reshape"(%x, %s) {allowzero = 0 : i64}',
            ["x", "s"],
            "tensor<i8>",
        ),
        _module(
            {"x": ((2, 3, 4), "i8")}, {}, '"onnx.Transpose"(%x) {perm = array<i64: 2, 0, 1>}', ["x"], "tensor<4x2x3xi8>"
        ),
        _pad_case((1, 3, 5, 5), [0, 0, 1, -1, 0, 0, 2, 1], None, "i8", -5)[0],
        _pad_case((3, 5), [1, 2, 0, 1], None, "i8", None, mode="edge")[0],
        _module(
            {"a": ((2, 3), "i8"), "b": ((2, 5), "i8")},
            {},
            '"onnx.Concat"(%a, %b) {axis = 1 : i64}',
            ["a", "b"],
            "tensor<2x8xi8>",
        ),
    ]
    for text in texts:
        lowered = str(_lower(text))
        assert "onnx." not in lowered
        mlir_opt(lowered)


def test_arith_constant_operands_splat_included():
    """Pads and value may be `arith.constant`s (splats too); they go with the op."""
    text = """
func.func @main(%x: tensor<2x3xi8>) -> tensor<4x5xi8> {
  %pads = arith.constant dense<1> : tensor<4xi64>
  %v = arith.constant dense<7> : tensor<1xi8>
  %r = "onnx.Pad"(%x, %pads, %v) <{operandSegmentSizes = array<i32: 1, 1, 1, 0>}> {mode = "constant"}
       : (tensor<2x3xi8>, tensor<4xi64>, tensor<1xi8>) -> tensor<4x5xi8>
  func.return %r : tensor<4x5xi8>
}"""
    lowered = _check(text, [_random((2, 3), "i8")])
    assert "dense" not in str(lowered)
