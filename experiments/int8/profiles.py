"""Where an integer network's time goes, kernel by kernel, on both sides of the INT8 comparison.

* TVM (the integer program by rule): the VM's profile of every kernel, median of several runs,
  each kernel classed by its operand types (:func:`operands`): ``integer`` when every buffer it
  reads and writes is an integer type (the packed convolutions, the integer pools and adds),
  ``float`` when none is, ``mixed`` for a conversion between the two (the input's quantize, a
  dequantize before the classifier).  The share of time in ``integer`` kernels is the operator
  coverage the INT8 issue asks for, measured in time rather than counted in operators.
* ONNX Runtime (its QDQ model): its own profiler's per-node time, grouped by node type
  (QLinearConv, QLinearAdd, DequantizeLinear, ...).  The profiler names ORT's operators, not the
  MLAS kernel each one dispatches to; which kernel a QLinearConv runs is not in the record.

Both profiles run in the family's process after the engine's timed calls; each profiler has its
own overhead, so their sums are shown beside each engine's p50, never in place of it.
"""

from __future__ import annotations

from typing import Any

INTEGER, FLOAT, MIXED = "integer", "float", "mixed"


def operands(dtypes: list[str]) -> str:
    """The class of a kernel from its buffers' types (inputs, then output)."""
    ints = [str(d).startswith(("int", "uint")) for d in dtypes]
    if ints and all(ints):
        return INTEGER
    return FLOAT if not any(ints) else MIXED


def tvm_profile(h, cid: str, runner, x, kernels: dict[str, dict[str, Any]], out: dict[str, Any]) -> None:
    """``out["kernel_profile"]``: every kernel's median seconds with its class (from ``kernels``,
    the rule's per-kernel info with ``dtypes``); the sums said in the log with each kernel."""
    from experiments.e2e import engines
    rows = engines.tvm_kernel_profile(runner.handle, x)
    for row in rows:
        if row["kind"] == "kernel":
            dtypes = (kernels.get(row["op"]) or {}).get("dtypes")
            row["operands"] = operands(dtypes) if dtypes else None
    out["kernel_profile"] = rows
    timed = [r for r in rows if r["kind"] == "kernel"]
    total = sum(r["seconds"] for r in timed)
    integer = sum(r["seconds"] for r in timed if r.get("operands") == INTEGER)
    share = integer / total if total else 0.0
    h.note(cid, profile_ms=total * 1e3, integer_ms=integer * 1e3, share=share,
           integer_kernels=sum(1 for r in timed if r.get("operands") == INTEGER), kernels=len(timed))
    for row in timed:
        h.note(cid, kernel=row["op"], calls=int(row["calls"]), operands=row.get("operands") or "?",
               kernel_ms=row["seconds"] * 1e3)


def ort_profile(h, cid: str, onnx_path, threads: int, x, out: dict[str, Any]) -> None:
    """``out["node_profile"]``: ONNX Runtime's per-node time on its QDQ model, and the time of each
    node type in the log."""
    from experiments.e2e import engines
    rows = engines.ort_node_profile(onnx_path, threads, x)
    out["node_profile"] = rows
    by_op: dict[str, float] = {}
    for row in rows:
        by_op[row["op"]] = by_op.get(row["op"], 0.0) + row["seconds"]
    total = sum(by_op.values())
    h.note(cid, profile_ms=total * 1e3, nodes=len(rows))
    for op, seconds in sorted(by_op.items(), key=lambda kv: -kv[1]):
        h.note(cid, op=op, node_ms=seconds * 1e3)
    for row in rows:
        h.note(cid, node=row["node"], op=row["op"], node_ms=row["seconds"] * 1e3)
