"""Memory for the RISC-V code generator: static buffers, packed sub-byte constants, reshape
views, and loads and stores of the right width.

Two passes around xDSL's `convert-memref-to-ptr` (which turns every `memref.load`/`store` into
index arithmetic, `ptr.ptradd` and `ptr.load`/`store`, so that LICM and CSE see the address
computation):

`bitfold-riscv-memref-to-addresses` (before it):
- `memref.get_global` -> `la rd, symbol`. xDSL's `convert-memref-to-riscv` emits `li rd, symbol`,
  which GNU as and llvm-mc reject.
- `memref.view %workspace[%c]` at a constant byte offset (an intermediate buffer in the
  workspace, `bitfold.backends.kernel.bufferize`) -> `addi rd, workspace, offset`; an offset beyond 12
  bits is `lui` + `add` + `addi`; offset 0 is the workspace's own register.
- `memref.collapse_shape` / `memref.expand_shape` of identity layouts -> the same address.
- a constant global of a sub-byte type (i1, i2, i4) becomes packed bytes (element k in bits
  `(k % per_byte) * bits` of byte `k // per_byte`: two nibbles a byte, low nibble first) and
  each load of it loads the byte and unpacks the element in registers, sign- or zero-extended
  as the `arith.extsi` / `arith.extui` consuming it asks. Sub-byte values that are not
  constants (activations, arguments) live one per byte.

`bitfold-riscv-lower-ptr` (after it): `ptr.load` / `ptr.store` by element width; f32 with `flw` /
`fsw` into f registers where the target has F (`hard_float`), else with `lw` / `sw` (soft float
holds the bits in integer registers, `soft_float.py`). xDSL's
`convert-memref-to-riscv` and `convert-ptr-to-riscv` load every integer with `lw` and store
with `sw`, so an i8 load reads four elements. Here: `lb`/`lh`/`lw`/`ld` sign-extend into the
register convention; when every user of a loaded value is an `arith.extui`, the load is the
zero-extending `lbu`/`lhu`/`lwu` and the extensions disappear; sub-byte values one per byte
are re-extended from their width; stores are `sb`/`sh`/`sw`/`sd`. The `ptr.ptradd` and casts
are then xDSL's `convert-ptr-to-riscv`.
"""

from dataclasses import dataclass
from math import prod

from xdsl.backend.riscv.lowering.utils import cast_operands_to_regs
from xdsl.context import Context
from xdsl.dialects import arith, memref, ptr, riscv
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    ShapedType,
    TensorType,
    UnrealizedConversionCastOp,
    i8,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    TypeConversionPattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.convert_ptr_to_riscv import ConvertLoadOp, ConvertMemRefToPtrOp, ConvertPtrAddOp, ConvertStoreOp
from xdsl.utils.exceptions import DiagnosticException

from bitfold.backends.riscv.lowering.instructions import LOADS, STORES, LaOp, LdOp
from bitfold.backends.riscv.lowering.registers import add_constant, sign_extend, target_bit_width, zero_extend

BITS_PER_BYTE = 8
"""`lui rd, hi` sets rd = hi << 12"""


def pack_sub_byte(values: list[int], bits: int) -> list[int]:
    """Elements of `bits` bits, `8 // bits` a byte, the first in the low bits (as signed bytes)."""
    per_byte = BITS_PER_BYTE // bits
    mask = (1 << bits) - 1
    packed = []
    for start in range(0, len(values), per_byte):
        byte = 0
        for slot, value in enumerate(values[start : start + per_byte]):
            byte |= (value & mask) << (slot * bits)
        packed.append(byte - 256 if byte >= 128 else byte)
    return packed


def _insert(ops: Operation | list[Operation], at: InsertPoint) -> None:
    ops = [ops] if isinstance(ops, Operation) else ops
    if at.insert_before is not None:
        at.block.insert_ops_before(ops, at.insert_before)
    else:
        at.block.add_ops(ops)


def _replace(op: Operation, new: Operation) -> None:
    """`new` in place of `op` (same number of results)."""
    _insert(new, InsertPoint.before(op))
    for old, value in zip(op.results, new.results, strict=True):
        old.replace_all_uses_with(value)
    Rewriter.erase_op(op)


def _index_constant(value: int, at: InsertPoint) -> SSAValue:
    c = arith.ConstantOp(IntegerAttr(value, IndexType()))
    _insert(c, at)
    return c.result


def _linear_index(indices: list[SSAValue], shape: tuple[int, ...], at: InsertPoint) -> SSAValue:
    """sum(index_k * stride_k) in index arithmetic (the canonicalizer folds constants)."""
    strides = ShapedType.strides_for_shape(shape)
    total: SSAValue | None = None
    for index, stride in zip(indices, strides, strict=True):
        term = index
        if stride != 1:
            term_op = arith.MuliOp(index, _index_constant(stride, at))
            _insert(term_op, at)
            term = term_op.result
        if total is None:
            total = term
        else:
            add = arith.AddiOp(total, term)
            _insert(add, at)
            total = add.result
    return total if total is not None else _index_constant(0, at)


def _unpack_load(load: memref.LoadOp, byte_buffer: SSAValue, bits: int, xlen: int) -> None:
    """Replace a load of a packed sub-byte element by a byte load and an in-register unpack;
    an `extsi`/`extui` of the element becomes the matching unpack straight to its type."""
    at = InsertPoint.before(load)
    shape = load.memref.type.get_shape()
    per_byte = BITS_PER_BYTE // bits
    log_per_byte = per_byte.bit_length() - 1
    log_bits = bits.bit_length() - 1
    ops: list[Operation] = []
    linear = _linear_index(list(load.indices), shape, at)
    ops.append(byte_index := arith.ShRUIOp(linear, _index_constant(log_per_byte, at)))
    ops.append(slot := arith.AndIOp(linear, _index_constant(per_byte - 1, at)))
    ops.append(shift := arith.ShLIOp(slot, _index_constant(log_bits, at)))
    ops.append(byte := memref.LoadOp.get(byte_buffer, [byte_index.result]))
    ops.append(wide := arith.IndexCastOp(byte.res, IndexType()))
    _insert(ops, at)

    unsigned: SSAValue | None = None
    signed: SSAValue | None = None

    def unsigned_value() -> SSAValue:
        nonlocal unsigned
        if unsigned is None:
            down = arith.ShRUIOp(wide.result, shift.result)
            masked = arith.AndIOp(down.result, _index_constant((1 << bits) - 1, at))
            _insert([down, masked], at)
            unsigned = masked.result
        return unsigned

    def signed_value() -> SSAValue:
        nonlocal signed
        if signed is None:
            top = _index_constant(xlen - bits, at)
            left_amount = arith.SubiOp(top, shift.result)
            up = arith.ShLIOp(wide.result, left_amount.result)
            down = arith.ShRSIOp(up.result, top)
            _insert([left_amount, up, down], at)
            signed = down.result
        return signed

    for use in list(load.res.uses):
        user = use.operation
        if isinstance(user, arith.ExtUIOp):
            _replace(user, arith.IndexCastOp(unsigned_value(), user.result.type))
        elif isinstance(user, arith.ExtSIOp):
            _replace(user, arith.IndexCastOp(signed_value(), user.result.type))
    if load.res.uses:
        narrow = arith.IndexCastOp(signed_value(), load.res.type)
        _insert(narrow, at)
        load.res.replace_all_uses_with(narrow.result)
    Rewriter.erase_op(load)


def pack_sub_byte_constants(module: ModuleOp, xlen: int) -> None:
    """Constant globals of i1/i2/i4 elements become packed byte globals; loads unpack."""
    packed: dict[str, tuple[MemRefType, int]] = {}
    for global_op in list(module.ops):
        if not isinstance(global_op, memref.GlobalOp) or global_op.constant is None:
            continue
        element = global_op.type.element_type
        if not isinstance(element, IntegerType) or element.width.data >= BITS_PER_BYTE:
            continue
        bits = element.width.data
        if bits not in (1, 2, 4):
            raise DiagnosticException(f"riscv: a constant of i{bits} elements cannot be packed (i1, i2, i4 can)")
        value = global_op.initial_value
        assert isinstance(value, DenseIntOrFPElementsAttr)
        count = prod(global_op.type.get_shape())
        values = [int(v) for v in value.get_values()]
        if len(values) == 1 and count != 1:
            values *= count
        data = pack_sub_byte(values, bits)
        byte_type = MemRefType(i8, [len(data)])
        global_op.type = byte_type
        global_op.initial_value = DenseIntOrFPElementsAttr.from_list(TensorType(i8, [len(data)]), data)
        packed[global_op.sym_name.data] = (byte_type, bits)
    if not packed:
        return
    for get in [op for op in module.walk() if isinstance(op, memref.GetGlobalOp)]:
        name = get.name_.root_reference.data
        if name not in packed:
            continue
        byte_type, bits = packed[name]
        byte_buffer = memref.GetGlobalOp(name, byte_type)
        _insert(byte_buffer, InsertPoint.after(get))
        for use in list(get.memref.uses):
            if not isinstance(use.operation, memref.LoadOp):
                raise DiagnosticException(f"riscv: packed constant @{name} used by {use.operation.name}")
            _unpack_load(use.operation, byte_buffer.memref, bits, xlen)
        Rewriter.erase_op(get)


class AddressOfGlobal(RewritePattern):
    """`memref.get_global @g` -> `la rd, g`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.GetGlobalOp, rewriter: PatternRewriter) -> None:
        address = LaOp(op.name_.root_reference.data)
        rewriter.replace(op, [address, UnrealizedConversionCastOp.get((address.rd,), (op.memref.type,))])


class ReshapeIsSameAddress(RewritePattern):
    """A collapse or expand of an identity-layout memref is the same buffer."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.CollapseShapeOp | memref.ExpandShapeOp, rewriter: PatternRewriter) -> None:
        rewriter.replace(op, UnrealizedConversionCastOp.get((op.src,), (op.result.type,)))


class WorkspaceViewIsOffsetAddress(RewritePattern):
    """`memref.view %workspace[%c][]` at a constant byte offset -> `addi rd, workspace, c`
    (`add_constant`); the view at offset 0 is the workspace's register itself."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: memref.ViewOp, rewriter: PatternRewriter) -> None:
        shift = op.byte_shift.owner
        if op.sizes or not isinstance(shift, arith.ConstantOp) or not isinstance(shift.value, IntegerAttr):
            raise DiagnosticException("riscv: memref.view needs a constant byte offset and a static shape")
        offset = shift.value.value.data
        if offset == 0:
            rewriter.replace(op, UnrealizedConversionCastOp.get((op.source,), (op.result.type,)))
            return
        base = UnrealizedConversionCastOp.get((op.source,), (riscv.Registers.UNALLOCATED_INT,))
        ops, address = add_constant(base.results[0], offset)
        rewriter.replace(op, [base, *ops, UnrealizedConversionCastOp.get((address,), (op.result.type,))])


@dataclass(frozen=True)
class BitfoldRiscvMemrefToAddressesPass(ModulePass):
    """Packed sub-byte constants, `la` for globals, workspace views as offset addresses,
    reshapes as the same address."""

    name = "bitfold-riscv-memref-to-addresses"

    xlen: int = 64

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pack_sub_byte_constants(op, self.xlen)
        patterns = [AddressOfGlobal(), WorkspaceViewIsOffsetAddress(), ReshapeIsSameAddress()]
        PatternRewriteWalker(GreedyRewritePatternApplier(patterns)).rewrite_module(op)


@dataclass
class LoadByWidth(RewritePattern):
    xlen: int
    hard_float: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ptr.LoadOp, rewriter: PatternRewriter) -> None:
        (address,) = cast_operands_to_regs(rewriter, op)
        if isinstance(op.res.type, Float32Type):
            load = riscv.FLwOp(address, 0) if self.hard_float else LOADS[(32, True)](address, 0)
            rewriter.replace(op, [load, UnrealizedConversionCastOp.get((load.rd,), (op.res.type,))])
            return
        width = target_bit_width(op.res.type, self.xlen)
        users = [use.operation for use in op.res.uses]
        zero_extended = bool(users) and all(isinstance(u, arith.ExtUIOp) for u in users) and width < self.xlen
        ops: list[Operation] = []
        if width == 64:
            ops.append(load := LdOp(address, 0))
            result = load.rd
        elif width in (8, 16, 32):
            ops.append(load := LOADS[(width, not zero_extended)](address, 0))
            result = load.rd
        elif width < BITS_PER_BYTE:
            # one element a byte, re-extended from its own width
            ops.append(load := LOADS[(8, not zero_extended)](address, 0))
            extend, result = (zero_extend if zero_extended else sign_extend)(load.rd, width, self.xlen)
            ops += extend
        else:
            raise DiagnosticException(f"riscv: loads of i{width} are not supported")
        if zero_extended:
            # the load already zero-extended: each extui is the loaded register
            for user in users:
                rewriter.replace(user, UnrealizedConversionCastOp.get((result,), (user.results[0].type,)))
        rewriter.replace(op, [*ops, UnrealizedConversionCastOp.get((result,), (op.res.type,))])


@dataclass
class StoreByWidth(RewritePattern):
    xlen: int
    hard_float: bool = False

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ptr.StoreOp, rewriter: PatternRewriter) -> None:
        if isinstance(op.value.type, Float32Type) and not self.hard_float:
            register = riscv.Registers.UNALLOCATED_INT
            casts = [UnrealizedConversionCastOp.get((v,), (register,)) for v in (op.addr, op.value)]
            rewriter.replace(op, [*casts, STORES[32](casts[0].results[0], casts[1].results[0], 0)])
            return
        address, value = cast_operands_to_regs(rewriter, op)
        if isinstance(op.value.type, Float32Type):
            rewriter.replace(op, riscv.FSwOp(address, value, 0))
            return
        width = target_bit_width(op.value.type, self.xlen)
        store = STORES[max(BITS_PER_BYTE, width)] if width <= BITS_PER_BYTE or width in STORES else None
        if store is None:
            raise DiagnosticException(f"riscv: stores of i{width} are not supported")
        rewriter.replace(op, store(address, value, 0))


class PointerToRegisterType(TypeConversionPattern):
    """`!ptr_xdsl.ptr` becomes an unallocated integer register, as xDSL's `PtrTypeConversion`, by
    an isinstance test: that pattern's `attr_type_rewrite_pattern` formats every other attribute,
    weight tensors included, into an exception message it drops (seconds on a large model)."""

    def convert_type(self, typ: Attribute) -> riscv.IntRegisterType | None:
        return riscv.Registers.UNALLOCATED_INT if isinstance(typ, ptr.PtrType) else None


@dataclass(frozen=True)
class BitfoldRiscvLowerPtrPass(ModulePass):
    """`ptr.load`/`ptr.store` by element width, then xDSL's `convert-ptr-to-riscv` patterns (its
    type conversion as `PointerToRegisterType`)."""

    name = "bitfold-riscv-lower-ptr"

    xlen: int = 64
    hard_float: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        patterns = [LoadByWidth(self.xlen, self.hard_float), StoreByWidth(self.xlen, self.hard_float)]
        PatternRewriteWalker(
            GreedyRewritePatternApplier(patterns),
            apply_recursively=False,
        ).rewrite_module(op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier([PointerToRegisterType(), ConvertPtrAddOp(), ConvertStoreOp(), ConvertLoadOp(),
                                         ConvertMemRefToPtrOp()]),
        ).rewrite_module(op)

