"""The backend-input stages as every driver runs them: the registered pass `onnx-to-backend-input`
(`passes/pipelines.py`), with the module verified before it and after it, exactly as
`bitfold-opt MODEL -p onnx-to-backend-input` does (xDSL's opt driver verifies the parsed or imported
module and the result of each `-p` pass). `compile_model` and the LLVM path call `lower_to_backend_input`,
so the API and the command line accept the same models and produce the same IR.
"""

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline

from bitfold.passes.pipelines import OnnxToBackendInputPipeline


def _verify(_before: ModulePass | None, module: ModuleOp, _after: ModulePass | None) -> None:
    module.verify()


def lower_to_backend_input(ctx: Context, module: ModuleOp, integer_io: bool = True, integer_only: bool = False) -> None:
    """Rewrite `module` (ONNX-imported or quant-form IR) in place into the backend's input,
    `onnx-to-backend-input{integer-io integer-only}`; raises `VerifyException` on IR bitfold-opt
    would reject."""
    pipeline = OnnxToBackendInputPipeline(integer_io=integer_io, integer_only=integer_only)
    PassPipeline((pipeline,), _verify).apply(ctx, module)
