"""The cross-machine page (docs/machines.md): one column per machine for the headline figures.

A site is built for one publication machine (merge.publication_machine); this page is the one
place where other machines' figures appear, each in its own column, each cell linked to its own
provenance entry, beside the historical machine of the seed.  A ratio between two machines is
only ever printed here, and it says so.
"""
from dataclasses import dataclass

import pandas as pd

from study import identity
from reportgen.data import merge, queries
from reportgen.render.figures import fmt_number
from reportgen.render.cells import text as _esc
from reportgen.render.markdown import markdown, table as _table
from reportgen.data.words import W

PAGE = "machines.md"
MAIN_SHAPE = (1024, 1024, 1024)


@dataclass
class Row:
    key: str
    label: str            # what the row measures, with its unit
    find: object          # (current, env) -> Current or None
    value: object         # Current -> (text, unit)
    hist: tuple = None    # (table, row, column) of the seed's figure, if it has one


def _gflops(cur):
    return fmt_number(cur.gflops(), "GFLOPS"), "GFLOPS"


def _ms(cur):
    return fmt_number(cur.stat("p50") * 1e3, "ms"), "ms"


def _numpy(threads, blas):
    def find(current, env):
        t = env["logical_cores"] if threads == "all" else threads
        return current.get(queries.numpy_id("float32", 1024, t, blas))
    return find


def _peak(threads):
    def find(current, env):
        return merge.peak(current, "float32", env["logical_cores"] if threads == "all" else threads)
    return find


def _stage(stage):
    def find(current, env):
        return queries.tvm_record(current, "tvm", stage, MAIN_SHAPE, env["logical_cores"])
    return find


def _engine(family, model, engine):
    def find(current, env):
        return queries.e2e(current, model, engine, family=family)
    return find


ROWS = [
    Row("peak_1", W("machines.rows.peak_single"), _peak(1), _gflops, ("s21_peak", "fp32", "peak")),
    Row("peak_all", W("machines.rows.peak_all"), _peak("all"), _gflops),
    Row("numpy_best_1", W("machines.rows.numpy_best_single"), _numpy(1, "best"), _gflops,
        ("s21_numpy", "single_fp32", "1024")),
    Row("numpy_conf_1", W("machines.rows.numpy_configured_single"), _numpy(1, "configured"), _gflops),
    Row("numpy_best_all", W("machines.rows.numpy_best_all"), _numpy("all", "best"), _gflops),
    *[Row(f"tvm_{s}", W("machines.rows.tvm_gemm", stage=s), _stage(s), _ms,
          ("s23_tvm_stages", s, "tvm") if s in ("baseline", "parallel") else None)
      for s in ("baseline", "parallel", "microkernel", "autotuned")],
    *[Row(f"e2e_{e}", W("machines.rows.resnet_e2e", label=label), _engine("e2e", "resnet18_v1", e), _ms)
      for e, label in (("tf", "TensorFlow"), ("ort", "ONNX Runtime"), ("tflite", "TFLite"), ("tvm_c", W("machines.rows.tvm_c")),
                       ("tvm_d", W("machines.rows.tvm_d")))],
    *[Row(f"int8_{e}", W("machines.rows.resnet_int8", label=label), _engine("int8", "resnet18_v1", e), _ms)
      for e, label in (("tvm_int8", W("machines.rows.tvm_e")), ("tvm_int8_tuned", W("machines.rows.tvm_f")), ("ort_qdq", "ONNX Runtime QDQ"))],
]


def provenance_page(machine_id):
    return f"provenance/machine-{machine_id}.md"


def headline(current, env):
    """{row key: Current} of one machine (rows it has no ok record for are left out)."""
    out = {}
    for row in ROWS:
        cur = row.find(current, env) if env else None
        if cur is not None and cur.ok:
            out[row.key] = cur
    return out


def _blas_kernels(current):
    kernels = {}
    for blas in ("configured", "best"):
        cur = current.get(queries.numpy_id("float32", 1024, 1, blas))
        if cur is not None:
            kernels[blas] = (cur.record["extra"].get("blas_kernel") or {}).get("architecture", "?")
    return " / ".join(f"{k}" for k in kernels.values()) or W("machines.blas_kernels.not_measured")


class Page:
    """Renders the page for one build: publication machine first, then the others, newest first."""

    def __init__(self, data, book):
        self.data, self.book = data, book
        found = data.machines
        others = sorted((m for m in found if m != data.machine), key=lambda m: found[m].newest_key, reverse=True)
        self.order = ([data.machine] if data.machine in found else []) + others
        self.found = found

    def _cell(self, machine_id, row, cur):
        text, unit = row.value(cur)
        page = None if machine_id == self.data.machine else provenance_page(machine_id)
        return self.book.current(f"{machine_id}/{cur.record['id']}#{row.key}", text, unit, cur, provenance=page)

    def _info(self):
        """The machine rows: one column per machine (the seed's machine in ``hist``), finished text."""
        d = self.data
        rows = {"CPU": "—", W("machines.table.isa"): "AVX2 + FMA", W("machines.table.cores"): "—",
                "TVM / LLVM": W("machines.table.early_tvm"), W("machines.table.blas_kernels"): W("machines.table.not_recorded"),
                W("machines.table.profiles"): "—"}
        info = pd.DataFrame({"label": [f"**{k}**" for k in rows], "hist": list(rows.values())}, index=list(rows),
                            dtype=object)
        for mid in self.order:
            m, env = self.found[mid], self.found[mid].env
            profiles = sorted({r.manifest["profile"] for r in merge.runs_of(d.all_runs, mid)})
            info[mid] = [_esc(identity.cpu_name(env)), _esc(identity.isa_level(env)), _esc(str(env["logical_cores"])),
                         _esc(f"{env['tvm_version']} / {env['llvm_version']}"), _esc(_blas_kernels(d.by_machine[mid])),
                         _esc(W("common.punct.enumeration_comma").join(profiles))
                         + (W("machines.table.smoke_mark") if m.smoke_only else "")]
        return info

    def _figures(self):
        """The headline rows: each machine's headline records (long: row, machine) pivoted to one
        column per machine, rows in ROWS order and only those some machine measured, joined with the
        archive frame for the seed's figure; every cell a FigureBook string."""
        d, rows = self.data, {row.key: row for row in ROWS}
        long = pd.DataFrame([(key, mid, cur) for mid in self.order for key, cur in d.headlines[mid].items()],
                            columns=["row", "machine", "current"])
        long = long.assign(row_rank=long["row"].map(list(rows).index), machine_rank=long["machine"].map(self.order.index))
        long = long.sort_values(["row_rank", "machine_rank"])
        long["cell"] = [self._cell(mid, rows[key], cur) for key, mid, cur in
                        zip(long["row"], long["machine"], long["current"])]
        wide = long.pivot(index="row", columns="machine", values="cell")
        wide = wide.reindex(index=[k for k in rows if k in wide.index], columns=self.order)
        meta = pd.DataFrame({"label": [_esc(rows[k].label) for k in wide.index],
                             "hist_id": ["/".join(rows[k].hist) if rows[k].hist else None for k in wide.index]},
                            index=wide.index, dtype=object)
        meta = meta.join(d.archive["cell"], on="hist_id")
        unknown = meta[meta["hist_id"].notna() & meta["cell"].isna()]
        if len(unknown):
            raise KeyError(f"{PAGE}: no archived cell {', '.join(unknown['hist_id'])}")
        meta["hist"] = [self.book.historical(c) if h else "—" for h, c in zip(meta["hist_id"], meta["cell"])]
        return pd.concat([meta[["label", "hist"]], wide.astype(object).where(wide.notna(), W("machines.blas_kernels.not_measured"))],
                         axis=1)

    def table(self):
        """Machines as columns: the machine rows, then the headline figures (pandas: pivot, join)."""
        d = self.data
        if not self.order:
            return W("machines.table.text")
        heads = ["", W("machines.table.head_history")] + [W("machines.table.head_machine", machine=_esc(mid), mark=W("machines.table.this_site_mark")
                                                  if mid == d.machine else '') for mid in self.order]
        return _table(pd.concat([self._info(), self._figures()]), heads)

    def reading(self):
        """Computed sentences: how the headline figures change between the publication machine and each
        other one (ratios across machines, said to be across machines)."""
        d = self.data
        if d.machine is None or len(self.order) < 2:
            return W("machines.reading.text")
        base = d.headlines[d.machine]
        base_env = self.found[d.machine].env
        out = []
        for mid in self.order[1:]:
            other = d.headlines[mid]
            env = self.found[mid].env
            parts = []
            for key, what in (("peak_1", W("machines.reading.peak_single")), ("numpy_best_1", W("machines.reading.numpy_best_single")),
                              ("numpy_conf_1", W("machines.reading.numpy_configured_single"))):
                if key in base and key in other:
                    ratio = other[key].gflops() / base[key].gflops()
                    parts.append(W("machines.reading.gflops_ratio_open", what=what)
                                 + self.book.current(f"{mid}/{other[key].record['id']}#{key}_vs_{d.machine}",
                                                     f"{fmt_number(ratio, '×')}×", "×", other[key],
                                                     provenance=provenance_page(mid), also=(base[key],)))
            for key, what in (("tvm_parallel", W("machines.reading.tvm_parallel")), ("e2e_ort", "ONNX Runtime ResNet-18"),
                              ("e2e_tvm_d", W("machines.reading.tvm_d_resnet"))):
                if key in base and key in other:
                    ratio = base[key].stat("p50") / other[key].stat("p50")
                    parts.append(W("machines.reading.time_ratio_open", what=what)
                                 + self.book.current(f"{mid}/{other[key].record['id']}#{key}_vs_{d.machine}",
                                                     f"{fmt_number(ratio, '×')}×", "×", other[key],
                                                     provenance=provenance_page(mid), also=(base[key],)))
            head = (W("machines.reading.head", mid=_esc(mid), cpu_name=_esc(identity.cpu_name(env)), isa_level=_esc(identity.isa_level(env)), machine=_esc(d.machine), base_cpu_name=_esc(identity.cpu_name(base_env)), base_isa_level=_esc(identity.isa_level(base_env))))
            if parts:
                out.append(head + W("common.punct.colon") + W("common.punct.semicolon").join(parts) + W("machines.reading.across_machines_note"))
            else:
                out.append(head + W("machines.reading.nothing_in_common"))
        return "\n\n".join(out)


def banner(data, page_uri):
    """One line under a topic page's title: which machine its figures come from, and where the others are."""
    if data.machine is None:
        return ""
    env = data.machines[data.machine].env
    others = len(data.machines) - 1
    rel = "../" * page_uri.count("/") + "machines.md"
    text = (W("machines.banner.text", machine=data.machine, cpu_name=_esc(identity.cpu_name(env)), isa_level=_esc(identity.isa_level(env))))
    text += W("machines.banner.others", others=others, rel=rel) if others else W("common.punct.period")
    if data.smoke:
        text += (W("machines.banner.smoke_only"))
    return W("machines.banner.admonition", text=text)


def card(data):
    """The publication machine in one line, as a results page puts it beside every number: CPU,
    cores and whether they are a VM's, vector ISA, memory, compiler stack, id and profiles run."""
    if data.machine is None:
        return W("machines.card.none")
    env = data.machines[data.machine].env
    profiles = sorted({r.manifest["profile"] for r in merge.runs_of(data.all_runs, data.machine)})
    return W("machines.card.text", machine=_esc(data.machine), cpu_name=_esc(identity.cpu_name(env)),
             cores=_esc(str(env.get("logical_cores", "?"))),
             vm=W("machines.card.vm") if env.get("hypervisor") else "",
             isa_level=_esc(identity.isa_level(env)), memory=_esc(str(identity.memory_gib(env) or "?")),
             tvm=_esc(str(env.get("tvm_version", "?"))), llvm=_esc(str(env.get("llvm_version", "?"))),
             profiles=_esc(W("common.punct.enumeration_comma").join(profiles)), others=len(data.machines) - 1)


def listing(data):
    """The table `reportgen machines` prints, for the site: every machine with runs, its runs per
    profile and families; the site's publication machine marked."""
    rows = []
    for r in merge.summaries(data.all_runs, data.machine):
        runs = W("common.punct.enumeration_comma").join(W("machines.listing.runs", n=n, profile=_esc(p))
                                                         for p, n in r["runs"].items())
        mark = W("machines.listing.published") if r["id"] == data.machine else ""
        rows.append([f"`{_esc(r['id'])}`{mark}", _esc(r["cpu"]), _esc(r["isa"]),
                     _esc(str(r["cores"])) + (W("machines.card.vm") if r["vm"] else ""),
                     f"{_esc(str(r['memory_gib']))} GiB", runs, str(len(r["families"])), _esc(r["newest"])])
    if not rows:
        return W("machines.table.text")
    return markdown([W("machines.listing.head_id"), "CPU", W("machines.table.isa"), W("machines.listing.head_cores"),
                     W("machines.listing.head_memory"), W("machines.listing.head_runs"),
                     W("machines.listing.head_families"), W("machines.listing.head_newest")], rows)


def unmeasured(data, book, family, anchors):
    """What a section says when the publication machine has no record of its family: which machine,
    where the other machines' figures are, and the section anchors other pages link to."""
    spans = "".join(f'<span id="{_esc(a)}"></span>' for a in anchors)
    where = W("machines.unmeasured.publication_machine", machine=_esc(data.machine)) if data.machine else W("machines.unmeasured.this_site")
    others = [m for m, cur in data.by_machine.items() if m != data.machine
              and any(c.record["experiment"] == family for c in cur.values())]
    also = (W("machines.unmeasured.other_machines", machines=W("common.punct.enumeration_comma").join((f'`{_esc(m)}`' for m in others)))
            + book.link(PAGE, W("machines.unmeasured.link_label")) + W("machines.unmeasured.build_hint")) if others else ""
    return (W("machines.unmeasured.text", spans=spans, where=where, family=_esc(family), also=also))


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "machines_table": lambda: Page(d, b).table(),
        "machine_card": lambda: card(d),
        "machines_list": lambda: listing(d),
        "unmeasured": lambda family, *anchors: unmeasured(d, b, family, anchors),
        "machines_reading": lambda: Page(d, b).reading(),
    }


def historical_environment(env):
    """An environment of archive/environments.yaml as docs/environment.md prints it: its label and facts as text (a
    label '[\u94fe](https://evil.example) <i>i</i>' was a live link and markup in the list of the seed's facts)."""
    return {**env, "label": _esc(env.get("label", "")), "facts": [_esc(f) for f in env.get("facts") or ()]}
