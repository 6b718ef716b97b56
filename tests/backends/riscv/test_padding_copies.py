"""Constant paddings written with index arithmetic (an axis padded at its end only, or at both
ends beside one padded at its end only) become a fill and a copy in the RISC-V backend
(`padding_copies.py`); under qemu against numpy's `np.pad`, and the forms it must not touch."""

import numpy as np
import pytest
from test_codegen_execution import needs_qemu, parse, riscv_toolchain, run_kernel  # noqa: F401 (the fixture)
from xdsl.dialects.linalg import ops as linalg

from bitfold.backends.riscv.schedule.padding_copies import padding_of

SHAPE = (2, 5, 6)
PADS = ((0, 0), (1, 2), (0, 1))
"""per axis (before, after): axis 1 at both ends, axis 2 at its end only"""
FILL = -3


def padding_ir() -> str:
    """The padding as onnx-data-movement-to-linalg writes it for these pads: per padded axis the
    index less its begin pad, clamped into the source; the load there or the fill outside."""
    padded = [n + b + e for n, (b, e) in zip(SHAPE, PADS)]
    return f"""
func.func @pad(%x: tensor<{'x'.join(map(str, SHAPE))}xi8>) -> tensor<{'x'.join(map(str, padded))}xi8> {{
  %e = tensor.empty() : tensor<{'x'.join(map(str, padded))}xi8>
  %y = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}} outs(%e : tensor<{'x'.join(map(str, padded))}xi8>) {{
  ^bb0(%o: i8):
    %i0 = linalg.index 0 : index
    %i1 = linalg.index 1 : index
    %i2 = linalg.index 2 : index
    %c0 = arith.constant 0 : index
    %b1 = arith.constant {PADS[1][0]} : index
    %n1 = arith.constant {SHAPE[1] - 1} : index
    %n2 = arith.constant {SHAPE[2] - 1} : index
    %r1 = arith.subi %i1, %b1 : index
    %l1 = arith.maxsi %r1, %c0 : index
    %s1 = arith.minsi %l1, %n1 : index
    %in1 = arith.cmpi eq, %r1, %s1 : index
    %s2 = arith.minsi %i2, %n2 : index
    %in2 = arith.cmpi eq, %i2, %s2 : index
    %inside = arith.andi %in1, %in2 : i1
    %v = tensor.extract %x[%i0, %s1, %s2] : tensor<{'x'.join(map(str, SHAPE))}xi8>
    %fill = arith.constant {FILL} : i8
    %r = arith.select %inside, %v, %fill : i8
    linalg.yield %r : i8
  }} -> tensor<{'x'.join(map(str, padded))}xi8>
  func.return %y : tensor<{'x'.join(map(str, padded))}xi8>
}}
"""


@needs_qemu
@pytest.mark.parametrize("target", ["rv32im", "rv64im"])
def test_padding_equals_numpy(target, tmp_path):
    x = np.random.default_rng(1).integers(-128, 128, size=SHAPE, dtype=np.int8)
    (out,) = run_kernel(padding_ir(), [x], target, tmp_path)
    np.testing.assert_array_equal(out, np.pad(x, PADS, constant_values=FILL))


def padding_generic(text: str) -> linalg.GenericOp:
    return next(op for op in parse(text).walk() if isinstance(op, linalg.GenericOp))


MEMREF_PADDING = """
func.func @pad(%x: memref<6xi8>, %out: memref<7xi8>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%out : memref<7xi8>) {
  ^bb0(%0: i8):
    %1 = linalg.index 0 : index
    %2 = arith.constant BOUND : index
    %3 = arith.minsi %1, %2 : index
    %4 = arith.cmpi eq, %1, %3 : index
    %5 = memref.load %x[%3] : memref<6xi8>
    %6 = arith.constant -128 : i8
    %7 = arith.select %4, %5, %6 : i8
    linalg.yield %7 : i8
  }
  func.return
}
"""


def test_only_the_exact_form_is_a_padding():
    _, begins, fill = padding_of(padding_generic(MEMREF_PADDING.replace("BOUND", "5")))
    assert begins == [0] and fill.value.value.data == -128
    # a clamp to 4 of a 6-element source repeats element 4: not a padding
    assert padding_of(padding_generic(MEMREF_PADDING.replace("BOUND", "4"))) is None
    # the condition of another comparison: not a padding
    assert padding_of(padding_generic(MEMREF_PADDING.replace("BOUND", "5").replace("cmpi eq", "cmpi ne"))) is None
