"""What fgrad keeps of your arrays is read-only while it keeps them.

Note [what fgrad keeps is read-only]: NumPy arrays are mutable, and a tape, a pullback, a
checkpoint and a compiled program keep references to the arrays their rules will read
(a constant `A` in `x * A`, the input of `sin`, a closed-over array of a program). Written
into afterwards, such an array would make a later backward pass, recomputation or replay
compute with the new values: a wrong derivative, silently. JAX copies every array it is
given; PyTorch counts versions of its own tensors. fgrad, as MyGrad, locks: an array a
node keeps (and every ndarray it is a view of) is made read-only for as long as something
that will read it is alive, and made writable again when the last such holder lets go.
A write in between raises NumPy's "assignment destination is read-only" at the write.

- A copy would cost as much as the op for large arrays (W2's weights and batch); a lock
  is a flag: one store now, one when released. Only arrays a rule reads are locked
  (Primitive.keeps), and Python and NumPy scalars are immutable.
- Holders: a `Held` per trace (released when the transform no longer needs its tape:
  at the end of grad's call, when a vjp's or linearize's function is freed), per
  checkpoint (until its recomputation), per program (while it is cached), per Tensor-face
  node that keeps a NumPy array (until its backward or its death). Holders count: an array
  two holders keep is unlocked when both are gone.
- An array that was already read-only when fgrad met it is not fgrad's to unlock; its
  bases are still locked. A view made before fgrad met an array is a separate ndarray
  NumPy cannot lock through: writes through it are not seen (docs/sharp-bits.md says so).
- Arrays of other modules (CuPy) have no read-only flag: a holder keeps a copy of them.
"""
import threading

from numpy import ndarray

from ..backend.arrays import CUPY_ARRAY

__all__ = ["Held"]

_holds = {}     # id(array) -> number of holds: every array fgrad has locked (each holder keeps it alive)
_stuck = []     # views whose holds ended while a base was still held elsewhere: unlocked later
# (traces in several threads may keep one array; reentrant: the collector may run a holder's
# __del__, which releases, in the middle of a release or a keep on the same thread)
_mutex = threading.RLock()


class Held:
    """The arrays one tape, pullback, checkpoint or program keeps locked read-only."""

    __slots__ = ("arrays",)

    def __init__(self):
        self.arrays = []  # each hold in the order taken: a view before its bases

    def keep(self, value):
        """`value` as a holder may keep it: a NumPy array locked (with its bases), a CuPy array
        copied, anything else (a scalar, a traced value) as it is."""
        if value.__class__ is ndarray or isinstance(value, ndarray):
            arrays, a = self.arrays, value
            with _mutex:
                while True:  # the array, then each array it is a view of
                    key = id(a)
                    n = _holds.get(key)
                    if n is not None:
                        _holds[key] = n + 1
                        arrays.append(a)
                    elif a.flags.writeable:
                        a.setflags(False)  # (positional: NumPy's parsing of write= costs as much as the lock)
                        _holds[key] = 1
                        arrays.append(a)
                    a = a.base
                    if a is None or not isinstance(a, ndarray):
                        return value
        if CUPY_ARRAY and isinstance(value, CUPY_ARRAY):
            return value.copy()
        return value  # (scalars are immutable; a traced value is its trace's to keep)

    def take(self):
        """A new holder of this one's arrays; this one keeps none (checkpoint keeps what its
        traced forward pass held after dropping the tape)."""
        taken = Held()
        taken.arrays, self.arrays = self.arrays, []
        return taken

    def release(self):
        """Let go of every array this holder locked; those no other holder keeps are writable again."""
        arrays = self.arrays
        if not arrays:
            return
        with _mutex:
            for a in reversed(arrays):  # (bases first: a view can be made writable only after its base)
                key = id(a)
                n = _holds[key]
                if n == 1:
                    del _holds[key]
                    try:
                        a.setflags(True)
                    except ValueError:  # a base is read-only: still held by another holder
                        _stuck.append(a)
                else:
                    _holds[key] = n - 1
            arrays.clear()
            if _stuck:  # (a snapshot: a release reentered from _unlock may add to _stuck meanwhile)
                pending = _stuck[:]
                _stuck.clear()
                _stuck.extend([a for a in pending if not _unlock(a)])

    def __del__(self):  # (a pullback's or a program's holder lets go with it)
        if self.arrays:
            try:
                self.release()
            except (TypeError, AttributeError):  # (at interpreter exit this module's globals may be gone)
                pass


def _unlock(a):
    """Make a view whose holds ended writable, once no base of it is held; False while one is."""
    if id(a) in _holds:  # (held again since: not ours to unlock now)
        return True
    try:
        a.setflags(True)
        return True
    except ValueError:
        return False
