"""Test models: fixtures made here and catalogue recipes."""

from pathlib import Path


def report_macs(path: Path) -> int:
    """Multiply-accumulates of one inference of the model at `path` (bitfold-report's layer costs)."""
    from bitfold.load import load_module
    from bitfold.report import model_report

    return int(model_report(load_module(str(path))).total["macs"])
