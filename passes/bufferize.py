"""`bufferize`: the backend's tensor IR (docs/integer-ir.md, "After onnx-data-movement-to-linalg")
to memrefs, in destination-passing style with static buffers only.

What the pass guarantees, for a module whose public functions use only `arith.constant`,
`tensor.empty`, `linalg.generic`, `tensor.extract` (inside generic bodies or outside),
`tensor.collapse_shape`, `tensor.expand_shape` and `func.return` on statically shaped tensors:

- Signature: every tensor argument becomes a memref argument of the same shape and element
  type; every result becomes an extra trailing memref argument (an output buffer the caller
  owns) and the function returns nothing. In C: `void f(const int8_t *in0, ..., int32_t *out0)`.
  The original result attributes move to the output arguments' attributes.
- Inputs are only read, never written.
- A dense `arith.constant` tensor becomes a constant `memref.global` (read-only data) read
  through `memref.get_global`.
- Every intermediate buffer is a private, uninitialized `memref.global` (static storage: no
  allocation at run time). Two intermediates share one buffer when they have the same type
  and their lifetimes (from the op that writes one to the last op reading it or a view of it)
  do not overlap in the function's block.
- A `linalg.generic` on tensors becomes a `linalg.generic` on memrefs writing its destination
  buffer: the output argument when its result is returned (once; a second return of the same
  value is a copy), else an intermediate buffer. When the body reads the output's block
  argument (a reduction, an accumulation into a bias) or the init is not a `tensor.empty`, the
  init is first copied into the destination by a copy `linalg.generic`; an init that is a
  `tensor.empty` read by nobody costs nothing.
- `tensor.extract` becomes `memref.load`; the two reshapes become `memref.collapse_shape` /
  `memref.expand_shape` views of the same buffer (identity layouts only, so they are plain
  pointer casts for the backend).
- A returned value that no generic wrote into the output argument (a reshape view, an input,
  a constant, an init) is copied into the output argument with a copy `linalg.generic`.

Anything else on tensors fails with one line naming the op.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func, linalg, memref, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    MemRefType,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

PARALLEL = linalg.IteratorTypeAttr.parallel()


def memref_type_of(tensor_type: Attribute) -> MemRefType:
    """The identity-layout memref of a statically shaped tensor type."""
    if not isinstance(tensor_type, TensorType):
        raise PassFailedException(f"bufferize: expected a tensor type, got {tensor_type}")
    shape = tensor_type.get_shape()
    if any(d < 0 for d in shape):
        raise PassFailedException(f"bufferize: dynamic shapes are not supported ({tensor_type})")
    return MemRefType(tensor_type.get_element_type(), shape)


def copy_generic(source: SSAValue, destination: SSAValue) -> linalg.GenericOp:
    """A `linalg.generic` copying `source` into `destination` (same shape)."""
    rank = len(destination.type.get_shape())
    element_type = destination.type.get_element_type()
    identity = AffineMapAttr(AffineMap.identity(rank))
    body = Block(arg_types=(element_type, element_type))
    body.add_op(linalg.YieldOp(body.args[0]))
    return linalg.GenericOp((source,), (destination,), Region(body), (identity, identity), (PARALLEL,) * rank)


@dataclass
class _BufferPool:
    """Static buffers (`memref.global`s) of one function, reused across disjoint lifetimes."""

    module: ModuleOp
    prefix: str
    free: dict[MemRefType, list[str]] = field(default_factory=dict)
    count: int = 0

    def take(self, memref_type: MemRefType) -> str:
        names = self.free.get(memref_type)
        if names:
            return names.pop()
        name = f"{self.prefix}_buf{self.count}"
        self.count += 1
        self.module.body.block.add_op(
            memref.GlobalOp.get(StringAttr(name), memref_type, UnitAttr(), StringAttr("private"))
        )
        return name

    def give_back(self, memref_type: MemRefType, name: str) -> None:
        self.free.setdefault(memref_type, []).append(name)


class _FunctionBufferizer:
    """Bufferizes one function body (a single block)."""

    def __init__(self, module: ModuleOp, function: func.FuncOp, constant_names: dict[Attribute, str]):
        self.module = module
        self.function = function
        self.name = function.sym_name.data
        self.pool = _BufferPool(module, f"__{self.name}")
        self.constant_names = constant_names
        self.buffers: dict[SSAValue, SSAValue] = {}
        """tensor value -> memref value holding it"""
        self.owned: dict[SSAValue, tuple[MemRefType, str]] = {}
        """memref value -> the pool buffer it is (only for intermediate buffers)"""
        self.last_use: dict[SSAValue, int] = {}
        self.in_place: dict[SSAValue, SSAValue] = {}
        """init tensor -> the result written into its buffer in place"""
        self.position = 0

    def run(self) -> None:
        block = self.function.body.block
        return_op = block.last_op
        if not isinstance(return_op, func.ReturnOp):
            raise PassFailedException(f"bufferize: @{self.name} does not end with func.return")
        outputs = self._rewrite_signature(block, return_op)
        self._compute_last_uses(block)
        self._plan_output_destinations(return_op, outputs)
        ops = list(block.ops)
        for position, op in enumerate(ops[:-1]):
            self.position = position
            self._bufferize(op)
            self._release_dead(position)
        for value, out in zip(return_op.arguments, outputs, strict=True):
            source = self._buffer(value, return_op)
            if source is not out:
                Rewriter.insert_op(copy_generic(source, out), InsertPoint.before(return_op))
        Rewriter.replace_op(return_op, func.ReturnOp())
        for op in reversed(ops[:-1]):
            if any(isinstance(r.type, TensorType) for r in op.results):
                Rewriter.erase_op(op)

    def _rewrite_signature(self, block: Block, return_op: func.ReturnOp) -> list[SSAValue]:
        function = self.function
        for arg in block.args:
            if isinstance(arg.type, TensorType):
                new_arg = Rewriter.replace_value_with_new_type(arg, memref_type_of(arg.type))
                self.buffers[arg] = new_arg
        # `replace_value_with_new_type` replaced the uses: keep the map on the new values too
        for arg in block.args:
            if isinstance(arg.type, MemRefType):
                self.buffers[arg] = arg
        outputs = [block.insert_arg(memref_type_of(v.type), len(block.args)) for v in return_op.arguments]
        for i, out in enumerate(outputs):
            out.name_hint = f"out{i}" if len(outputs) > 1 else "out"
        input_types = [a.type for a in block.args]
        function.function_type = FunctionType.from_lists(input_types, [])
        arg_attrs = list(function.arg_attrs.data) if function.arg_attrs else [DictionaryAttr({})] * (
            len(input_types) - len(outputs)
        )
        res_attrs = list(function.res_attrs.data) if function.res_attrs else [DictionaryAttr({})] * len(outputs)
        if function.arg_attrs or function.res_attrs:
            function.arg_attrs = ArrayAttr([*arg_attrs, *res_attrs])
            function.res_attrs = None
        return outputs

    def _plan_output_destinations(self, return_op: func.ReturnOp, outputs: Sequence[SSAValue]) -> None:
        """Returned generic results write the output argument; so does the chain of generics
        whose result is only the init of the next one (a fill, then an accumulation)."""
        self.destination_of: dict[SSAValue, SSAValue] = {}
        for value, out in zip(return_op.arguments, outputs, strict=True):
            if value in self.destination_of:
                continue
            self.destination_of[value] = out
            while isinstance(generic := value.owner, linalg.GenericOp):
                init = generic.outputs[generic.res.index(value)]
                if not isinstance(init.owner, linalg.GenericOp) or init.uses.get_length() != 1 or init in return_op.arguments:
                    break
                self.destination_of[init] = out
                value = init

    def _compute_last_uses(self, block: Block) -> None:
        """The position of the last top-level op reading each tensor, a view's reads counted
        on the tensor it views."""
        self.alias: dict[SSAValue, SSAValue] = {}
        for i, op in enumerate(block.ops):
            if isinstance(op, tensor.CollapseShapeOp | tensor.ExpandShapeOp):
                self.alias[op.result] = self.alias.get(op.src, op.src)
            for value in op.results:
                self.last_use.setdefault(value, i)
            for inner in op.walk():
                for operand in inner.operands:
                    if isinstance(operand.type, TensorType):
                        root = self.alias.get(operand, operand)
                        self.last_use[root] = i

    def _dies_here(self, init: SSAValue) -> bool:
        """Whether `init` is an intermediate buffer (not a view) last read by the current op."""
        return (
            init in self.buffers
            and self.buffers[init] in self.owned
            and init not in self.alias
            and self.last_use.get(init, -1) <= self.position
        )

    def _release_dead(self, position: int) -> None:
        for value, memref_value in list(self.buffers.items()):
            if value in self.in_place:
                continue  # the buffer lives on as the in-place result
            if memref_value in self.owned and self.last_use.get(value, -1) <= position:
                memref_type, name = self.owned.pop(memref_value)
                self.pool.give_back(memref_type, name)

    def _buffer(self, value: SSAValue, before: Operation) -> SSAValue:
        """The memref holding tensor `value`, materialized before `before` if needed."""
        if value in self.buffers:
            return self.buffers[value]
        owner = value.owner
        if isinstance(owner, tensor.EmptyOp):
            return self._fresh(value, before)
        raise PassFailedException(f"bufferize: no buffer for {value} ({owner.name if owner else 'argument'})")

    def _fresh(self, value: SSAValue, before: Operation) -> SSAValue:
        memref_type = memref_type_of(value.type)
        name = self.pool.take(memref_type)
        get = memref.GetGlobalOp(name, memref_type)
        Rewriter.insert_op(get, InsertPoint.before(before))
        self.buffers[value] = get.memref
        self.owned[get.memref] = (memref_type, name)
        return get.memref

    def _bufferize(self, op: Operation) -> None:
        if not any(isinstance(v.type, TensorType) for v in (*op.operands, *op.results)):
            if isinstance(op, linalg.GenericOp):
                return
            self._bufferize_nested(op)
            return
        match op:
            case tensor.EmptyOp():
                return  # materialized where a generic or a return needs it
            case arith.ConstantOp():
                self._bufferize_constant(op)
            case linalg.GenericOp():
                self._bufferize_generic(op)
            case tensor.CollapseShapeOp() | tensor.ExpandShapeOp():
                self._bufferize_reshape(op)
            case tensor.ExtractOp():
                load = memref.LoadOp.get(self._buffer(op.tensor, op), op.indices)
                Rewriter.insert_op(load, InsertPoint.before(op))
                op.result.replace_all_uses_with(load.res)
            case _:
                raise PassFailedException(f"bufferize: unsupported op on tensors: {op.name}")

    def _bufferize_nested(self, op: Operation) -> None:
        for inner in list(op.walk()):
            if isinstance(inner, tensor.ExtractOp):
                load = memref.LoadOp.get(self._buffer(inner.tensor, op), inner.indices)
                Rewriter.replace_op(inner, load)

    def _bufferize_constant(self, op: arith.ConstantOp) -> None:
        value = op.value
        if not isinstance(value, DenseIntOrFPElementsAttr):
            raise PassFailedException(f"bufferize: unsupported tensor constant {value}")
        memref_type = memref_type_of(op.result.type)
        key = (memref_type, value)
        name = self.constant_names.get(key)
        if name is None:
            name = f"__constant_{len(self.constant_names)}"
            self.constant_names[key] = name
            self.module.body.block.add_op(
                memref.GlobalOp.get(StringAttr(name), memref_type, value, StringAttr("private"), UnitAttr())
            )
        get = memref.GetGlobalOp(name, memref_type)
        Rewriter.insert_op(get, InsertPoint.before(op))
        self.buffers[op.result] = get.memref

    def _bufferize_reshape(self, op: tensor.CollapseShapeOp | tensor.ExpandShapeOp) -> None:
        source = self._buffer(op.src, op)
        result_type = memref_type_of(op.result.type)
        if isinstance(op, tensor.CollapseShapeOp):
            view = memref.CollapseShapeOp(
                operands=[source], result_types=[result_type], properties={"reassociation": op.reassociation}
            )
        else:
            view = memref.ExpandShapeOp(
                operands=[source, []],
                result_types=[result_type],
                properties={"reassociation": op.reassociation, "static_output_shape": op.static_output_shape},
            )
        Rewriter.insert_op(view, InsertPoint.before(op))
        self.buffers[op.result] = view.result

    def _bufferize_generic(self, op: linalg.GenericOp) -> None:
        self._bufferize_nested(op)
        inputs = [self._buffer(v, op) if isinstance(v.type, TensorType) else v for v in op.inputs]
        destinations: list[SSAValue] = []
        n_inputs = len(op.inputs)
        for k, (init, result) in enumerate(zip(op.outputs, op.res, strict=True)):
            reads_init = bool(op.body.block.args[n_inputs + k].uses)
            init_is_empty = isinstance(init.owner, tensor.EmptyOp)
            if reads_init and init_is_empty:
                raise PassFailedException("bufferize: a linalg.generic reads an uninitialized tensor.empty")
            destination = self.destination_of.get(result)
            if destination is not None:
                self.buffers[result] = destination
            elif self._dies_here(init):
                # the init's own intermediate buffer, read by nobody after this op: update in place
                destination = self.buffers[init]
                self.buffers[result] = destination
                self.in_place[init] = result
                destinations.append(destination)
                continue
            else:
                destination = self._fresh(result, op)
            if not init_is_empty and self.buffers.get(init) is not destination:
                source = self._buffer(init, op)
                Rewriter.insert_op(copy_generic(source, destination), InsertPoint.before(op))
            destinations.append(destination)
        new = linalg.GenericOp(
            inputs,
            destinations,
            op.detach_region(op.body),
            op.indexing_maps,
            op.iterator_types,
            (),
            op.doc,
            op.library_call,
        )
        Rewriter.insert_op(new, InsertPoint.before(op))
        op.add_region(Region())  # the old op stays (erased at the end) with an empty body


def _bufferize_function(module: ModuleOp, function: func.FuncOp, constant_names: dict) -> None:
    if not function.body.blocks:
        return
    if len(function.body.blocks) != 1:
        raise PassFailedException(f"bufferize: @{function.sym_name.data} has more than one block")
    _FunctionBufferizer(module, function, constant_names).run()


@dataclass(frozen=True)
class BufferizePass(ModulePass):
    """One-shot bufferization of bitfold's backend input to static buffers in
    destination-passing style (the module docstring lists what it guarantees)."""

    name = "bufferize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        constant_names: dict = {}
        for function in [f for f in op.ops if isinstance(f, func.FuncOp)]:
            _bufferize_function(op, function, constant_names)

