"""A primitive's vjp from its jvp rule, by transposing the (linear) tangent map.

The published derivatives of the matrix decompositions (cholesky, eigh, qr, svd, pinv)
are forward-mode rules. Rather than deriving and maintaining a second, reverse-mode
rule for each, `vjp_from_jvp` runs reverse mode over the jvp rule itself: the map
tangents -> output tangent is linear, so its vjp at any point (we use zero) is the
primitive's vjp. The jvp rule is written in fgrad ops, so the transposed rule is
traced by an enclosing transform too and differentiates again.

Reverse mode itself is a transform, a layer above the ops: fgrad.transforms.reverse sets
`vjp` here when it loads, as the imperative face sets primitive.record_tensor_op.
"""
from .conversion import convert
from .zeros import zeros_like_value

__all__ = ["vjp_from_jvp"]

vjp = None  # fgrad.transforms.reverse.vjp, set when it loads (see above)


def _fit(t, like):
    """The tangent `t` (None: zero) with `like`'s dtype, so it matches the cotangent."""
    if t is None:
        return zeros_like_value(like)
    return t if t.dtype == like.dtype else convert(t, dtype=like.dtype)


def vjp_from_jvp(prim):
    """Register on `prim` a vjp computed by transposing its `jvp_full` rule."""
    jvp_full = prim.jvp_full
    if jvp_full is None:
        raise TypeError(f"vjp_from_jvp: {prim.name} has no jvp_full rule to transpose")

    def vjp_all(g, ans, primals, needs, **params):
        wanted = [i for i, need in enumerate(needs) if need]
        # Only the outputs with a cotangent (Note [symbolic zero outputs] in engine/backward.py):
        # the others' tangents are never transposed.
        live = [k for k, c in enumerate(g) if c is not None] if prim.multiple_results else None

        def tangent_map(*ts):
            tangents = [None] * len(primals)
            for i, t in zip(wanted, ts):
                tangents[i] = t
            out = jvp_full(tuple(primals), tuple(tangents), ans, **params)
            if prim.multiple_results:
                return tuple(_fit(out[k], ans[k]) for k in live)
            return _fit(out, ans)

        _, f_vjp = vjp(tangent_map, *[zeros_like_value(primals[i]) for i in wanted])
        cts = f_vjp(tuple(g[k] for k in live) if prim.multiple_results else g)
        result = [None] * len(primals)
        for i, ct in zip(wanted, cts):
            result[i] = ct
        return tuple(result)

    return prim.defvjp_all(vjp_all)
