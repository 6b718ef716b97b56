"""bitfold-llvm-index-to-i32 refuses a loop whose counter could leave i32 (its exactness argument needs
every upper bound below 2^30) instead of narrowing it."""

import pytest
from xdsl.parser import Parser

from bitfold.backends.llvm.index_to_i32 import BitfoldLlvmIndexToI32Pass
from bitfold.backends.llvm.input_error import LlvmInputError
from bitfold.load import full_context


def test_a_bound_of_2_to_the_30_is_refused():
    ctx = full_context()
    module = Parser(ctx, """func.func @fill(%out: memref<1073741824xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1073741824 : index
  %z = arith.constant 0 : i8
  scf.for %j = %c0 to %n step %c1 {
    memref.store %z, %out[%j] : memref<1073741824xi8>
  }
  func.return
}""").parse_module()
    with pytest.raises(LlvmInputError, match="1073741824 needs a 64-bit counter"):
        BitfoldLlvmIndexToI32Pass().apply(ctx, module)
