"""The cross-machine page (机器对照): one column per machine for the headline figures.

A site is built for one publication machine (merge.publication_machine); this page is the one
place where other machines' figures appear, each in its own column, each cell linked to its own
provenance entry, beside the historical machine of the seed.  A ratio between two machines is
only ever printed here, and it says so.
"""
from dataclasses import dataclass

from study import identity
from reportgen.data import merge
from reportgen.render.figures import fmt_number
from reportgen.render.cells import text as _esc
from reportgen.render.markdown import markdown

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
        return current.get(f"numpy_gemm/dtype=float32/n=1024/threads={t}/blas={blas}")
    return find


def _peak(threads):
    def find(current, env):
        return merge.peak(current, "float32", env["logical_cores"] if threads == "all" else threads)
    return find


def _stage(stage):
    def find(current, env):
        m, n, k = MAIN_SHAPE
        return current.get(f"gemm_tvm/impl=tvm/stage={stage}/m={m}/n={n}/k={k}/threads={env['logical_cores']}")
    return find


def _engine(family, model, engine):
    def find(current, env):
        return next((c for c in merge.family(current, family).values()
                     if c.record["case"].get("model") == model and c.record["case"].get("engine") == engine
                     and c.record["case"].get("batch", 1) == 1), None)
    return find


ROWS = [
    Row("peak_1", "FP32 FMA 峰值，单核（GFLOPS，最宽指令集）", _peak(1), _gflops, ("s21_peak", "fp32", "peak")),
    Row("peak_all", "FP32 FMA 峰值，全部核（GFLOPS）", _peak("all"), _gflops),
    Row("numpy_best_1", "NumPy GEMM 1024³ FP32，最佳 BLAS 内核，单核（GFLOPS）", _numpy(1, "best"), _gflops,
        ("s21_numpy", "single_fp32", "1024")),
    Row("numpy_conf_1", "NumPy GEMM 1024³ FP32，配置内核，单核（GFLOPS）", _numpy(1, "configured"), _gflops),
    Row("numpy_best_all", "NumPy GEMM 1024³ FP32，最佳 BLAS 内核，全部核（GFLOPS）", _numpy("all", "best"), _gflops),
    *[Row(f"tvm_{s}", f"TVM GEMM 1024³ {s}，全部核（p50，ms）", _stage(s), _ms,
          ("s23_tvm_stages", s, "tvm") if s in ("baseline", "parallel") else None)
      for s in ("baseline", "parallel", "microkernel", "autotuned")],
    *[Row(f"e2e_{e}", f"ResNet-18 batch 1，{label}（p50，ms）", _engine("e2e", "resnet18_v1", e), _ms)
      for e, label in (("tf", "TensorFlow"), ("ort", "ONNX Runtime"), ("tflite", "TFLite"), ("tvm_c", "TVM C 组"),
                       ("tvm_d", "TVM D 组（调优）"))],
    *[Row(f"int8_{e}", f"ResNet-18 INT8，{label}（p50，ms）", _engine("int8", "resnet18_v1", e), _ms)
      for e, label in (("tvm_int8", "TVM E 组"), ("tvm_int8_tuned", "TVM F 组（调优）"), ("ort_qdq", "ONNX Runtime QDQ"))],
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
        cur = current.get(f"numpy_gemm/dtype=float32/n=1024/threads=1/blas={blas}")
        if cur is not None:
            kernels[blas] = (cur.record["extra"].get("blas_kernel") or {}).get("architecture", "?")
    return " / ".join(f"{k}" for k in kernels.values()) or "未测"


class Page:
    """Renders the page for one build: publication machine first, then the others, newest first."""

    def __init__(self, data, book):
        self.data, self.book = data, book
        found = data.machines
        others = sorted((m for m in found if m != data.machine), key=lambda m: found[m].newest, reverse=True)
        self.order = ([data.machine] if data.machine in found else []) + others
        self.found = found

    def _cell(self, machine_id, row, cur):
        text, unit = row.value(cur)
        page = None if machine_id == self.data.machine else provenance_page(machine_id)
        return self.book.current(f"{machine_id}/{cur.record['id']}#{row.key}", text, unit, cur, provenance=page)

    def table(self):
        d = self.data
        if not self.order:
            return "（尚无复测运行）"
        heads = ["", "历史机器（原文）"]
        info = {"CPU": ["—"], "指令集": ["AVX2 + FMA"], "核心": ["—"], "TVM / LLVM": ["早期 TVM（AutoTVM）"],
                "BLAS 内核（配置 / 最佳）": ["未记录"], "档位": ["—"]}
        for mid in self.order:
            m = self.found[mid]
            env = m.env
            cur = d.by_machine[mid]
            heads.append(f"{_esc(mid)}{'（本站）' if mid == d.machine else ''}")
            info["CPU"].append(_esc(identity.cpu_name(env)))
            info["指令集"].append(_esc(identity.isa_level(env)))
            info["核心"].append(_esc(str(env["logical_cores"])))
            info["TVM / LLVM"].append(_esc(f"{env['tvm_version']} / {env['llvm_version']}"))
            info["BLAS 内核（配置 / 最佳）"].append(_esc(_blas_kernels(cur)))
            profiles = sorted({r.manifest["profile"] for r in merge.runs_of(d.all_runs, mid)})
            info["档位"].append(_esc("、".join(profiles)) + ("（冒烟测试）" if m.smoke_only else ""))
        lines = [[f"**{k}**"] + v for k, v in info.items()]
        for row in ROWS:
            cells = [_esc(row.label)]
            cells.append(self.book.historical(d.tables[row.hist[0]].cell(row.hist[1], row.hist[2])) if row.hist else "—")
            present = False
            for mid in self.order:
                cur = d.headlines[mid].get(row.key)
                present |= cur is not None
                cells.append(self._cell(mid, row, cur) if cur is not None else "未测")
            if present:
                lines.append(cells)
        return markdown(heads, lines)

    def reading(self):
        """Computed sentences: how the headline figures change between the publication machine and each
        other one (ratios across machines, said to be across machines)."""
        d = self.data
        if d.machine is None or len(self.order) < 2:
            return "目前只有一台机器的复测，没有可对照的其他机器。"
        base = d.headlines[d.machine]
        base_env = self.found[d.machine].env
        out = []
        for mid in self.order[1:]:
            other = d.headlines[mid]
            env = self.found[mid].env
            parts = []
            for key, what in (("peak_1", "单核 FP32 峰值"), ("numpy_best_1", "NumPy 最佳内核单核 GEMM"),
                              ("numpy_conf_1", "NumPy 配置内核单核 GEMM")):
                if key in base and key in other:
                    ratio = other[key].gflops() / base[key].gflops()
                    parts.append(f"{what}是本站机器的 "
                                 + self.book.current(f"{mid}/{other[key].record['id']}#{key}_vs_{d.machine}",
                                                     f"{fmt_number(ratio, '×')}×", "×", other[key],
                                                     provenance=provenance_page(mid)))
            for key, what in (("tvm_parallel", "TVM GEMM parallel 阶段"), ("e2e_ort", "ONNX Runtime ResNet-18"),
                              ("e2e_tvm_d", "TVM D 组 ResNet-18")):
                if key in base and key in other:
                    ratio = base[key].stat("p50") / other[key].stat("p50")
                    parts.append(f"{what}的耗时之比（本站机器 ÷ 该机器）为 "
                                 + self.book.current(f"{mid}/{other[key].record['id']}#{key}_vs_{d.machine}",
                                                     f"{fmt_number(ratio, '×')}×", "×", other[key],
                                                     provenance=provenance_page(mid)))
            head = (f"机器 {_esc(mid)}（{_esc(identity.cpu_name(env))}，{_esc(identity.isa_level(env))}）对本站机器 "
                    f"{_esc(d.machine)}（{_esc(identity.cpu_name(base_env))}，{_esc(identity.isa_level(base_env))}）")
            if parts:
                out.append(head + "：" + "；".join(parts) + "。这些比值跨越两台机器，只说明换机器之后的变化，"
                           "不是同一台机器上的优化效果。")
            else:
                out.append(head + "：两台机器没有共同测过的头条用例，无法相比。")
        return "\n\n".join(out)


def banner(data, page_uri):
    """One line under a topic page's title: which machine its figures come from, and where the others are."""
    if data.machine is None:
        return ""
    env = data.machines[data.machine].env
    others = len(data.machines) - 1
    rel = "../" * page_uri.count("/") + "machines.md"
    text = (f"本页的当前复测全部来自机器 `{data.machine}`（{_esc(identity.cpu_name(env))}，"
            f"{_esc(identity.isa_level(env))}）")
    text += f"；另有 {others} 台机器的复测，见[机器对照]({rel})。" if others else "。"
    if data.smoke:
        text += ("**这台机器只有 quick 档冒烟测试**：数字只说明流程能跑通，样本少、形状小，不作为结论；"
                 "发布结论请先运行 `reportgen retest --profile standard`。")
    return f'!!! info "数据来源"\n    {text}\n'


def unmeasured(data, book, family, anchors):
    """What a section says when the publication machine has no record of its family: which machine,
    where the other machines' figures are, and the section anchors other pages link to."""
    spans = "".join(f'<span id="{_esc(a)}"></span>' for a in anchors)
    where = f"发布机器 `{_esc(data.machine)}`" if data.machine else "本站"
    others = [m for m, cur in data.by_machine.items() if m != data.machine
              and any(c.record["experiment"] == family for c in cur.values())]
    also = (f"机器 {'、'.join(f'`{_esc(m)}`' for m in others)} 有这一部分的复测，见"
            + book.link(PAGE, "机器对照") + "，或用 `reportgen build --machine ID` 为它构建站点。") if others else ""
    return (f'{spans}\n\n!!! warning "待复测"\n    {where}还没有 `{_esc(family)}` 实验的记录'
            f'（`reportgen retest --profile standard --only {_esc(family)}`）。{also}\n')


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "machines_table": lambda: Page(d, b).table(),
        "unmeasured": lambda family, *anchors: unmeasured(d, b, family, anchors),
        "machines_reading": lambda: Page(d, b).reading(),
    }
