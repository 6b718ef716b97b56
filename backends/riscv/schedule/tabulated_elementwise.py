"""`bitfold-riscv-tabulate-elementwise`: a chain of elementwise generics that is a function of one
byte tensor becomes one lookup in a table computed at compile time (on tensors, before
bufferization).

A value v is an elementwise function of the i8 tensor x when it is x, or the result of a
`linalg.generic` (all parallel, one output at the identity whose initial value the body does not
read, no `linalg.index`) whose every input is either such a function of x read at the identity, or
a constant of one repeated value (a per-tensor zero point, multiplier or shift, under any map),
and whose body reads only constants besides its arguments (a lookup table). Then

    v[i] = f(x[i])  for one f : 256 byte values -> v's element type,

and the root of such a chain (a generic whose result some op reads other than a generic of the same
chain) becomes

    %t = arith.constant dense<[f(0), ..., f(255)]>           (indexed by the byte's bits)
    %v = linalg.generic ins(%x) { %i = arith.extui %b : i8 to i32; %e = tensor.extract %t[%i] }

(`bitfold.dialects.table_lookup`). f is computed by bitfold's interpreter (`bitfold.interpreters`)
running the chain's own generics on the 256 bit patterns (the chain cloned onto a 1-D tensor), so
the lookup equals the chain bit for bit, whatever its arithmetic. Models quantized per tensor make
such chains of their activations: MobileNetV3's HardSwish (x times its HardSigmoid table,
requantized: three generics and two buffers) is one lookup, 4 instructions an element on RV32IM
instead of about 30; a requantization of a byte tensor alone is one too. A chain that is a single
lookup already, or of fewer than `MIN_CHAIN_OPERATIONS` body operations, or over fewer than 256
elements, is left alone. Chain generics that nothing else reads are erased.
"""

from collections.abc import Iterable

import numpy as np
from xdsl.context import Context
from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import AffineMapAttr, IntegerType, ModuleOp, TensorType, i8
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import InterpretationError

from bitfold.dialects.onnx.constant import constant_array, dense_attr
from bitfold.dialects.table_lookup import lookup_generic
from bitfold.interpreters import make_interpreter

BYTE_VALUES = 256
"""Entries of a table indexed by an i8's bits."""
MIN_CHAIN_OPERATIONS = 3
"""Body operations (other than constants, extensions, index casts and yields) a chain needs to be
worth a lookup (`lbu`, `add`, a load, a store an element)."""
_FREE = (arith.ConstantOp, arith.ExtUIOp, arith.ExtSIOp, arith.IndexCastOp, linalg.YieldOp)


def _uniform(value: SSAValue) -> bool:
    """A constant tensor of one repeated value."""
    array = constant_array(value) if isinstance(value.owner, arith.ConstantOp) else None
    return array is not None and array.size > 0 and bool(np.all(array == array.flat[0]))


def _captured(op: linalg.GenericOp) -> list[SSAValue]:
    """Values the body reads from outside it."""
    inside = set(op.body.walk())
    return [v for body_op in op.body.walk() for v in body_op.operands
            if isinstance(v.owner, Operation) and v.owner not in inside]


def elementwise_generic(op: Operation) -> bool:
    """A generic whose result is elementwise in its identity-read inputs (module docstring)."""
    if not isinstance(op, linalg.GenericOp) or len(op.outputs) != 1 or len(op.res) != 1:
        return False
    maps = [m.data for m in op.indexing_maps.data]
    rank = maps[-1].num_dims
    return (all(it.data == linalg.IteratorType.PARALLEL for it in op.iterator_types.data)
            and maps[-1] == AffineMap.identity(rank) and not op.body.block.args[-1].uses
            and not any(isinstance(o, linalg.IndexOp) for o in op.body.walk())
            and all(isinstance(v.owner, arith.ConstantOp) for v in _captured(op)))


def pointwise(affine_map: AffineMap, shape: tuple[int, ...]) -> bool:
    """The identity on `shape`: dimension k, or 0 where the extent is 1 (`(0, d1, d2, d3)`)."""
    return len(affine_map.results) == len(shape) and all(
        (isinstance(r, AffineDimExpr) and r.position == k) or (extent == 1 and r == AffineConstantExpr(0))
        for k, (r, extent) in enumerate(zip(affine_map.results, shape)))


def _byte_tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType) and value.type.element_type == i8


class Chains:
    """The byte tensor each value is an elementwise function of (module docstring), memoized."""

    def __init__(self):
        self._source: dict[SSAValue, SSAValue | None] = {}

    def source(self, value: SSAValue) -> SSAValue | None:
        """x such that value = f(x) elementwise, x an i8 tensor (x = value itself for an i8
        tensor not made by such a generic); None if there is none."""
        if value not in self._source:
            self._source[value] = self._derived(value) or (value if _byte_tensor(value) else None)
        return self._source[value]

    def _derived(self, value: SSAValue) -> SSAValue | None:
        op = value.owner
        if not elementwise_generic(op):
            return None
        shape = value.type.get_shape()
        sources = set()
        for operand, affine_map in zip(op.inputs, op.indexing_maps.data, strict=False):
            if _uniform(operand):
                continue
            if not pointwise(affine_map.data, shape) or operand.type.get_shape() != shape:
                return None
            if (source := self.source(operand)) is None:
                return None
            sources.add(source)
        return sources.pop() if len(sources) == 1 else None

    def generics(self, root: linalg.GenericOp, source: SSAValue) -> list[linalg.GenericOp]:
        """The chain's generics from `source` to `root`, producers first."""
        order: list[linalg.GenericOp] = []

        def visit(op: linalg.GenericOp) -> None:
            if op in order:
                return
            for operand in op.inputs:
                if operand is not source and not _uniform(operand):
                    visit(operand.owner)
            order.append(op)

        visit(root)
        return order


def _chain_operations(chain: Iterable[linalg.GenericOp]) -> int:
    return sum(not isinstance(o, _FREE) for op in chain for o in op.body.walk())


def _is_lookup(chain: list[linalg.GenericOp]) -> bool:
    return len(chain) == 1 and any(isinstance(o, tensor.ExtractOp) for o in chain[0].body.walk())


def _one_dimensional(chain: list[linalg.GenericOp], source: SSAValue) -> ModuleOp:
    """A function of a tensor<256xi8> computing the chain's generics on it (constants read at index 0)."""
    arg = Block(arg_types=[TensorType(i8, [BYTE_VALUES])])
    mapping: dict[SSAValue, SSAValue] = {source: arg.args[0]}
    identity, first = AffineMap.identity(1), AffineMap(1, 0, (AffineConstantExpr(0),))
    ops: list[Operation] = []
    for op in chain:
        for value in _captured(op):
            if value not in mapping:
                ops.append(clone := value.owner.clone())
                mapping[value] = clone.results[0]
        inputs, maps = [], []
        for operand in op.inputs:
            if _uniform(operand):
                array = constant_array(operand).reshape(-1)[:1]
                ops.append(scalar := arith.ConstantOp(dense_attr(array, operand.type.element_type)))
                inputs.append(scalar.result)
                maps.append(first)
            else:
                inputs.append(mapping[operand])
                maps.append(identity)
        result_type = TensorType(op.res[0].type.element_type, [BYTE_VALUES])
        ops.append(init := tensor.EmptyOp([], result_type))
        op.body.clone_into(body := Region(), value_mapper=dict(mapping))
        ops.append(generic := linalg.GenericOp(
            inputs, [init.tensor], body,
            [AffineMapAttr(m) for m in [*maps, identity]], [linalg.IteratorTypeAttr.parallel()], [result_type]))
        mapping[op.res[0]] = generic.res[0]
    result = mapping[chain[-1].res[0]]
    arg.add_ops([*ops, func.ReturnOp(result)])
    function = func.FuncOp("chain", ([arg.args[0].type], [result.type]), Region(arg))
    return ModuleOp([function])


def chain_table(chain: list[linalg.GenericOp], source: SSAValue) -> np.ndarray | None:
    """f(b) for the 256 bit patterns b of the source's bytes (b as an unsigned index); None where
    the interpreter cannot run the chain on a byte the source never holds (an inner table shorter
    than 256 entries indexed out of its bounds, a division by zero)."""
    module = _one_dimensional(chain, source)
    patterns = np.arange(BYTE_VALUES, dtype=np.uint8).view(np.int8)
    try:
        (values,) = make_interpreter(module).call_op(module.ops.first, (patterns,))
    except (InterpretationError, IndexError, ArithmeticError):
        return None
    return np.asarray(values)


def _erase_dead(chain: list[linalg.GenericOp]) -> None:
    for op in reversed(chain):
        if not op.res[0].uses:
            operands = list(op.operands)
            Rewriter.erase_op(op)
            for value in operands:
                if isinstance(value.owner, arith.ConstantOp | tensor.EmptyOp) and not value.uses:
                    Rewriter.erase_op(value.owner)


def tabulate(function: func.FuncOp) -> None:
    """Every chain root in `function` becomes a lookup (module docstring)."""
    chains = Chains()
    for op in list(function.walk()):
        if op.parent is None or not elementwise_generic(op) or not isinstance(op.res[0].type.element_type, IntegerType):
            continue
        source = chains.source(op.res[0])
        if source is None or source is op.res[0] or source.type.element_count() < BYTE_VALUES:
            continue
        if all(elementwise_generic(use.operation) and chains.source(use.operation.res[0]) is source for use in op.res[0].uses):
            continue  # not a root: its users extend the chain
        chain = chains.generics(op, source)
        if _is_lookup(chain) or _chain_operations(chain) < MIN_CHAIN_OPERATIONS:
            continue
        if (values := chain_table(chain, source)) is None:
            continue
        table = arith.ConstantOp(dense_attr(values, op.res[0].type.element_type))
        lookup = lookup_generic(source, table.result, op.outputs[0], signed=False)
        Rewriter.insert_op([table, lookup], InsertPoint.before(op))
        op.res[0].replace_all_uses_with(lookup.res[0])
        _erase_dead(chain)


class BitfoldRiscvTabulateElementwisePass(ModulePass):
    """Elementwise chains that are functions of one byte tensor become table lookups (module
    docstring); on tensors, bit-exact to the interpreter by construction."""

    name = "bitfold-riscv-tabulate-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for function in op.ops:
            if isinstance(function, func.FuncOp) and function.body.blocks:
                tabulate(function)
