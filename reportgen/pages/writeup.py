"""Template names of the write-up pages (seed §1, §3, §10, §17–§19, §21b–§24b, §26, §28).

``names(site)`` returns the names these pages may use; the
plugin merges them into the names every page sees. Every figure goes through
``book``; every comparison is computed from the current records, so a retest
rewrites the sentence (and its direction) rather than leaving a stale claim.
"""
import json
from pathlib import Path

from reportgen.pages import conclusions, pitfalls, service
from reportgen.data import seed
from reportgen.data import merge
from reportgen.data.queries import e2e, e2e_models, e2e_tvm, gemm, ok
from reportgen.render.labels import engine_zh, model_zh
from reportgen.render.lookup import ms, seconds, times
from reportgen.render.cells import code_span as _code, text as _esc
from reportgen.render.markdown import markdown


def chain_facts(book, current, env):
    """The compile-and-run chain, measured once: import, compile, kernels, first and warm run."""
    for model in e2e_models(current):
        cur = e2e(current, model, "tvm_c")
        if ok(cur) and cur.record["extra"].get("compile_seconds") is not None:
            break
    else:
        return "（尚无 TVM 端到端记录。）"
    e = cur.record["extra"]
    kernels = len(e.get("kernel_calls", {}))
    calls = sum(e.get("kernel_calls", {}).values())
    version = env.get("tvm_version", "?") if env else "?"
    target = _target_dict(e.get("target"))
    where = "，".join(f"{k}={v}" for k, v in target.items() if k in ("kind", "mcpu", "num-cores"))
    return (f"以 {model_zh(model)} 为例（TVM {_esc(version)}，target {_esc(where)}）："
            f"`from_onnx` 导入用了 {seconds(book, cur, 'import_time', e['import_seconds'])}，"
            f"`tvm.compile` 走完图级流水线和代码生成用了 {seconds(book, cur, 'compile_time', e['compile_seconds'])}，"
            f"得到 {kernels} 个不同的内核、每次推理调用 {calls} 次；VM 第一次运行 "
            f"{seconds(book, cur, 'cold_time', e['cold_seconds'])}，之后稳定在 {ms(book, cur)}。")


def migration_summary(book, current, env):
    """How many old APIs of the seed resolve to their TVM counterpart today (graph family's checks)."""
    rows = [c for c in merge.family(current, "graph").values() if "old_api" in c.record["case"]]
    if not rows:
        return "（迁移表的核验记录尚未出现。）"
    resolved = [c for c in rows if c.ok]
    version = _esc(env.get("tvm_version", "?")) if env else "?"
    text = (f"原文出现过的 {len(rows)} 个旧 API，今天的对应物在 TVM {version} 中有 {len(resolved)} 个实际导入成功"
            f"（{book.link('graph.md#migration', '逐项核验')}）")
    failed = [c for c in rows if not c.ok]
    if failed:
        text += "；未能核验的：" + "、".join(f"{_code(c.record['extra'].get('old_api', c.record['id']))}" for c in failed)
    return text + "。"


def evidence_summary(book, current, runs):
    """Seed §19's three kinds of evidence, counted over the current records."""
    timed = [c for c in current.values() if c.record["unit"] == "s" and c.record.get("stats")]
    if not timed:
        return "（尚无复测记录。）"
    used = sorted({c.record["run_id"] for c in current.values()})
    failed = [c for c in current.values() if not c.ok]
    fewest = min((c for c in timed if c.ok), key=lambda c: c.stat("n"), default=None)
    checked = sum(1 for c in current.values() if c.record["check"].get("passed"))
    text = (f"当前复测共 {len(current)} 条记录，来自 {len(used)} 次运行（{len(runs)} 次运行全部保留在运行历史中）。"
            f"每条记录都带着产生它的配置与代码指纹、运行环境（`run.json`）和日志行号与 sha256；"
            f"{checked} 条通过了数值校验，{len(failed)} 条失败并按失败类别如实展示。")
    if fewest is not None:
        text += (f"计时记录都保留全部原始样本；样本最少的是 {_code(fewest.record['id'])}，只有 "
                 f"{book.current(fewest.record['id'] + '#n', str(fewest.stat('n')), 'samples', fewest)} 个，"
                 "它的结论只能当作趋势。")
    return text


def cache_sizes(env):
    """The cache levels of the publication machine, as run.json records them (sysfs of cpu0)."""
    caches = (env or {}).get("caches") or {}
    if not caches:
        return "（运行清单没有记录缓存大小）"
    return "、".join(f"{_esc(level)} {_esc(size)}" for level, size in caches.items())


def _target_dict(target):
    """A target as a dict, whether the record stored a dict or its JSON text."""
    if isinstance(target, dict):
        return target
    try:
        return json.loads(target)
    except (TypeError, ValueError):
        return {"kind": str(target).split()[0] if target else "?"}


GPU_KINDS = ("cuda", "rocm", "vulkan", "opencl", "metal")


def _kind(cur):
    """The TVM target kind a record ran (or would have run) on, or None."""
    case, extra = cur.record["case"], cur.record.get("extra", {})
    target = extra.get("target") or case.get("target") or ({"kind": case["target_kind"]} if "target_kind" in case else None)
    return None if target is None else _target_dict(target).get("kind", "?")


def targets(current, measured=True):
    """{target kind: number of records}; ``measured``: only records that produced a result."""
    kinds = {}
    for cur in current.values():
        kind = _kind(cur)
        if kind is not None and (cur.ok or not measured):
            kinds[kind] = kinds.get(kind, 0) + 1
    return kinds


def platform_facts(book, current, env):
    """What this retest can say about CPU and GPU, from the targets of the current records (seed §22b)."""
    kinds = targets(current)
    where = "、".join(f"{_code(k)} {v} 条" for k, v in sorted(kinds.items())) or "无"
    text = f"当前记录里有结果、并写明了 TVM target 的，按种类计：{where}。"
    if any(k in GPU_KINDS for k in kinds):
        text += "其中包括 GPU 记录；GPU 与 CPU 的数字来自不同的机器或设备，不能直接相比。"
    else:
        text += "没有一条 GPU 结果：本站的每个 TVM 结论都只对 CPU 成立。"
    if env:
        text += (f"CPU 是 {_esc(env['cpu_model'])}，{env['logical_cores']} 个逻辑核，SIMD 标志 "
                 f"{_esc('、'.join(env['simd_flags']))}。")
    return text


def gpu_status(book, current):
    """GPU: measured, attempted and skipped (with the reason), or not attempted at all."""
    gpu = [c for c in current.values() if _kind(c) in GPU_KINDS]
    done = [c for c in gpu if c.ok]
    if done:
        return (f"本站有 {len(done)} 条 GPU 测量记录（target "
                f"{'、'.join(sorted({_esc(_kind(c)) for c in done}))}），它们与本页的 CPU 数字来自不同设备，只在各自的页面上比较。")
    if gpu:
        reason = next((c.record.get("error") for c in gpu if c.record.get("error")), "")
        return (f"实验里有 {len(gpu)} 个 GPU（{'、'.join(sorted({_esc(_kind(c)) for c in gpu}))}）用例，但在本机都没有结果"
                f"（{_esc(reason) or '没有 GPU'}），所以本站没有任何 GPU 时间。上面关于 GPU 的几点只是原则，不是本站的结论。")
    return ("当前记录里没有 GPU 用例：本站的复测是在没有 GPU 的机器上做的，没有任何 GPU 时间。"
            "上面关于 GPU 的几点只是原则，不是本站的结论。")


def remote_status(current):
    """Whether any current record was measured on another device through TVM RPC (case.via)."""
    remote = [c for c in current.values() if str(c.record["case"].get("via", "")).startswith("rpc:")]
    if not remote:
        return "当前记录都是在复测机器本机上测得的，没有经 RPC 在其他设备（包括移动设备）上测得的记录。"
    keys = sorted({c.record["case"]["via"][4:] for c in remote})
    ok_n = sum(c.ok for c in remote)
    return (f"当前记录中有 {len(remote)} 条经 RPC 在其他设备上测得（设备键 {'、'.join(f'{_code(k)}' for k in keys)}，"
            f"其中 {ok_n} 条有结果）；它们按设备分开展示，不与本机数字相比。")


def thread_pair(book, current, env):
    """One GEMM stage at one thread and at all cores: threads are not free (seed §22b, §13)."""
    if env is None or env["logical_cores"] < 2:
        return "（只有一个核心，无法比较。）"
    one, many = gemm(current, "parallel", threads=1), gemm(current, "parallel", env=env)
    if not (ok(one) and ok(many)):
        return "（缺少 parallel 阶段的单线程或多线程记录。）"
    speed = one.stat("p50") / many.stat("p50")
    cores = env["logical_cores"]
    verdict = "接近线性" if speed >= 0.9 * cores else "明显低于线性"
    return (f"GEMM 的 parallel 阶段，单线程 {ms(book, one)}，{cores} 线程 {ms(book, many)}，加速 "
            f"{times(book, many, 'speedup_vs_1t', speed)}，{verdict}（理想是 {cores}×）。")


def roadmap(book, current, env):
    """The four routes of seed §24b, each with where this study stands, from the records."""
    tuned = gemm(current, "autotuned", env=env)
    best = gemm(current, "any", env=env, impl="numpy", blas="best")
    if ok(tuned) and ok(best):
        # same figure id and format as the GEMM goals table (tables.gemm_goals)
        speed = book.current(f"{tuned.record['id']}#speed_vs_best_numpy",
                             f"{best.stat('p50') / tuned.stat('p50'):.2f}×", "×", tuned)
        trials = book.current(f"{tuned.record['id']}#trials", str(tuned.record["extra"].get("trials_done")),
                              "trials", tuned)
        route1 = f"GEMM 调优 {trials} 次试验，达到 NumPy 最佳内核的 {speed}（速度比）"
    else:
        route1 = "尚无 GEMM 调优记录"
    tune = [c for c in merge.family(current, "e2e_tune").values() if ok(c)]
    route1 += f"；整网调优记录 {len(tune)} 条" if tune else "；整网调优尚无记录"
    graph = [c for c in merge.family(current, "graph").values() if c.record["case"].get("pass") == "FuseTIR"]
    route2 = (f"图级融合在 {len(graph)} 条流水线记录上完成（见图级优化页），融合后的内核尚未单独调度"
              if graph else "尚无融合记录")
    int8 = merge.family(current, "int8")
    route3 = f"INT8 实验族有 {len(int8)} 条记录" if int8 else "尚待 INT8 记录；FP16/BF16 尚未纳入"
    models = e2e_models(current)
    batches = sorted({c.record["case"].get("batch", 1) for c in merge.family(current, "e2e").values()})
    route4 = (f"端到端覆盖 {len(models)} 个模型、batch {'、'.join(map(str, batches))}，含冷启动与 p50/p95/p99；"
              "服务线程池、请求排队与监控尚未测量" if models else "尚无端到端记录")
    rows = [["自动调优", route1, "更多真实形状与试验预算（full 档），并在目标设备上经 RPC 测量"],
            ["算子融合", route2, "把 GEMM/卷积前后的偏置、激活和布局转换纳入同一调度"],
            ["低精度", route3, "比较 FP16、BF16、INT8 与混合精度的精度和吞吐"],
            ["端到端部署", route4, "加入模型加载、线程池、批处理策略与监控指标"]]
    return markdown(["路线", "本站现状（由记录计算）", "下一步"], rows)


def tvm_vs_framework(book, current, peers=False):
    """TVM's slowest variant against TensorFlow, as a whole sentence whose direction follows the data.

    With ``peers``, also where ONNX Runtime and TFLite stand against the same TensorFlow records.
    """
    pairs = []
    for cur in e2e_tvm(current):
        tf = e2e(current, cur.record["case"]["model"], "tf", like=cur)
        if ok(tf):
            pairs.append((cur.stat("p50") / tf.stat("p50"), cur))
    if not pairs:
        return "（尚无可与 TensorFlow 比较的 TVM 端到端记录。）"
    ratio, cur = max(pairs, key=lambda p: p[0])
    where = f"{model_zh(cur.record['case']['model'])} 上，{engine_zh(cur.record['case']['engine'])}"
    if ratio > 1:
        why = ("：这个时间来自未调优的内核，默认流水线不做调度" if not cur.record["extra"].get("tuned")
               else "：即使用了调优数据库")
        text = f"本站的复测就有反例：{where}的中位延迟是 TensorFlow 的 {times(book, cur, 'vs_tf_p50', ratio)}{why}。"
    else:
        text = (f"本站的复测中，TVM 的每个变体都不慢于 TensorFlow（相对最慢的是{where}，为 TensorFlow 的 "
                f"{times(book, cur, 'vs_tf_p50', ratio)}）。")
    if peers:
        rows = []
        for model in e2e_models(current):
            tf = e2e(current, model, "tf")
            for engine in ("ort", "tflite"):
                peer = e2e(current, model, engine, like=tf) if ok(tf) else None
                if ok(peer):
                    rows.append(peer.stat("p50") / tf.stat("p50"))
        if rows:
            faster = sum(r < 1 for r in rows)
            text += (f"同一台机器上，ONNX Runtime 与 TFLite 的 {len(rows)} 个用例里有 {faster} 个快于 TensorFlow，"
                     "而且不需要任何调优。" if faster else
                     f"同一台机器上，ONNX Runtime 与 TFLite 的 {len(rows)} 个用例都不快于 TensorFlow。")
    return text


DEFAULT_NOTE = "原文逐字转录，TVM 0.6/0.7 时代的接口，今天不能原样运行。"


def current_code(root, rel, book):
    """The current equivalent of an old snippet: the very file tests/test_snippets.py runs, with its label.

    The label and title come from the file's first comment line ("# 当前版本建议写法（…）：…" or
    "# 实验封装示意…"); the block is marked ``data-today`` so the coverage check finds it.
    """
    text = (Path(root) / rel).read_text(encoding="utf-8")
    title = text.splitlines()[0].lstrip("# ").strip()
    if not title.startswith(seed.LABELS):
        raise ValueError(f"{rel}: the first line must start with one of {seed.LABELS}")
    body = "\n".join("    " + line if line else "" for line in text.rstrip("\n").split("\n"))
    href = book._rel(rel.removeprefix("docs/"))
    return (f'<div class="today" data-today="{_esc(rel)}" markdown="1">\n\n'
            f'??? example "{_esc(title)}"\n'
            f'    源文件 [`{_esc(rel)}`]({href})。`tests/test_snippets.py` 在 TVM 0.27 上运行它，'
            "并逐行核对文件末尾注释里的期望输出。\n\n"
            f"    ```python\n{body}\n    ```\n\n</div>\n<!-- /today -->\n")


def historical_code(code, snippet_id, book, today=None, root=None):
    """One snippet of the seed, verbatim, marked as history, with where today's counterpart is.

    ``today``: {snippet id: file of its current equivalent}; that file is shown right after it.
    """
    snip = next((s for s in code["snippets"] if s["id"] == snippet_id), None)
    if snip is None:
        raise KeyError(f"archive/code.yaml: no snippet {snippet_id!r}")
    body = "\n".join("    " + line if line else "" for line in snip["text"].rstrip("\n").split("\n"))
    current = (today or {}).get(snippet_id)
    return (f'???+ quote "历史代码（§{snip["seed_section"]}）：{_esc(snip["title"])}"\n'
            f"    {_esc(snip.get('note', DEFAULT_NOTE))}{book.link(snip['today'], '今天的对应')}。\n\n"
            f"    ```{snip['lang']}\n{body}\n    ```\n"
            + (f"\n{current_code(root, current, book)}" if current else ""))


def historical_code_all(code, book, skip_pages=(), today=None, root=None):
    """Every snippet of the seed in its order, except those shown on the given pages."""
    return "\n".join(historical_code(code, s["id"], book, today, root) for s in code["snippets"]
                     if s["today"].split("#")[0] not in skip_pages)


def names(site):
    """Names for the write-up pages: finished strings, every figure through ``book``."""
    data, book = site.data, site.book
    cur, env = data.current, data.env
    code = seed.read_code(data.archive_dir)
    root = data.archive_dir.parent
    today = {p["snippet"]: p["today"] for p in seed.read_content_map(data.archive_dir)["passages"]
             if p.get("kind") == "code" and "today" in p and "dropped" not in p}

    previous = {}

    def ctx():
        if not previous and len(data.runs) > 1:   # the records before the newest run: did it flip a verdict?
            previous.update(merge.current_records(data.runs[:-1]))
        return conclusions.Context(book, cur, env, data.tables, previous or None)

    return {
        "historical_code": lambda snippet_id: historical_code(code, snippet_id, book, today, root),
        "historical_code_all": lambda *skip: historical_code_all(code, book, skip, today, root),
        "chain_facts": lambda: chain_facts(book, cur, env),
        "cache_sizes": lambda: cache_sizes(env),
        "evidence_summary": lambda: evidence_summary(book, cur, data.runs),
        "migration_summary": lambda: migration_summary(book, cur, env),
        "platform_facts": lambda: platform_facts(book, cur, env),
        "gpu_status": lambda: gpu_status(book, cur),
        "remote_status": lambda: remote_status(cur),
        "thread_pair": lambda: thread_pair(book, cur, env),
        "roadmap": lambda: roadmap(book, cur, env),
        "tvm_vs_framework": lambda peers=False: tvm_vs_framework(book, cur, peers),
        "conclusions_table": lambda: conclusions.table(ctx()),
        "conclusions_counts": lambda: conclusions.counts(ctx()),
        "conclusions_rule": lambda: conclusions.NOISE_RULE,
        "conclusion_statements": lambda *ids: conclusions.statements(ctx(), ids),
        "reversed_results": lambda: conclusions.reversed_results(ctx()),
        "pitfall_compile": lambda: pitfalls.compile_vs_run(book, cur),
        "pitfall_shapes": lambda: pitfalls.one_shape(book, cur, env),
        "pitfall_mean": lambda: pitfalls.mean_vs_median(book, cur),
        "pitfall_layout": lambda: pitfalls.layout_conversion(book, cur),
        "pitfall_int8": lambda: pitfalls.int8_latency_only(book, cur),
        "service_cold": lambda: service.cold_table(book, cur),
        "service_cold_summary": lambda: service.cold_summary(book, cur),
        "service_tails": lambda: service.tail_summary(book, cur),
        "service_batching": lambda: service.batching(book, cur),
        "service_batching_summary": lambda: service.batching_summary(book, cur),
        "service_amdahl": lambda: service.amdahl(book, cur),
        "service_compile": lambda: service.compile_budget(book, cur),
    }

