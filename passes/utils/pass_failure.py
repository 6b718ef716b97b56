"""How a pass stops on input it cannot handle: one line naming the pass, the op and the ONNX
node it came from,

    <pass>: '<op name>' (<node name>): <message>

(no node part when the op has no node name of its own), raised as xDSL's `PassFailedException`,
which the tools print as one `error:` line (`bitfold.diagnostics`). A pass binds its name once:
`fail = partial(pass_failure.fail, "onnx-to-quant")`, then `fail(op, message)`."""

from typing import NoReturn

from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException

from bitfold.dialects.onnx.base import OnnxOp


def fail(pass_name: str, op: Operation, message: str) -> NoReturn:
    """Stop pass `pass_name` with one line naming `op` and its node (module docstring)."""
    node = f" ({op.node_name})" if isinstance(op, OnnxOp) and op.node_name != op.name else ""
    raise PassFailedException(f"{pass_name}: '{op.name}'{node}: {message}")
