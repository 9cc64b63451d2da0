"""Do the current records of one topic come from one environment? If not, say how they differ.

The site's "current" record of each case is the newest of the most thorough profile, so
one table can end up holding records of different runs: another machine (a device
measured through RPC files its run under the device's machine id), another TVM, another
BLAS kernel. Such figures must not be read side by side silently; pages print the note
this module builds ("not comparable: ...", docs/words/comparable.yaml) above the table instead.
"""
from study import identity
from reportgen.render.cells import text as _esc
from reportgen.data.words import W

# environment key, label on the page
KEYS = (("machine_id", W("comparable.keys.machine")), ("cpu_model", "CPU"), ("tvm_version", "TVM"), ("llvm_version", "LLVM"),
        ("numpy_version", "NumPy"), ("blas", W("comparable.keys.blas")))


def _value(env, key):
    if key == "machine_id":   # recomputed from the hardware (one rule for old and new runs)
        return identity.machine_id(env)
    if key == "blas":   # the kernel (architecture) is what changes speed, not the library's path
        return "; ".join(sorted({str(b.get("architecture")) for b in env.get("blas") or []})) or None
    value = env.get(key)
    return None if value is None else str(value)


def differences(currents):
    """[(key, label, {value: {"runs": [run ids], "records": n}})] for every environment key whose
    value differs among the runs the given Current records come from; [] when they agree."""
    currents = list(currents)
    out = []
    for key, label in KEYS:
        values = {}
        for cur in currents:
            value = _value(cur.run.manifest["environment"], key)
            entry = values.setdefault(value, {"runs": [], "records": 0})
            entry["records"] += 1
            if cur.run.run_id not in entry["runs"]:
                entry["runs"].append(cur.run.run_id)
        if len(values) > 1:
            out.append((key, label, values))
    return out


def note(currents):
    """The not-comparable note naming each differing key and how many records carry each value; "" when comparable."""
    diffs = differences(currents)
    if not diffs:
        return ""
    parts = []
    for _key, label, values in diffs:
        listed = W("common.punct.enumeration_comma").join(W("comparable.note.value_runs", value=_esc(value if value is not None else W("comparable.note.not_recorded")), records=entry['records'], runs=W("common.punct.enumeration_comma").join((_esc(r) for r in entry['runs'])))
                          for value, entry in sorted(values.items(), key=lambda kv: -kv[1]["records"]))
        parts.append(W("comparable.note.label_values", label=label, listed=listed))
    return (W("comparable.note.open") + W("common.punct.semicolon").join(parts)
            + W("comparable.note.close"))


def family_note(current, families):
    """The note for the current records of some experiment families ({case id: Current} in)."""
    return note(c for c in current.values() if c.record["experiment"] in families)


def by_family(current):
    """{family: note} for every family whose current records mix environments."""
    families = sorted({c.record["experiment"] for c in current.values()})
    notes = {f: family_note(current, (f,)) for f in families}
    return {f: text for f, text in notes.items() if text}
