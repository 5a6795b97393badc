"""The errors of fgrad.distributed: a collective that cannot complete raises on every rank.

Each subclasses the built-in class a caller would catch, as fgrad.errors' classes do:

- CollectiveTimeoutError (RuntimeError): a collective waited past its deadline.
- RankFailedError (RuntimeError): another rank raised, so this rank's collective cannot complete.
- CollectiveMismatchError (ValueError): the ranks called a collective on different things.
"""

__all__ = ["CollectiveMismatchError", "CollectiveTimeoutError", "RankFailedError"]


class CollectiveTimeoutError(RuntimeError):
    """A collective on this rank waited longer than the world's timeout for the other ranks.

    Raised by every collective and barrier (their waits poll nonblocking MPI requests against
    a deadline), naming this rank, the collective and the timeout. Some rank did not reach the
    collective: it is stuck, much slower, or it skipped the call (it took another branch).

    What to do: make every rank call the same collectives in the same order; if a rank is only
    slow (a long first step, a checkpoint written by rank 0), raise the timeout:
    `fgrad.distributed.init(timeout=...)` or FGRAD_DISTRIBUTED_TIMEOUT (seconds).
    """


class RankFailedError(RuntimeError):
    """Another rank raised an error, so the collective this rank waits in cannot complete.

    The failing rank's error handler (installed by `fgrad.distributed.init`) sends a notice
    to every other rank before the job ends; a rank waiting in a collective, or entering one
    later, raises this error with the failing rank and its error. After it the world is
    broken: every further collective raises it again.

    What to do: read the failing rank's traceback, printed above this one.
    """


class CollectiveMismatchError(ValueError):
    """The ranks called a collective with different arguments: another collective, another
    number of leaves, or a leaf of another shape, dtype or place in the pytree.

    Raised on every rank by the collective's agreement check (one small exchange before the
    data moves), naming the first rank that differs from rank 0 and what differs (the leaf's
    path, both shapes and dtypes). MPI would otherwise combine unrelated buffers silently, or
    hang.

    What to do: give every rank the same parameter structure (build the model from the same
    code and configuration), and call collectives in the same order on every rank.
    """
