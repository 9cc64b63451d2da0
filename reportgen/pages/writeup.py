"""Template names of the write-up pages (seed §1, §3, §10, §17–§19, §21b–§24b, §26, §28).

``names(site)`` returns the names these pages may use; the
plugin merges them into the names every page sees. Every figure goes through
``book``; every comparison is computed from the current records, so a retest
rewrites the sentence (and its direction) rather than leaving a stale claim.
"""

from reportgen.pages import conclusions, pitfalls, service
from reportgen.data import seed
from reportgen.data import evidence, frame, merge
from reportgen.data.queries import e2e, e2e_models, e2e_tvm, gemm, ok
from reportgen.render.labels import engine_zh, model_zh
from reportgen.render.lookup import ms, seconds, times
from reportgen.render.cells import code_span as _code, text as _esc
from reportgen.render.markdown import markdown
from reportgen.data.words import W
from reportgen.errors import ReportError
from study import schema


def chain_facts(book, current, env):
    """The compile-and-run chain, measured once: import, compile, kernels, first and warm run."""
    for model in e2e_models(current):
        cur = e2e(current, model, "tvm_c")
        if ok(cur) and cur.record["extra"].get("compile_seconds") is not None:
            break
    else:
        return W("writeup.chain_facts.text")
    e = cur.record["extra"]
    kernels = len(e.get("kernel_calls", {}))
    calls = sum(e.get("kernel_calls", {}).values())
    version = env.get("tvm_version", "?") if env else "?"
    target = _target_dict(e.get("target"))
    where = W("common.punct.comma").join(f"{k}={v}" for k, v in target.items() if k in ("kind", "mcpu", "num-cores"))
    return (W("writeup.chain_facts.example", model_zh=model_zh(model), version=_esc(version), where=_esc(where), import_seconds=seconds(book, cur, 'import_time', e['import_seconds']), compile_seconds=seconds(book, cur, 'compile_time', e['compile_seconds']), kernels=kernels, calls=calls, cold_seconds=seconds(book, cur, 'cold_time', e['cold_seconds']), ms=ms(book, cur)))


def migration_summary(book, current, env):
    """How many old APIs of the seed resolve to their TVM counterpart today (graph family's checks)."""
    rows = [c for c in merge.family(current, "graph").values() if "old_api" in c.record["case"]]
    if not rows:
        return W("writeup.migration_summary.text")
    resolved = [c for c in rows if c.ok]
    version = _esc(env.get("tvm_version", "?")) if env else "?"
    text = (W("writeup.migration_summary.resolved", rows=len(rows), version=version, resolved=len(resolved), link=book.link('graph.md#migration', W("writeup.migration_summary.link_label"))))
    failed = [c for c in rows if not c.ok]
    if failed:
        text += W("writeup.migration_summary.unverified_open") + W("common.punct.enumeration_comma").join(f"{_code(c.record['extra'].get('old_api', c.record['id']))}" for c in failed)
    return text + W("common.punct.period")


def evidence_summary(book, current, runs, results_dir=None):
    """Seed §19's three kinds of evidence, counted over the current records; with ``results_dir``,
    also how many medians the cited log lines print (reportgen.data.evidence)."""
    timed = [c for c in current.values() if c.record["unit"] == "s" and c.record.get("stats")]
    if not timed:
        return W("writeup.evidence_summary.text")
    used = sorted({c.record["run_id"] for c in current.values()})
    failed = [c for c in current.values() if not c.ok]
    fewest = min((c for c in timed if c.ok), key=lambda c: c.stat("n"), default=None)
    checked = sum(1 for c in current.values() if c.record["check"].get("passed"))
    text = (W("writeup.evidence_summary.counts", current=len(current), used=len(used), runs=len(runs), checked=checked, failed=len(failed)))
    if fewest is not None:
        text += (W("writeup.evidence_summary.fewest_samples", code=_code(fewest.record['id']), current=book.current(fewest.record['id'] + '#n', str(fewest.stat('n')), 'samples', fewest)))
    if results_dir is not None:
        count, missing, unnamed = evidence.gaps(results_dir, current)
        text += W("writeup.evidence_summary.lines_print_figure", timed=count, cited=count - len(missing))
        if missing:
            text += W("writeup.evidence_summary.lines_without_figure", missing=len(missing),
                      ids=W("common.punct.enumeration_comma").join(_code(cid) for cid in missing))
        text += W("writeup.evidence_summary.lines_name_record", current=len(current),
                  named=len(current) - len(unnamed))
        if unnamed:
            text += W("writeup.evidence_summary.lines_without_name", unnamed=len(unnamed),
                      ids=W("common.punct.enumeration_comma").join(_code(cid) for cid in unnamed[:20])
                      + (W("writeup.evidence_summary.and_more", more=len(unnamed) - 20) if len(unnamed) > 20 else ""))
    return text


def cache_sizes(env):
    """The cache levels of the publication machine, as run.json records them (sysfs of cpu0)."""
    caches = (env or {}).get("caches") or {}
    if not caches:
        return W("writeup.cache_sizes.text")
    return W("common.punct.enumeration_comma").join(f"{_esc(level)} {_esc(size)}" for level, size in caches.items())


def _target_dict(target):
    """A target as a dict, whether the record stored a dict or its JSON text."""
    if isinstance(target, dict):
        return target
    try:   # bounded (a record's text of 10^5 "[" was a RecursionError), and an object or nothing:
        value = schema.loads(target)   # "5" or "[1]" read as JSON has no .items()
    except (TypeError, ValueError):
        value = None
    return value if isinstance(value, dict) else {"kind": str(target).split()[0] if str(target).split() else "?"}


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
    where = W("common.punct.enumeration_comma").join(W("writeup.platform_facts.kind_count", code=_code(k), v=v) for k, v in sorted(kinds.items())) or W("writeup.platform_facts.none")
    text = W("writeup.platform_facts.text", where=where)
    if any(k in GPU_KINDS for k in kinds):
        text += W("writeup.platform_facts.gpu_included")
    else:
        text += W("writeup.platform_facts.cpu_only")
    if env:
        text += (W("writeup.platform_facts.cpu", cpu_model=_esc(env['cpu_model']), logical_cores=env['logical_cores'], simd_flags=_esc(W("common.punct.enumeration_comma").join(env['simd_flags']))))
    return text


def gpu_status(book, current):
    """GPU: measured, attempted and skipped (with the reason), or not attempted at all."""
    gpu = [c for c in current.values() if _kind(c) in GPU_KINDS]
    done = [c for c in gpu if c.ok]
    if done:
        return (W("writeup.gpu_status.text", done=len(done), join=W("common.punct.enumeration_comma").join(sorted({_esc(_kind(c)) for c in done}))))
    if gpu:
        reason = next((c.record.get("error") for c in gpu if c.record.get("error")), "")
        return (W("writeup.gpu_status.gpu_without_results", gpu=len(gpu), join=W("common.punct.enumeration_comma").join(sorted({_esc(_kind(c)) for c in gpu})), reason=_esc(reason) or W("writeup.gpu_status.no_gpu")))
    return (W("writeup.gpu_status.no_gpu_cases"))


def remote_status(current):
    """Whether any current record was measured on another device through TVM RPC (case.via)."""
    remote = [c for c in current.values() if str(c.record["case"].get("via", "")).startswith("rpc:")]
    if not remote:
        return W("writeup.remote_status.text")
    keys = sorted({c.record["case"]["via"][4:] for c in remote})
    ok_n = sum(c.ok for c in remote)
    return (W("writeup.remote_status.remote", remote=len(remote), join=W("common.punct.enumeration_comma").join((f'{_code(k)}' for k in keys)), ok_n=ok_n))


def thread_pair(book, current, env):
    """One GEMM stage at one thread and at all cores: threads are not free (seed §22b, §13)."""
    if env is None or env["logical_cores"] < 2:
        return W("writeup.thread_pair.text")
    one, many = gemm(current, "parallel", threads=1), gemm(current, "parallel", env=env)
    if not (ok(one) and ok(many)):
        return W("writeup.thread_pair.missing")
    speed = one.stat("p50") / many.stat("p50")
    cores = env["logical_cores"]
    verdict = W("writeup.thread_pair.near_linear") if speed >= 0.9 * cores else W("writeup.thread_pair.below_linear")
    return (W("writeup.thread_pair.speedup", single_ms=ms(book, one), cores=cores, multi_ms=ms(book, many), times=times(book, many, 'speedup_vs_1t', speed, one), verdict=verdict))


def roadmap(book, current, env):
    """The four routes of seed §24b, each with where this study stands, from the records."""
    tuned = gemm(current, "autotuned", env=env)
    best = gemm(current, "any", env=env, impl="numpy", blas="best")
    if ok(tuned) and ok(best):
        # same figure id and format as the GEMM goals table (tables.gemm_goals)
        speed = book.current(f"{tuned.record['id']}#speed_vs_best_numpy",
                             f"{best.stat('p50') / tuned.stat('p50'):.2f}×", "×", tuned, also=(best,))
        trials = book.current(f"{tuned.record['id']}#trials", str(tuned.record["extra"].get("trials_done")),
                              "trials", tuned)
        route1 = W("writeup.roadmap.tuning_state", trials=trials, speed=speed)
    else:
        route1 = W("writeup.roadmap.tuning_none")
    tune = [c for c in merge.family(current, "e2e_tune").values() if ok(c)]
    route1 += W("writeup.roadmap.network_tuning", tune=len(tune)) if tune else W("writeup.roadmap.network_tuning_none")
    graph = [c for c in merge.family(current, "graph").values() if c.record["case"].get("pass") == "FuseTIR"]
    route2 = (W("writeup.roadmap.fusion_state", graph=len(graph))
              if graph else W("writeup.roadmap.fusion_none"))
    int8 = merge.family(current, "int8")
    route3 = W("writeup.roadmap.precision_state", records=len(int8)) if int8 else W("writeup.roadmap.precision_none")
    models = e2e_models(current)
    batches = sorted({c.record["case"].get("batch", 1) for c in merge.family(current, "e2e").values()})
    route4 = (W("writeup.roadmap.deployment_state", models=len(models), batches=W("common.punct.enumeration_comma").join(map(str, batches))) if models else W("writeup.roadmap.deployment_none"))
    rows = [[W("writeup.roadmap.tuning_route"), route1, W("writeup.roadmap.tuning_next")],
            [W("writeup.roadmap.fusion_route"), route2, W("writeup.roadmap.fusion_next")],
            [W("writeup.roadmap.precision_route"), route3, W("writeup.roadmap.precision_next")],
            [W("writeup.roadmap.deployment_route"), route4, W("writeup.roadmap.deployment_next")]]
    return markdown([W("writeup.roadmap.head_route"), W("writeup.roadmap.head_state"), W("writeup.roadmap.head_next")], rows)


def tvm_vs_framework(book, current, peers=False):
    """TVM's slowest variant against TensorFlow, as a whole sentence whose direction follows the data.

    With ``peers``, also where ONNX Runtime and TFLite stand against the same TensorFlow records.
    """
    pairs = []
    for cur in e2e_tvm(current):
        tf = e2e(current, cur.record["case"]["model"], "tf", like=cur)
        if ok(tf):
            pairs.append((cur.stat("p50") / tf.stat("p50"), cur, tf))
    if not pairs:
        return W("writeup.tvm_vs_framework.text")
    ratio, cur, tf = max(pairs, key=lambda p: p[0])
    where = W("writeup.tvm_vs_framework.where", model_zh=model_zh(cur.record['case']['model']), engine_zh=engine_zh(cur.record['case']['engine']))
    if ratio > 1:
        why = (W("writeup.tvm_vs_framework.why_untuned") if not cur.record["extra"].get("tuned")
               else W("writeup.tvm_vs_framework.why_tuned"))
        text = W("writeup.tvm_vs_framework.counterexample", where=where, times=times(book, cur, 'vs_tf_p50', ratio, tf), why=why)
    else:
        text = (W("writeup.tvm_vs_framework.never_slower", where=where, times=times(book, cur, 'vs_tf_p50', ratio, tf)))
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
            text += (W("writeup.tvm_vs_framework.peers_faster", rows=len(rows), faster=faster) if faster else
                     W("writeup.tvm_vs_framework.peers_not_faster", rows=len(rows)))
    return text


DEFAULT_NOTE = W("writeup.default_note")


def current_code(root, rel, book):
    """The current equivalent of an old snippet: the very file tests/test_snippets.py runs, with its label.

    The label and title come from the file's first comment line (it starts with one of
    seed.LABELS, docs/words/seed.yaml); the block is marked ``data-today`` so the coverage check finds it.
    """
    text = seed.snippet_file(root, rel)   # bounded, no link, no hidden character
    title = (text.splitlines() or [""])[0].lstrip("# ").strip()
    if not title.startswith(seed.LABELS):   # an empty file stopped migration.md in an IndexError naming the page
        raise ReportError(f"{rel}:1: the first line must be a comment starting with one of {seed.LABELS}")
    body = "\n".join("    " + line if line else "" for line in text.rstrip("\n").split("\n"))
    href = book._rel(rel.removeprefix("docs/"))
    return (W("writeup.current_code.text", rel=_esc(rel), title=_esc(title), href=href, body=body))


def historical_code(code, snippet_id, book, today=None, root=None):
    """One snippet of the seed, verbatim, marked as history, with where today's counterpart is.

    ``today``: {snippet id: file of its current equivalent}; that file is shown right after it.
    """
    snip = next((s for s in code["snippets"] if s["id"] == snippet_id), None)
    if snip is None:
        raise KeyError(f"archive/code.yaml: no snippet {snippet_id!r}")
    body = "\n".join("    " + line if line else "" for line in snip["text"].rstrip("\n").split("\n"))
    current = (today or {}).get(snippet_id)
    return (W("writeup.historical_code.block", seed_section=_esc(snip['seed_section']), title=_esc(snip['title']), note=_esc(snip.get('note', DEFAULT_NOTE)), link=book.link(snip['today'], W("writeup.historical_code.today_label")), lang=snip['lang'], body=body)
            + (f"\n{current_code(root, current, book)}" if current else ""))


def historical_code_all(code, book, skip_pages=(), today=None, root=None):
    """Every snippet of the seed in its order, except those shown on the given pages."""
    return "\n".join(historical_code(code, s["id"], book, today, root) for s in code["snippets"]
                     if s["today"].split("#")[0] not in skip_pages)


def names(site):
    """Names for the write-up pages: finished strings, every figure through ``book``."""
    data, book = site.data, site.book
    cur, env = data.current, data.env
    code = data.code
    root = data.archive_dir.parent
    today = {p["snippet"]: p["today"] for p in data.content_map["passages"]
             if p.get("kind") == "code" and "today" in p and "dropped" not in p}

    previous = frame.Records()   # queried like data.current: its frame is built once

    def ctx():
        if not previous and len(data.runs) > 1:   # the records before the newest run: did it flip a verdict?
            previous.update(merge.current_records(data.runs[:-1]))
        return conclusions.Context(book, cur, env, data.tables, previous or None)

    return {
        "historical_code": lambda snippet_id: historical_code(code, snippet_id, book, today, root),
        "historical_code_all": lambda *skip: historical_code_all(code, book, skip, today, root),
        "chain_facts": lambda: chain_facts(book, cur, env),
        "cache_sizes": lambda: cache_sizes(env),
        "evidence_summary": lambda: evidence_summary(book, cur, data.runs, getattr(data, "results_dir", None)),
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

