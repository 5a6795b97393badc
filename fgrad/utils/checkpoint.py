"""fgrad.utils.checkpoint: torch.utils.checkpoint's call form on the Tensor face.

checkpoint(function, *args) runs function without keeping what its backward would read, and
runs it again, recording, when backward reaches it: memory for time. On Tensors it is a
Function whose backward recomputes and differentiates the recomputation (the gradients of
parameters used inside accumulate in their .grad there, as torch's); on traced values (under
fgrad.grad and the other transforms) it is fgrad.checkpoint, the functional face's."""
from ..autograd.factories import _rng  # (the default stream, restored for the recomputation)
from ..autograd.function import Function
from ..autograd.functional import backward as autograd_backward
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.tensor import Tensor
from ..ir.value import Tracer
from ..transforms.custom import checkpoint as functional_checkpoint

__all__ = ["checkpoint", "checkpoint_sequential"]


def checkpoint(function, *args, use_reentrant=None, preserve_rng_state=True, **kwargs):
    """function(*args, **kwargs), recomputed in backward instead of kept. use_reentrant and
    preserve_rng_state are accepted: the recomputation draws the same numbers as the forward
    (the default generator's state is restored for it), and both torch variants give these
    gradients."""
    if any(isinstance(a, Tracer) and not isinstance(a, Tensor) for a in args):
        return functional_checkpoint(lambda *a: function(*a, **kwargs))(*args)
    return _Recompute.apply(lambda *a: function(*a, **kwargs), preserve_rng_state, *args)


class _Recompute(Function):
    @staticmethod
    def forward(ctx, run, preserve_rng_state, *args):
        ctx.run, ctx.args = run, args
        ctx.rng_state = _rng[0].bit_generator.state if preserve_rng_state else None
        with no_grad():
            return run(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = tuple(a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a for a in ctx.args)
        state = _rng[0].bit_generator.state
        if ctx.rng_state is not None:
            _rng[0].bit_generator.state = ctx.rng_state
        try:
            with enable_grad():
                outputs = ctx.run(*inputs)
        finally:
            _rng[0].bit_generator.state = state
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if pairs:
            autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, *[a.grad if isinstance(a, Tensor) and a.requires_grad else None for a in inputs])


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """functions (a Sequential or a list of modules) applied in order, in `segments` checkpointed
    runs of consecutive ones (the last run is kept, as torch's)."""
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    if segments < 1:
        raise ValueError(f"checkpoint_sequential: segments must be at least 1, got {segments}")
    size, end = max(1, len(functions) // segments), 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = checkpoint(_run_range(functions, start, end), input, use_reentrant=use_reentrant, **kwargs)
    return _run_range(functions, end, len(functions))(input)


def _run_range(functions, start, end):
    def run(x):
        for f in functions[start:end]:
            x = f(x)
        return x
    return run
