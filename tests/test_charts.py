"""Chart specs: a bar on a log scale must not stack (Vega stacks from 0, and log(0) blanks every bar)."""
from reportgen.render import charts


def _bars_on_log(spec, mark=None):
    """(mark, channel, encoding) for every bar channel on a log scale in a Vega-Lite spec tree."""
    out = []
    if isinstance(spec, dict):
        here = spec.get("mark", mark)
        here = here.get("type") if isinstance(here, dict) else here
        for channel, enc in (spec.get("encoding") or {}).items():
            if here == "bar" and isinstance(enc, dict) and (enc.get("scale") or {}).get("type") == "log":
                out.append((here, channel, enc))
        for key, value in spec.items():
            if key != "encoding":
                out.extend(_bars_on_log(value, here if key == "spec" else None))
    elif isinstance(spec, list):
        for item in spec:
            out.extend(_bars_on_log(item, mark))
    return out


def test_log_scale_bars_do_not_stack(tmp_path):
    specs = charts.build_all({"s21_numpy": _Empty(), "s23_tvm_stages": _Empty()}, {}, None)
    found = [(name, hit) for name, spec in specs.items() for hit in _bars_on_log(spec)]
    assert found, "expected the latency charts to use log-scale bars"
    assert all(hit[2].get("stack", "missing") is None for _, hit in found), found


class _Empty:
    rows, columns = [], []

    def cell(self, row, col):
        raise KeyError(row)


class _Run:
    def __init__(self, finished_at, tvm_version, p50):
        self.manifest = {"finished_at": finished_at, "profile": "standard",
                         "environment": {"cpu_model": "AMD EPYC", "logical_cores": 2, "tvm_version": tvm_version}}
        self.records = [{"id": "numpy_gemm/n=64", "status": "ok", "metric": "latency", "reused_from": None,
                         "stats": {"p50": p50}}]


def test_history_draws_environment_markers_only_when_the_environment_changed():
    """An empty marker layer makes Vega warn 'Infinite extent for field run'."""
    same = charts.history({}, {}, None, [_Run("2026-11-29T17:00:00Z", "0.27", 1.0),
                                         _Run("2026-11-29T18:00:00Z", "0.27", 1.1)]).to_dict()
    changed = charts.history({}, {}, None, [_Run("2026-11-29T17:00:00Z", "0.27", 1.0),
                                            _Run("2026-11-29T18:00:00Z", "0.28", 1.1)]).to_dict()
    assert len(same["layer"]) == 1
    assert len(changed["layer"]) == 2
