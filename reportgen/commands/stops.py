"""What SIGTERM and SIGINT (Ctrl-C) do to a retest, in one place.

Python runs a signal's handler in the main thread, whichever thread the kernel gave the signal to;
a thread's signal mask does not hold a process signal once a native thread with an open mask exists
(numpy's BLAS starts some at import). So a stop is held by a handler that records it and sends it
again when the block ends, never by the mask, and never dropped (SIG_IGN) where the user must see it.
"""
import contextlib
import signal

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


@contextlib.contextmanager
def handled(handler):
    """Run the block with ``handler(signum, frame)`` for the stop signals, then put back the previous
    handlers; outside the main thread (where Python cannot set one) the signals are left alone."""
    try:
        previous = {sig: signal.signal(sig, handler) for sig in STOP_SIGNALS}
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


@contextlib.contextmanager
def held():
    """A stop that arrives during the block lands when it ends, with the handler in place then."""
    caught = []
    with handled(lambda signum, _frame: caught.append(signum)):
        yield
    if caught:
        signal.raise_signal(caught[0])


def ignored():
    """From now on the stop signals do nothing (a stopped retest publishing what its family finished;
    kill -9 still ends it)."""
    try:
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
    except ValueError:  # not the main thread: leave signals alone
        pass
