"""fgrad.tree: jax.tree's short names for fgrad.tree_util's functions (`fgrad.tree.map`, ...)."""
from .tree_util import tree_all as all
from .tree_util import tree_flatten as flatten
from .tree_util import tree_flatten_with_path as flatten_with_path
from .tree_util import tree_leaves as leaves
from .tree_util import tree_leaves_with_path as leaves_with_path
from .tree_util import tree_map as map
from .tree_util import tree_map_with_path as map_with_path
from .tree_util import tree_reduce as reduce
from .tree_util import tree_structure as structure
from .tree_util import tree_transpose as transpose
from .tree_util import tree_unflatten as unflatten

__all__ = ["all", "flatten", "flatten_with_path", "leaves", "leaves_with_path", "map", "map_with_path", "reduce",
           "structure", "transpose", "unflatten"]
