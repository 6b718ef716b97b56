"""`python -m bitfold.backends.kernel.harness`: build the instruction counter plugin (on first use,
`counter_plugin.plugin_path`) and print its path. A package's `__main__` is run without being
imported by the package first, so runpy has nothing to warn about (running the submodule
`counter_plugin` with `-m` would: the package's `__init__` imports it)."""

from bitfold.backends.kernel.harness.counter_plugin import plugin_path

print(plugin_path())
