"""reportgen/data/evidence.py: a cited log range must print the figure it is evidence for."""
from reportgen.data import evidence

REC = {"extra": {"flops_per_call": 2e9}}


def test_median_in_ms_or_gflops_is_found():
    assert evidence.cites_value(REC, 0.0123456, "[fam] case: p50 12.346 ms over 11 calls")
    assert evidence.cites_value(REC, 0.0123456, "[fam] case: ~162.0 GFLOPS, rel err 1e-7")
    assert evidence.cites_value({}, 2.5e-5, "p50 25.0 us")


def test_lines_without_the_figure_are_refused():
    assert not evidence.cites_value(REC, 0.0123456, "[gemm_tvm] done")
    assert not evidence.cites_value(REC, 0.0123456, "[fam] case: p50 13.1 ms")      # another value
    assert not evidence.cites_value({}, 0.0123456, "[fam] case: ~162.0 GFLOPS")        # no flops to derive it
    assert not evidence.cites_value(REC, float("nan"), "nan ms")


def test_precision_is_the_printed_one():
    # "1.81" printed with two decimals stands for 1.805 ... 1.815, not 1.819
    assert not evidence.cites_value({"extra": {"flops_per_call": 2.147483648e9}}, 1.1803, "~1.81 GFLOPS")
    assert evidence.cites_value({"extra": {"flops_per_call": 2.147483648e9}}, 1.1803, "~1.82 GFLOPS")


def test_a_record_is_named_by_its_whole_id():
    from study import citation
    assert citation.names_record("fam/n=64", "[fam] fam/n=64: p50 1.0 ms")
    assert citation.names_record("fam/n=64", "reused fam/n=64.")            # a full stop ends the sentence
    assert not citation.names_record("fam/n=64", "[fam] fam/n=640: p50 1.0 ms")
    assert not citation.names_record("fam/n=64", "[fam] fam/n=64.5: p50 1.0 ms")
    assert not citation.names_record("fam/n=64", "[fam] other/fam/n=64: p50")
    assert not citation.names_record("fam/n=6", "[fam] done")
    assert not citation.names_record("fam/a+b", "fam/aab")                 # the id is text, not a pattern
    assert citation.bound(citation.NAMED_FROM + "-quick-aaaaaaaaaaaa")
    assert not citation.bound("20261205T115959Z-quick-aaaaaaaaaaaa")
