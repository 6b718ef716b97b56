"""`bitfold-opt`: xDSL's opt driver with every upstream dialect, pass and target plus
bitfold's. Same flags as `xdsl-opt`. A failure prints one line (`file:line:col: error: ...`
for parse errors, `error: ...` otherwise) and exits with status 1, never a traceback."""

import sys
from collections.abc import Sequence

from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from bitfold.registry import get_all_dialects, get_all_passes, get_all_targets


class BitfoldOptMain(xDSLOptMain):
    """Registers what the `xdsl.universe` plugins provide (bitfold included once installed),
    then bitfold's own entries where a plugin did not already (running from a source tree)."""

    def register_all_dialects(self):
        super().register_all_dialects()
        for name, factory in get_all_dialects().items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self):
        super().register_all_passes()
        for name, factory in get_all_passes().items():
            if name not in self.available_passes:
                self.register_pass(name, factory)

    def register_all_targets(self):
        super().register_all_targets()
        for name, factory in get_all_targets().items():
            self.available_targets.setdefault(name, factory)


def one_line_error(error: Exception) -> str:
    """The first line a user needs: location and message, without the source excerpt."""
    if isinstance(error, ParseError):
        return f"{error.span.get_location()}: error: {error.msg}"
    lines = [line for line in str(error).splitlines() if line.strip()]
    message = next((line.strip() for line in lines if line.strip().startswith("^")), None)
    return f"error: {message.lstrip('^ ') if message else (lines[0] if lines else type(error).__name__)}"


def main(args: Sequence[str] | None = None) -> None:
    try:
        BitfoldOptMain(args=args).run()
    except (ParseError, DiagnosticException) as error:
        print(one_line_error(error), file=sys.stderr)
        sys.exit(1)
