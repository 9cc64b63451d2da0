"""Measure TVM kernels on a device through an RPC tracker (seed §22b: devices differ).

Kernels are compiled on the host for the device's target, uploaded as a shared
library, checked and timed on the device with `time_evaluator`. Errors name
what failed: the tracker, the key, or the device in the middle of a case.
"""
import json
import socket
from dataclasses import dataclass
from pathlib import Path

from study import leftovers


class RemoteError(RuntimeError):
    """The tracker, the key or the device failed; the message says which."""


def parse_address(text):
    host, sep, port = (text or "").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise RemoteError(f"--rpc-tracker: expected HOST:PORT, got {text!r}")
    return host, int(port)


def _tracker(address, timeout_s):
    """A session with the tracker, its handshake bounded by ``timeout_s`` (a port that accepts and never
    answers, another service's, kept retest waiting with nothing printed); the session's socket blocks
    again afterwards (a request waits for a free device as long as the tracker makes it)."""
    from tvm import rpc
    host, port = parse_address(address)
    previous = socket.getdefaulttimeout()
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            pass
        socket.setdefaulttimeout(timeout_s)   # TVM's handshake opens its own socket and waits for 4 bytes
        try:
            tracker = rpc.connect_tracker(host, port)
        finally:
            socket.setdefaulttimeout(previous)
        tracker._sock.settimeout(None)
        return tracker
    except (OSError, UnicodeError) as exc:   # a host name over 63 characters per label: UnicodeError (idna)
        raise RemoteError(f"RPC tracker {address[:80]} unreachable: {exc}") from exc
    except RuntimeError as exc:   # it answered, but not as a tracker
        raise RemoteError(f"RPC tracker {address[:80]}: {exc}") from exc


def free_servers(address, key, timeout_s=5):
    """How many servers with this key the tracker knows (0 means a request would wait forever)."""
    tracker = _tracker(address, timeout_s)
    tracker._sock.settimeout(timeout_s)   # a summary is answered at once
    try:
        summary = tracker.summary()
    except OSError as exc:
        raise RemoteError(f"RPC tracker {address[:80]} gave no summary: {exc}") from exc
    keys = [info.get("key", "") for info in summary.get("server_info", [])]
    return sum(1 for k in keys if k.split(":", 1)[-1] == key or k == f"server:{key}")


@dataclass
class Device:
    """A session on one device of `key`, re-requested after a loss."""

    tracker: str
    key: str
    session_timeout_s: float = 600
    threads: int | None = None   # re-applied to every fresh session (a server forks one process per session)
    _session: object = None

    def session(self):
        if self._session is None:
            if free_servers(self.tracker, self.key) == 0:
                raise RemoteError(f"no device registered with key {self.key!r} at tracker {self.tracker}")
            try:
                self._session = _tracker(self.tracker, 5).request(self.key, priority=1,
                                                                   session_timeout=self.session_timeout_s,
                                                                   max_retry=2)
            except RuntimeError as exc:
                raise RemoteError(f"no free device for key {self.key!r} at tracker {self.tracker}: {exc}") from exc
            if self.threads is not None:
                self._session.get_function("runtime.config_threadpool")(1, int(self.threads))
        return self._session

    def drop(self):
        """Forget a session (failed, or handed back so that another client may use the device).

        The session closes when its last reference goes; collect now so the server returns
        to the tracker's pool before the next request (MetaSchedule's RPC runner waits on it).
        """
        self._session = None
        import gc
        gc.collect()

    def environment(self):
        session = self.session()   # RemoteError (tracker, key) passes through unchanged
        try:
            text = session.get_function("study.environment")()
        except Exception as exc:  # noqa: BLE001 - any failure here means the device cannot describe itself
            self.drop()
            raise RemoteError(f"device {self.key!r} did not report its environment "
                              f"(is it running `python -m experiments.rpc_server`?): {exc}") from exc
        return json.loads(text)

    def set_threads(self, threads):
        self.threads = int(threads)
        self.session().get_function("runtime.config_threadpool")(1, int(threads))

    def load(self, executable, name):
        """Upload a compiled kernel; return an object with .rt_mod and .func on the device."""
        session = self.session()
        with leftovers.temporary() as tmp:
            path = Path(tmp) / f"{name}.so"
            executable.export_library(str(path))
            session.upload(str(path))
        rt_mod = session.load_module(f"{name}.so")
        return RemoteKernel(rt_mod, rt_mod["main"], session.cpu(0))


def tuning_runner(tracker, key, threads, timeout_s, evaluator=None):
    """MetaSchedule's RPCRunner on devices of `key`, each session set to `threads` threads.

    A tracker request waits while the device is busy; `timeout_s` bounds a whole trial
    (request, upload, run), so a lost device gives timed-out or failed trials, not a hang.
    """
    from tvm.s_tir import meta_schedule as ms
    host, port = parse_address(tracker)
    config = ms.runner.RPCConfig(tracker_host=host, tracker_port=port, tracker_key=key,
                                 session_timeout_sec=timeout_s)

    def create_session(rpc_config):   # shipped by value to the runner's worker process
        # The runner's pool has no timeout of its own: a request for a busy or vanished device
        # would block the tuning forever, so bound it here ("Timeout" makes it a timeout trial).
        import threading
        if free_servers(tracker, key) == 0:
            raise RuntimeError(f"no device registered with key {key!r} at tracker {tracker} (lost?)")
        box = {}

        def connect():
            try:
                box["session"] = rpc_config.connect_server()
            except Exception as exc:  # noqa: BLE001 - reported below
                box["error"] = exc
        waiter = threading.Thread(target=connect, daemon=True)
        waiter.start()
        waiter.join(timeout_s)
        if "session" not in box:
            raise box.get("error") or TimeoutError(f"Timeout: no free device for key {key!r} within {timeout_s} s")
        session = box.pop("session")
        session.get_function("runtime.config_threadpool")(1, int(threads))
        return session

    return ms.runner.RPCRunner(config, evaluator_config=evaluator or ms.runner.EvaluatorConfig(),
                               f_create_session=create_session, max_workers=1)


@dataclass
class RemoteKernel:
    rt_mod: object
    func: object
    device: object


def main(argv=None):
    """`python -m experiments.remote environment TRACKER KEY`: the device's environment as JSON
    (retest asks it this way); a failure is one line on stderr and exit status 2."""
    import sys
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 3 or args[0] != "environment":
        print("usage: python -m experiments.remote environment TRACKER KEY", file=sys.stderr)
        return 2
    try:
        print(json.dumps(Device(args[1], args[2]).environment()))
    except RemoteError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
