"""xDSL 0.74's string lexer backtracks exponentially on an unterminated string.

`MLIRLexer._unescaped_characters_regex` is `XDSL_STRING_LITERAL`: the `+` nested in `*` tries every
split of a run of characters when the closing `"` is missing (26 characters take seconds, x1.7 per
character). `LINEAR_STRING_LITERAL` has the same language with possessive quantifiers (`++`, `*+`,
Python 3.11), so a match fails in linear time. `use_linear_string_lexer()` installs it, only while
xDSL still has the faulty pattern."""

import re

from xdsl.utils.mlir_lexer import MLIRLexer

XDSL_STRING_LITERAL = r'"(?:[^"\\\n\v\f]+|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
"""xDSL 0.74's string literal pattern (exponential backtracking on a missing `"`)."""

LINEAR_STRING_LITERAL = re.compile(r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')
"""The same strings, matched without backtracking into a run of characters."""


def use_linear_string_lexer() -> None:
    """Replace xDSL's string literal pattern by `LINEAR_STRING_LITERAL` where it is the faulty one."""
    if MLIRLexer._unescaped_characters_regex.pattern == XDSL_STRING_LITERAL:  # pyright: ignore[reportPrivateUsage]
        MLIRLexer._unescaped_characters_regex = LINEAR_STRING_LITERAL  # pyright: ignore[reportPrivateUsage]
