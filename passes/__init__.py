"""bitfold transformations: each pass is one module named for what it does."""
