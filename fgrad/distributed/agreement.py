"""What the ranks agree on before a collective moves data, and what to say when they do not.

MPI combines whatever buffers the ranks pass: a rank whose pytree has another leaf, or which
calls another collective, would silently mix unrelated numbers (or hang). So each collective
first compares a digest of its signature across the ranks: its sequence number on this
rank, its name and settings, and each leaf's path, dtype and shape (one all-reduce of the
digest d and of -d, with MAX, shows whether all are equal). When the digests differ,
the ranks exchange the signatures themselves and every rank raises the same
CollectiveMismatchError, naming the first rank that differs from rank 0 and what differs.
"""
import hashlib

import numpy as np

__all__ = ["Call", "digest", "explain", "signature"]


class Call:
    """One collective as messages name it: `all_reduce(op='sum') of 4 leaves`.

    `labels` are the leaves' paths (`params['W1']`), one per leaf, or empty where leaves are
    named by position (a DDP bucket)."""

    __slots__ = ("name", "settings", "labels")

    def __init__(self, name, settings="", labels=()):
        self.name, self.settings, self.labels = name, settings, tuple(labels)

    def __str__(self):
        n = len(self.labels)
        leaves = "" if not n else f" of {n} leaves" if n > 1 else f" of {self.labels[0]}"
        return f"{self.name}({self.settings}){leaves}"


def signature(seq, call, arrays):
    """What every rank must agree on: (seq, name, settings, labels, ((dtype, shape) per leaf))."""
    return (seq, call.name, call.settings, call.labels,
            tuple((np.dtype(a.dtype).str, tuple(int(n) for n in a.shape)) for a in arrays))


_DIGESTS = {}  # a signature without its seq -> its digest: a training loop repeats a few signatures
_MASK = (1 << 63) - 1


def digest(sig):
    """The signature's digest: a non-negative int64 (so that its negation is one too: the ranks
    compare digests by one all-reduce of (d, -d) with MAX), the same on every rank (blake2b of
    the repr, not Python's hash, which differs between processes)."""
    seq, rest = sig[0], sig[1:]
    base = _DIGESTS.get(rest)
    if base is None:
        if len(_DIGESTS) > 4096:  # (kept small: a long run may meet many shapes)
            _DIGESTS.clear()
        base = _DIGESTS[rest] = int.from_bytes(hashlib.blake2b(repr(rest).encode(), digest_size=8).digest(), "little")
    return ((base ^ (seq * 0x9E3779B97F4A7C15)) & _MASK)


def explain(sigs):
    """What the first rank whose signature differs from rank 0's does differently."""
    base = sigs[0]
    for r, sig in enumerate(sigs):
        if sig != base:
            return _difference(base, r, sig)
    return "the signatures agree (their digests collided)"


def _difference(a, r, b):
    seq_a, name_a, set_a, labels_a, leaves_a = a
    seq_b, name_b, set_b, labels_b, leaves_b = b
    if (name_a, set_a) != (name_b, set_b):
        return (f"rank 0 calls {name_a}({set_a}) as its collective #{seq_a}, rank {r} calls {name_b}({set_b}) "
                f"as its collective #{seq_b}")
    if labels_a != labels_b:
        missing = [x for x in labels_a if x not in labels_b]
        extra = [x for x in labels_b if x not in labels_a]
        if missing or extra:
            parts = ([f"rank 0 has {', '.join(missing)}, which rank {r} has not"] if missing else []) + \
                    ([f"rank {r} has {', '.join(extra)}, which rank 0 has not"] if extra else [])
            return f"the pytrees of {name_a} differ: " + "; ".join(parts)
        return f"the leaves of {name_a} come in another order on rank {r}: {list(labels_b)} against {list(labels_a)}"
    if len(leaves_a) != len(leaves_b):
        return f"rank 0 passes {len(leaves_a)} leaves to {name_a}, rank {r} passes {len(leaves_b)}"
    for i, (la, lb) in enumerate(zip(leaves_a, leaves_b)):
        if la != lb:
            label = labels_a[i] if labels_a else f"leaf {i}"
            return (f"{label}: rank 0 has dtype {np.dtype(la[0])} and shape {la[1]}, rank {r} has dtype "
                    f"{np.dtype(lb[0])} and shape {lb[1]}")
    return (f"rank 0 is at its collective #{seq_a}, rank {r} at its #{seq_b}: the ranks made different numbers of "
            f"collectives before this one (a branch that some ranks took, or a compiled step that retraced on some)")
