"""What a record's scores say of one another: an accuracy and its agreement with the reference are counted over
the same images, so they bound each other."""
from study.stats import is_number

SCORE_SLACK = 1e-9
"""The rounding by which two shares of one image count may differ beyond what they bound."""


def score_problems(extra):
    """An accuracy differs from the reference's (fp32_accuracy) on at most the images whose top-1 answers differ,
    the share 1 - top1_agree: a network that agreed with FP32's top-1 on every image was published 1.48 points
    less accurate than it, turning the INT8 accuracy goal from met to missed."""
    out = []
    for name in ("score", "agreement_set"):
        score = extra.get(name)
        if not isinstance(score, dict):
            continue
        acc, ref, agree = (score.get(k) for k in ("accuracy", "fp32_accuracy", "top1_agree"))
        if all(is_number(v) for v in (acc, ref, agree)) and abs(acc - ref) > 1 - agree + SCORE_SLACK:
            out.append(f"extra.{name}.accuracy: {acc:.6g} differs from fp32_accuracy {ref:.6g} by more than the "
                       f"share of images whose top-1 answers differ (1 - top1_agree = {1 - agree:.6g})")
    return out
