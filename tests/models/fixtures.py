"""pytest fixtures serving the test models (see recipes.py); loaded by tests/conftest.py.

Models are built lazily, once per test session, into a session temporary directory.

    def test_imports_every_qdq_model(qdq_model_name, test_model, model_catalogue):
        path = test_model(qdq_model_name)                      # built on first use, then cached
        inputs = model_catalogue.inputs(qdq_model_name, seed=0)
        expected = model_catalogue.run(qdq_model_name, inputs)  # onnxruntime, the QDQ oracle
        ...

To parametrize at collection time without a fixture: `from models.recipes import names`, then
`@pytest.mark.parametrize("name", names("qcdq"))`.
"""

from __future__ import annotations

import pytest

from .qonnx_models import SHIPPED_QONNX_MODELS
from .recipes import FORMS, ModelCatalogue, names


@pytest.fixture(scope="session")
def model_catalogue(tmp_path_factory) -> ModelCatalogue:
    """The session's `ModelCatalogue`: `.path(name)`, `.load(name)`, `.inputs(name, seed)`,
    `.run(name, inputs)` (the model's oracle: onnxruntime, or qonnx's executor for QONNX)."""
    return ModelCatalogue(tmp_path_factory.mktemp("bitfold-test-models"))


@pytest.fixture(scope="session", name="test_model")
def _test_model(model_catalogue):
    """Factory: catalogue model name -> pathlib.Path of its built .onnx file (built on first call)."""
    return model_catalogue.path


@pytest.fixture(scope="session")
def model_names() -> dict[str, list[str]]:
    """Catalogue model names by form: keys "float", "qdq", "qop", "qcdq", "qonnx"."""
    return {form: names(form) for form in FORMS}


@pytest.fixture(scope="session")
def model_oracle(model_catalogue):
    """Function (name, inputs) -> {output name: ndarray} running the model under its form's oracle."""
    return model_catalogue.run


@pytest.fixture(params=names(), scope="session")
def catalogue_model_name(request) -> str:
    """Parametrized over every catalogue model name (all forms)."""
    return request.param


@pytest.fixture(params=names("float"), scope="session")
def float_model_name(request) -> str:
    """Parametrized over the float models (mlp, cnn_depthwise, residual, pooling)."""
    return request.param


@pytest.fixture(params=names("qdq"), scope="session")
def qdq_model_name(request) -> str:
    """Parametrized over the QDQ models (QuantizeLinear / DequantizeLinear pairs, onnxruntime-made)."""
    return request.param


@pytest.fixture(params=names("qop"), scope="session")
def qop_model_name(request) -> str:
    """Parametrized over the QOperator models (QLinearConv, QLinearMatMul, QGemm, QLinearAdd, ...)."""
    return request.param


@pytest.fixture(params=names("qcdq"), scope="session")
def qcdq_model_name(request) -> str:
    """Parametrized over the QCDQ models (QuantizeLinear -> Clip -> DequantizeLinear, 4-bit)."""
    return request.param


@pytest.fixture(params=names("qonnx"), scope="session")
def qonnx_model_name(request) -> str:
    """Parametrized over the QONNX models (Quant / BipolarQuant / Trunc); oracle: qonnx's executor."""
    return request.param


@pytest.fixture(params=SHIPPED_QONNX_MODELS, ids=lambda m: m.relpath, scope="session")
def shipped_qonnx_model(request):
    """Parametrized over the ONNX files shipped in the qonnx package (`ShippedModel`: `.path`,
    `.feeds(seed)`, `.runs`, `.cleaned_model()`)."""
    return request.param

