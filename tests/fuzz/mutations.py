"""Seeded mutations of the fuzz corpus: ONNX models (protobuf fields), MLIR text and `.npy`
files. Every mutator takes a `random.Random` and returns a new value; the seeds are small
quantized models built here (QDQ, QCDQ, QONNX Quant/Trunc/BipolarQuant, QLinearMatMul) and
the repository's example model."""

import io
import random
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
QONNX_DOMAIN = "qonnx.custom_op.general"

HOSTILE_NAMES = ["../../evil", "/tmp/bitfold-fuzz-absolute", "a/b", "..", ".", "x" * 300, "ü/../..", "%2F", ""]
HOSTILE_INTS = [-(2**40), -5, -1, 0, 1, 2, 3, 5, 7, 33, 2**31, 10**9]
HOSTILE_FLOATS = [float("nan"), float("inf"), -float("inf"), -1.0, 0.0, 1e-45, 2.5, 1e30]
HOSTILE_STRINGS = ["BANANA", "", "round", "../x", "NOTSET", "ROUND_TO_ZERO", "\udcff"]
DATA_TYPES = [0, 1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 16, 17, 21, 22, 25, 26, 99]


def _tensor(name: str, value) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


def _model(nodes, inputs, outputs, initializers, opsets) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "fuzz", inputs, outputs, initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets])


def qdq_chain() -> onnx.ModelProto:
    """x -> Q(int8, per tensor) -> DQ -> Relu -> Q(uint8) -> DQ."""
    nodes = [helper.make_node("QuantizeLinear", ["x", "s1", "z1"], ["q1"], name="q1"),
             helper.make_node("DequantizeLinear", ["q1", "s1", "z1"], ["d1"], name="d1"),
             helper.make_node("Relu", ["d1"], ["r"], name="relu"),
             helper.make_node("QuantizeLinear", ["r", "s2", "z2"], ["q2"], name="q2"),
             helper.make_node("DequantizeLinear", ["q2", "s2", "z2"], ["y"], name="d2")]
    initializers = [_tensor("s1", np.float32(0.05)), _tensor("z1", np.int8(-3)),
                    _tensor("s2", np.float32(0.02)), _tensor("z2", np.uint8(7))]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])], initializers, [("", 13)])


def qcdq_per_axis() -> onnx.ModelProto:
    """A per-axis int8 weight QCDQ (Q -> Clip -> DQ) into MatMul, the result quantized (opset 21)."""
    weight = np.arange(12, dtype=np.float32).reshape(4, 3) / 10 - 0.5
    nodes = [helper.make_node("QuantizeLinear", ["w", "ws", "wz"], ["wq"], name="wq", axis=1),
             helper.make_node("Clip", ["wq", "lo", "hi"], ["wc"], name="clip"),
             helper.make_node("DequantizeLinear", ["wc", "ws", "wz"], ["wd"], name="wd", axis=1),
             helper.make_node("MatMul", ["x", "wd"], ["m"], name="mm"),
             helper.make_node("QuantizeLinear", ["m", "ys", "yz"], ["y"], name="yq")]
    initializers = [_tensor("w", weight), _tensor("ws", np.float32([0.01, 0.02, 0.04])), _tensor("wz", np.int8([0, 0, 0])),
                    _tensor("lo", np.int8(-7)), _tensor("hi", np.int8(7)), _tensor("ys", np.float32(0.03)),
                    _tensor("yz", np.int8(1))]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.INT8, [2, 3])], initializers, [("", 21)])


def qonnx_quant() -> onnx.ModelProto:
    """QONNX Quant (4 bits, signed) -> Relu -> Trunc (opset 2) -> BipolarQuant."""
    nodes = [helper.make_node("Quant", ["x", "s", "z", "b"], ["q"], name="quant", domain=QONNX_DOMAIN,
                              signed=1, narrow=0, rounding_mode="ROUND"),
             helper.make_node("Relu", ["q"], ["r"], name="relu"),
             helper.make_node("Trunc", ["r", "s", "z", "b", "so", "bo"], ["t"], name="trunc", domain=QONNX_DOMAIN,
                              rounding_mode="FLOOR", signed=1, narrow=0),
             helper.make_node("BipolarQuant", ["t", "s"], ["y"], name="bipolar", domain=QONNX_DOMAIN)]
    initializers = [_tensor("s", np.float32(0.25)), _tensor("z", np.float32(0)), _tensor("b", np.float32(4)),
                    _tensor("so", np.float32(1.0)), _tensor("bo", np.float32(2))]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])], initializers,
                  [("", 13), (QONNX_DOMAIN, 2)])


def qlinear_matmul() -> onnx.ModelProto:
    nodes = [helper.make_node("QuantizeLinear", ["x", "as", "az"], ["a"], name="aq"),
             helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["yq"], name="qmm"),
             helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"], name="yd")]
    initializers = [_tensor("as", np.float32(0.05)), _tensor("az", np.uint8(128)),
                    _tensor("b", (np.arange(12, dtype=np.int64).reshape(4, 3) * 7 % 255).astype(np.uint8)),
                    _tensor("bs", np.float32(0.01)), _tensor("bz", np.uint8(120)),
                    _tensor("ys", np.float32(0.1)), _tensor("yz", np.uint8(100))]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], initializers, [("", 13)])


def seed_models() -> dict[str, onnx.ModelProto]:
    models = {"qdq_chain": qdq_chain(), "qcdq_per_axis": qcdq_per_axis(), "qonnx_quant": qonnx_quant(),
              "qlinear_matmul": qlinear_matmul()}
    models["cnn_depthwise_qdq"] = onnx.load(EXAMPLES / "cnn_depthwise_qdq.onnx")
    return models


def _rename(model: onnx.ModelProto, old: str, new: str) -> None:
    for node in model.graph.node:
        node.input[:] = [new if i == old else i for i in node.input]
        node.output[:] = [new if o == old else o for o in node.output]
    for value in [*model.graph.input, *model.graph.output, *model.graph.value_info, *model.graph.initializer]:
        if value.name == old:
            value.name = new


def _value_names(model: onnx.ModelProto) -> list[str]:
    return sorted({o for n in model.graph.node for o in n.output if o} | {i.name for i in model.graph.input})


def mutate_dims(rng: random.Random, model: onnx.ModelProto) -> None:
    values = [v for v in [*model.graph.input, *model.graph.output] if v.type.tensor_type.shape.dim]
    tensors = list(model.graph.initializer)
    if values and rng.random() < 0.6:
        dims = rng.choice(values).type.tensor_type.shape.dim
        dims[rng.randrange(len(dims))].dim_value = rng.choice(HOSTILE_INTS)
    elif tensors:
        tensor = rng.choice(tensors)
        tensor.dims[:] = [rng.choice([-1, 0, 1, 2, 3, 4, 10**6]) for _ in range(rng.randint(0, 3))]


def mutate_attribute(rng: random.Random, model: onnx.ModelProto) -> None:
    node = rng.choice(model.graph.node)
    if not node.attribute or rng.random() < 0.3:
        name = rng.choice(["axis", "block_size", "output_dtype", "saturate", "signed", "narrow", "rounding_mode", "precision"])
        value = rng.choice(HOSTILE_STRINGS[:-1]) if name == "rounding_mode" else rng.choice(HOSTILE_INTS)
        node.attribute.append(helper.make_attribute(name, value))
        return
    attribute = rng.choice(node.attribute)
    if attribute.type == onnx.AttributeProto.INT:
        attribute.i = rng.choice(HOSTILE_INTS)
    elif attribute.type == onnx.AttributeProto.FLOAT:
        attribute.f = rng.choice(HOSTILE_FLOATS)
    elif attribute.type == onnx.AttributeProto.STRING:
        attribute.s = rng.choice(HOSTILE_STRINGS).encode("utf-8", "surrogateescape")
    elif attribute.type == onnx.AttributeProto.INTS:
        attribute.ints[:] = [rng.choice(HOSTILE_INTS) for _ in range(rng.randint(0, 5))]


def mutate_dtype(rng: random.Random, model: onnx.ModelProto) -> None:
    if model.graph.initializer and rng.random() < 0.7:
        rng.choice(model.graph.initializer).data_type = rng.choice(DATA_TYPES)
    else:
        value = rng.choice([*model.graph.input, *model.graph.output])
        value.type.tensor_type.elem_type = rng.choice(DATA_TYPES)


def _readable(tensor: onnx.TensorProto) -> bool:
    """Whether onnx can read the tensor's values (an earlier mutation may have broken them)."""
    try:
        numpy_helper.to_array(tensor)
    except (ValueError, TypeError):
        return False
    return True


def mutate_data(rng: random.Random, model: onnx.ModelProto) -> None:
    if not model.graph.initializer:
        return
    tensor = rng.choice(model.graph.initializer)
    if tensor.data_location == TensorProto.EXTERNAL:
        return
    choice = rng.randrange(4)
    if choice == 0 and tensor.raw_data:
        tensor.raw_data = tensor.raw_data[: rng.randrange(len(tensor.raw_data))]
    elif choice == 1:
        tensor.raw_data = tensor.raw_data + bytes(rng.randrange(256) for _ in range(rng.randint(1, 9)))
    elif tensor.data_type in (TensorProto.FLOAT, TensorProto.FLOAT16) and _readable(tensor):
        array = numpy_helper.to_array(tensor).copy()
        if array.size:
            array.flat[rng.randrange(array.size)] = rng.choice(HOSTILE_FLOATS)
        tensor.CopyFrom(numpy_helper.from_array(array, tensor.name))
    elif tensor.raw_data:
        data = bytearray(tensor.raw_data)
        data[rng.randrange(len(data))] = rng.randrange(256)
        tensor.raw_data = bytes(data)


def mutate_names(rng: random.Random, model: onnx.ModelProto) -> None:
    names = _value_names(model) + [o.name for o in model.graph.output]
    _rename(model, rng.choice(names), rng.choice(HOSTILE_NAMES))


def mutate_external_data(rng: random.Random, model: onnx.ModelProto) -> None:
    if not model.graph.initializer:
        return
    tensor = rng.choice(model.graph.initializer)
    location = rng.choice(["../outside.bin", "/etc/hostname", "weights.bin", "missing.bin", "sub/../weights.bin",
                           "link.bin", "../../../../../../etc/passwd"])
    tensor.ClearField("raw_data")
    tensor.data_location = TensorProto.EXTERNAL
    del tensor.external_data[:]
    for key, value in [("location", location), ("offset", rng.choice(["0", "4", "-1", "99999999999"])),
                       ("length", rng.choice(["4", "0", "1000000000000", "x"]))][: rng.randint(1, 3)]:
        tensor.external_data.add(key=key, value=value)


def mutate_node(rng: random.Random, model: onnx.ModelProto) -> None:
    node = rng.choice(model.graph.node)
    choice = rng.randrange(4)
    if choice == 0:
        node.op_type = rng.choice(["QuantizeLinear", "DequantizeLinear", "Quant", "Trunc", "Relu", "Pad", "Reshape",
                                   "QLinearMatMul", "Banana", "Identity"])
    elif choice == 1 and node.input:
        del node.input[rng.randrange(len(node.input))]
    elif choice == 2:
        node.input.append(rng.choice([*_value_names(model), "", "undefined"]))
    else:
        node.domain = rng.choice(["", QONNX_DOMAIN, "com.microsoft", "onnx.brevitas", "evil"])


def mutate_opset(rng: random.Random, model: onnx.ModelProto) -> None:
    rng.choice(model.opset_import).version = rng.choice([0, 1, 2, 6, 10, 13, 19, 21, 23, 25, 99])


MODEL_MUTATORS = [mutate_dims, mutate_attribute, mutate_dtype, mutate_data, mutate_names, mutate_external_data,
                  mutate_node, mutate_opset]


def mutate_model(rng: random.Random, model: onnx.ModelProto) -> tuple[bytes, list[str]]:
    """1 to 3 field mutations (or, one time in ten, flipped bytes of the serialized model);
    returns the bytes and the mutators' names."""
    mutated = onnx.ModelProto()
    mutated.CopyFrom(model)
    if rng.random() < 0.1:
        data = bytearray(mutated.SerializeToString())
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data), ["bytes"]
    names = []
    for mutator in rng.sample(MODEL_MUTATORS, rng.randint(1, 3)):
        mutator(rng, mutated)
        names.append(mutator.__name__)
    return mutated.SerializeToString(), names


TEXT_INSERTIONS = ['"', '"unterminated' + "a" * 200, "dense<0> : tensor<100000000000xi8>", "tensor<-4xf32>",
                   "0x7FF8000000000000", "-1", "99999999999999999999", "[" * 3000, "{", "}", "%undefined",
                   "!quant.uniform<i8:f32, 0.0>", "\\", "\xff", "#map", "^bb1", "// -----"]


def mutate_text(rng: random.Random, text: str) -> str:
    """1 to 4 edits: delete or duplicate a span, insert a hostile token, replace a number."""
    for _ in range(rng.randint(1, 4)):
        if not text:
            break
        start = rng.randrange(len(text))
        end = min(len(text), start + rng.randint(1, 40))
        choice = rng.randrange(4)
        if choice == 0:
            text = text[:start] + text[end:]
        elif choice == 1:
            text = text[:end] + text[start:end] + text[end:]
        elif choice == 2:
            text = text[:start] + rng.choice(TEXT_INSERTIONS) + text[start:]
        else:
            numbers = [i for i, c in enumerate(text) if c.isdigit()]
            if numbers:
                at = rng.choice(numbers)
                text = text[:at] + str(rng.choice(HOSTILE_INTS)) + text[at + 1:]
    return text


NPY_DESCRIPTIONS = ["<f4", "<f8", ">f4", "<f2", "<c8", "|O", "<M8[D]", "<U3", "|b1", "<i8", "|u1", "<V4", "x"]


def mutate_npy(rng: random.Random, array: np.ndarray) -> bytes:
    """A `.npy` file of `array` with a rewritten header (description, shape, order), truncated,
    extended or with flipped bytes."""
    descr = rng.choice([np.lib.format.dtype_to_descr(array.dtype), *NPY_DESCRIPTIONS])
    shape = list(array.shape)
    if rng.random() < 0.4 and shape:
        shape[rng.randrange(len(shape))] = rng.choice([-1, 0, 1, 3, 10**6, 10**12])
    header = {"descr": descr, "fortran_order": rng.random() < 0.2, "shape": tuple(shape)}
    stream = io.BytesIO()
    try:
        np.lib.format.write_array_header_1_0(stream, header)
    except ValueError:
        np.lib.format.write_array_header_2_0(stream, header)
    data = bytearray(stream.getvalue() + array.tobytes())
    choice = rng.randrange(4)
    if choice == 0:
        data = data[: rng.randrange(len(data))]
    elif choice == 1:
        data += bytes(rng.randint(1, 16))
    elif choice == 2:
        for _ in range(rng.randint(1, 4)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)
