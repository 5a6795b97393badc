"""einsum: one primitive for every Einstein summation, and its derivatives.

The subscripts are normalized once, before binding (`normalize`): '...' becomes explicit
letters and the output is always given, so every rule sees plain 'ab,bc->ac' text.
einsum is linear in each operand: the jvp puts the tangent in place of its operand,
and the vjp of operand i is another einsum of the cotangent with the other operands,
into operand i's subscripts (see `_operand_cotangent` for repeated and summed letters).
"""
import functools
import string
from collections import Counter

from ..backend import array_module
from ..ir.value import peek
from .batching import front
from .primitive import Primitive

__all__ = ["einsum", "from_sublists", "normalize"]

LETTERS = string.ascii_letters
_SUBLIST_LETTERS = string.ascii_uppercase + string.ascii_lowercase  # NumPy's: 0 is 'A', 26 is 'a'


def _error(subscripts, message):
    return ValueError(f"fgrad.numpy.einsum: {message} (subscripts {subscripts!r})")


def from_sublists(args):
    """NumPy's interleaved form einsum(op0, sublist0, op1, sublist1, ..., [sublistout])."""
    def text(sublist):
        return "".join("..." if s is Ellipsis else _SUBLIST_LETTERS[s] for s in sublist)
    operands, terms = list(args[0::2]), [text(s) for s in args[1::2]]
    out = None
    if len(args) % 2:
        out = text(operands.pop())
    return ",".join(terms) + ("" if out is None else "->" + out), operands


def _split(spec):
    inputs, _, out = spec.partition("->")
    return inputs.split(","), out


def normalize(subscripts, shapes):
    """Explicit subscripts for operands of `shapes`: no '...', output always given."""
    spec = subscripts.replace(" ", "")
    explicit = "->" in spec
    inputs, out = _split(spec)
    if len(inputs) != len(shapes):
        raise _error(subscripts, f"{len(inputs)} operand subscripts but {len(shapes)} operands")
    for term in inputs + [out]:
        if any(c not in LETTERS for c in term.replace("...", "")):
            raise _error(subscripts, f"invalid subscript in {term!r}: use letters a-z, A-Z and '...'")
    free = [c for c in LETTERS if c not in spec]
    ellipsis_ndims = []
    for k, (term, shape) in enumerate(zip(inputs, shapes)):
        named = len(term.replace("...", ""))
        extra = len(shape) - named
        if extra < 0 or (extra > 0 and "..." not in term):
            raise _error(subscripts, f"operand {k} has shape {tuple(shape)} ({len(shape)} dimensions) but its "
                                     f"subscripts {term!r} name {named}")
        ellipsis_ndims.append(extra)
    if max(ellipsis_ndims, default=0) > len(free):
        raise _error(subscripts, "too many dimensions: ran out of letters for '...'")
    ell = "".join(free[:max(ellipsis_ndims, default=0)])
    expanded = [term.replace("...", ell[len(ell) - n:] if n else "") for term, n in zip(inputs, ellipsis_ndims)]
    if explicit:
        if ell and "..." not in out:
            raise _error(subscripts, "the operands have '...' dimensions but the output has no '...' to hold them")
        out = out.replace("...", ell)
        letters = set("".join(expanded))
        for c in out:
            if c not in letters:
                raise _error(subscripts, f"output subscript {c!r} does not appear in any operand")
        if len(set(out)) != len(out):
            raise _error(subscripts, f"output subscript {out!r} repeats a letter")
    else:  # NumPy's implicit mode: letters used exactly once, sorted, after the '...' dimensions
        counts = Counter("".join(t.replace("...", "") for t in inputs))
        out = ell + "".join(sorted(c for c, n in counts.items() if n == 1))
    return ",".join(expanded) + "->" + out


def _einsum(*operands, subscripts):
    xp = array_module(*operands)
    if xp.__name__ != "numpy":
        return xp.einsum(subscripts, *operands)
    # NumPy contracts two operands in a C loop unless optimize is on; its path search
    # (which routes through BLAS) pays off only for several or large operands, and only when
    # something is summed (an outer product has no BLAS form: the C loop is faster).
    big = len(operands) > 2 or (_contracts(subscripts) and any(getattr(o, "size", 1) >= 4096 for o in operands))
    return xp.einsum(subscripts, *operands, optimize=big)


@functools.lru_cache(maxsize=512)
def _contracts(subscripts):
    """Does `subscripts` (explicit) sum over a letter of its operands?"""
    inputs, out = _split(subscripts)
    return any(c not in out for c in "".join(inputs))


def _operand_cotangent(g, operands, i, subscripts):
    """The cotangent of operand i: einsum of g and the other operands into operand i's subscripts.

    A letter repeated within operand i (a diagonal) gets a fresh letter tied to the first
    by an identity matrix; a letter no other term has at operand i's size (summed away, or
    of size 1 elsewhere and broadcast) gets a vector of ones, which broadcasts the
    cotangent along it. Size-1 dimensions of operand i that broadcast come back at full
    size and are summed by the central unbroadcast (ops/broadcasting.py).
    """
    inputs, out = _split(subscripts)
    term = inputs[i]
    sizes = {}  # letter -> its largest size in the other terms (g and the other operands)
    for t, o in [(out, g)] + [(t, o) for j, (t, o) in enumerate(zip(inputs, operands)) if j != i]:
        for c, n in zip(t, o.shape):
            sizes[c] = max(sizes.get(c, 1), n)
    fresh = (c for c in LETTERS if c not in subscripts)
    xp = array_module(peek(g))
    target, extra_terms, extra_ops = [], [], []
    for c, size in zip(term, operands[i].shape):
        if c in target:
            f = next(fresh)
            target.append(f)
            extra_terms.append(c + f)
            extra_ops.append(xp.eye(size, dtype=g.dtype))
        else:
            target.append(c)
            if c not in sizes or sizes[c] < size:
                extra_terms.append(c)
                extra_ops.append(xp.ones(size, dtype=g.dtype))
    rest = [o for j, o in enumerate(operands) if j != i]
    terms = [out] + [t for j, t in enumerate(inputs) if j != i] + extra_terms
    return einsum(g, *rest, *extra_ops, subscripts=",".join(terms) + "->" + "".join(target))


def _einsum_jvp(primals, tangents, ans, subscripts):
    total = None
    for i, t in enumerate(tangents):
        if t is not None:
            term = einsum(*primals[:i], t, *primals[i + 1:], subscripts=subscripts)
            total = term if total is None else total + term
    return total


def _einsum_batch(operands, dims, subscripts):
    """A fresh letter names the batch axis: first in each batched operand and in the output."""
    z = next(c for c in LETTERS if c not in subscripts)
    inputs, out = _split(subscripts)
    terms = [t if d is None else z + t for t, d in zip(inputs, dims)]
    lined = [o if d is None else front(o, d) for o, d in zip(operands, dims)]
    return einsum(*lined, subscripts=",".join(terms) + "->" + z + out), 0


einsum = Primitive("einsum", _einsum, saves="inputs", batch=_einsum_batch).defjvp_full(_einsum_jvp).defvjp_all(
    lambda g, ans, operands, needs, subscripts: tuple(
        _operand_cotangent(g, operands, i, subscripts) if need else None for i, need in enumerate(needs)))
