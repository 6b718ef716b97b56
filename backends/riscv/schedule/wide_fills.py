"""Constant fills of byte and halfword buffers stored a word at a time.

A `linalg.generic` with no inputs that writes one constant c of i8 or i16 to every element of a
view of the workspace (a padded buffer's fill before the copy of its interior):

    linalg.generic outs(%v : memref<...xi8>) { yield c }        %v = view %workspace[offset]

where `offset` and the view's size in bytes are multiples of 4, becomes the same fill of an i32
view of those bytes with c repeated (`0xFDFDFDFD` for an i8 -3): one `sw` per 4 bytes instead of
4 `sb` (RISC-V is little-endian; every byte gets c, so the byte order does not matter). The
workspace and each of its buffers are aligned to 4 bytes at least (`bufferize.MIN_BUFFER_ALIGNMENT`),
so the words are aligned. The workspace plan is untouched: the new view covers the same bytes.
"""

from math import prod

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, IntegerType, MemRefType, ModuleOp, i32
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineMap
from xdsl.rewriter import InsertPoint, Rewriter

WORD_BYTES = 4


def filled_constant(op: linalg.GenericOp) -> int | None:
    """c where `op` writes the constant c of an i8 or i16 to every element of its one output
    (no inputs, identity map, all parallel), else None."""
    if op.inputs or len(op.outputs) != 1 or op.res:
        return None
    output_type = op.outputs[0].type
    if not isinstance(output_type, MemRefType) or not output_type.has_static_shape():
        return None
    element = output_type.get_element_type()
    if not isinstance(element, IntegerType) or element.width.data not in (8, 16):
        return None
    affine_map = op.indexing_maps.data[0].data
    if affine_map != AffineMap.identity(affine_map.num_dims):
        return None
    if any(it.data != linalg.IteratorType.PARALLEL for it in op.iterator_types.data):
        return None
    yielded = op.body.block.last_op.operands[0]
    if not isinstance(yielded.owner, arith.ConstantOp) or not isinstance(yielded.owner.value, IntegerAttr):
        return None
    return yielded.owner.value.value.data


def repeated_word(value: int, width: int) -> int:
    """The signed i32 whose every `width`-bit part is `value` (two's complement)."""
    part = value & ((1 << width) - 1)
    word = 0
    for _ in range(WORD_BYTES * 8 // width):
        word = (word << width) | part
    return word - (1 << 32) if word >= 1 << 31 else word


def widen_fill(op: linalg.GenericOp) -> bool:
    """`op` rewritten as the i32 fill of the same bytes where it is a constant fill of a workspace
    view at a word-aligned offset and of a whole number of words (module docstring)."""
    value = filled_constant(op)
    if value is None:
        return False
    view = op.outputs[0].owner
    if not isinstance(view, memref.ViewOp) or not isinstance(view.byte_shift.owner, arith.ConstantOp):
        return False
    offset = view.byte_shift.owner.value.value.data
    output_type = op.outputs[0].type
    width = output_type.get_element_type().width.data
    size = prod(output_type.get_shape()) * width // 8
    if offset % WORD_BYTES or size % WORD_BYTES:
        return False
    words = memref.ViewOp(view.source, view.byte_shift, [], MemRefType(i32, [size // WORD_BYTES]))
    body = Block(arg_types=[i32])
    word = arith.ConstantOp(IntegerAttr(repeated_word(value, width), i32))
    body.add_ops([word, linalg.YieldOp(word.result)])
    fill = linalg.GenericOp(
        [], [words.result], Region(body), [AffineMapAttr(AffineMap.identity(1))], [IteratorTypeAttr.parallel()]
    )
    fill.attributes.update(op.attributes)  # e.g. its nest number
    Rewriter.insert_op([words, fill], InsertPoint.before(op))
    Rewriter.erase_op(op)
    return True


def widen_fills(module: ModuleOp) -> None:
    """Every constant byte or halfword fill of the module that `widen_fill` can store by words."""
    for op in list(module.walk()):
        if isinstance(op, linalg.GenericOp):
            widen_fill(op)
