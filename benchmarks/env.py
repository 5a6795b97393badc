"""The benchmark environment: one BLAS thread, one XLA thread, one torch thread; versions.

`subprocess_env()` is what the runner hands each workload's process. `pin_threads()` runs
first thing in that process, before NumPy does any work and before JAX is imported (XLA
reads XLA_FLAGS once, at import). OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE are removed
together: on this machine they may be set to work around old OpenBLAS builds, and they slow
a current NumPy; the kernel OpenBLAS then picks is recorded (threadpoolctl) with the results.
"""
import os
import platform
import sys

__all__ = ["THREAD_VARS", "XLA_FLAGS", "blas_info", "machine", "pin_threads", "pin_threads_numpy_only",
           "subprocess_env", "versions"]

THREAD_VARS = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS",
               "NUMEXPR_NUM_THREADS")
XLA_FLAGS = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
UNSET = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")

_limits = None  # keeps threadpoolctl's limits alive for the life of the process


def subprocess_env(repo_root):
    env = dict(os.environ)
    for var in UNSET:
        env.pop(var, None)
    for var in THREAD_VARS:
        env[var] = "1"
    env["XLA_FLAGS"] = XLA_FLAGS
    env["JAX_PLATFORMS"] = "cpu"
    env["JAX_ENABLE_X64"] = "1"
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    env["PYTHONPATH"] = repo_root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def pin_threads_numpy_only():
    """One BLAS thread for NumPy alone (the profiler loads no peer)."""
    global _limits
    for var in THREAD_VARS:
        os.environ.setdefault(var, "1")
    try:
        from threadpoolctl import threadpool_limits
        _limits = threadpool_limits(limits=1)
    except ImportError:
        pass


def pin_threads():
    """Pin every thread pool to one thread; call before importing JAX or using torch."""
    global _limits
    for var in THREAD_VARS:
        os.environ.setdefault(var, "1")
    os.environ.setdefault("XLA_FLAGS", XLA_FLAGS)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    os.environ.setdefault("JAX_ENABLE_X64", "1")
    notes = []
    try:
        from threadpoolctl import threadpool_limits
        _limits = threadpool_limits(limits=1)
    except ImportError:
        notes.append("threadpoolctl not installed: BLAS pinned by environment variables only")
    try:
        import torch
        torch.set_num_threads(1)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:  # already set, or torch did parallel work already
            pass
    except ImportError:
        pass
    try:
        import jax
        jax.config.update("jax_enable_x64", True)
        jax.config.update("jax_platforms", "cpu")
    except ImportError:
        pass
    if _limits is not None:  # torch brings its own OpenMP/MKL pools: pin those too
        from threadpoolctl import threadpool_limits
        _limits = threadpool_limits(limits=1)
    return notes


def blas_info():
    """threadpoolctl's view of the loaded BLAS/OpenMP pools (the kernel OpenBLAS runs)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return {"error": "threadpoolctl not installed"}
    keep = ("user_api", "internal_api", "prefix", "version", "architecture", "threading_layer", "num_threads",
            "filepath")
    return [{k: p.get(k) for k in keep if k in p} for p in threadpool_info()]


def numpy_blas(info):
    """The pool NumPy's own BLAS uses, as one line: 'openblas 0.3.27 Haswell, 1 thread'."""
    if not isinstance(info, list):
        return "unknown"
    import numpy as np
    np_dir = os.path.dirname(np.__file__)
    pools = [p for p in info if p.get("user_api") == "blas"]
    mine = [p for p in pools if "numpy" in (p.get("filepath") or "") or np_dir in (p.get("filepath") or "")]
    p = (mine or pools or [None])[0]
    if p is None:
        return "no BLAS found by threadpoolctl"
    return "{} {} kernel {} ({} thread{})".format(p.get("internal_api"), p.get("version"), p.get("architecture"),
                                                 p.get("num_threads"), "" if p.get("num_threads") == 1 else "s")


def versions():
    """Installed versions (distribution metadata; fgrad from the imported checkout)."""
    from importlib import metadata
    out = {"python": sys.version.split()[0]}
    for name in ("numpy", "fgrad", "autograd", "torch", "jax", "jaxlib", "mygrad", "threadpoolctl"):
        if name == "fgrad":
            try:
                import fgrad
                out[name] = getattr(fgrad, "__version__", "unknown")
            except Exception as e:
                out[name] = f"import failed: {type(e).__name__}"
            continue
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def machine():
    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpu_count": os.cpu_count(), "python": sys.version.split()[0],
            "env": {k: os.environ.get(k) for k in THREAD_VARS + UNSET + ("XLA_FLAGS", "JAX_PLATFORMS")}}
