"""A rank that raises makes every rank raise, and the job ends instead of hanging.

Note [a failing rank]: MPI gives no error to the other ranks when one raises; they would wait
in their next collective forever. So an uncaught error on any rank runs this module's error
handler (installed by `init` in a world of more than one): it prints the traceback as Python
would, sends a notice (its error, in one MPI message on a communicator of its own) to every
other rank, waits a grace period for a notice from each of them, then calls MPI_Abort, which
ends every process of the job. A rank waiting in a collective polls for notices along with
its requests (mpi.py) and raises RankFailedError, naming the failing rank and its error; its
own handler then prints that and sends its notice, which is how the first rank learns that
the others have printed theirs. A rank that never answers (stuck outside any collective) is
ended by the abort after the grace period. MPI's own messages and MPI_Abort do it all: no
sockets, no process manager of fgrad's own.
"""
import sys
import time

import numpy as np

__all__ = ["Faults", "install_handler"]

NOTICE = 7301           # the tag of a notice on the faults communicator
NOTICE_BYTES = 4096     # a notice is the error's first 4 kB


class Faults:
    """This rank's end of the notices: one receive always posted, from any rank."""

    def __init__(self, mpi, comm):
        self.MPI = mpi
        self.comm = comm.Dup()  # (its own communicator: notices never match an fgrad or user message)
        self.rank, self.size = comm.Get_rank(), comm.Get_size()
        self.heard = {}  # rank -> the text of its notice
        self.failed = None  # the error that broke this world (every later collective raises it)
        self._buf = np.zeros(NOTICE_BYTES, dtype=np.uint8)
        self._status = mpi.Status()
        self._req = self._post()

    def _post(self):
        return self.comm.Irecv([self._buf, self.MPI.BYTE], source=self.MPI.ANY_SOURCE, tag=NOTICE)

    def poll(self):
        """(rank, text) of a notice that has arrived, or None."""
        if self._req is None or not self._req.Test(self._status):
            return None
        source = self._status.Get_source()
        text = bytes(self._buf[:self._status.Get_count(self.MPI.BYTE)]).decode(errors="replace")
        self.heard[source] = text
        self._req = self._post()
        return source, text

    def announce(self, text, seconds):
        """Send `text` to every other rank; wait at most `seconds` for the sends to complete."""
        data = np.frombuffer(text.encode()[:NOTICE_BYTES], dtype=np.uint8).copy()
        reqs = [self.comm.Isend([data, self.MPI.BYTE], dest=r, tag=NOTICE) for r in range(self.size) if r != self.rank]
        deadline = time.monotonic() + seconds
        while not self.MPI.Request.Testall(reqs) and time.monotonic() < deadline:
            time.sleep(1e-3)

    def linger(self, seconds):
        """Wait until every other rank has sent a notice, or `seconds` have passed."""
        deadline = time.monotonic() + seconds
        while len(self.heard) < self.size - 1 and time.monotonic() < deadline:
            if self.poll() is None:
                time.sleep(1e-3)

    def close(self):
        """At a normal exit: withdraw the posted receive, so MPI_Finalize has nothing pending."""
        req, self._req = self._req, None
        if req is not None:
            req.Cancel()
            req.Wait()
            self.comm.Free()


def install_handler(faults, grace):
    """Make an uncaught error on this rank end the job after every rank has had its say
    (Note [a failing rank]); `grace()` is the seconds to wait for the others."""
    previous = sys.excepthook

    def handler(kind, value, tb):
        previous(kind, value, tb)
        try:  # (one line in one write: launchers interleave the ranks' output by the chunk)
            sys.stderr.write(f"fgrad.distributed: rank {faults.rank} of {faults.size} stops on "
                             f"{kind.__name__}: {value}\n")
        except Exception:  # (a closed stream must not keep the job alive)
            pass
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        try:
            seconds = grace()
            faults.announce(f"{kind.__name__}: {value}", seconds)
            faults.linger(seconds)
        finally:
            faults.comm.Abort(1)
    sys.excepthook = handler
