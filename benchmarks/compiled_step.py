"""A Tensor-face model's training step as one fgrad.compile'd function: the loss through
fgrad.func.functional_call, its gradient by value_and_grad, and Adam's update (torch's
defaults, AdamW's decoupled decay when weight_decay is given) in fgrad.numpy, all staged into
one program, as a JAX user writes a jitted step with optax. The parameters and Adam's moments
stay NumPy arrays between steps; the bias corrections come in as 0-d arrays, so every step
replays the same program (issue 31: "fgrad.compile of the step")."""
import numpy as np

__all__ = ["compiled_adam_step"]


def compiled_adam_step(model, loss, x, y, lr=1e-3, weight_decay=0.0, betas=(0.9, 0.999), eps=1e-8):
    """A function running one step on (x, y): `loss(model, x, y)` is the step's loss as the
    eager face computes it (model called on x); the model's parameters are read once, here."""
    import fgrad
    import fgrad.numpy as fnp
    from fgrad.func import functional_call
    names = [k for k, _ in model.named_parameters()]
    params = {k: p.detach().numpy().copy() for k, p in model.named_parameters()}
    moments = ({k: np.zeros_like(v) for k, v in params.items()},
               {k: np.zeros_like(v) for k, v in params.items()})
    b1, b2 = betas

    class _Called:  # (loss reads model(x): this stands in for the model, called functionally)
        def __init__(self, p):
            self.p = p

        def __call__(self, inputs):
            return functional_call(model, self.p, (inputs,))

        def __getitem__(self, key):  # (a ModuleDict's entries, as benchmarks.nn_steps' LSTM loss reads them)
            return lambda *a: functional_call(model[key], {n.split(".", 1)[1]: v for n, v in self.p.items()
                                                           if n.split(".", 1)[0] == key}, a)

    value_and_grad = fgrad.value_and_grad(lambda p, x, y: loss(_Called(p), x, y))

    def step(p, m, v, c1, c2, x, y):
        value, g = value_and_grad(p, x, y)
        new_p, new_m, new_v = {}, {}, {}
        for k in names:
            new_m[k] = b1 * m[k] + (1 - b1) * g[k]
            new_v[k] = b2 * v[k] + (1 - b2) * g[k] * g[k]
            decayed = p[k] * (1 - lr * weight_decay) if weight_decay else p[k]
            new_p[k] = decayed - lr * (new_m[k] * c1) / (fnp.sqrt(new_v[k] * c2) + eps)
        return value, new_p, new_m, new_v

    compiled = fgrad.compile(step)
    state = {"p": params, "m": moments[0], "v": moments[1], "t": 0}
    dtype = next(iter(params.values())).dtype

    def run():
        state["t"] += 1
        t = state["t"]
        c1, c2 = np.asarray(1 / (1 - b1 ** t), dtype), np.asarray(1 / (1 - b2 ** t), dtype)
        value, state["p"], state["m"], state["v"] = compiled(state["p"], state["m"], state["v"], c1, c2, x, y)
        return value
    run.compiled = compiled
    return run
