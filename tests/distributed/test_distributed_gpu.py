"""fgrad.distributed with CuPy arrays (issue 30): NCCL between GPUs, and host copies where NCCL
is turned off. Marked gpu: skipped without CUDA and CuPy (tests/conftest.py), and without the
GPUs or the MPI a case needs. This project's machines have no GPU: these have not run there."""
import pytest

from fgrad.backend import cupy_available

from .harness import mpirun, needs_mpi

pytestmark = pytest.mark.gpu


def _gpus():
    import cupy
    return cupy.cuda.runtime.getDeviceCount() if cupy_available() else 0


def _run(env):
    rc, output, _ = mpirun(2, "gpu_check.py", timeout=300, env=env)
    assert rc == 0 and output.count("gpu ok on rank") == 2, output


def test_cupy_collectives_through_nccl():
    needs_mpi()
    if _gpus() < 2:
        pytest.skip("NCCL needs a GPU per rank: 2 GPUs")
    _run({})


def test_cupy_collectives_through_host_copies():
    needs_mpi()
    if _gpus() < 1:
        pytest.skip("needs a GPU")
    _run({"FGRAD_DISTRIBUTED_NCCL": "0", "FGRAD_CUDA_AWARE_MPI": "0"})
