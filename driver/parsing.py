"""How bitfold's tools parse MLIR text: xDSL's parser, made safe for hostile input.

- `mlir_text(data, name)`: the bytes of a `.mlir` file as text; non-UTF-8 bytes are one
  `FrontendError` line naming the offset.
- `parse_module(ctx, text, name)`: xDSL's `Parser`, except that a dense literal
  (`dense<0> : tensor<100000000000xi8>`) whose type is over the tensor cap
  (`bitfold.dialects.tensor_limits`) is a parse error at its type, before xDSL builds its
  elements (a splat is expanded to every element); so is an integer type wider than MLIR allows.
- Importing this module fixes xDSL 0.74's exponential string lexer
  (`bitfold.dialects.xdsl_compat.string_lexer`).
- Text some xDSL parser crashes on (`bitfold.dialects.xdsl_compat.parser_crashes`) is a parse error
  as well; the same exceptions raised by bitfold's own code are bugs and propagate.
"""

import re

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.mlir_lexer import MLIRTokenKind

from bitfold.dialects.evaluation import numpy_dtype
from bitfold.dialects.tensor_limits import TensorTooLarge, check_tensor
from bitfold.dialects.xdsl_compat.parser_crashes import XDSL_PARSER_CRASHES, raised_by_xdsl
from bitfold.dialects.xdsl_compat.string_lexer import use_linear_string_lexer
from bitfold.frontends import FrontendError

use_linear_string_lexer()


def mlir_text(data: bytes, name: str) -> str:
    """`data` decoded as UTF-8, or one error line naming the first bad byte."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise FrontendError(f"{name}: not UTF-8 text (byte 0x{data[error.start]:02x} at offset {error.start})") from None


def _element_bytes(element) -> float:
    try:
        return numpy_dtype(element).itemsize
    except (ValueError, KeyError, NotImplementedError, AssertionError):
        return 1


MAX_INTEGER_WIDTH = 16_777_215
"""MLIR's `IntegerType::kMaxWidth`: xDSL takes any width (`i61000000000` hangs in range checks)."""


class CappedParser(Parser):
    """xDSL's parser; dense literals over the tensor cap are refused from their type, integer
    types wider than `MAX_INTEGER_WIDTH` from their name."""

    def _check_dense_type(self, dense_type) -> None:
        try:
            check_tensor(dense_type.get_shape(), _element_bytes(dense_type.element_type), "dense literal")
        except TensorTooLarge as error:
            self.raise_error(str(error))

    def _parse_optional_integer_or_float_type(self):
        match = re.fullmatch(r"[su]?i(\d+)", self._current_token.text)
        if self._current_token.kind == MLIRTokenKind.BARE_IDENT and match and int(match.group(1)) > MAX_INTEGER_WIDTH:
            self.raise_error(f"integer type {self._current_token.text} is wider than MLIR's {MAX_INTEGER_WIDTH} bits")
        return super()._parse_optional_integer_or_float_type()

    def _parse_dense_literal_type(self):
        dense_type = super()._parse_dense_literal_type()
        self._check_dense_type(dense_type)
        return dense_type

    def parse_dense_int_or_fp_elements_attr(self, type):
        if type is not None:
            self._check_dense_type(type)
        return super().parse_dense_int_or_fp_elements_attr(type)


def parse_module(ctx: Context, text: str, name: str, implicit_module: bool = True) -> ModuleOp:
    """The module in `text` (see the module docstring). Every malformed text is a
    `ParseError`, at the token where parsing stopped for `XDSL_PARSER_CRASHES` raised inside
    xDSL (`raised_by_xdsl`); anything else, and anything bitfold's own code raises, propagates as
    the bug it is."""
    parser = CappedParser(ctx, text, name)
    try:
        return parser.parse_module(implicit_module)
    except XDSL_PARSER_CRASHES as error:
        if not raised_by_xdsl(error):
            raise
        message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        parser.raise_error(message)
