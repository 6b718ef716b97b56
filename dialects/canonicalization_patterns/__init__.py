"""Canonicalization patterns of bitfold dialects, referenced by their ops traits."""
