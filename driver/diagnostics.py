"""How bitfold's drivers report bad input: one line on stderr and exit status 1, never a
traceback (`file:line:col: error: ...` for parse errors, `error: 'op' op ...` for verifier
errors, `error: ...` otherwise)."""

import argparse
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import numpy as np
from xdsl.utils.exceptions import DiagnosticException, ParseError

from bitfold.array_files import ArrayFileError
from bitfold.dialects.tensor_limits import DEFAULT_MAX_BYTES, DEFAULT_MAX_ELEMENTS, ENVIRONMENT_VARIABLE, TensorTooLarge
from bitfold.frontends import FrontendError

_OP_NAME = re.compile(r'^\s*(?:%[^=]*=\s*)?"([\w.$-]+)"')
"""The op name at the start of a generically printed op line (`%0 = "quant.qcast"(...`)."""


def one_line_error(error: Exception) -> str:
    """The line a user needs: where and what, without xDSL's source excerpt.

    Parse errors give `file:line:col: error: message`; verifier errors name the op as MLIR
    does (`error: 'quant.qcast' op message`), found on the line xDSL underlines."""
    if isinstance(error, ParseError):
        return f"{error.span.get_location()}: error: {error.msg}"
    message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    lines = "\n".join(getattr(error, "__notes__", [])).splitlines()
    for previous, line in zip(lines, lines[1:]):
        if re.fullmatch(r"\s*\^+-*", line) and (match := _OP_NAME.match(previous)):
            return f"error: '{match.group(1)}' op {message}"
    return f"error: {message}"


def add_tensor_cap_argument(parser: argparse.ArgumentParser) -> None:
    """`--max-tensor-bytes N`: the tensor cap of `bitfold.dialects.tensor_limits` for this run."""
    parser.add_argument("--max-tensor-bytes", type=int, default=None, metavar="N",
                        help=f"refuse tensors over N bytes (default {DEFAULT_MAX_BYTES:,} or ${ENVIRONMENT_VARIABLE}; "
                             f"elements are capped at {DEFAULT_MAX_ELEMENTS:,} or N, whichever is larger)")


def exit_with_error(message: str) -> NoReturn:
    """Print `message` as one line (line breaks quoted from the input escaped) and exit 1."""
    print(message.replace("\r", "\\r").replace("\n", "\\n"), file=sys.stderr)
    sys.exit(1)


@contextmanager
def one_line_errors(*user_errors: type[Exception]) -> Iterator[None]:
    """Turn the errors bad input raises (parse and verifier diagnostics, frontend errors,
    unreadable or refused files, tensors over the cap, input nested deeper than Python's
    recursion limit, memory exhaustion, integers beyond what numpy holds (`OverflowError`,
    e.g. a requantization multiplier of a scale of 1e30), and the driver's own `user_errors`)
    into `exit_with_error`. numpy's floating-point warnings are off inside."""
    try:
        with np.errstate(all="ignore"):  # IEEE overflow / NaN in constant folding: semantics, not warnings
            yield
    except (ParseError, DiagnosticException, OverflowError) as error:
        exit_with_error(one_line_error(error))
    except (FrontendError, ArrayFileError, TensorTooLarge, *user_errors) as error:
        exit_with_error(f"error: {error}")
    except OSError as error:
        exit_with_error(f"error: {error.strerror}: {error.filename}")
    except RecursionError:
        exit_with_error("error: the input is nested too deeply (Python's recursion limit was reached)")
    except MemoryError:
        exit_with_error(
            "error: out of memory (lower the tensor cap with --max-tensor-bytes or BITFOLD_MAX_TENSOR_BYTES)"
        )
