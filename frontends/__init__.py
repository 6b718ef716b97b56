"""Importers from model formats into bitfold IR (ONNX: QDQ, QCDQ, QONNX, QOp)."""


class FrontendError(Exception):
    """A model a frontend cannot import. The message is one line that names the file or the
    node (and its op type and domain) and says what is wrong; drivers print it and exit 1."""
