"""ONNX export: IR in the canonical quant form (`docs/canonical-quant-form.md`), or plain
imported IR, as an ONNX model in one quantization form.

`export_model(module, form)` writes the module's one function as a graph (`graph`: onnx.* and
qonnx.* ops back to nodes, attributes (`attributes`) and initializers (`types`)); the form
writes the quant casts (`qdq`, `qcdq`, `qonnx`, `qop`); `opsets` picks the lowest ai.onnx
opset that holds every node and the IR version onnxruntime 1.31 loads. The model keeps node
names (`NameLoc`) and graph input/output names (`onnx.name`), and is checked with
`onnx.checker` (`check`). What a form cannot express raises `ExportError`, one line naming
the node and the form that can hold it. `targets` registers the four forms with xDSL."""

import onnx
from onnx import helper
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp

from bitfold.backends.onnx.errors import ExportError
from bitfold.backends.onnx.graph import CONTRIB_DOMAIN, GraphEmitter, QuantForm
from bitfold.backends.onnx.opsets import drop_absent_attributes, ir_version, select_opset
from bitfold.dialects.onnx.base import ONNX_OPSET

PRODUCER = "bitfold"


def check(model: onnx.ModelProto) -> None:
    """`onnx.checker.check_model(model, full_check=True)`: structure, opset imports, and
    strict shape inference of every node. onnx has no schemas for QONNX's domain nor
    onnxruntime's `com.microsoft`, so a model using them cannot pass the full check: it gets
    the structural check (every node's domain imported, standard nodes valid for their
    schemas, graph topologically sorted) and non-strict shape inference, which types the
    standard nodes and skips the others."""
    if all(o.domain in ("", "ai.onnx") for o in model.opset_import):
        onnx.checker.check_model(model, full_check=True)
    else:
        onnx.checker.check_model(model)
        onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=False)


def export_model(module: ModuleOp, form: QuantForm) -> onnx.ModelProto:
    """The ONNX model of `module`'s single function, its quant ops written in `form`."""
    functions = [op for op in module.ops if isinstance(op, func.FuncOp)]
    if len(functions) != 1:
        raise ExportError(f"ONNX export takes a module of one function, got {len(functions)}")
    source_opset = module.attributes.get(ONNX_OPSET)
    minimum = max(form.minimum_opset, source_opset.value.data if isinstance(source_opset, IntegerAttr) else 0)
    emitter = GraphEmitter(functions[0], form, minimum)
    graph = emitter.emit()
    opset = select_opset(graph.node, emitter.builder.codes, minimum)
    drop_absent_attributes(graph.node, opset)
    imports = [helper.make_opsetid("", opset)]
    imports += [helper.make_opsetid(domain, version) for domain, version in sorted(emitter.builder.domains.items())]
    model = helper.make_model(graph, opset_imports=imports, producer_name=PRODUCER)
    model.ir_version = ir_version(imports)
    check(model)
    return model


__all__ = ["CONTRIB_DOMAIN", "ExportError", "check", "export_model"]
