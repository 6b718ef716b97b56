"""`bitfold-opt`: xDSL's opt driver with every upstream dialect, pass and target plus
bitfold's. Same flags as `xdsl-opt`. Bad input is one error line and exit status 1
(`bitfold.diagnostics`)."""

import argparse
import inspect
import sys
from collections.abc import Sequence
from io import BytesIO
from pathlib import Path
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import ArgSpecParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from bitfold import __version__, register_into
from bitfold.diagnostics import add_tensor_cap_argument, exit_with_error, one_line_errors
from bitfold.dialects.tensor_limits import tensor_limits
from bitfold.frontends import FrontendError
from bitfold.load import import_onnx
from bitfold.mlir_bytecode import bytecode_to_text
from bitfold.output_files import PendingTextOutput
from bitfold.parsing import mlir_text, parse_module
from bitfold.registry import get_all_passes, get_all_targets
from bitfold.verification import verify_program


class BitfoldOptMain(xDSLOptMain):
    """Registers what the `xdsl.universe` plugins provide (bitfold included once installed),
    then bitfold's own entries where a plugin did not already (running from a source tree).
    `--help` ends with bitfold's passes, their options and what each does."""

    version_format = f"bitfold-opt {__version__} (xdsl {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        arguments = sys.argv[1:] if args is None else args
        self._describe_passes = any(argument in ("-h", "--help") for argument in arguments)
        super().__init__(description="bitfold-opt: bitfold's quantization compiler driver (xDSL's opt driver "
                         "with bitfold's dialects, passes and targets)", args=args)

    def register_all_dialects(self):
        super().register_all_dialects()
        register_into(self.ctx)

    def register_all_frontends(self):
        """`.mlir` through `bitfold.parsing` (UTF-8 checked, linear string lexing, dense
        literals within the tensor cap), `.onnx` through the ONNX frontend."""
        super().register_all_frontends()
        self.available_frontends["mlir"] = lambda stream: parse_module(
            self.ctx, mlir_text(stream.read(), self.get_input_name()), self.get_input_name(),
            not self.args.no_implicit_module,
        )
        self.available_frontends["onnx"] = lambda stream: import_onnx(
            stream.read(), self._input_dir(), self.args.input_file or "<stdin>"
        )
        parse_text = self.available_frontends["mlir"]
        self.available_frontends["mlirbc"] = lambda stream: parse_text(
            BytesIO(bytecode_to_text(stream.read(), self.get_input_name()).encode())
        )

    def apply_passes(self, prog: ModuleOp):
        """The passes, on a module that passes `bitfold.verification.verify_program`."""
        verify_program(prog)
        super().apply_passes(prog)

    def _input_dir(self) -> Path | None:
        """Where an ONNX model's external data files are: beside the input file."""
        return Path(self.args.input_file).parent if self.args.input_file else None

    def register_all_arguments(self, arg_parser):
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "bitfold-opt"
        if self._describe_passes:  # imports every pass: only for --help
            from bitfold.pass_catalogue import describe_passes

            arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
            arg_parser.epilog = describe_passes()
        add_tensor_cap_argument(arg_parser)
        arg_parser.add_argument(
            "--verify-quant",
            action="store_true",
            help="report on the quantization after the passes (verify-quant, to stderr)",
        )

    def setup_pipeline(self):
        """The `-p` pipeline, then `verify-quant` with `--verify-quant`."""
        super().setup_pipeline()
        if self.args.verify_quant:
            verify_quant = get_all_passes()["verify-quant"]()()
            self.pipeline = PassPipeline((*self.pipeline.passes, verify_quant), self.pipeline.callback)

    def prepare_output(self) -> IO[str]:
        """stdout, or `-o FILE` held in memory: the file is written whole once the run
        succeeds (`run`), never truncated or left half written by a failure."""
        if self.args.output_file is None:
            self._output_stream = sys.stdout
        else:
            self._output_stream = PendingTextOutput(self.args.output_file)
        return self._output_stream

    def prepare_input(self):
        try:
            return super().prepare_input()
        except ValueError as error:  # xDSL's "Unrecognized file extension"
            raise FrontendError(str(error)) from None

    def run(self):
        with tensor_limits(max_bytes=self.args.max_tensor_bytes):
            super().run()
        if isinstance(self._output_stream, PendingTextOutput):
            self._output_stream.commit()

    def output_resulting_program(self, prog: ModuleOp) -> str:
        """Binary targets (`BINARY = True`: the ONNX exporters) write their bytes straight to the
        output file or stdout; xDSL's driver hands text targets a string buffer."""
        spec = parse_spec(self.args.target)
        factory = self.available_targets[spec.name]
        if not inspect.signature(factory).parameters:
            target_class = factory()
            if getattr(target_class, "BINARY", False):
                target_class.from_spec(spec).emit(self.ctx, prog, self._output_stream)
                return ""
        return super().output_resulting_program(prog)

    def register_all_passes(self):
        super().register_all_passes()
        for name, factory in get_all_passes().items():
            if name not in self.available_passes:
                self.register_pass(name, factory)

    def register_all_targets(self):
        super().register_all_targets()
        for name, factory in get_all_targets().items():
            self.available_targets.setdefault(name, factory)


def main(args: Sequence[str] | None = None) -> None:
    try:
        driver = BitfoldOptMain(args=args)
    except (ValueError, ArgSpecParseError) as error:  # an unknown pass or a bad pipeline spec
        exit_with_error(f"error: {str(error).strip().splitlines()[-1].strip()}")
    with one_line_errors():
        driver.run()
