"""fgrad.distributed across processes (issue 30): small scripts under `mpiexec -n 2` and `-n 3`
on this machine (loopback), each checking many things and printing what it checked.

Skipped, with the reason, where mpi4py or an mpiexec that matches it is missing (the
[distributed] extra: .ci/run installs it). The world-of-one runs need neither: a script run
on its own must work unchanged. Every launch has a timeout, so nothing here can hang CI.
"""
import re

import pytest

from .harness import SCRIPTS, alone, mpirun, needs_mpi


def _ok(rc, output, word, n):
    """Every rank of n printed `{word} ok on rank r of n: k checks`, with the same k > 0."""
    assert rc == 0, output
    found = re.findall(rf"{word} ok on rank (\d+) of (\d+): (\d+) checks", output)
    assert sorted(int(r) for r, _, _ in found) == list(range(n)), output
    assert {(int(size), int(k)) for _, size, k in found} == {(n, int(found[0][2]))} and int(found[0][2]) > 0, output


@pytest.mark.parametrize("n", [2, 3])
def test_collectives_against_numpy_their_rules_and_the_agreement_errors(n):
    needs_mpi()
    rc, output, _ = mpirun(n, "collectives_check.py")
    _ok(rc, output, "collectives", n)


def test_training_on_2_ranks_equals_one_process_and_resumes_on_3_and_on_1(tmp_path):
    needs_mpi()
    ckpt = str(tmp_path / "zero.pkl")
    rc, output, _ = mpirun(2, "train_check.py", "train", ckpt)
    _ok(rc, output, "train", 2)
    rc, output, _ = mpirun(3, "train_check.py", "resume", ckpt)
    _ok(rc, output, "resume", 3)
    rc, output = alone("train_check.py", "resume", ckpt)
    assert rc == 0 and "resume ok on rank 0 of 1" in output, output


def test_a_rank_that_raises_makes_every_rank_raise():
    needs_mpi()
    rc, output, seconds = mpirun(2, "faults_check.py", "raise", "30")
    assert rc != 0, output
    assert "fgrad.distributed: rank 1 of 2 stops on ValueError: rank 1 fails on purpose at step 3" in output, output
    assert ("fgrad.distributed: rank 0 of 2 stops on RankFailedError: fgrad.distributed: rank 1 of 2 failed "
            "(ValueError: rank 1 fails on purpose at step 3), so all_reduce(op='mean')") in output, output
    assert "a fault did not stop it" not in output
    assert seconds < 25, f"ended by the 30 s timeout, not by the notice ({seconds:.1f} s)"


def test_a_rank_that_hangs_makes_the_others_time_out_and_the_job_end():
    needs_mpi()
    rc, output, seconds = mpirun(2, "faults_check.py", "stuck", "2")
    assert rc != 0, output
    assert ("fgrad.distributed: rank 0 of 2 stops on CollectiveTimeoutError: fgrad.distributed: all_reduce(op='mean') "
            "of 2 leaves on rank 0 of 2 timed out after 2 s") in output, output
    assert seconds < 30, f"rank 1's 600 s hang was not ended by the abort ({seconds:.1f} s)"


def test_a_world_of_one_runs_the_same_scripts_unchanged(tmp_path):
    """Without mpiexec (and without mpi4py, where it is missing): a world of one."""
    rc, output = alone("collectives_check.py")
    assert rc == 0 and "collectives ok on rank 0 of 1" in output, output
    rc, output = alone("train_check.py", "train", str(tmp_path / "one.pkl"))
    assert rc == 0 and "train ok on rank 0 of 1" in output, output


def test_the_docs_page_runs_on_2_ranks(tmp_path):
    """docs/distributed.md's code blocks, which tests/test_docs.py runs as a world of one."""
    needs_mpi()
    page = (SCRIPTS.parent.parent.parent / "docs" / "distributed.md").read_text()
    blocks = re.findall(r"^```python\n(.*?)^```", page, re.S | re.M)
    script = tmp_path / "page.py"
    script.write_text("\n".join(blocks) + f"\nprint(f'docs ok on rank {{rank}} of {{size}}: {len(blocks)} checks')\n")
    rc, output, _ = mpirun(2, str(script))
    _ok(rc, output, "docs", 2)
