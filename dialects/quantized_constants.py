"""Quantized constants in canonical form (docs/canonical-quant-form.md, "Values"): the signless
storage integers in an `onnx.Constant`, reinterpreted as the quantized type by a `quant.scast`.

    %c = "onnx.Constant"() {value = dense<[-127, 3]> : tensor<2xi8>} : () -> tensor<2xi8>
    %w = quant.scast %c : tensor<2xi8> to tensor<2x!quant.uniform<i8<-127:127>:f32, 0.5>>
"""

import numpy as np
from xdsl.dialects.builtin import TensorType
from xdsl.ir import SSAValue

from bitfold.dialects.onnx.constant import ConstantOp, dense_attr, dense_to_numpy
from bitfold.dialects.quant import QuantizedType, StorageCastOp, element_type
from bitfold.dialects.quant_semantics import to_storage


def storage_constant(stored: np.ndarray, qtype: QuantizedType) -> ConstantOp:
    """An `onnx.Constant` of the signless storage integers (`quant.scast`'s integer type)
    holding the stored values `stored` of `qtype`."""
    value = dense_attr(to_storage(stored, qtype), qtype.storage_integer_type())
    return ConstantOp.create(attributes={"value": value}, result_types=[value.type])


def quantized_constant(stored: np.ndarray, tensor_type: TensorType) -> tuple[ConstantOp, StorageCastOp]:
    """The canonical constant of `tensor_type` (quantized elements) holding the stored values
    `stored`: the storage constant and the scast reading it as `tensor_type`."""
    integers = storage_constant(np.asarray(stored), element_type(tensor_type))
    return integers, StorageCastOp(integers.output, tensor_type)


def is_quantized_constant(value: SSAValue) -> bool:
    """Whether `value` is a quantized constant in canonical form: the `quant.scast` of an
    `onnx.Constant` of integers to a quantized type."""
    cast = value.owner
    return (
        isinstance(cast, StorageCastOp)
        and isinstance(cast.input.owner, ConstantOp)
        and isinstance(element_type(value.type), QuantizedType)
    )


def constant_stored_values(value: SSAValue) -> np.ndarray | None:
    """The stored values of `value` when it is a quantized constant in canonical form, else
    None."""
    if not is_quantized_constant(value):
        return None
    cast = value.owner
    (stored,) = cast.evaluate([dense_to_numpy(cast.input.owner.value)])
    return stored
