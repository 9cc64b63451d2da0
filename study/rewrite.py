"""What an INT8 record's rewrite summary holds (extra.rewrite): the methods table and the calibration column of the
INT8 pages read each field (study.work checks a record with it)."""

from study.stats import is_count as _count

FIELDS = ("quantize", "dequantize", "float_ops")
"""The fields a rewrite summary holds whenever a record has one."""


def problems(rewrite):
    """One line per field of a rewrite summary missing or of a kind the pages cannot read: its FIELDS, the float
    kinds kept (a list of names: true stopped the page in 'not iterable'), the calibration images (counts: a
    string stopped it in int())."""
    if not isinstance(rewrite, dict):
        return []
    out = [f"extra.rewrite.{name}: missing (a rewrite summary holds {', '.join(FIELDS)})"
           for name in FIELDS if name not in rewrite]
    kinds = rewrite.get("float_kinds", [])
    if not (isinstance(kinds, list) and all(isinstance(kind, str) for kind in kinds)):
        out.append(f"extra.rewrite.float_kinds: {kinds!r:.40} is not a list of operator kinds")
    calibration = rewrite.get("calibration")
    if isinstance(calibration, dict) and "images" in calibration and not _count(calibration["images"]):
        out.append(f"extra.rewrite.calibration.images: {calibration['images']!r:.40} is not a count of images")
    return out
