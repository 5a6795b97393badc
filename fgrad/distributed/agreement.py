"""What the ranks agree on before a collective moves data, and what to say when they do not.

MPI combines whatever buffers the ranks pass: a rank whose pytree has another leaf, or which
calls another collective, would silently mix unrelated numbers (or hang). So each collective
first exchanges a digest of its signature (8 bytes per rank): its sequence number on this
rank, its name and settings, and each leaf's path, dtype and shape. When the digests differ,
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
        return f"{self.name}({self.settings})" + (f" of {n} leaves" if n != 1 else f" of {self.labels[0]}")


def signature(seq, call, arrays):
    """What every rank must agree on: (seq, name, settings, labels, ((dtype, shape) per leaf))."""
    return (seq, call.name, call.settings, call.labels,
            tuple((np.dtype(a.dtype).str, tuple(int(n) for n in a.shape)) for a in arrays))


def digest(sig):
    """The signature's 8-byte digest, as a one-element int64 array (the buffer MPI exchanges)."""
    return np.frombuffer(hashlib.blake2b(repr(sig).encode(), digest_size=8).digest(), dtype=np.int64).copy()


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
