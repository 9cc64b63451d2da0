"""The only module that reads result files: runs, records and their logs, validated.

Results come from other machines and pull requests, so nothing in them is trusted: every
path a record cites must stay inside its own run directory, without symlinks or `..`,
and every file of a run must hash to the sha256 its run.json lists.
"""
import functools
import gc
import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from study import citation, enginefields, schema, targets, work
from reportgen.data import campaigns, plainfile, runfacts, runlists, searchfacts
from reportgen.data.logtext import log_lines, safe_path
from reportgen.errors import ReportError, broken_check, debugging


@dataclass
class Run:
    """One published retest: its manifest and its records."""

    path: Path
    manifest: dict
    records: list = field(default_factory=list)
    line_numbers: list = field(default_factory=list)   # records.jsonl line of each record (blank lines skipped)

    def where(self, index):
        """'<records.jsonl>:<line>' of the record at ``index``: its line in the file, which differs from
        index + 1 once a blank line comes before it."""
        number = self.line_numbers[index] if index < len(self.line_numbers) else index + 1
        return f"{self.path / 'records.jsonl'}:{number}"

    @property
    def run_id(self):
        return self.manifest["run_id"]

    @functools.cached_property
    def machine(self):
        """The hardware id of the run, computed once from its environment (study.identity)."""
        from study import identity
        return identity.machine_id(self.manifest["environment"])


def run_dirs(runs_dir):
    """Published run directories (temporary .tmp-* ones are not runs yet)."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return []
    return sorted(p for p in runs_dir.iterdir()
                  if p.is_dir() and not p.name.startswith(".") and (p / "run.json").exists())


def _candidate_dirs(runs_dir):
    """Every entry of results/runs that claims to be a run (all but hidden .tmp-* folders)."""
    runs_dir = Path(runs_dir)
    if not runs_dir.is_dir():
        return []
    return sorted(p for p in runs_dir.iterdir() if not p.name.startswith("."))


def _tree(run_path):
    """(files relative to the run, symlinks and odd entries) of one run directory, never following links."""
    files, bad = {}, []
    for top, dirs, names in plainfile.walk(run_path, bad, "a run"):
        for name in sorted(dirs + names):
            path = Path(top) / name
            st = os.lstat(path)
            mode = st.st_mode
            rel = path.relative_to(run_path).as_posix()
            if stat.S_ISLNK(mode):
                bad.append(f"{path}: is a symlink (to {os.readlink(path)!r}); a run holds only plain files")
            elif stat.S_ISREG(mode) and st.st_nlink > 1:
                # a second name of a file elsewhere: whoever holds the other name changes this one
                bad.append(f"{path}: is a hard link ({st.st_nlink} names for one file); a run holds only "
                           "files of its own (copy it)")
            elif stat.S_ISREG(mode) and plainfile.size_problem(path, st, plainfile.MAX_RUN_FILE_BYTES):
                bad.append(plainfile.size_problem(path, st, plainfile.MAX_RUN_FILE_BYTES))
            elif stat.S_ISREG(mode):
                files[rel] = path
            elif not stat.S_ISDIR(mode):
                bad.append(f"{path}: is not a plain file or folder")
        dirs[:] = [d for d in dirs if not (Path(top) / d).is_symlink()]
    return files, bad + _name_problems(run_path, files)


def _name_problems(run_path, files):
    """A run's file names are ASCII of schema._FILE_NAME (a newline or an escape sequence in a name
    would reach messages and the site; a ligature or a fullwidth letter names another file once
    normalized), and no two differ only by case (one file on a case-insensitive disk)."""
    out, seen = [], {}
    for rel in sorted(files):
        if not schema._FILE_NAME.match(rel):
            out.append(f"{run_path}: {rel!r:.120}: not a file name a run may hold (ASCII letters, digits, "
                       "_ . + = - and / between parts)")
        elif seen.setdefault(rel.lower(), rel) != rel:
            out.append(f"{run_path}: {rel!r:.120}: differs only by case from {seen[rel.lower()]!r:.120} "
                       "(one file on a case-insensitive disk)")
    return out


def _hash_memory(run_path):
    """Where a build remembers the sha256 and line count of a run's files, with the file's stat
    facts (device, inode, size, mtime and ctime in ns) -- git's index trusts the same facts to skip
    re-hashing; the kernel sets ctime on any change, and no program can set it back."""
    folder = _cache_folder("hashes")
    if folder is None:
        return None
    # os.fsencode: a checkout in a folder whose name is not UTF-8 (R\xe9sum\xe9/) failed every run
    return folder / (hashlib.sha256(os.fsencode(Path(run_path).resolve())).hexdigest() + ".json")


def _digest(data):
    """(sha256, lines) of a file's bytes; lines count newlines, plus an unterminated last line."""
    return hashlib.sha256(data).hexdigest(), data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)


def _file_facts(path, rel, remembered, seen):
    """(sha256, lines) of one run file, re-hashed unless its stat facts are the remembered ones."""
    st = os.lstat(path)
    facts = [st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns]
    old = remembered.get(rel)
    if isinstance(old, list) and len(old) == 3 and old[0] == facts and isinstance(old[1], str) \
            and isinstance(old[2], int):
        sha, lines = old[1], old[2]
    else:
        sha, lines = _digest(plainfile.read_bytes(path))
    seen[rel] = [facts, sha, lines]
    return sha, lines


def _remembered(memory):
    if memory is None:
        return {}
    try:
        value = json.loads(memory.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):   # a cache is best effort: a bad one is only unused
        return {}
    return value if isinstance(value, dict) else {}


def _remember(memory, remembered, seen):
    if memory is not None and seen != remembered:
        _write_cache(memory, json.dumps(seen))


def make_private(folder):
    """``folder`` and its missing parents made 0700 whatever the umask: _cache_folder does not use one
    that others (or, with a umask of 002, the group) may write, so a folder made 0775 would turn the
    cache off for good."""
    for made in reversed([p for p in (folder, *folder.parents) if not p.exists()]):
        made.mkdir(mode=0o700, exist_ok=True)


def _write_cache(path, text):
    """Best effort, atomically: a cache that cannot be written only costs the next build the work."""
    tmp, made = path.with_name(f".{path.name}.{os.getpid()}.tmp"), False
    try:
        make_private(path.parent)
        # created anew, never opened through a name planted before (a link at this guessable name in
        # a shared REPORTGEN_CACHE would have been followed and its target overwritten)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        made = True
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError:
        if made:   # a full disk left a partial temporary in the cache folder for good
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _manifest_problems(run_path, manifest, files, cache=None):
    """run.json's `files`: every file of the run listed, each with its sha256.  Each file's
    (sha256, lines) goes into ``cache`` (keyed by its path) for the log checks."""
    listed = manifest["files"]
    out = []
    actual = {rel: path for rel, path in files.items() if rel != "run.json"}
    for rel in sorted(set(listed) - set(actual)):
        out.append(f"{run_path / rel}: listed in run.json files but missing")
    for rel in sorted(set(actual) - set(listed)):
        out.append(f"{run_path / rel}: not listed in run.json files (added after the run)")
    memory = _hash_memory(run_path)
    remembered, seen = _remembered(memory), {}
    for rel in sorted(set(listed) & set(actual)):
        sha, lines = _file_facts(actual[rel], rel, remembered, seen)
        if cache is not None:
            cache[actual[rel]] = (sha, lines)
        if sha != listed[rel]:
            out.append(f"{run_path / rel}: sha256 {sha[:12]}… differs from run.json files "
                       f"({str(listed[rel])[:12]}…): altered after the run")
    _remember(memory, remembered, seen)
    return out


@functools.lru_cache(maxsize=1)
def _rules_fingerprint():
    """sha256 of the code that validates a record: every module of the study package (study/schema.py
    and all it imports; a list of five left out study/ids.py, whose artifact-reference rule records are
    checked by): a validation remembered under an older rule set is never trusted."""
    import study
    digest = hashlib.sha256()
    for path in sorted(Path(study.__file__).parent.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def cache_dir():
    """Where a build remembers what it checked (validated records files, file hashes): this user's
    cache, outside the project, so that no committed or pulled file can plant an entry
    (REPORTGEN_CACHE moves it; an empty value turns it off)."""
    if "REPORTGEN_CACHE" in os.environ:
        chosen = Path(os.environ["REPORTGEN_CACHE"]) if os.environ["REPORTGEN_CACHE"] else None
    else:
        try:
            chosen = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "tvm-study-reportgen"
        except RuntimeError:   # no HOME and no passwd entry: no cache, every file checked each time
            return None
    return chosen if chosen is not None and _outside_checkouts(chosen) else None


def _outside_checkouts(path):
    """Whether ``path`` is absolute and lies in no git checkout: a relative XDG_CACHE_HOME (.cache) or a
    REPORTGEN_CACHE inside the project put the cache where a pull request could commit an entry (hidden
    by .gitignore) marking a records file with NaN and <script> as checked.  No cache then: every file
    is checked each time."""
    if not path.is_absolute():
        return False
    path = Path(os.path.realpath(path))   # through links: one to a folder of a checkout was taken as outside
    return not any((folder / ".git").exists() for folder in (path, *path.parents))


def _cache_folder(kind):
    """root/kind, or None (no cache) when a folder of it that exists is another user's or writable by
    others: an entry planted there would mark a records file validated, or a changed log hashed."""
    root = cache_dir()
    if root is None:
        return None
    for folder in (root, root / kind):
        try:
            st = os.lstat(folder)
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid() or st.st_mode & 0o022:
            return None
    return root / kind


def _validated_key(data, pending_log, kind=b"records"):
    digest = hashlib.sha256(_rules_fingerprint().encode())
    digest.update(kind + (b"pending" if pending_log else b"final"))
    digest.update(data)
    return digest.hexdigest()



def _remember_valid(key):
    folder = _cache_folder("validated")
    if folder is not None:
        _write_cache(folder / key, key)


def _known_valid(key):
    folder = _cache_folder("validated")
    if folder is None:
        return False
    try:
        entry = folder / key
        return not entry.is_symlink() and entry.is_file() and entry.read_text(encoding="ascii") == key
    except (OSError, UnicodeDecodeError):
        return False


def read_jsonl(path, pending_log=False, line_numbers=None):
    """Records of one JSONL file; every problem reported as path:line: field: message.
    ``line_numbers``, a list, gets the file line of each record returned.

    A file whose exact bytes passed these checks before, under the same validation code, is
    only parsed (the entry is named by the sha256 of rules + bytes, so any change to either,
    one byte of the file or one line of study/schema.py, validates it in full again)."""
    path = Path(path)
    records, problems = [], []
    try:
        data = plainfile.read_bytes(path)
        lines = data.decode("utf-8").split("\n")   # not splitlines: U+2028 may sit in a string
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from exc
    key = _validated_key(data, pending_log)
    if line_numbers is not None:
        line_numbers.extend(number for number, line in enumerate(lines, 1) if line.strip())
    if _known_valid(key):
        return [json.loads(line) for line in lines if line.strip()]
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = schema.loads(line)
        except ValueError as exc:
            problems.append(f"{path}:{number}: invalid JSON: {exc}")
            continue
        found = schema.record_problems(rec, pending_log=pending_log)
        problems.extend(f"{path}:{number}: {p}" for p in found)
        if not found:
            records.append(rec)
    if problems:
        raise ReportError(problems)
    _remember_valid(key)
    return records


def _log_problems(results_dir, rec, where, cache):
    """Does the cited log exist, hash to the recorded sha256, and hold the cited lines?"""
    log = rec["log"]
    key = ("safe", log["path"], rec["run_id"])   # a run's records cite a few logs: resolve each once
    if key not in cache:
        try:
            cache[key] = (safe_path(results_dir, log["path"], rec["run_id"], "log.path"), None)
        except ReportError as exc:
            cache[key] = (None, exc.problems)
    path, refused = cache[key]
    if refused is not None:
        return [f"{where}: log.path: {p}" for p in refused]
    if path not in cache:
        try:
            cache[path] = _digest(plainfile.read_bytes(path))
        except (OSError, ReportError):
            cache[path] = None
    if cache[path] is None:
        return [f"{where}: log.path: {log['path']} does not exist"]
    sha, lines = cache[path]
    out = []
    if sha != log["sha256"]:
        out.append(f"{where}: log.sha256: {log['path']} was altered "
                   f"(sha256 {sha[:12]}…, record says {log['sha256'][:12]}…)")
    if log["lines"][1] > lines:
        out.append(f"{where}: log.lines: {log['lines']} beyond the end of {log['path']} ({lines} lines)")
    return out


def across(results_dir, runs):
    """The problems of ``runs`` (each valid alone, in order) against one another: reuse, copies, tuning databases,
    searches, machines and hardware, dates, anchors, seals, the confirming list."""
    return (runfacts.reuse_problems(runs) + runfacts.copied_problems(runs) + runfacts.tuning_problems(runs)
            + searchfacts.problems(results_dir, runs) + runfacts.machine_problems(runs) + runfacts.hardware_problems(runs)
            + runfacts.same_second_problems(runs) + runfacts.anchor_problems(runs)
            + runfacts.sealed_problems(results_dir, runs) + runlists.confirming(results_dir, runs)[1])


def read_runs(results_dir):
    """Every published run under results_dir/runs, fully validated, oldest first."""
    results_dir = Path(results_dir)
    for folder in (results_dir, results_dir / "runs"):   # a link would read some other folder as the results
        if folder.is_symlink():
            raise ReportError(f"{folder}: is a symlink (to {os.readlink(folder)!r}); results are read only "
                              "from a plain folder of the project")
    if not results_dir.is_dir():
        raise ReportError(f"{results_dir}: no results folder",
                          hint="run `reportgen retest --profile quick` to create one, or pass --root")
    runs, problems, cache = [], [], {}
    # tens of thousands of records, none in a reference cycle: the cyclic collector would rescan the
    # growing heap again and again while they load (a third of the load time at 290 runs)
    collecting = gc.isenabled()
    gc.disable()
    try:
        for run_path in _candidate_dirs(results_dir / "runs"):
            try:
                run, found = _read_run(results_dir, run_path, cache)
            except (ReportError, OSError):   # these name their file already
                raise
            except Exception as exc:  # noqa: BLE001 - a check broke on this run's data: name the run
                if debugging():
                    raise
                run, found = None, [broken_check(run_path, exc)]
            problems.extend(found)
            if run is not None:
                runs.append(run)
    finally:
        if collecting:
            gc.enable()
    runs = runfacts.order(runs)
    problems.extend(across(results_dir, runs))
    if problems:
        raise ReportError(problems, hint="fix or remove the offending run, or re-run `reportgen retest`")
    return runs


def read_run(results_dir, run_path):
    """One run folder, validated on its own (not against the other runs): the Run, or ReportError.
    For retest, which reuses records only from a run that passes the same checks as a build."""
    run, problems = _read_run(Path(results_dir), Path(run_path), {})
    if problems:
        raise ReportError(problems)
    return run


def _read_run(results_dir, run_path, cache):
    """(Run or None, problems) of one run folder."""
    problems, seen = [], {}
    manifest_path = run_path / "run.json"
    if not schema._RUN_ID.match(run_path.name):   # before the name reaches any message: it may hold a newline
        return None, [f"{run_path.parent}: {run_path.name!r:.120}: not a run folder's name "
                      "(<UTC time>-<profile>-<machine>, as retest names it)"]
    if run_path.is_symlink() or not run_path.is_dir():
        return None, [f"{run_path}: not a run folder (runs are plain folders, never symlinks or files)"]
    files, bad = _tree(run_path)
    if bad:
        return None, bad
    problems += [f"{run_path / rel}: a run may carry only {', '.join(schema.RUN_FILE_TYPES)} files (a page or "
                 "image from run data would run in visitors' browsers from the site)"
                 for rel in files if Path(rel).suffix.lower() not in schema.RUN_FILE_TYPES]
    if "run.json" not in files:
        return None, problems + [f"{manifest_path}: missing: a run folder without its manifest is not a run "
                                 "(restore it or remove the folder)"]
    try:
        manifest = schema.loads(plainfile.read_text(manifest_path))
    except ReportError as exc:
        return None, problems + list(exc.problems)
    except (OSError, ValueError) as exc:
        return None, problems + [f"{manifest_path}: invalid JSON: {exc}"]
    found = schema.run_problems(manifest)
    if found:
        return None, problems + [f"{manifest_path}: {p}" for p in found]
    if manifest["run_id"] != run_path.name:
        problems.append(f"{manifest_path}: run_id: {manifest['run_id']!r} does not match "
                        f"its directory {run_path.name!r}")
    problems.extend(_manifest_problems(run_path, manifest, files, cache))
    if "records.jsonl" not in files:
        return None, problems + [f"{run_path / 'records.jsonl'}: missing: a run without records is not a run"]
    numbers = []
    try:
        records = read_jsonl(run_path / "records.jsonl", line_numbers=numbers)
    except ReportError as exc:
        return None, problems + list(exc.problems)
    run = Run(run_path, manifest, records, numbers)
    if not records:
        return None, problems + [f"{run_path / 'records.jsonl'}: empty: a run without records is not a run "
                                 "(remove the folder, or re-run `reportgen retest`)"]
    if len(records) > schema.MAX_RUN_RECORDS:   # each is a figure, a provenance entry, history rows: 3000 took minutes
        return None, problems + [f"{run_path / 'records.jsonl'}: {len(records)} records, more than the "
                                 f"{schema.MAX_RUN_RECORDS} a run may hold"]
    problems.extend(runfacts.count_problems(run_path, manifest, records))
    for index, rec in enumerate(records):
        where, number = run.where(index), numbers[index]
        if rec["id"] in seen:
            problems.append(f"{where}: id: duplicate id {rec['id']!r} (first at line {seen[rec['id']]})")
        seen[rec["id"]] = number
        problems.extend(_owner_problems(run_path.name, rec, where))
        problems.extend(f"{where}: {p}" for p in work.peak_problems(rec, manifest.get("environment"))
                        + work.machine_fit_problems(rec, manifest.get("environment"))
                        + targets.device_problems(rec, manifest.get("environment"))
                        + enginefields.problems(rec, manifest.get("environment"))
                        + citation.failed_error_problems(rec))
        problems.extend(_family_log_problems(run_path.name, rec, where))
        problems.extend(_log_problems(results_dir, rec, where, cache))
    if not problems:   # every cited log is there, unaltered and long enough
        problems.extend(runfacts.spelling_problems(run) + runfacts.overlap_problems(run))
    if not problems:   # each line read for one record at most
        problems.extend(runfacts.unnamed_problems(run, lambda rec: log_lines(results_dir, rec)))
    return run, problems


def _family_log_problems(run_name, rec, where):
    """A record measured in this run cites its own family's log of this run (a record moved
    between runs, or pointed at another family's log, would show someone else's lines as evidence)."""
    if rec["reused_from"] is not None:
        return []
    own = f"runs/{run_name}/logs/{rec['experiment']}.log"
    if rec["log"]["path"] != own:
        return [f"{where}: log.path: {rec['log']['path']!r} is not its family's log of its run ({own!r})"]
    return []


def _owner_problems(run_name, rec, where):
    """A record belongs to its run; a reused one names the run it was measured in."""
    if rec["reused_from"] is None:
        if rec["run_id"] != run_name:
            return [f"{where}: run_id: {rec['run_id']!r} differs from its run {run_name!r}"]
        return []
    if rec["reused_from"] != rec["run_id"]:
        return [f"{where}: reused_from: {rec['reused_from']!r} must equal the record's run_id {rec['run_id']!r}"]
    if rec["reused_from"] == run_name:
        return [f"{where}: reused_from: a record cannot be reused from its own run"]
    return []


def read_artifact(results_dir, ref):
    """Text of a run artifact cited by a record (path relative to results/), through safe_path."""
    try:
        path = safe_path(results_dir, ref, what="artifact")
    except ReportError as exc:
        raise ReportError(f"artifact: {exc}") from exc
    if Path(ref).parts[2] != "artifacts":
        raise ReportError(f"{ref}: artifact must lie under runs/<run>/artifacts/")
    try:
        return plainfile.read_text(path)
    except (OSError, UnicodeDecodeError) as exc:
        raise ReportError(f"{path}: artifact cited by a record cannot be read: {exc}") from exc


def read_manifest_json(path):
    """A JSON file with a readable error naming the file."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ReportError(f"{path}: {exc}") from exc


def read_campaigns(results_dir, runs=()):
    """{key: campaign.json} of every campaign under results_dir/campaigns, validated as runs are:
    plain folders of plain files (schema.CAMPAIGN_FILES), a campaign.json that passes
    schema.campaign_problems, JSON-lines databases, and each step whose run is kept agreeing with
    that run's e2e_tune record of the campaign (trials). ReportError lists every problem."""
    top = Path(results_dir) / "campaigns"
    if not top.exists():
        return {}
    problems, found = [], {}
    if top.is_symlink() or not top.is_dir():
        raise ReportError(f"{top}: not a folder (campaigns are plain folders, never symlinks)")
    steps_of_runs = _campaign_steps_in_runs(runs)
    for folder in sorted(top.iterdir()):
        try:
            state = _read_campaign(top, folder, steps_of_runs, problems, {run.run_id for run in runs})
        except (ReportError, OSError):   # these name their file already
            raise
        except Exception as exc:  # noqa: BLE001 - a check broke on this campaign's data: name the folder
            if debugging():
                raise
            state = None
            problems.append(broken_check(folder, exc))
        if state is not None:
            found[state["key"]] = state
    if problems:
        raise ReportError(problems, hint="restore the campaign from git, or remove its folder to start it anew")
    return found


def _read_campaign(top, folder, steps_of_runs, problems, run_ids=frozenset()):
    """One campaign folder of read_campaigns: its campaign.json, or None (the problems appended).
    ``run_ids``: the runs kept in results/runs."""
    name = folder.name
    if name.startswith(".old-") and not os.path.lexists(top / name[5:]) and stat.S_ISDIR(os.lstat(folder).st_mode):
        name = name[5:]   # a commit stopped between its renames: the last committed state (retest puts it back)
    elif name.startswith("."):   # .tmp-/.old- of a commit in progress: never read
        return None
    bad = schema.campaign_folder_problems(folder)
    problems.extend(bad)
    if bad:
        return None
    names = sorted(os.listdir(folder))
    if "campaign.json" not in names:
        problems.append(f"{folder / 'campaign.json'}: missing")
        return None
    try:
        state = schema.loads(plainfile.read_text(folder / "campaign.json"))
    except ReportError as exc:
        problems.extend(exc.problems)
        return None
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        problems.append(f"{folder / 'campaign.json'}: invalid JSON: {exc}")
        return None
    found_here = schema.campaign_problems(state, name)
    problems.extend(f"{folder / 'campaign.json'}: {p}" for p in found_here)
    workloads = None
    for name in sorted(names, key=lambda n: n != campaigns.WORKLOADS):   # the workloads first: records index them
        if name != "campaign.json":
            found, count = _database_problems(folder / name, None if found_here else state, workloads)
            problems.extend(found)
            workloads = count if name == campaigns.WORKLOADS else workloads
    if found_here:
        return None
    for i, step in enumerate(state["steps"]):
        measured = steps_of_runs.get((step["run_id"], state["key"]))
        if measured is None and step["run_id"] in run_ids:   # a kept run that tuned nothing for it
            problems.append(f"{folder / 'campaign.json'}: steps[{i}].run_id: run {step['run_id']} holds no e2e_tune "
                            "record of this campaign (a step is the search a run made; a run gone from "
                            "results/runs is listed as unverifiable instead)")
        elif measured is not None and measured != step["trials"]:
            problems.append(f"{folder / 'campaign.json'}: steps[{i}].trials: {step['trials']} but run "
                            f"{step['run_id']} measured {measured} for this campaign")
    return state


def _campaign_steps_in_runs(runs):
    """{(run id, campaign key): trials} from the e2e_tune records that continued a campaign."""
    out = {}
    for run in runs:
        for rec in run.records:
            camp = (rec.get("extra") or {}).get("campaign")
            if rec["reused_from"] is None and isinstance(camp, dict) and isinstance(camp.get("steps"), list):
                for step in camp["steps"]:
                    if isinstance(step, dict) and step.get("run_id") == run.run_id:
                        out[(run.run_id, camp.get("key"))] = step.get("trials")
    return out


def _database_problems(path, state=None, workloads=None):
    """([problems], line count) of a MetaSchedule database: one JSON value per line, each of its file's shape
    and agreeing with its campaign (``state``, when its campaign.json passed; campaigns.database_problems;
    ``workloads``: the workload file's line count).  Remembered by sha256 with the campaign's facts it was
    held to, as read_jsonl does: a 64 MiB database took 70 s to check at every build."""
    try:
        data = plainfile.read_bytes(path)
        facts = json.dumps([state and state["parts"].get("target"), state and state["steps"][-1:], workloads],
                           default=str).encode()
        text, key = data.decode("utf-8"), _validated_key(data + b"\0" + facts, False, b"database")
    except ReportError as exc:
        return list(exc.problems), None
    except (OSError, UnicodeDecodeError) as exc:
        return [f"{path}: cannot read: {exc}"], None
    count = sum(1 for line in text.split("\n") if line.strip())
    if _known_valid(key):
        return [], count
    values = []
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip():
            try:
                values.append(schema.loads(line))
            except ValueError as exc:
                return [f"{path}:{number}: invalid JSON: {exc}"], None
    if state is not None and path.name in (campaigns.WORKLOADS, campaigns.TUNING_RECORDS):
        found = campaigns.database_problems(path, values, state, workloads if workloads is not None else 0)
        if found:
            return found, count
    _remember_valid(key)
    return [], count


SHIP_LIMIT_BYTES = 2_000_000
"""A run's text file bigger than this is published truncated (its head and tail, as MLPerf does
with accuracy logs), with a line naming the whole file's size, line count and sha256: one 200 MB
log cannot make a 200 MB site.  The repository keeps the file whole; provenance entries show the
cited lines of every record whatever the size."""
TRUNCATED_TYPES = (".log", ".txt", ".py", ".s", ".ll", ".c", ".h", ".csv")


def shipped_bytes(run, rel, limit=SHIP_LIMIT_BYTES):
    """The bytes the site publishes for file ``rel`` of ``run``: the file itself, or for a text file
    over ``limit`` its first lines up to half the limit, a line saying what was left out, and its
    last lines up to a quarter of the limit (JSON is never cut: a cut JSON file is no JSON)."""
    data = plainfile.read_bytes(Path(run.path) / rel)
    if len(data) <= limit or Path(rel).suffix.lower() not in TRUNCATED_TYPES:
        return data
    head_end = data.rfind(b"\n", 0, limit // 2) + 1
    tail_start = data.find(b"\n", len(data) - limit // 4) + 1 or len(data)
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    head_lines, tail_first = data[:head_end].count(b"\n"), data[:tail_start].count(b"\n") + 1
    shown = (f"lines 1-{head_lines}" if head_lines else "no line") + " above and " + (   # a part may be empty:
        f"{tail_first}-{lines}" if tail_start < len(data) else "no line") + " below this line"   # a long last line
    marker = (f"[reportgen: this copy is truncated. The whole file, results/runs/{run.run_id}/{rel}, is "
              f"{len(data)} bytes and {lines} lines, sha256 {hashlib.sha256(data).hexdigest()} (its run.json "
              f"lists it); shown here: {shown}]\n")
    return data[:head_end] + marker.encode("ascii") + data[tail_start:]


def file_summary(run, path):
    """{run, file, bytes, lines, sha256} of one file of a run (what the site ships instead of a
    tuning database: enough to check a copy against run.json)."""
    path = Path(path)
    with path.open("rb") as fh:
        lines = sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
    rel = path.relative_to(run.path).as_posix()
    return {"run": run.run_id, "file": rel, "bytes": path.stat().st_size, "lines": lines,
            "sha256": run.manifest["files"].get(rel)}


def tuning_files(run, prefix):
    """The plain files of a run's tuning work folders, artifacts/<family>/<prefix>*/ (never a link)."""
    folders = sorted(f for f in (run.path / "artifacts").glob(f"*/{prefix}*") if f.is_dir() and not f.is_symlink())
    return [path for folder in folders for path in files_under(folder)]


def files_under(folder):
    """The plain files under a folder of a run (never following a link), sorted."""
    return [p for p in plainfile.tree(folder) if p.is_file() and not p.is_symlink()]
