"""fgrad.autograd.graph: the graph's node type and saved-tensor hooks."""
from ..ir.node import Node
from .saved_hooks import saved_tensors_hooks

__all__ = ["Node", "saved_tensors_hooks"]
