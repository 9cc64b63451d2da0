"""What run.json says of each family it ran (experiments.<family>), against the run's records and files."""


def status_problems(family, entry, records, manifest):
    """A family's status as retest writes it: ok with exit code 0, records of its own and no record of the family
    failing as a whole; any other status with that record (status run_failed for a stopped family) and a
    nonzero exit code; its log a file of the run.  'timeout' over 48 ok records, 'ok' with exit code 1, and an ok
    family no code declares with no record and no log were printed in the history's runs table."""
    status, code = entry.get("status"), entry.get("exit_code")
    own = [rec for rec in records if rec["experiment"] == family and rec["case"].get("scope") == "family"]
    out = []
    if status == "ok":
        if code != 0:
            out.append(f"exit_code: {code!r:.20}, but the family's status is ok (exit code 0)")
        if own:
            out.append(f"status: ok, but records.jsonl holds the family's failure ({own[0]['status']!r:.20})")
        if not any(rec["experiment"] == family for rec in records):
            out.append("records: 0, but an ok family holds the records it measured")
    elif isinstance(status, str):
        want = "run_failed" if status == "stopped" else status
        if code == 0:
            out.append(f"exit_code: 0, but the family's status is {status!r:.20}")
        if [rec["status"] for rec in own] != [want]:
            out.append(f"status: {status!r:.20}, but records.jsonl holds no one record of the family failing as a "
                       f"whole with status {want!r} (it holds {len(own)})")
    log = str(entry.get("log", "")).split("/", 2)[-1]
    files = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    if log not in files:
        out.append(f"log: {entry.get('log')!r:.80} is not a file of the run (run.json files)")
    return out
