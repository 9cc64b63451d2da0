"""The hand-off from ``reportgen retest`` to a family process, declared once.

retest writes one ``Spec`` per family as JSON (``parts/<family>.spec.json``) and starts
``python -m experiments.<module> --spec PATH``; the harness reads it back with :meth:`Spec.read`.
Both sides use this class, so a field is added, renamed or documented in one place, and a spec
with an unknown, missing or mistyped field fails at once with one line naming the file and field
instead of as a KeyError in the middle of a family.
"""
import dataclasses
import json
from pathlib import Path


@dataclasses.dataclass(frozen=True)
class Spec:
    """What one family process is asked to do and where it writes."""
    experiment: str
    """the family's name: its key in the profile and the first part of its record ids"""
    run_id: str
    """the run being written (its folder name under results/runs/)"""
    params: dict
    """the profile's params for this family (checked against the family's declared keys)"""
    log_file: str
    """the family's log, written by the process's stdout"""
    log_ref: str
    """the same log relative to results/, as records cite it"""
    records_file: str
    """where the family appends its records (JSON lines)"""
    artifacts_dir: str
    """the family's artifacts folder inside the run being written"""
    fingerprint: str
    """sha256 of params, code and environment: a previous record is reused only under the same one"""
    previous_records: str | None = None
    """records of the newest validated run of the same machine and family, for reuse"""
    force: bool = False
    """re-measure every case even when a previous record could be reused"""
    rpc: dict | None = None
    """{tracker, key, target} when measuring on a remote device"""
    results_root: str | None = None
    """the project's results/ folder (default: four levels above artifacts_dir)"""
    upstream: dict = dataclasses.field(default_factory=dict)
    """family -> record files of the families it uses, newest first"""
    upstream_params: dict = dataclasses.field(default_factory=dict)
    """family -> what this profile asks of the families it uses"""

    @classmethod
    def from_dict(cls, data, where="spec"):
        """A Spec from a JSON object; ValueError naming ``where`` and the field on any mismatch."""
        if not isinstance(data, dict):
            raise ValueError(f"{where}: expected a JSON object, got {type(data).__name__}")
        fields = {f.name: f for f in dataclasses.fields(cls)}
        for key in data:
            if key not in fields:
                raise ValueError(f"{where}: {key!r}: unknown field (known: {', '.join(fields)})")
        for name, field in fields.items():
            required = field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING
            if name not in data:
                if required:
                    raise ValueError(f"{where}: {name!r}: missing")
                continue
            value, kinds = data[name], _KINDS[name]
            if not isinstance(value, kinds):
                want = " or ".join("null" if k is type(None) else k.__name__ for k in kinds)
                raise ValueError(f"{where}: {name!r}: expected {want}, got {type(value).__name__}")
        # null for a field with a factory default (upstream) means "none": the default
        return cls(**{k: v for k, v in data.items()
                      if not (v is None and fields[k].default_factory is not dataclasses.MISSING)})

    @classmethod
    def read(cls, path):
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ValueError(f"{path}: cannot read the spec: {exc}") from None
        return cls.from_dict(data, str(path))

    def to_dict(self):
        return dataclasses.asdict(self)

    def write(self, path):
        Path(path).write_text(json.dumps(self.to_dict(), indent=1), encoding="utf-8")


_NONE = type(None)
_KINDS = {"experiment": (str,), "run_id": (str,), "params": (dict,), "log_file": (str,), "log_ref": (str,),
          "records_file": (str,), "artifacts_dir": (str,), "fingerprint": (str,), "previous_records": (str, _NONE),
          "force": (bool,), "rpc": (dict, _NONE), "results_root": (str, _NONE), "upstream": (dict, _NONE),
          "upstream_params": (dict, _NONE)}
"""the JSON types each field accepts"""
