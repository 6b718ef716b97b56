"""The LLVM backend's one error for input it cannot compile."""


class LlvmInputError(Exception):
    """A module the LLVM backend cannot compile (one line, naming the function or op)."""
