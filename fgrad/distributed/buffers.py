"""Leaves packed into one flat buffer per kind (array module and dtype), and unpacked.

A collective on a pytree moves each kind's leaves in one MPI (or NCCL) call: one message's
latency for all of them, instead of one per leaf. The buffers are fresh arrays, so no
collective writes into a caller's array, and the results are views of the received buffer.
"""
from ..backend.arrays import array_module

__all__ = ["kinds", "pack", "pack_rows", "unpack", "unpack_columns", "writeable"]


def kinds(arrays):
    """[(xp, [indices])]: the arrays grouped by array class and dtype, in first-seen order."""
    groups = {}
    for i, a in enumerate(arrays):
        groups.setdefault((a.__class__, a.dtype), []).append(i)
    return [(array_module(arrays[idx[0]]), idx) for idx in groups.values()]


def pack(xp, arrays, idx):
    """arrays[i] for i in idx, raveled one after another into a new 1-d array."""
    if not idx:
        return xp.empty(0)
    return xp.concatenate([arrays[i].reshape(-1) for i in idx])


def unpack(flat, arrays, idx, outs, shapes=None):
    """outs[i] = the piece of `flat` for arrays[i] (of its shape, or shapes[i]), a view."""
    start = 0
    for i in idx:
        shape = arrays[i].shape if shapes is None else shapes[i]
        n = 1
        for d in shape:
            n *= d
        outs[i] = flat[start:start + n].reshape(shape)
        start += n


def pack_rows(xp, arrays, idx, rows):
    """(rows, m): row r holds arrays[i][r] raveled, for i in idx (each has `rows` along axis 0)."""
    return xp.concatenate([arrays[i].reshape(rows, -1) for i in idx], axis=1)


def unpack_columns(table, arrays, idx, outs, shapes):
    """outs[i] = columns of `table` (rows, m) for arrays[i], of shape (rows, *shapes[i])."""
    start = 0
    rows = table.shape[0]
    for i in idx:
        n = 1
        for d in shapes[i]:
            n *= d
        outs[i] = table[:, start:start + n].reshape((rows, *shapes[i]))
        start += n


def writeable(a):
    """May `a` be written in place? A NumPy array says (fgrad locks what it keeps: ir/held.py);
    a CuPy array always may; anything else (a number, a traced value) may not."""
    flags = getattr(a, "flags", None)
    if flags is None or not hasattr(a, "shape"):
        return False
    return bool(getattr(flags, "writeable", True))
