"""The response stage: 0/1 response matrices of the classifier pool on each dataset's test items."""
from benchirt.lazy import attach_stub

# __all__ and the lazy names: those of the stub __init__.pyi, the package's one list of public names
attach_stub(__name__, __file__)
