"""Progress lines become a bar on a terminal and sparse plain lines elsewhere."""
import io

from study import progress


class _Tty(io.StringIO):
    def isatty(self):
        return True


def test_parse_reads_the_fields_and_ignores_other_lines():
    assert progress.parse("[e2e_tune] @progress done=8 total=32 unit=trials what=resnet18_v1/prepack") == {
        "done": 8, "total": 32, "unit": "trials", "what": "resnet18_v1/prepack"}
    assert progress.parse("[e2e_tune] tuned fused_conv2d (1/21, 8 trials, 30 s)") is None
    assert progress.parse("[x] @progress done=a total=3") is None


def test_bar_on_a_terminal_redraws_in_place_with_eta():
    out = _Tty()
    bar = progress.Bar("e2e_tune", out, width=10)
    bar.update({"done": 0, "total": 40, "unit": "trials"}, now=100.0)
    bar.update({"done": 10, "total": 40, "unit": "trials", "best_ms": "61.2"}, now=160.0)
    text = out.getvalue()
    assert text.count("\r") == 2 and "10/40 trials" in text and "25%" in text
    assert "best 61.2 ms" in text and "1m00s elapsed" in text and "~3m00s left" in text
    assert "██░░░░░░░░ 10/40" in text and "\n" not in text
    bar.line("[e2e_tune] done")
    assert out.getvalue().endswith("\n  [e2e_tune] done\n")


def test_off_a_terminal_one_plain_line_per_tenth():
    out = io.StringIO()
    bar = progress.Bar("gemm_tvm", out)
    for done in range(0, 101):
        bar.update({"done": done, "total": 100, "unit": "trials"}, now=float(done))
    lines = out.getvalue().splitlines()
    assert len(lines) == 11 and "\r" not in out.getvalue() and lines[-1].startswith("  [gemm_tvm] 100/100 trials")
