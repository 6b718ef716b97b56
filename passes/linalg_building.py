"""Building `linalg.generic`s, shared by the passes that emit them (lower-quant,
quant-to-integer, onnx-data-movement-to-linalg): a body under construction and the generic
around it."""

from collections.abc import Callable, Mapping, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import AffineMapAttr, FloatAttr, IndexType, IntegerAttr, IntegerType, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap


class Body:
    """A generic's block under construction: `emit(op)` appends an op and returns its (first)
    result; `values` holds the block's arguments by name."""

    def __init__(self, block: Block, values: Mapping[str, SSAValue] = ()):
        self.block = block
        self.values = dict(values)
        self._index_constants: dict[int, SSAValue] = {}

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]

    def constant(self, value, element_type: Attribute) -> SSAValue:
        """An `arith.constant` of an integer or float type."""
        if isinstance(element_type, IntegerType | IndexType):
            return self.emit(arith.ConstantOp(IntegerAttr(int(value), element_type)))
        return self.emit(arith.ConstantOp(FloatAttr(float(value), element_type)))

    def index_constant(self, value: int) -> SSAValue:
        """An `index` constant, emitted once per body."""
        if value not in self._index_constants:
            self._index_constants[value] = self.constant(value, IndexType())
        return self._index_constants[value]

    def index(self, dim: int) -> SSAValue:
        """The iteration index along loop `dim` (`linalg.index`)."""
        return self.emit(linalg.IndexOp(dim))

    def clamp(self, value: SSAValue, low: int | None, high: int | None) -> SSAValue:
        """An index clamped to [low, high] (signed), either bound None where not needed."""
        if low is not None:
            value = self.emit(arith.MaxSIOp(value, self.index_constant(low)))
        if high is not None:
            value = self.emit(arith.MinSIOp(value, self.index_constant(high)))
        return value


def generic_op(
    inputs: Sequence[tuple[SSAValue, AffineMap]],
    init: tuple[SSAValue, AffineMap],
    reduction_dims: Sequence[int],
    build: Callable[[Body], SSAValue],
) -> linalg.GenericOp:
    """A generic with one output, reading `inputs` through their maps and updating `init`
    (body values "in0", "in1", ... and "output"); the loops not in `reduction_dims` are
    parallel, the value `build` returns is yielded."""
    out_type = init[0].type
    assert isinstance(out_type, TensorType)
    block = Block(arg_types=[*(v.type.element_type for v, _ in inputs), out_type.element_type])
    names = [f"in{i}" for i in range(len(inputs))] + ["output"]
    body = Body(block, dict(zip(names, block.args, strict=True)))
    block.add_op(linalg.YieldOp(build(body)))
    rank = init[1].num_dims
    return linalg.GenericOp(
        [v for v, _ in inputs],
        [init[0]],
        Region(block),
        [AffineMapAttr(m) for _, m in (*inputs, init)],
        [IteratorTypeAttr.reduction() if d in reduction_dims else IteratorTypeAttr.parallel() for d in range(rank)],
        [out_type],
    )
