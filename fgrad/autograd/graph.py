"""fgrad.autograd.graph: the graph's node type, saved-tensor hooks (and save_on_cpu,
disable_saved_tensors_hooks), and register_multi_grad_hook, as torch.autograd.graph's."""
import threading

from ..ir.node import Node
from ..typing import Any, Callable, Sequence
from .callbacks import queue_callback
from .saved_hooks import disable_saved_tensors_hooks, saved_tensors_hooks
from .tensor import Tensor

__all__ = ["Node", "disable_saved_tensors_hooks", "register_multi_grad_hook", "save_on_cpu", "saved_tensors_hooks"]


class save_on_cpu(saved_tensors_hooks):
    """Values saved for backward inside it are kept on the CPU and moved back to their device
    when backward reads them (GPU memory for CPU memory, as torch's). pin_memory is accepted:
    fgrad's host copies are plain NumPy arrays.

    Examples
    --------
    >>> x = fgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> with fgrad.autograd.graph.save_on_cpu():
    ...     y = (x * x).sum()
    >>> y.backward(); x.grad
    tensor([2., 4.])
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: (t.device, t.detach().to("cpu")), lambda packed: packed[1].to(packed[0]))


class _MultiGradHandle:
    __slots__ = ("handles",)

    def __init__(self, handles):
        self.handles = handles

    def remove(self) -> None:
        for h in self.handles:
            h.remove()


def register_multi_grad_hook(tensors: Sequence[Tensor], fn: Callable[..., Any], *,
                             mode: str = "all") -> _MultiGradHandle:
    """fn once per backward for several tensors: mode "all" calls fn(grads) (None for a tensor
    this backward gives no gradient) when the backward has walked its graph; mode "any" calls
    fn(grad) with the first of their gradients computed. Returns a handle with .remove().

    Examples
    --------
    >>> a, b = fgrad.tensor(1.0, requires_grad=True), fgrad.tensor(2.0, requires_grad=True)
    >>> seen = []
    >>> _ = fgrad.autograd.graph.register_multi_grad_hook((a, b), lambda grads: seen.append(grads))
    >>> (a * b).backward(); seen  # once, with both gradients
    [(tensor(2.), tensor(1.))]
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    tensors = tuple(tensors)
    local = threading.local()  # (per thread: each backward runs its hooks on its own thread's state)

    def hook_for(i):
        def hook(grad):
            seen = getattr(local, "grads", None)
            if seen is None:
                seen = local.grads = [None] * len(tensors)
                if mode == "all":
                    queue_callback(finish)
                else:
                    queue_callback(lambda: setattr(local, "grads", None))
                    fn(grad)
            seen[i] = grad
        return hook

    def finish():
        grads, local.grads = local.grads, None
        fn(tuple(grads))

    return _MultiGradHandle([t.register_hook(hook_for(i)) for i, t in enumerate(tensors)])
