"""A section measured only on another machine than the publication machine.

New variants (the rule library's engines) appear on whatever CPU the session that built them had,
and the CPU changes between sessions.  A section that reads them asks :class:`Source` which machine
to read: the publication machine when it has a record the section ``wants``, otherwise the machine
with the newest run that has one.  Then every figure carries that machine's id in its figure id
(``<machine>/<record id>#...``, which verify accepts and trace follows), links to that machine's
provenance page (where its records and derived figures are listed), and the section says so in
one line (:func:`note`) above its tables.  Every ratio stays within one machine and one run.
"""
from reportgen.data.words import W
from reportgen.render.cells import text as _esc
from reportgen.render.figures import derive, fmt_number, operand


def pick(data, wants):
    """(machine id, its current records, its provenance page or None) for a section that shows
    the records ``wants(cur)`` selects."""
    from reportgen.pages import machines
    if not any(wants(c) for c in data.current.values()):
        found = [(data.machines[m].newest_key, m) for m, cur in data.by_machine.items()
                 if m != data.machine and any(wants(c) for c in cur.values())]
        if found:
            machine = max(found)[1]
            return machine, data.by_machine[machine], machines.provenance_page(machine)
    return data.machine, data.current, None


class Source:
    """The machine a section reads, and how its figures are filed (see the module)."""

    def __init__(self, data, book, wants, shows=None):
        self.book = book
        self.machine, self.current, self.provenance = pick(data, wants)
        self.borrowed = self.provenance is not None
        self.shows = shows or wants

    def fig(self, figure_id, text, unit, cur, derived=None, also=()):
        if self.borrowed:
            if derived is not None:   # the operands' entries are on this machine's provenance page too
                derived = dict(derived, operands=[dict(o, page=self.provenance) for o in derived["operands"]])
            return self.book.current(f"{self.machine}/{figure_id}", text, unit, cur, provenance=self.provenance,
                                     derived=derived, also=also)
        return self.book.current(figure_id, text, unit, cur, derived=derived, also=also)

    def sum(self, figure_id, cur, parts):
        """A time that is the sum of ``parts`` [(name, seconds)] of one record (kernels of its
        profile, or rows of a table): one part is that part's figure; several are a derived figure
        with each part an operand, so the formula names every kernel or node it adds."""
        total = sum(v for _, v in parts)
        text = fmt_number(total * 1e3, "ms") + " ms"
        if len(parts) == 1:
            return self.fig(figure_id, text, "ms", cur)
        how = derive(" + ".join(name for name, _ in parts),
                     *(operand(name, cur, fmt_number(v * 1e3, "ms"), "ms") for name, v in parts))
        return self.fig(figure_id, text, "ms", cur, derived=how)

    def ms(self, cur, stat="p50", suffix="p50_ms"):
        if cur is None:
            return "—"
        if not cur.ok:
            return self.book.failed(cur)
        return self.fig(f"{cur.record['id']}#{suffix}", fmt_number(cur.stat(stat) * 1e3, "ms") + " ms", "ms", cur)

    def records(self):
        """The records the section shows (its machine's provenance page lists them when borrowed)."""
        return {c.record["id"]: c for c in self.current.values() if self.shows(c)}


def note(data, src):
    """The line above a section's tables when its figures come from another machine."""
    if not src.borrowed:
        return ""
    from study import identity
    env = data.machines[src.machine].env
    return W("borrow.note.other", machine=_esc(src.machine), cpu_name=_esc(identity.cpu_name(env)),
             isa_level=_esc(identity.isa_level(env)), publication=_esc(data.machine or "—"))


def where(data, src):
    """A short clause naming the machine a borrowed figure comes from (empty on the publication
    machine): for sentences outside the section, such as the home page's answers."""
    if not src.borrowed:
        return ""
    from study import identity
    env = data.machines[src.machine].env
    return W("borrow.where", machine=_esc(src.machine), cpu_name=_esc(identity.cpu_name(env)))
