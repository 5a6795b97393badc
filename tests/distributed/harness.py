"""The mpiexec harness of the distributed tests: where the scripts are, the environment they
run in (one BLAS thread, fgrad's engine on one thread), whether MPI can run here, and a
launch with a timeout, so nothing can hang CI."""
import functools
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import time

import pytest

__all__ = ["ENV", "MPIEXEC", "SCRIPTS", "alone", "mpirun", "needs_mpi"]

SCRIPTS = pathlib.Path(__file__).resolve().parent / "scripts"
ROOT = SCRIPTS.parent.parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
       "MKL_NUM_THREADS": "1", "FGRAD_NUM_THREADS": "1"}
MPIEXEC = shutil.which("mpiexec", path=os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")]))


@functools.cache
def _mpi_missing():
    """Why mpiexec-driven tests cannot run here, or None."""
    if importlib.util.find_spec("mpi4py") is None:
        return "mpi4py is not installed (pip install -e '.[distributed]')"
    if MPIEXEC is None:
        return "no mpiexec on PATH (the mpich wheel of the [distributed] extra brings one)"
    probe = subprocess.run([MPIEXEC, "-n", "2", sys.executable, "-c",
                            "from mpi4py import MPI; print(f'size={MPI.COMM_WORLD.Get_size()};')"],
                           env=ENV, capture_output=True, text=True, timeout=60)
    if probe.returncode != 0 or probe.stdout.count("size=2;") != 2:
        return f"mpiexec ({MPIEXEC}) does not start a world of 2 that mpi4py sees: {probe.stdout}{probe.stderr}"
    return None


def needs_mpi():
    why = _mpi_missing()
    if why is not None:
        pytest.skip(why)


def mpirun(n, script, *args, timeout=120, env=None):
    """(returncode, stdout + stderr, seconds) of `mpiexec -n n python script args`."""
    start = time.monotonic()
    out = subprocess.run([MPIEXEC, "-n", str(n), sys.executable, str(SCRIPTS / script), *args],
                         env={**ENV, **(env or {})}, capture_output=True, text=True, timeout=timeout)
    return out.returncode, out.stdout + out.stderr, time.monotonic() - start


def alone(script, *args, timeout=120):
    out = subprocess.run([sys.executable, str(SCRIPTS / script), *args], env=ENV, capture_output=True, text=True,
                         timeout=timeout)
    return out.returncode, out.stdout + out.stderr
