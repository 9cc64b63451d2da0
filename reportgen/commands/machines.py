"""`reportgen machines`: the machines the committed runs come from, and which one this is.

The engineer who re-runs the study on their own machine learns here its id (computed from the
hardware, as every run's folder name ends with it), whether it already has runs, and which machine
a default build publishes; the machines page of the site shows the same table.
"""
from reportgen.commands import build
from reportgen.data import load, merge, runfacts
from study import environment, identity


def this_machine():
    """(id, hardware fields) of the machine the command runs on."""
    hw = environment.hardware()
    return identity.machine_id(hw), hw


def report(root):
    """The command's text: a table of machines, then where this machine stands."""
    loaded = load.read_runs(root / "results")
    runs, unknown = runfacts.standing(root, loaded)   # as the site: runs of code not in this history are left out
    here, hw = this_machine()
    pin = build.pinned_machine(root)
    table = merge.summaries(runs, merge.publication_machine(runs, pin, merge.PINNED)[0] if pin else None)
    lines = [f"{'machine':<13} {'cpu':<28} {'isa':<12} {'cores':>5} {'GiB':>4}  {'runs':<24} {'families':>8}  newest"]
    for r in table:
        runs_text = ", ".join(f"{n} {p}" for p, n in r["runs"].items())
        mark = (" <- published" if r["published"] else "") + (" <- this machine" if r["id"] == here else "")
        lines.append(f"{r['id']:<13} {r['cpu'][:28]:<28} {r['isa']:<12} {r['cores']!s:>5} {r['memory_gib']!s:>4}  "
                     f"{runs_text:<24} {len(r['families']):>8}  {r['newest']}{mark}")
    if unknown:
        lines.append(f"left out (their code is not in this checkout's history): {', '.join(sorted(unknown))}")
    if not any(r["id"] == here for r in table):
        lines.append(f"this machine: {here} ({identity.cpu_name(hw)}, {identity.isa_level(hw)}, "
                     f"{hw['logical_cores']} cores) has no runs yet: `reportgen retest --profile standard`, "
                     "then `reportgen build --machine ID` (or pin it in mkdocs.yml: plugins: reportgen: machine)")
    lines.append("to publish a machine's figures: commit results/runs/<run>/ (its folder name ends with the "
                 "machine id) and results/campaigns/, and pin its id in mkdocs.yml (plugins: reportgen: machine); "
                 "`reportgen build --machine ID` builds the site for one machine")
    return "\n".join(lines)
