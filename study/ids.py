"""The shapes of run ids and artifact references, which records, run folders and the harness share.

A run id is ``<UTC second>-<profile>-<machine id>``. An artifact reference, ``runs/<run id>/
artifacts/...``, names a file a record points at; it comes from a record a pull request may have
committed, so it is a checked shape, never a path to follow as written.
"""
import re

RUN_ID = re.compile(r"^([0-9]{8}T[0-9]{6}Z)-([a-z]+)-([A-Za-z0-9_.+\-]{1,64})\Z")


def artifact_ref_problem(ref):
    """Why ``ref`` is not an artifact reference (runs/<run id>/artifacts/<path> with no empty, '.' or
    '..' part, no backslash, control character or '%': a link's %2e%2e is '..' to a browser), or None."""
    if not isinstance(ref, str):
        return f"expected an artifact reference string, got {type(ref).__name__}"
    parts = ref.split("/")
    if (len(parts) < 4 or parts[0] != "runs" or not RUN_ID.match(parts[1]) or parts[2] != "artifacts"
            or any(p in ("", ".", "..") for p in parts) or re.search(r"[\x00-\x1f\x7f\\%]", ref)):
        return f"not an artifact reference: {ref!r:.200} (runs/<run>/artifacts/..., no '..')"
    return None
