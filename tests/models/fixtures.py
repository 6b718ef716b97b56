"""pytest fixtures serving the test models (see recipes.py)."""
