"""Workarounds for bugs of xDSL 0.74.0 (the pinned version), one module a bug, each undone by deleting
its module once xDSL is fixed. docs/xdsl-compat.md holds the table bug -> fix -> canary test ->
upstream report; each canary (`tests/xdsl_compat/`) shows the bug on plain xDSL and fails once an
xDSL upgrade fixes it. In `dialects/` (the lowest layer) so that dialects, passes, backends and the
driver can import it; it imports xDSL only."""
