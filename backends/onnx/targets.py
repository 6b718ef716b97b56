"""The xDSL targets `onnx-qdq`, `onnx-qcdq`, `onnx-qonnx`, `onnx-qop`: the module as an ONNX
model in that form (`bitfold.backends.onnx.export_model`), serialized to the output
stream's binary buffer (`-o model.onnx`, or stdout). `onnx-qdq`, `onnx-qcdq` and `onnx-qop` take
`runtime=onnxruntime` (`-t 'onnx-qop{runtime=onnxruntime}'`): the model rewritten exactly for
onnxruntime's kernels (`onnxruntime_form`)."""

from dataclasses import dataclass
from typing import IO, ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

from bitfold.backends.onnx import export_model
from bitfold.backends.onnx.errors import ExportError
from bitfold.backends.onnx.graph import QuantForm
from bitfold.backends.onnx.onnxruntime_form import RUNTIMES, for_onnxruntime
from bitfold.backends.onnx.qcdq import QcdqForm
from bitfold.backends.onnx.qdq import QdqForm
from bitfold.backends.onnx.qonnx import QonnxForm
from bitfold.backends.onnx.qop import QopForm


def write_binary(data: bytes, output: IO[str]) -> None:
    """Write `data` to the byte stream under a text stream (`sys.stdout`, a file opened
    "w"); a stream without one (a `StringIO`) cannot hold a binary model."""
    buffer = getattr(output, "buffer", None)
    if buffer is None:
        raise ExportError("an ONNX model is binary: it needs an output stream with a byte buffer (a file or stdout)")
    output.flush()
    buffer.write(data)
    buffer.flush()


@dataclass(frozen=True)
class OnnxTarget(Target):
    """Base of the ONNX targets: `FORM` says how the quant ops are written."""

    FORM: ClassVar[type[QuantForm]]
    BINARY: ClassVar[bool] = True
    """bitfold-opt writes a binary target's bytes to the output file or stdout itself."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        write_binary(export_model(module, self.FORM()).SerializeToString(), output)


@dataclass(frozen=True)
class RuntimeOnnxTarget(OnnxTarget):
    """An ONNX target with `runtime`: "reference" (the form as written), or "onnxruntime" (the
    model rewritten by `for_onnxruntime`, exact, for onnxruntime's integer kernels)."""

    runtime: str = "reference"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        if self.runtime not in RUNTIMES:
            raise ExportError(f"{self.name}: runtime '{self.runtime}' is not one of {', '.join(RUNTIMES)}")
        model = export_model(module, self.FORM())
        if self.runtime == "onnxruntime":
            model = for_onnxruntime(model)
        write_binary(model.SerializeToString(), output)


@dataclass(frozen=True)
class OnnxQdqTarget(RuntimeOnnxTarget):
    name = "onnx-qdq"
    FORM = QdqForm


@dataclass(frozen=True)
class OnnxQcdqTarget(RuntimeOnnxTarget):
    name = "onnx-qcdq"
    FORM = QcdqForm


@dataclass(frozen=True)
class OnnxQonnxTarget(OnnxTarget):
    name = "onnx-qonnx"
    FORM = QonnxForm


@dataclass(frozen=True)
class OnnxQopTarget(RuntimeOnnxTarget):
    name = "onnx-qop"
    FORM = QopForm
