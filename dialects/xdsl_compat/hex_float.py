"""xDSL 0.74's `parse_optional_float` does not read a hex integer literal as a double's bits.

MLIR's `AsmParser::parseFloat` takes `0x3FB999999999999A` as the IEEE-754 bits of a double (what
upstream prints for a scale that no short decimal spells); xDSL returns None for it, and its
parsers offer no public way to see the literal's spelling, so `parse_float_or_hex_bits` reads
the current token (a private attribute of xDSL's parser)."""

from xdsl.parser import AttrParser

from bitfold.dialects.float_literal import parse_hex_float


def parse_float_or_hex_bits(parser: AttrParser) -> float:
    """`float-literal`, or a hex integer literal holding the bits of a double."""
    value = parser.parse_optional_float(allow_negative=True)
    if value is None:
        token = parser._current_token.text  # pyright: ignore[reportPrivateUsage]
        if not token.lower().startswith("0x"):
            parser.raise_error("expected floating point literal")
        parser.parse_integer(allow_boolean=False, allow_negative=False)
        value = parse_hex_float(token)
    return value
