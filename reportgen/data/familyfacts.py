"""What a run says of what it ran: run.json's entry for each family (experiments.<family>) against the run's records
and files, and a tuned record's case against the tuning it names."""


def failure_words(status, code):
    """How the record of a family failing as a whole begins its error (retest._failure_record writes it, and
    status_problems holds a run to it): the timeout's words, else the exit code's, which run.json states too."""
    return "family timed out after " if status == "timeout" else f"family exited with code {code}: "


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
        said = failure_words(status, code)
        if own and not str(own[0].get("error")).startswith(said):   # retest's words, with run.json's exit code
            out.append(f"exit_code: {code!r:.20}, but the family's failure record says {str(own[0].get('error'))[:60]!r}"
                       f" (retest writes {said!r}...)")
    log = str(entry.get("log", "")).split("/", 2)[-1]
    files = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    if log not in files:
        out.append(f"log: {entry.get('log')!r:.80} is not a file of the run (run.json files)")
    return out


def tuning_case_problems(rec, claim, by_id, machine=None):
    """The case's tuning_run and tuning_fingerprint (printed in the record's parameters) are the run and the
    fingerprint of the tuning record extra.tuning names: an INT8 run and an all-zero fingerprint were printed."""
    case = rec.get("case") or {}
    if not ({"tuning_run", "tuning_fingerprint"} & set(case)):
        return []
    if not isinstance(claim, dict):   # a failed record names its tuning by its case only: a kept run's tuning record
        tuner = by_id.get(case.get("tuning_run"))   # of its own case (another machine's ResNet-50 was named)
        same = ("model", "batch", "threads", "input_size")
        found = (tuner is not None and (machine is None or getattr(tuner, "machine", machine) == machine) and any(
            r["experiment"] == "e2e_tune" and r["status"] == "ok" and r.get("fingerprint") == case.get("tuning_fingerprint")
            and all((r.get("case") or {}).get(k, case.get(k)) == case.get(k) for k in same) for r in tuner.records))
        return [] if found else [f"case.tuning_run: {case.get('tuning_run')!r:.80} holds no ok tuning record of "
                                 f"fingerprint {case.get('tuning_fingerprint')!r:.80} (case.tuning_fingerprint)"]
    out = []
    if "tuning_run" in case and case["tuning_run"] != claim.get("run_id"):
        out.append(f"case.tuning_run: {case.get('tuning_run')!r:.80} is not the run of the tuning it used "
                   f"(extra.tuning.run_id {claim.get('run_id')!r:.80})")
    tuner = by_id.get(claim.get("run_id"))
    tune = next((r for r in tuner.records if r["id"] == claim.get("record")), None) if tuner else None
    if tune is not None and "tuning_fingerprint" in case and case["tuning_fingerprint"] != tune.get("fingerprint"):
        out.append(f"case.tuning_fingerprint: {case.get('tuning_fingerprint')!r:.80} is not the fingerprint of the "
                   f"tuning record {claim.get('record')!r:.100} ({tune.get('fingerprint')!r:.80})")
    return out
