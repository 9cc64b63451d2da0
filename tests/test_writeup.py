"""The write-up's template functions: computed from records, never stale, graceful when empty."""
import re
from types import SimpleNamespace

import jinja2
import pytest
from conftest import ROOT
from helpers import ENV, record

from reportgen.data import archive, merge, seed
from study import cases
from reportgen.pages import conclusions, writeup
from reportgen.render.figures import FigureBook

TABLES, _ENVS = archive.read_archive(ROOT / "archive")
CONTENT_MAP, CODE = seed.read_content_map(ROOT / "archive"), seed.read_code(ROOT / "archive")


def _spread(p50, low=0.99, high=1.01, n=11):
    """n samples from p50·low to p50·high with median p50: enough for the conclusions' noise rule."""
    half = n // 2
    return [p50 * (low + (1 - low) * i / half) for i in range(half)] + [p50] + \
        [p50 * (1 + (high - 1) * i / half) for i in range(1, half + 1)]


def _cur(case_id, samples, case, extra=None, **overrides):
    rec = record(case_id=case_id, samples=samples, **overrides)
    rec["case"] = case
    rec["extra"] = {**rec["extra"], **(extra or {})}
    return merge.Current(rec, None)


def _gemm(stage, p50, impl="tvm", blas=None, n=1024, threads=2):
    key = f"gemm_tvm/impl={impl}/stage={stage}/m={n}/n={n}/k={n}/threads={threads}" + (f"/blas={blas}" if blas else "")
    return key, _cur(key, _spread(p50),
                     {"impl": impl, "stage": stage, "m": n, "n": n, "k": n, "threads": threads,
                      **({"blas_env": blas} if blas else {})},
                     {"flops_per_call": 2 * n ** 3, "trials_done": 128})


def _e2e(model, engine, p50, compile_s=2.0, size=224):
    key = f"e2e/model={model}/engine={engine}/batch=1/threads=2"
    extra = {"cold_seconds": p50 * 1.5}
    if engine.startswith("tvm"):
        extra.update({"compile_seconds": compile_s, "import_seconds": 0.1, "tuned": False,
                      "target": '{"kind":"llvm","mcpu":"znver3"}', "kernel_calls": {"transpose": 1, "conv2d": 3},
                      "op_profile": [{"op": "conv2d", "kind": "kernel", "calls": 3, "seconds": p50 * 0.8},
                                     {"op": "add", "kind": "kernel", "calls": 3, "seconds": p50 * 0.1}],
                      "op_profile_total_s": p50})
    return key, _cur(key, _spread(p50, 0.98, 1.05), {"model": model, "engine": engine, "group": cases.ENGINE_GROUPS["e2e"][engine], "batch": 1, "threads": 2,
                                                          "input_size": size, "seed": 0}, extra, experiment="e2e")


def _records(tuned_p50=0.0236, tvm_p50=2.1):
    """A small current set: the GEMM ladder's last stages and one network through TF and TVM."""
    return dict([_gemm("baseline", 5.6), _gemm("parallel", 0.0168), _gemm("autotuned", tuned_p50),
                 _gemm("any", 0.0132, impl="numpy", blas="best"),
                 _e2e("resnet18_v1", "tf", 0.037), _e2e("resnet18_v1", "tvm_c", tvm_p50)])


def _render(template, current, env=ENV):
    book = FigureBook()
    book.set_page("credibility.md")
    data = SimpleNamespace(current=current, env=env, tables=TABLES, runs=[], archive_dir=ROOT / "archive",
                           content_map=CONTENT_MAP, code=CODE)
    jinja = jinja2.Environment(undefined=jinja2.StrictUndefined)
    return jinja.from_string(template).render(**writeup.names(SimpleNamespace(data=data, book=book))), book


def _figures(html):
    """The texts of the current figures in rendered output, in order."""
    return re.findall(r'<a class="num cur"[^>]*>([^<]*)</a>', html)


def test_a_changed_record_changes_the_sentence_that_quotes_it():
    template = "{{ conclusion_statements('autotune_beats_hand') }}"
    slow, _ = _render(template, _records(tuned_p50=0.0236))
    fast, _ = _render(template, _records(tuned_p50=0.0120))
    assert "1.40×" in _figures(slow) and "23.6 ms" in _figures(slow)
    assert "0.714×" in _figures(fast) and "12.0 ms" in _figures(fast)
    # the direction flips with the data: verdict, explanation and recommendation follow
    assert 'data-verdict="contradicts"' in slow and "不成立" in slow and "还没有找到手写调度的水平" in slow
    assert 'data-verdict="supports"' in fast and ">成立<" in fast and "找到了比手写更好的" in fast
    assert "同一运行、同一形状与线程数" in fast and "MetaSchedule相对手写 parallel" in fast   # the comparison is stated
    assert "还没有找到手写调度的水平" not in fast


@pytest.mark.parametrize("tuned_p50, samples", [(0.0171, None), (0.0120, 3)], ids=["below-min-effect", "too-few-samples"])
def test_a_difference_inside_the_noise_rule_is_undecided(tuned_p50, samples):
    current = _records(tuned_p50=tuned_p50)
    if samples:   # 3 samples a side can never reach alpha = 0.01 with Mann-Whitney U
        for key in [k for k in current if "stage=autotuned" in k or "stage=parallel" in k]:
            rec = current[key].record
            rec["samples"] = sorted(rec["samples"])[4:7]
    html, _ = _render("{{ conclusion_statements('autotune_beats_hand') }}", current)
    assert 'data-verdict="undecided"' in html and "无法判定" in html
    # with 3 a side the test cannot reject whatever the samples: it says so, never "not significant"
    assert ("相差不到最小效应" if not samples else "样本太少") in html and "差别不显著" not in html


def test_numpy_near_peak_uses_the_peak_of_the_isa_its_blas_kernel_ran():
    def numpy(kernel):
        key = "numpy_gemm/dtype=float32/n=1024/threads=1/blas=best"
        return key, _cur(key, _spread(0.02), {"dtype": "float32", "n": 1024, "threads": 1},
                         {"flops_per_call": 2 * 1024 ** 3, "blas_kernel": {"architecture": kernel}})

    def peak(isa, p50):   # 2 * 1024**3 flops a call: iters x 8 accumulators x lanes x 2 (study.work)
        key = f"machine_peak/dtype=float32/isa={isa}/threads=1"
        iters = 2 ** 24 if isa == "avx2" else 2 ** 23
        return key, _cur(key, _spread(p50), {"dtype": "float32", "isa": isa, "threads": 1, "iters": iters},
                         {"flops_per_call": 2 * 1024 ** 3, "accumulators": 8})
    # NumPy at ~107 GFLOPS; AVX2 peak ~113 (near), AVX-512 peak ~226 (far)
    current = dict([numpy("Haswell"), peak("avx2", 0.019), peak("avx512", 0.0095)])
    html, _ = _render("{{ conclusion_statements('numpy_near_peak') }}", current)
    assert 'data-verdict="supports"' in html and "AVX2 的实测 FMA 峰值" in html
    current = dict([numpy("SkylakeX"), peak("avx2", 0.019), peak("avx512", 0.0095)])
    html, _ = _render("{{ conclusion_statements('numpy_near_peak') }}", current)
    assert 'data-verdict="contradicts"' in html and "AVX512 的实测 FMA 峰值" in html


def test_tvm_vs_tensorflow_follows_the_measurement():
    template = "{{ conclusions_table() }}"
    slow, _ = _render(template, _records(tvm_p50=2.1))
    fast, _ = _render(template, _records(tvm_p50=0.0185))
    row = lambda html: next(line for line in html.splitlines() if 'data-conclusion="tvm_vs_tf"' in line)  # noqa: E731
    assert "（慢）" in row(slow) and 'data-verdict="contradicts"' in row(slow) and "56.8×" in _figures(row(slow))
    assert "（快）" in row(fast) and 'data-verdict="supports"' in row(fast) and "0.500×" in _figures(row(fast))
    # the historical claim is quoted from the archive, unchanged in both builds
    assert 'data-num="s20_summary/speedup/value"' in row(slow) and ">2.12<" in row(fast)


def test_the_framework_sentence_turns_with_the_data():
    slow, _ = _render("{{ tvm_vs_framework() }}", _records(tvm_p50=2.1))
    fast, _ = _render("{{ tvm_vs_framework() }}", _records(tvm_p50=0.030))
    assert "反例" in slow and "未调优" in slow and "56.8×" in _figures(slow)
    assert "反例" not in fast and "不慢于 TensorFlow" in fast and "0.811×" in _figures(fast)


def test_records_of_other_input_sizes_are_never_compared():
    current = _records(tvm_p50=2.1)
    key, fast_small = _e2e("resnet18_v1", "tvm_d", 0.013, size=64)   # a quick run's smaller input
    current[key] = fast_small
    html, _ = _render("{{ conclusions_table() }} {{ tvm_vs_framework(True) }}", current)
    assert "13.0 ms" not in _figures(html) and "TVM D 组" not in html
    assert 'data-conclusion="tvm_vs_tf" data-verdict="contradicts"' in html


def test_every_current_figure_is_indexed_with_its_record():
    html, book = _render("{{ pitfall_compile() }} {{ pitfall_mean() }} {{ roadmap() }}", _records())
    entries = {e["id"]: e for e in book.index()}
    for num in re.findall(r'data-num="([^"]+)"', html):
        assert num in entries
        assert entries[num]["kind"] == "historical" or num.startswith(entries[num]["record"] + "#")


def test_mean_vs_median_is_chosen_by_computation_not_by_id():
    a = _cur("gemm_tvm/a", [1.0, 1.0, 1.0, 4.0], {"stage": "a"})
    b = _cur("gemm_tvm/b", [1.0, 1.0, 1.0, 1.2], {"stage": "b"})
    first, _ = _render("{{ pitfall_mean() }}", {"a": a, "b": b})
    assert "gemm_tvm/a" in first and "gemm_tvm/b" not in first
    a = _cur("gemm_tvm/a", [1.0, 1.0, 1.0, 1.1], {"stage": "a"})
    b = _cur("gemm_tvm/b", [1.0, 1.0, 1.0, 9.0], {"stage": "b"})
    second, _ = _render("{{ pitfall_mean() }}", {"a": a, "b": b})
    assert "gemm_tvm/b" in second and "gemm_tvm/a" not in second


def test_one_shape_compares_the_two_nearest_shapes():
    current = dict([_gemm("baseline", 5.6, n=1024), _gemm("baseline", 1.7, n=1023),
                    _gemm("loop_permutation", 0.0816, n=1024), _gemm("loop_permutation", 0.118, n=1023),
                    _gemm("packing", 0.0780, n=1024), _gemm("packing", 0.127, n=1023),
                    _gemm("parallel", 0.0168, n=1024), _gemm("parallel", 0.0209, n=1023),
                    _gemm("parallel", 0.0003, n=256)])
    html, _ = _render("{{ pitfall_shapes() }}", current)
    assert "1023×1023×1023 与 1024×1024×1024" in html and "baseline 阶段" in html
    assert "loop_permutation → packing 在 1024×1024×1024 上变快" in html
    current.update([_gemm("packing", 0.0800, n=1024)])      # within noise: no longer called a turn
    html, _ = _render("{{ pitfall_shapes() }}", current)
    assert "方向相反" not in html


def test_layout_conversion_gives_an_upper_bound_below_the_profile_cut():
    html, _ = _render("{{ pitfall_layout() }}", _records())
    assert "`transpose`" in html and "上界" in html


def test_int8_case_waits_for_int8_records():
    html, _ = _render("{{ pitfall_int8() }} {{ conclusions_table() }}", _records())
    assert "尚待 INT8 记录" in html
    assert 'data-conclusion="int8_needs_tuning" data-verdict="pending"' in html


TEMPLATE_CALLS = {"conclusion_statements": ("tvm_vs_tf",), "historical_code": ("s29_hello_relay",)}
SILENT_WHEN_EMPTY = {"service_batching_summary"}   # the table beside it says what is missing


@pytest.mark.parametrize("env", [ENV, None], ids=["env", "no-env"])
def test_every_function_survives_missing_records(env):
    book = FigureBook()
    book.set_page("x.md")
    data = SimpleNamespace(current={}, env=env, tables=TABLES, runs=[], archive_dir=ROOT / "archive",
                           content_map=CONTENT_MAP, code=CODE)
    for name, fn in writeup.names(SimpleNamespace(data=data, book=book)).items():
        out = fn(*TEMPLATE_CALLS.get(name, ()))
        assert isinstance(out, str) and (out.strip() or name in SILENT_WHEN_EMPTY), name
        assert 'class="num cur"' not in out, f"{name} shows a current figure without a record"
    statuses = {ev.verdict for _c, _claim, ev in conclusions.judge_all(conclusions.Context(book, {}, env, TABLES))}
    assert statuses == {conclusions.PENDING}


def test_historical_code_is_verbatim_and_marked():
    html, _ = _render("{{ historical_code('s29_hello_relay') }}", {})
    assert html.startswith('???+ quote "历史代码（§29）')
    assert "    mod = relay.Module.from_expr(func)" in html
    with pytest.raises(KeyError):
        _render("{{ historical_code('no_such_snippet') }}", {})


def _int8(engine, p50, accuracy=0.97):
    key = f"int8/model=digits_cnn/engine={engine}/batch=1/threads=2"
    return key, _cur(key, _spread(p50, 0.99, 1.02), {"model": "digits_cnn", "engine": engine, "batch": 1},
                     {"score": {"accuracy": accuracy, "fp32_accuracy": 0.975}})


@pytest.mark.parametrize("int8_p50, fp32_tuned_p50, verdict",
                         [(0.9e-3, 0.40e-3, "supports"), (0.3e-3, 0.40e-3, "contradicts"), (0.9e-3, 0.20e-3, "contradicts")],
                         ids=["tuning-pays", "int8-alone-faster", "tuned-fp32-faster"])
def test_int8_conclusion_is_judged_from_int8_records(int8_p50, fp32_tuned_p50, verdict):
    current = dict([_int8("tvm_fp32", 0.67e-3), _int8("tvm_int8", int8_p50), _int8("tvm_int8_tuned", 0.23e-3),
                    _int8("tvm_fp32_tuned", fp32_tuned_p50)])    # like for like: tuned INT8 against tuned FP32
    html, _ = _render("{{ conclusions_table() }} {{ pitfall_int8() }}", current)
    assert f'data-conclusion="int8_needs_tuning" data-verdict="{verdict}"' in html
    assert "准确率" in html and "下降" in html and "尚待 INT8 记录" not in html


@pytest.mark.parametrize("flags, why", [(["avx2", "fma"], "这台 CPU 没有 VNNI"),
                                        (["avx2", "fma", "avx512f", "avx512_vnni"], "这台 CPU 有 VNNI，所以原因不在指令集")],
                         ids=["avx2", "avx512-vnni"])
def test_int8_slower_when_tuned_is_explained_by_the_machines_own_isa(flags, why):
    current = dict([_int8("tvm_fp32", 0.67e-3), _int8("tvm_int8", 0.9e-3), _int8("tvm_int8_tuned", 0.23e-3),
                    _int8("tvm_fp32_tuned", 0.20e-3)])
    html, _ = _render("{{ conclusions_table() }} {{ conclusion_statements('int8_needs_tuning') }}", current,
                      env={**ENV, "simd_flags": flags})
    assert 'data-conclusion="int8_needs_tuning" data-verdict="contradicts"' in html
    assert why in html and ("没有 VNNI" in html) == ("有 VNNI，所以" not in html)


def test_batching_pairs_batch_8_with_its_own_batch_1():
    current = _records()
    key, b8 = _e2e("resnet18_v1", "tf", 0.0400)     # 8 % slower per call: above the minimum effect
    b8.record["case"]["batch"] = 8
    current[key.replace("batch=1", "batch=8")] = b8
    html, _ = _render("{{ service_batching_summary() }} {{ conclusions_table() }}", current)
    assert "7.40×" in _figures(html) and "1.08×" in _figures(html)
    assert 'data-conclusion="batching" data-verdict="supports"' in html
    b8.record["case"]["input_size"] = 64          # not comparable any more: no ratio, no verdict
    html, _ = _render("{{ service_batching_summary() }} {{ conclusions_table() }}", current)
    assert "尚无与 batch 1 可比的批处理记录" in html and 'data-conclusion="batching" data-verdict="pending"' in html
    assert "批处理收益最大" not in html


WRITEUP_PAGES = ("compiler.md", "migration.md", "service.md", "pitfalls.md", "platforms.md", "credibility.md",
                 "roadmap.md", "retrospective.md")


def _render_pages(tmp_path, *runs):
    """The committed page templates, rendered with the plugin's own names from fixture runs on disk (oldest first)."""
    from helpers import write_run

    from reportgen.publish import plugin
    for day, current in enumerate(runs, 1):
        run_id = f"202601{day:02d}T000000Z-standard-f6ab9f827cfd"   # the fixture environment's machine
        records = [c.record for c in current.values()]
        for rec in records:
            rec["run_id"], rec["log"]["path"] = run_id, f"runs/{run_id}/logs/{rec['experiment']}.log"
        write_run(tmp_path / "results", run_id, records, profile="standard", finished_at=f"2026-01-{day:02d}T00:10:00Z")
    data = plugin.Data(tmp_path, "results", str(ROOT / "archive"))
    jinja = jinja2.Environment(undefined=jinja2.StrictUndefined, comment_start_string="{##", comment_end_string="##}")
    out = {}
    for page in WRITEUP_PAGES:
        book = FigureBook()
        book.set_page(page)
        template = jinja.from_string((ROOT / "docs" / page).read_text(encoding="utf-8"))
        out[page] = template.render(**plugin.Templates(data, book).names())
    return out


def test_the_published_pages_follow_a_changed_record(tmp_path):
    before = _render_pages(tmp_path / "a", _records(tuned_p50=0.0236))
    after = _render_pages(tmp_path / "b", _records(tuned_p50=0.0120))
    for page in ("credibility.md", "retrospective.md"):
        assert 'data-conclusion="autotune_beats_hand" data-verdict="contradicts"' in before[page]
        assert 'data-conclusion="autotune_beats_hand" data-verdict="supports"' in after[page]
        assert "1.40×" in _figures(before[page]) and "0.714×" in _figures(after[page])
    assert "还没有找到手写调度的水平" in before["credibility.md"]
    assert "还没有找到手写调度的水平" not in after["credibility.md"]
    assert "data-flipped" not in before["retrospective.md"] + after["retrospective.md"]


def test_a_retest_that_flips_a_verdict_says_so(tmp_path):
    pages = _render_pages(tmp_path, _records(tuned_p50=0.0236), _records(tuned_p50=0.0120))
    for page in ("credibility.md", "retrospective.md"):
        assert 'data-conclusion="autotune_beats_hand" data-verdict="supports"' in pages[page]
        assert re.findall(r'data-flipped="([^"]+)"', pages[page]) == ["autotune_beats_hand"]
        assert "最新一次复测改变了判断" in pages[page] and ">不成立<" in pages[page]


def test_gpu_status_follows_the_cuda_records():
    html, _ = _render("{{ gpu_status() }} {{ platform_facts() }}", _records())
    assert "没有 GPU 用例" in html and "没有一条 GPU 结果" in html
    key = "gemm_tvm/impl=tvm_cuda/stage=baseline/m=1024/n=1024/k=1024/threads=2"
    skipped = _cur(key, [1.0], {"impl": "tvm_cuda", "stage": "baseline", "target_kind": "cuda",
                                "target": {"kind": "cuda"}}, status="skipped", error="tvm.cuda(0).exist is False")
    html, _ = _render("{{ gpu_status() }}", {**_records(), key: skipped})
    assert "1 个 GPU（cuda）用例" in html and "tvm.cuda(0).exist is False" in html and "没有任何 GPU 时间" in html
    measured = _cur(key, [0.001, 0.001, 0.001], {"impl": "tvm_cuda", "stage": "baseline", "target": {"kind": "cuda"}})
    html, _ = _render("{{ gpu_status() }} {{ platform_facts() }}", {**_records(), key: measured})
    assert "1 条 GPU 测量记录" in html and "包括 GPU 记录" in html and "没有任何 GPU 时间" not in html


def test_remote_status_counts_rpc_records():
    html, _ = _render("{{ remote_status() }}", _records())
    assert "没有经 RPC" in html
    key, cur = _gemm("parallel", 0.02)
    cur.record["case"]["via"] = "rpc:my-board"
    html, _ = _render("{{ remote_status() }}", {key: cur})
    assert "1 条经 RPC" in html and "`my-board`" in html


def test_summary_says_which_models_the_int8_study_covers():
    from reportgen.pages import e2e
    current = dict([_e2e("resnet50", "tf", 0.07), _e2e("resnet50", "tvm_c", 4.2)])
    table = e2e.summary(FigureBook(), current, "resnet50")
    assert "尚未测量" in table and "INT8 研究未包含" not in table   # no INT8 records at all yet
    current.update([_int8("tvm_int8", 0.3e-3)])
    table = e2e.summary(FigureBook(), current, "resnet50")
    assert "INT8 研究未包含此模型（它覆盖 digits_cnn" in table and "尚未测量" not in table
