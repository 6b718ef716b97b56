"""Reading a node's quantization parameters (scale, zero point, bit width) from its constant
operands into quant types, with the node named in every error.

After the importer, a static parameter is the result of an `onnx.Constant`; anything else is
dynamic quantization, which the canonical form cannot express: the pass fails with one line
naming the node (its `NameLoc`, `OnnxOp.node_name`)."""

from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial

import numpy as np
from xdsl.dialects.builtin import AnyFloat
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.onnx.base import OnnxOp
from bitfold.dialects.onnx.constant import constant_array
from bitfold.dialects.quant import (
    EXPRESSED_TYPE_NAMES,
    MAX_STORAGE_BITS,
    BipolarQuantizedType,
    QuantizedType,
    UniformQuantizedType,
    element_type,
)
from bitfold.passes.utils import pass_failure
from bitfold.passes.utils.canonical_storage import canonical_storage

fail = partial(pass_failure.fail, "onnx-to-quant")
"""`fail(op, message)`: stop the pass with one line naming the op and its node."""


def constant_parameter(op: OnnxOp, operand: SSAValue, role: str) -> np.ndarray:
    """The value of a constant operand (`constant_array`); a non-constant (dynamic) one fails the pass."""
    values = constant_array(operand)
    if values is None:
        fail(op, f"{role} is not a constant (dynamic quantization parameters are not supported)")
    return values


def integer_array(op: OnnxOp, values: np.ndarray, role: str) -> np.ndarray:
    """`values` as int64, failing when one is not an integer (QONNX holds them as floats)."""
    if not np.all(np.isfinite(values)) or np.any(values != np.round(values)):
        fail(op, f"{role} must be an integer, got {values.tolist()}")
    return values.astype(np.int64)


def bit_width_operand(op: OnnxOp, operand: SSAValue, role: str) -> int:
    """A QONNX bit width operand: one integer in 1..32."""
    values = integer_array(op, constant_parameter(op, operand, role), role)
    if values.size != 1 or not 1 <= values.flat[0] <= MAX_STORAGE_BITS:
        fail(op, f"{role} must be one integer in 1..{MAX_STORAGE_BITS}, got {values.reshape(-1)[0] if values.size == 1 else values.tolist()}")
    return int(values.flat[0])


@dataclass(frozen=True)
class Parameters:
    """Scales and zero points laid out as a quant type holds them: 0-d per tensor, 1-D along
    `axis` per axis, a rank-d table with `block_sizes` per block."""

    scales: np.ndarray
    zero_points: np.ndarray
    axis: int | None = None
    block_sizes: dict[int, int] | None = None


def onnx_parameters(op: OnnxOp, scale: np.ndarray, zero_point: np.ndarray | None,
                    shape: Sequence[int], axis: int, block_size: int) -> Parameters:
    """ONNX's layout (QuantizeLinear's `expand`): one element per tensor, else per `axis`, or
    with `block_size` > 0 a table of the input's rank blocked along `axis` (every other axis
    has one scale per index: block 1)."""
    zero_points = np.zeros(scale.shape, np.int64) if zero_point is None else zero_point.astype(np.int64)
    if scale.size == 1:
        return Parameters(scale.reshape(()), zero_points.reshape(()))
    axis %= len(shape)
    if block_size <= 0:
        return Parameters(scale.reshape(-1), np.broadcast_to(zero_points.reshape(-1), (scale.size,)), axis)
    if shape[axis] % block_size:
        fail(op, f"block_size {block_size} does not divide dimension {axis} of size {shape[axis]}")
    blocks = {d: block_size if d == axis else 1 for d in range(len(shape))}
    return Parameters(scale, np.broadcast_to(zero_points, scale.shape), block_sizes=blocks)


def broadcast_parameters(op: OnnxOp, scale: np.ndarray, zero_point: np.ndarray, rank: int) -> Parameters:
    """QONNX's layout (numpy broadcasting against a rank-`rank` input): per tensor when every
    dimension is 1, per axis when one is not (`(1, C, 1, 1)` is axis 1, `(C, 1, 1, 1)` axis
    0); anything else fails."""
    if scale.ndim > rank or zero_point.ndim > rank:
        fail(op, f"parameters of rank {max(scale.ndim, zero_point.ndim)} do not broadcast to rank {rank}")
    padded = [np.reshape(p, (1,) * (rank - p.ndim) + p.shape) for p in (scale, zero_point)]
    shape = np.broadcast_shapes(*(p.shape for p in padded))
    axes = [d for d, size in enumerate(shape) if size > 1]
    scales, zero_points = (np.broadcast_to(p, shape) for p in padded)
    if not axes:
        return Parameters(scales.reshape(()), zero_points.reshape(()).astype(np.int64))
    if len(axes) > 1:
        fail(op, f"parameter shape {shape} is neither per tensor nor per channel")
    return Parameters(scales.reshape(-1), zero_points.reshape(-1).astype(np.int64), axes[0])


def checked(op: OnnxOp, qtype: QuantizedType) -> QuantizedType:
    """`qtype`, once it is valid: a zero scale, a zero point outside the range, ... fail the
    pass naming the node."""
    try:
        qtype.verify()
    except VerifyException as error:
        fail(op, f"invalid quantization parameters: {error}")
    return qtype


def uniform_type(op: OnnxOp, expressed: AnyFloat, parameters: Parameters,
                 value_range: tuple[int, int]) -> UniformQuantizedType:
    """The uniform type of these parameters and range, with canonical storage."""
    bits, signed = canonical_storage(*value_range)
    qtype = UniformQuantizedType.get(
        bits, signed, expressed, parameters.scales, parameters.zero_points, axis=parameters.axis,
        block_sizes=parameters.block_sizes, storage_range=value_range,
    )
    return checked(op, qtype)


def bipolar_type(op: OnnxOp, expressed: AnyFloat, parameters: Parameters) -> BipolarQuantizedType:
    """The bipolar type of these scales (zero points must be 0: nothing else is {-s, +s})."""
    if np.any(parameters.zero_points != 0):
        fail(op, f"a bipolar (1-bit signed) quantizer takes no zero point, got {parameters.zero_points.tolist()}")
    qtype = BipolarQuantizedType.get(expressed, parameters.scales.reshape(-1).tolist(), parameters.axis)
    return checked(op, qtype)


def float_element(op: OnnxOp, value: SSAValue) -> AnyFloat:
    """The float element type of a tensor value (the expressed type of its quantization)."""
    element = element_type(value.type)
    if not isinstance(element, tuple(EXPRESSED_TYPE_NAMES)):
        fail(op, f"expected a float tensor, got {value.type}")
    return element  # pyright: ignore[reportReturnType]


def same_float_type(op: OnnxOp, array: np.ndarray, expressed: AnyFloat, role: str) -> None:
    """The quantization arithmetic divides in the expressed type: `role` must have it."""
    if array.dtype != numpy_dtype(expressed):
        fail(op, f"{role} is {array.dtype}, but the quantized tensor is {expressed}")

