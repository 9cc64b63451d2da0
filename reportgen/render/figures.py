"""Every number a page shows goes through a FigureBook: formatted, linked, indexed.

Templates never format or compute; they ask the book for a finished string.
The book remembers which page used which figure, and that list becomes
site/numbers.json, the machine-readable index that `verify` checks.
"""
import html
import math
import posixpath
import re

from reportgen.render.cells import text as _text  # the one escaping point: a figure's text is text, never Markdown
from reportgen.data.runfacts import anchor
from reportgen.data.words import W



def rests_on_jump(*cells):
    """The note a verdict or a goal's cell carries when a figure it rests on (in ``cells``, as rendered) is
    flagged as a jump: a verdict beside a flagged figure said nothing of it ('holds', 'met')."""
    flags = [W(f"figures.current.{kind}", href="\0").split("\0")[0] for kind in ("jumped", "new_level")]   # up to the link
    return W("figures.rests_on_jump.text") if any(f in (c or "") for c in cells for f in flags) else ""

def slug(text):
    """Stable HTML anchor for an id (same id, same anchor, every build; data.runfacts.anchor, where
    load refuses two ids of one anchor)."""
    return anchor(text)


def record_file(record_id):
    """The name a record is shipped under in site/data/records/<run>/ (the whole record, as its
    line of records.jsonl parses): readable, and unique per id by its hash suffix."""
    import hashlib
    return f"{slug(record_id)[:80]}-{hashlib.sha256(record_id.encode()).hexdigest()[:10]}.json"


def log_excerpt_file(rec):
    """The name of a record's cited log lines shipped on their own (site/data/logs/<run>/), for a
    machine whose whole logs the site does not carry."""
    first, last = rec["log"]["lines"]
    stem = rec["log"]["path"].rsplit("/", 1)[-1].removesuffix(".log")
    return f"{slug(stem)}-{int(first)}-{int(last)}.txt"


GROUP_DEPTH = {"gemm_tvm": 2}   # id segments after the family that name a provenance page (default 1)


def provenance_group(record_id):
    """The provenance page a record's entry lives on: its family and first id segment(s), e.g.
    ``gemm_tvm/impl=tvm/stage=packing/...`` -> ``impl-tvm-stage-packing``; keeps every page small."""
    family, *parts = record_id.split("/")
    return slug("-".join(parts[:GROUP_DEPTH.get(family, 1)])) or "all"


def provenance_page(record):
    return f"provenance/{record['experiment']}/{provenance_group(record['id'])}.md"


def fmt_number(value, unit):
    """Three significant digits, in the unit given: 0.0123 s -> '12.3 ms' is the caller's job.

    Total over floats: inf and NaN (a finite value overflowing on the way, 1e306 s in ms) become the
    words' marker for a value that is no finite number, never an IndexError that ends the build."""
    if not math.isfinite(value):
        return W("figures.not_finite.text")
    if value == 0:
        return "0"
    digits = max(0, 2 - int(f"{abs(value):e}".split("e")[1]))
    if digits > 6:   # below 1e-4 fixed-point kept no digit of 5e-324 ("0.000000": a nonzero figure shown as 0)
        return f"{value:.3g}"
    return f"{value:.{digits}f}"


def operand(name, cur, value, unit):
    """One input of a derived figure: what it is, its value as used, and the record it comes from."""
    rec = cur.record
    return {"name": name, "value": value, "unit": unit, "record": rec["id"], "run": rec["run_id"],
            "machine": cur.machine, "page": provenance_page(rec), "anchor": slug(rec["id"]), "status": rec["status"]}


def derive(formula, *operands):
    """The provenance of a derived figure: its formula over the operands' names, and the operands."""
    return {"formula": formula, "operands": list(operands)}


_PEER_NAMES = {"ort": "ORT"}


def paired_derivation(cur):
    """How a paired-block ratio (a record's ``paired_peer``: our engine and its peer timed in
    alternating blocks) is derived, with both operands: the one formula every page that shows such
    a ratio cites."""
    pp = cur.record["extra"]["paired_peer"]
    peer = pp.get("engine", "ort")
    return derive(f"median over blocks of p50(tvm block) / p50({peer} block), blocks alternating, same record",
                  operand("tvm", cur, fmt_number(pp["p50_s"] * 1e3, "ms"), "ms (p50 of the paired blocks)"),
                  operand(peer, cur, fmt_number(pp["peer_p50_s"] * 1e3, "ms"),
                          f"ms (p50 of {_PEER_NAMES.get(peer, peer)}'s blocks)"))


def paired_ratio(cur, peer):
    """(ratio, (lo, hi)) of ``cur``'s blocks paired with engine ``peer``, or None when it was not
    timed so."""
    pp = (cur.record.get("extra") or {}).get("paired_peer")
    if not pp or pp.get("engine", "ort") != peer:
        return None
    return float(pp["ratio"]), (float(pp["ratio_ci"][0]), float(pp["ratio_ci"][1]))


def derived_entries(index, provenance_path):
    """The derived figures (from a book's index) whose own record has its entry on ``provenance_path``,
    once per figure id, with every page that shows it."""
    out = {}
    for entry in index:
        rid = entry.get("record") or ""
        home = entry.get("provenance") or f"provenance/{rid.split('/')[0]}/{provenance_group(rid)}.md"
        if not entry.get("derived") or home != provenance_path:
            continue
        out.setdefault(entry["id"], dict(entry, pages=[]))["pages"].append(entry["page"])
    return list(out.values())


class FigureBook:
    """Collects the figures of every page as they are rendered."""

    def __init__(self):
        self.entries = {}    # (page, figure id) -> entry
        self.page = None
        # {(run id, record id)} of the records whose median jumped against an earlier run of the same
        # code on their machine (pages.history.flagged): their figures carry a flag to the jumps list
        self.jumped = set()
        # {(run id, record id)} of new levels over changed code not yet confirmed (pages.history.unconfirmed)
        self.new_level = set()
        # {(run id, record id): [pages.pairs.Pair]} of the pairs whose ratio moved by the jump factor: a figure
        # resting on both records of one is flagged as the pair is (a ratio of two records each under it)
        self.pairs = {}
        # whether pages.pairs follows two families' pairs (the plugin sets pairs.followed); the ratios a page prints
        # that it does not follow, {(family, family)}: the build stops on them (a ratio no rule compares)
        self.followed = lambda _a, _b: True
        self.unfollowed = set()

    def set_page(self, src_uri):
        self.page = src_uri

    def _rel(self, target):
        here = posixpath.dirname(self.page or "")
        path, _, anchor = target.partition("#")
        if path.endswith(".md"):  # raw HTML links are not rewritten by MkDocs
            path = path[:-3] + ".html"
        rel = posixpath.relpath(path, here or ".")
        return f"{rel}#{anchor}" if anchor else rel

    def historical(self, cell):
        """An archived figure, exactly as printed, marked as history."""
        self.entries[(self.page, cell.id)] = {
            "id": cell.id, "page": self.page, "value": cell.text, "unit": cell.unit,
            "kind": "historical", "record": None, "run": None, "log": None, "sha256": None,
            "source": f"archive/tables/{cell.id.split('/')[0]}.yaml"}
        return (W("figures.historical.text", id=html.escape(cell.id), text=_text(cell.text)))

    def current(self, figure_id, text, unit, cur, provenance=None, derived=None, also=()):
        """A measured figure, linked to its provenance entry (``provenance``: another page than
        the family's, e.g. the entries of a machine that is not the publication machine).
        ``derived``: for a figure computed from several records (a ratio, a share of a peak),
        ``derive(formula, operand(...), ...)``; the index keeps every operand with its record.
        ``also``: the other records (Currents) a ratio rests on, when it states no derivation.

        A failed record (any status but ok) has no figure: what a page asks to print of it, or of a ratio resting on
        it, is its status linked to its entry (a check_failed record's samples and errors, and a failed graph step's
        IR sizes, were printed as current figures that no run was compared with: history.all_jumps compares ok
        records only)."""
        failed = next((c for c in (cur, *also) if c is not None and not c.ok), None)
        if failed is not None:   # ``provenance`` names the entries of cur's machine
            return self.failed(failed, provenance if failed.machine == cur.machine else None)
        failed = next((o for o in (derived or {}).get("operands", ()) if o.get("status", "ok") != "ok"), None)
        if failed is not None:
            return self._failed_link(f"{failed['page']}#{failed['anchor']}", failed["status"], "")
        rec = cur.record
        before = self.entries.get((self.page, figure_id)) or {}
        self.entries[(self.page, figure_id)] = {
            "id": figure_id, "page": self.page, "value": text, "unit": unit, "kind": "current",
            "record": rec["id"], "run": rec["run_id"], "machine": cur.machine, "log": rec["log"]["path"],
            "lines": rec["log"]["lines"], "sha256": rec["log"]["sha256"],
            "provenance": provenance or provenance_page(rec)}
        if derived is not None:
            self.entries[(self.page, figure_id)]["derived"] = dict(derived, result=text)
        elif before.get("derived") and before["value"] == text:   # the same figure shown again, e.g. in a table
            self.entries[(self.page, figure_id)]["derived"] = before["derived"]
        # a derived figure links to its formula and operands (the derived section of its record's page)
        anchor = "derived-" + slug(figure_id) if derived is not None else slug(rec["id"])
        href = self._rel(f"{provenance or provenance_page(rec)}#{anchor}")
        # the flag follows every record the figure rests on: a derived figure's operands, ``also`` (the
        # other records of a ratio): a forged peak 3.3x faster lowered every share of it, unflagged
        rests_on = [(rec["run_id"], rec["id"])] + [(o["run"], o["record"]) for o in (derived or {}).get("operands", [])] \
            + [(c.record["run_id"], c.record["id"]) for c in also if c is not None]
        # or a Current marked so (merge.fastest: the fastest of candidates one of which was flagged; merge's
        # last good record kept for a failed re-run): the choice rests on that record
        rested = set(rests_on)
        sides = {(c.record["experiment"], c.machine) for c in (cur, *also) if c is not None} | {
            (o["record"].split("/", 1)[0], o.get("machine")) for o in (derived or {}).get("operands", [])}
        self.unfollowed.update((a[0], b[0]) for a in sides for b in sides
                               if a[1] == b[1] and a[0] != b[0] and not self.followed(a[0], b[0]))
        same_code = {pair.same_code for key in rested for pair in self.pairs.get(key, ()) if pair.keys <= rested}
        level = bool(self.new_level.intersection(rests_on)) or False in same_code   # not yet confirmed
        jumped = bool(self.jumped.intersection(rests_on)) or True in same_code or (
            not level and any(getattr(c, "jumped", False) for c in (cur, *also)))
        self.entries[(self.page, figure_id)]["jumped"] = jumped   # numbers.json says it too, not only the page
        level = level and not jumped
        if level:
            self.entries[(self.page, figure_id)]["new_level"] = True
        flag = (W("figures.current.jumped", href=self._rel("history.md#jumps")) if jumped else
                W("figures.current.new_level", href=self._rel("history.md#jumps")) if level else "")
        return W("figures.current.text", figure_id=html.escape(figure_id), href=href, id=html.escape(rec['id']),
                 text=_text(text)) + flag

    def above_peak(self, share):
        """A flag after a share of a measured peak above 1: the kernel outran the peak that divides it
        (a slowed peak run, or a record too fast to be true): shown, and flagged, never capped."""
        return W("figures.above_peak.text") if share > 1.0 else ""

    PROFILE_ROW_SPREAD = 5.0
    """How far apart two engines' profiles may be on one row of a side-by-side profile table (one
    convolution's kernels and nodes) before the ratio is flagged: each profile is bounded only as a
    whole (study.work.PROFILE_LATENCY), so one small node's time x40 printed TVM 0.03x ORT on it."""

    def profiles_disagree(self, ratio):
        """A flag after a per-row ratio of two profiles beyond PROFILE_ROW_SPREAD either way: shown,
        and flagged, never dropped."""
        far = not (1 / self.PROFILE_ROW_SPREAD <= ratio <= self.PROFILE_ROW_SPREAD)
        return W("figures.profiles_disagree.text", spread=self.PROFILE_ROW_SPREAD) if far else ""

    def failed(self, cur, provenance=None):
        """A case that did not produce a time is shown as failed, never as a number (``provenance``: as current's)."""
        rec = cur.record
        return self._failed_link(f"{provenance or provenance_page(rec)}#{slug(rec['id'])}", rec["status"],
                                 rec["error"] or "")

    def _failed_link(self, target, status, error):
        return f'<a class="num failed" href="{self._rel(target)}" title="{_text(error)}">{_text(status)}</a>'

    def data_prefix(self):
        """Relative path from the current page to the published results (site/data)."""
        return posixpath.relpath("data", posixpath.dirname(self.page or "") or ".")

    def link(self, target, text):
        return f'<a href="{self._rel(target)}">{_text(text)}</a>'

    def index(self, pages_html=None):
        """numbers.json content: one entry per (page, figure). With ``pages_html`` ({page: rendered
        HTML}), only the figures each page really shows: a figure asked for but left out of the page
        (a template branch not taken, a table folded away by a condition) is not listed."""
        entries = self.entries.values()
        if pages_html is not None:
            shown = {page: shown_ids(text) for page, text in pages_html.items()}
            entries = [e for e in entries if e["id"] in shown.get(e["page"], ())]
        return sorted(entries, key=lambda e: (e["page"] or "", e["id"]))


_DATA_NUM = re.compile(r'data-num="([^"]*)"')


def shown_ids(page_html):
    """The figure ids a rendered page shows (its data-num attributes)."""
    return {html.unescape(m) for m in _DATA_NUM.findall(page_html)}
