"""The error every ONNX exporter raises for IR it cannot write."""

from xdsl.utils.exceptions import DiagnosticException


class ExportError(DiagnosticException):
    """IR that the chosen ONNX form cannot express (or that no exporter knows). The message
    is one line naming the node (the op's `NameLoc`, else its result) and, where another form
    can hold it, that form; `bitfold-opt` prints it as `error: ...` and exits with status 1."""
