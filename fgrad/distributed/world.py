"""The world: the processes that train together, this one's rank, and the timeout.

`init()` picks the world once per process. With mpi4py installed, MPI's (MPI_COMM_WORLD: as
many processes as `mpiexec -n N` or `srun` started, and one for a script run on its own);
without it, a world of one, unless a launcher's environment says there are more processes, in
which case it raises rather than let each train alone. A world of one runs every collective
as the identity it is (a copy), so a data-parallel script runs unchanged without MPI.

In a world of more than one, `init` also runs the backward engine on one thread: every rank
must walk its graph in the same order, since MPI needs the ranks' collectives in the same
order, and a collective in a rule must not run on a worker thread beside another.
"""
import os

from ..backend.arrays import cupy, cupy_available
from ..engine.threads import set_num_threads
from .agreement import Call

__all__ = ["LocalWorld", "barrier", "init", "is_initialized", "rank", "world", "world_size"]

DEFAULT_TIMEOUT = 300.0  # seconds; FGRAD_DISTRIBUTED_TIMEOUT sets it for a run

_current = None


class LocalWorld:
    """A world of one process: each collective returns a copy of what it is given."""

    kind = "local"
    rank, size = 0, 1

    def __init__(self, timeout):
        self.timeout = timeout

    def all_reduce(self, arrays, op, call):
        return [a.copy() for a in arrays]

    def broadcast(self, arrays, root, call):
        return [a.copy() for a in arrays]

    def reduce(self, arrays, root, op, call):
        return [a.copy() for a in arrays]

    def all_gather(self, arrays, call):
        return [a.reshape((1, *a.shape)).copy() for a in arrays]

    def reduce_scatter(self, arrays, op, call):
        return [a[0].copy() for a in arrays]

    def barrier(self, call):
        pass

    def share(self, obj, call):
        return [obj]

    def broadcast_object(self, obj, root, call):
        return obj

    def start(self, kind, send, recv, op="sum", root=0):
        if recv is not send:
            recv[...] = send
        return _DONE

    def wait(self, reqs, call):
        pass


class _Done:
    @staticmethod
    def Test():
        return True


_DONE = _Done()


def init(timeout: float | None = None):
    """Join the world of processes this one was started in (once; later calls return it).

    Parameters
    ----------
    timeout : float, optional
        Seconds any collective may wait for the other ranks before it raises
        CollectiveTimeoutError (default FGRAD_DISTRIBUTED_TIMEOUT, else 300). Given again
        later, it replaces the world's timeout.

    Returns
    -------
    The world (`.rank`, `.size`, `.kind`: "mpi" or "local").

    Examples
    --------
    >>> import fgrad.distributed as dist
    >>> w = dist.init()
    >>> 0 <= w.rank < w.size == dist.world_size()
    True
    """
    global _current
    if _current is None:
        _current = _start(_timeout(timeout))
        if _current.size > 1:
            set_num_threads(1)
            _use_local_gpu(_current)
    elif timeout is not None:
        _current.timeout = _timeout(timeout)
    return _current


def is_initialized() -> bool:
    """Has `init` run in this process?"""
    return _current is not None


def world():
    """The world (`init()` first if it has not run)."""
    return _current if _current is not None else init()


def rank() -> int:
    """This process's rank, 0 to world_size() - 1 (0 in a world of one).

    Examples
    --------
    >>> import fgrad.distributed as dist
    >>> dist.rank() < dist.world_size()
    True
    """
    return world().rank


def world_size() -> int:
    """How many processes train together (1 without mpiexec).

    Examples
    --------
    >>> import fgrad.distributed as dist
    >>> dist.world_size() >= 1
    True
    """
    return world().size


def barrier() -> None:
    """Return once every rank has called it (or raise, as any collective does).

    Examples
    --------
    >>> import fgrad.distributed as dist
    >>> dist.barrier()
    """
    world().barrier(Call("barrier"))


def _timeout(timeout):
    value = timeout if timeout is not None else os.environ.get("FGRAD_DISTRIBUTED_TIMEOUT", DEFAULT_TIMEOUT)
    try:
        value = float(value)
    except ValueError:
        raise ValueError(f"fgrad.distributed.init: the timeout must be a number of seconds, got {value!r}") from None
    if not value > 0:
        raise ValueError(f"fgrad.distributed.init: the timeout must be positive, got {value!r} s")
    return value


def _start(timeout):
    try:
        from mpi4py import MPI  # (optional: the [distributed] extra; importing it initializes MPI)
    except ImportError:
        launched = _launcher_size()
        if launched > 1:
            raise RuntimeError(
                f"fgrad.distributed: a launcher started {launched} processes ({_launcher_names()}), but mpi4py is "
                f"not installed, so each would train alone: pip install 'fgrad[distributed]'") from None
        return LocalWorld(timeout)
    if MPI.COMM_WORLD.Get_size() == 1:
        return LocalWorld(timeout)
    from .mpi import MPIWorld  # (needs mpi4py, imported above)
    return MPIWorld(MPI, MPI.COMM_WORLD, timeout)


# The environment variables by which launchers tell a process how many were started.
_LAUNCHERS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "MV2_COMM_WORLD_SIZE", "SLURM_STEP_NUM_TASKS")


def _launcher_size():
    sizes = [int(v) for v in (os.environ.get(k) for k in _LAUNCHERS) if v and v.isdigit()]
    return max(sizes, default=1)


def _launcher_names():
    return ", ".join(f"{k}={os.environ[k]}" for k in _LAUNCHERS if k in os.environ)


def _use_local_gpu(w):
    """With CuPy and GPUs, each rank takes its own: its place among its machine's ranks, modulo
    the machine's GPUs (the ranks of one node share a machine: MPI_COMM_TYPE_SHARED)."""
    if w.kind != "mpi" or not cupy_available():
        return
    local = w.comm.Split_type(w.MPI.COMM_TYPE_SHARED)
    n = cupy.cuda.runtime.getDeviceCount()
    cupy.cuda.Device(local.Get_rank() % n).use()
    local.Free()
