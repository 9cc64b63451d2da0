"""Facts for the code-generation chapter: what the compiled code contains, every count a figure.

The instruction counts come from the assembly each gemm_tvm stage generated (the harness
counts them into ``extra.codegen``); the Hello Relax record shows one module compiled and run.
"""
from reportgen.data import merge
from reportgen.render.cells import text as _esc

STAGES = ("baseline", "vectorization", "autotuned")   # no SIMD, hand-vectorized, searched


def _count(book, cur, key, value):
    return book.current(f"{cur.record['id']}#{key}", str(value), "instructions", cur)


def _pick(current, stage):
    """The stage's record at the largest shape and thread count that kept its assembly counts."""
    rows = [c for c in merge.family(current, "gemm_tvm").values()
            if c.record["case"].get("impl") == "tvm" and c.record["case"].get("stage") == stage
            and c.ok and c.record["extra"].get("codegen")]
    return max(rows, key=lambda c: (c.record["case"]["m"], c.record["case"]["threads"]), default=None)


def instruction_facts(book, current, env):
    """One sentence per stage: scalar and vector FMA counted in its assembly, widest register."""
    parts = []
    for stage in STAGES:
        cur = _pick(current, stage)
        if cur is None:
            continue
        case, code = cur.record["case"], cur.record["extra"]["codegen"]
        packed = code.get("fma_packed", {})
        vector = "、".join(f"{_count(book, cur, 'fma_' + reg, n)} 条 {reg}" for reg, n in packed.items() if n)
        parts.append(f"`{_esc(stage)}`（{case['m']}×{case['n']}×{case['k']}，{case['threads']} 线程）的汇编里有 "
                     f"{_count(book, cur, 'fma_scalar', code.get('fma_scalar', 0))} 条标量 FMA、"
                     + (f"向量 FMA {vector}" if vector else "没有向量 FMA")
                     + f"，最宽的寄存器是 `{str(code.get('widest_register', '?')).replace('`', '')}`")
    if not parts:
        return "（尚无 TVM 调度阶梯的汇编统计。）"
    flags = "、".join(f"`{f.replace('`', '')}`" for f in (env or {}).get("simd_flags", [])) or "未记录"
    return "；".join(parts) + f"。本机 CPU 报告的 SIMD 标志：{flags}。"


def hello_facts(book, current):
    """The smallest module compiled for this machine and run: output, dtype, round trip."""
    cur = merge.family(current, "graph").get("graph/case=hello")
    if cur is None or not cur.ok:
        return book.failed(cur) if cur is not None else "（尚无 Hello Relax 记录。）"
    extra = cur.record["extra"]
    output = book.current(f"{cur.record['id']}#output", str(extra["output"]), "value", cur)
    return (f"最小的例子是 Hello Relax：一个只做加一的 Relax 函数，在 `{extra['target'].replace('`', '')}` 上编译，"
            f"输入 {cur.record['case']['input']}，虚拟机返回 {output}（`{extra['output_dtype'].replace('`', '')}`），"
            f"打印出的 TVMScript 能原样解析回同一个模块：{'是' if extra['script_roundtrip'] else '否'}。")


def names(site):
    """The placeholders this module gives the page templates."""
    d, b = site.data, site.book
    return {
        "codegen_instructions": lambda: instruction_facts(b, d.current, d.env),
        "codegen_hello": lambda: hello_facts(b, d.current),
    }
