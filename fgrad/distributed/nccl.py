"""Collectives of CuPy arrays through NCCL (cupy.cuda.nccl), one GPU per rank.

The NCCL communicator is made at the first collective of CuPy arrays: rank 0's unique id
travels by MPI, and each rank's device is the one `init` chose (world.py: the rank's place
among the ranks of its machine, modulo its GPUs). NCCL calls are asynchronous on a stream of
their own that first waits for the work already queued on the current stream; a request is
an event recorded after the call, which the world polls against its deadline as it polls MPI
requests (mpi.py). A timed-out NCCL call cannot be withdrawn, so `close` aborts the
communicator rather than destroying it when the world is broken.

Not run on the project's machines, which have no GPU: tests/distributed/test_gpu.py runs
it where CuPy finds two GPUs.
"""
import numpy as np

from ..backend.arrays import cupy

__all__ = ["NcclComm"]


def _nccl():
    from cupy.cuda import nccl  # (imported only where a CuPy array meets a collective)
    return nccl


def _types(nccl):
    """NumPy dtype -> (NCCL datatype, elements per item): complex travels as pairs of reals,
    which only a sum (or mean) may combine."""
    return {np.dtype(np.int8): (nccl.NCCL_INT8, 1), np.dtype(np.uint8): (nccl.NCCL_UINT8, 1),
            np.dtype(np.int32): (nccl.NCCL_INT32, 1), np.dtype(np.uint32): (nccl.NCCL_UINT32, 1),
            np.dtype(np.int64): (nccl.NCCL_INT64, 1), np.dtype(np.uint64): (nccl.NCCL_UINT64, 1),
            np.dtype(np.float16): (nccl.NCCL_FLOAT16, 1), np.dtype(np.float32): (nccl.NCCL_FLOAT32, 1),
            np.dtype(np.float64): (nccl.NCCL_FLOAT64, 1), np.dtype(np.complex64): (nccl.NCCL_FLOAT32, 2),
            np.dtype(np.complex128): (nccl.NCCL_FLOAT64, 2)}


class _Event:
    """A request of NCCL work: done when the event recorded after it has been reached."""

    __slots__ = ("event", "keep")

    def __init__(self, stream, keep):
        self.event = cupy.cuda.Event(disable_timing=True)
        self.event.record(stream)
        self.keep = keep  # (the buffers, alive until the GPU is done with them)

    def Test(self):  # (MPI's name: the world polls anything with Test())
        return self.event.done


class NcclComm:
    """One NCCL communicator over the ranks of `world` (an MPIWorld)."""

    def __init__(self, world):
        nccl = self.nccl = _nccl()
        uid = np.array(nccl.get_unique_id() if world.rank == 0 else (0,) * nccl.NCCL_UNIQUE_ID_BYTES, dtype=np.int8)
        world.wait([world.comm.Ibcast(uid, root=0)], "the NCCL unique id")
        self.comm = nccl.NcclCommunicator(world.size, tuple(int(b) for b in uid), world.rank)
        self.world = world
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self.types = _types(nccl)
        self.ops = {"sum": nccl.NCCL_SUM, "mean": nccl.NCCL_SUM, "max": nccl.NCCL_MAX, "min": nccl.NCCL_MIN}

    def start(self, kind, send, recv, op, root):
        """Queue one collective (mpi.py's kinds) on the communicator's stream; returns its request."""
        kind = self.types.get(np.dtype(send.dtype))
        if kind is None:
            raise TypeError(f"fgrad.distributed: NCCL has no type for {send.dtype}; cast the leaf (or run with "
                            f"FGRAD_DISTRIBUTED_NCCL=0 to send it through MPI)")
        dtype, per_item = kind
        if per_item == 2 and op not in ("sum", "mean"):
            raise TypeError(f"fgrad.distributed: {op} of complex values has no meaning (NCCL combines their parts)")
        ready = cupy.cuda.Event(disable_timing=True)
        ready.record(cupy.cuda.get_current_stream())
        self.stream.wait_event(ready)  # (after the work that made `send`)
        s, r, ptr, comm = send, recv, self.stream.ptr, self.comm
        if kind == "all_reduce":
            comm.allReduce(s.data.ptr, r.data.ptr, s.size * per_item, dtype, self.ops[op], ptr)
        elif kind == "broadcast":
            comm.broadcast(s.data.ptr, r.data.ptr, s.size * per_item, dtype, root, ptr)
        elif kind == "reduce":
            comm.reduce(s.data.ptr, r.data.ptr, s.size * per_item, dtype, self.ops[op], root, ptr)
        elif kind == "all_gather":
            comm.allGather(s.data.ptr, r.data.ptr, s.size * per_item, dtype, ptr)
        else:
            comm.reduceScatter(s.data.ptr, r.data.ptr, r.size * per_item, dtype, self.ops[op], ptr)
        done = _Event(self.stream, (s, r))
        cupy.cuda.get_current_stream().wait_event(done.event)  # (later work on the current stream sees the result)
        return done

    def close(self):
        if self.world.faults.failed is not None:
            self.comm.abort()  # (a call that never completed cannot be waited for)
        else:
            self.comm.destroy()
