"""`bitfold.parsing.parse_module`'s guard: what xDSL's parsers raise on malformed text is a
`ParseError` at the token where parsing stopped; the same exception types raised by bitfold's
own code propagate unchanged (a bug in bitfold is not the user's parse error)."""

from fractions import Fraction
from types import FunctionType

import pytest
from xdsl.utils.exceptions import ParseError

from bitfold import parsing
from bitfold.dialects import quant
from bitfold.load import full_context
from bitfold.parsing import CappedParser, parse_module

XDSL_CRASHES = {
    "integer out of its type's range": ('"test.op"() {v = dense<300> : tensor<2xi8>} : () -> ()',
                                        42, "Integer value 300 is out of range for type i8"),
    "dense array of an odd width": ('"test.op"() {v = array<i333: 1>} : () -> ()', 30, "Format not implemented for i333"),
}
"""text -> (offset where parsing stopped, the message xDSL's exception carries)"""


def unregistered_context():
    context = full_context()
    context.allow_unregistered = True
    return context


@pytest.mark.parametrize("case", XDSL_CRASHES)
def test_an_xdsl_parser_crash_is_a_parse_error_where_parsing_stopped(case):
    text, offset, message = XDSL_CRASHES[case]
    with pytest.raises(ParseError) as error:
        parse_module(unregistered_context(), text, "m.mlir")
    assert error.value.span.start == offset
    assert error.value.msg.startswith(message)


@pytest.mark.parametrize("bug", [ValueError, NotImplementedError, AttributeError, TypeError, AssertionError])
def test_an_exception_raised_in_bitfold_propagates(monkeypatch, bug):
    def broken(self, dense_type):
        raise bug("bitfold's own bug")

    # the dense literal check replaced by a function of bitfold.parsing (its globals) that raises
    monkeypatch.setattr(CappedParser, "_check_dense_type", FunctionType(broken.__code__, vars(parsing), closure=broken.__closure__))
    with pytest.raises(bug, match="bitfold's own bug"):
        parse_module(unregistered_context(), '"test.op"() {v = dense<1> : tensor<2xi8>} : () -> ()', "m.mlir")


def test_a_bug_in_a_bitfold_type_parser_propagates(monkeypatch):
    """A ValueError raised below a type parser of bitfold's dialects, in a library it calls (here the
    standard library's `fractions`), is bitfold's bug, not the user's parse error: the innermost
    frame of xDSL's or bitfold's decides, not the innermost frame."""

    def broken_scale(parser, expressed):
        return float(Fraction("not a number"))

    monkeypatch.setattr(quant, "_parse_scale", broken_scale)
    with pytest.raises(ValueError, match="Invalid literal for Fraction"):
        parse_module(full_context(), "func.func private @f(tensor<2x!quant.uniform<i8:f32, 0.5>>)", "m.mlir")
