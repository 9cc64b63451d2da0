"""`reportgen trace ID`: from a figure or record id to its samples, log lines and command."""
import json
from pathlib import Path

from reportgen.data import load, merge, plainfile, runfacts
from reportgen.render import cells, provenance
from reportgen.errors import ReportError
from study import citation, schema


def trace(root, figure_id, site_dir=None, machine=None):
    """The record behind a figure id: ``<machine>/<record id>#...`` (the machines page, a section
    read from another machine) names its machine; a plain id is looked up on ``machine`` (id or
    prefix), else on the built site's publication machine, else on the only machine that has it --
    an id measured on several machines is refused with their list, never resolved by chance."""
    root = Path(root)
    record_id = figure_id.split("#", 1)[0]
    runs, _unknown = runfacts.standing(root, load.read_runs(root / "results"))   # the runs the site may show
    found = merge.machines(runs)
    head, _, rest = record_id.partition("/")
    if rest and head in found:   # "<machine>/<record id>": a figure of that machine's runs
        machine, record_id = head, rest
    elif machine is not None:
        machine, _reason = merge.publication_machine(runs, machine)
    else:
        having = [m for m in found if record_id in merge.current_records(merge.runs_of(runs, m))]
        published = _site_machine(site_dir or root / "site")
        if published in having:
            machine = published
        elif len(having) > 1:
            raise ReportError(f"trace: {record_id!r} was measured on {len(having)} machines: {', '.join(having)}",
                              hint="pass --machine ID, or trace <machine>/<record id>")
        else:
            machine = having[0] if having else None
    current = merge.current_records(merge.runs_of(runs, machine)) if machine else {}
    cur = current.get(record_id)
    if cur is None:
        near = [k for k in current if record_id.split("/")[0] in k][:5]
        raise ReportError(f"trace: no record {record_id!r} in {root / 'results'}",
                          hint=("similar ids: " + ", ".join(near)) if near else "")
    rec = cur.record
    lines = [
        f"record   {rec['id']}",
        f"run      {rec['run_id']} ({cur.run.manifest['profile']})"
        + (f", reused from {rec['reused_from']}" if rec["reused_from"] else ""),
        f"status   {rec['status']}" + (f": {_one_line(rec['error'])}" if rec["error"] else ""),
        f"case     {json.dumps(rec['case'], sort_keys=True)}",
        f"stats    {json.dumps(rec['stats'], sort_keys=True)} ({rec['unit']})",
        f"samples  {json.dumps(rec['samples'])}",
        f"check    {json.dumps(rec['check'], sort_keys=True)}",
        f"log      results/{rec['log']['path']} lines {rec['log']['lines'][0]}-{rec['log']['lines'][1]}"
        f" sha256 {rec['log']['sha256']}",
        *([f"summary  line {rec['log']['lines'][1]} (checked against the record when the run was read)"]
          if citation.bound(rec["run_id"]) else []),
        "--- log excerpt ---",
        # every log line behind a mark: a line of the log cannot pass for a section of this output
        "\n".join("  | " + line for line in provenance.log_excerpt(root / "results", rec).split("\n")),
        "--- reproduce ---",
        provenance.reproduce_command(rec, cur.run.manifest["profile"]),
    ]
    lines += derived_lines(site_dir or root / "site", figure_id)
    # record strings and log lines are untrusted: no escape sequence reaches the terminal
    # (C0 and C1 controls, zero-width and bidi characters are shown as escapes: \x1b, \x85, \u202e)
    return cells.visible("\n".join(lines))


def _site_machine(site_dir):
    """The publication machine a built site names (site/machine.json), or None."""
    try:
        machine = _site_json(site_dir, "machine.json").get("publication_machine")
    except (ReportError, AttributeError):
        return None
    return machine if isinstance(machine, str) else None


def _site_json(site_dir, name):
    """A built site's index file, read as a plain file of bounded size (a site given with --site-dir
    is as untrusted as results/: a FIFO there blocked trace, a list of numbers ended it in an internal
    error). None when the site has no such file; ReportError naming it when it is not JSON."""
    path = Path(site_dir) / name
    from reportgen.commands.build import link_problem
    linked = link_problem(site_dir, Path(site_dir).parent)   # site -> a folder elsewhere
    if linked:
        raise ReportError(linked)
    try:   # one_name: a hard link is a second name of a file elsewhere
        return schema.loads(plainfile.read_text(path, NUMBERS_LIMIT, one_name=True))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ReportError(f"{path}: cannot read: {exc}") from None


NUMBERS_LIMIT = 64 * 2**20
"""The largest numbers.json or machine.json trace reads (a committed site's numbers.json: about 1 MB)."""


def derived_lines(site_dir, figure_id):
    """A derived figure (a ratio, a share of a peak) as the built site indexed it: the formula, every
    operand with its record and run, and the result; nothing for a plain figure or an unbuilt site.
    An index not of the shape a build writes is refused in one line naming numbers.json and its entry."""
    path = Path(site_dir) / "numbers.json"
    index = _site_json(site_dir, "numbers.json")
    if index is None:
        return []
    if not isinstance(index, list) or not all(isinstance(e, dict) for e in index):
        raise ReportError(f"{path}: expected a list of figure entries (objects), as a build writes it")
    entry = next((e for e in index if e.get("id") == figure_id and e.get("derived")), None)
    if entry is None:   # a figure name the site does not show is said, not passed over (the record stands alone)
        unknown = "#" in figure_id and not any(e.get("id") == figure_id for e in index)
        return [_one_line(f"figure   {figure_id!r}: no such figure on the built site ({path}); the record above is "
                          "what its id names")] if unknown else []
    d = entry["derived"]
    operands = d.get("operands") if isinstance(d, dict) else None
    if (not isinstance(operands, list) or not all(isinstance(o, dict) and all(k in o for k in OPERAND_KEYS)
                                                  for o in operands)
            or "formula" not in d or "result" not in d):
        raise ReportError(f"{path}: entry {figure_id!r}: derived: expected formula, result and operands "
                          f"({', '.join(OPERAND_KEYS)} each), as a build writes them")
    pages = sorted({str(e.get("page")) for e in index if e.get("id") == figure_id})
    out = ["--- derived figure ---", f"formula  {_one_line(d['formula'])} = {_one_line(d['result'])}",
           f"shown on {_one_line(', '.join(pages))}"]
    out += [_one_line(f"operand  {o['name']} = {o['value']} {o['unit']}  record {o['record']}  run {o['run']}")
            for o in operands]
    return out


def _one_line(value):
    """A field of a record or of the site's index as one line of this output: a newline in an error or
    a formula forged a section ('--- reproduce ---' with a command under it)."""
    return str(value).replace("\r", "\\r").replace("\n", "\\n")


OPERAND_KEYS = ("name", "value", "unit", "record", "run")
