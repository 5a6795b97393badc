"""Run by tests/distributed/test_distributed_mpi.py under `mpiexec -n 2`: a data-parallel loop
in which rank 1, at step 3, raises (`faults_check.py raise TIMEOUT`) or hangs
(`faults_check.py stuck TIMEOUT`). The job must end on its own, well before a hang would end
it, with rank 0 raising RankFailedError (naming rank 1 and its error) or CollectiveTimeoutError
(naming rank 0 and the collective)."""
import sys
import time

import numpy as np

import fgrad
import fgrad.distributed as dist
import fgrad.numpy as fnp

MODE, TIMEOUT = sys.argv[1], float(sys.argv[2])
dist.init(timeout=60)
R = dist.rank()
step = dist.data_parallel(fgrad.value_and_grad(lambda w, x: fnp.sum((x @ w) ** 2)))
w = np.ones(3)
dist.barrier()  # (the ranks start at different times: the short timeout is for the loop alone)
dist.init(timeout=TIMEOUT)
for k in range(10):
    if k == 3 and R == 1:
        if MODE == "raise":
            raise ValueError("rank 1 fails on purpose at step 3")
        time.sleep(600)  # (a hang: the abort after rank 0's timeout ends it)
    loss, g = step(w, np.ones((2, 3)) * (R + 1))
    w = w - 0.01 * g
print(f"rank {R} finished: a fault did not stop it", flush=True)
