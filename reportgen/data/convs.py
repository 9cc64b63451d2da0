"""The convolutions of a profile as the per-convolution tables read them: one reader for the pages
(pages.e2e_rules, pages.int8_rules) and for the claims that hold their rows to the history (data.claims).
Two readers had drifted apart: the claims sorted an ORT node's dims and took its first 4-d input as the weight
while the page read them by position, so a node's output dims permuted, or its weight moved behind a 1-d input,
dropped it from its row (TVM / ORT 1.13x -> 4.53x) with every claim unchanged; a rule named 'convx' was a
convolution to the claims and none to the page."""


def _dims(value, rank):
    """A shape of ``rank`` whole numbers, as a profiler reports it (anything else is not read)."""
    return isinstance(value, list) and len(value) == rank and \
        all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in value)


def ort_conv(node):
    """An ORT Conv or FusedConv node of an fp32 profile as {o, i, kh, kw, oh, ow, o_out} from its weight (inputs[1])
    and output (outputs[0], NCHW or NCHWc), or None for a node the table does not read."""
    ins, outs = node.get("inputs") or [], node.get("outputs") or []
    if node.get("op") not in ("Conv", "FusedConv") or len(ins) < 2 or not outs:
        return None
    w, y = ins[1], outs[0]
    if not (_dims(w, 4) and (_dims(y, 4) or _dims(y, 5))):
        return None
    o, oh, ow = (y[1] * y[4], y[2], y[3]) if len(y) == 5 else (y[1], y[2], y[3])
    return {"o": w[0], "i": w[1], "kh": w[2], "kw": w[3], "oh": oh, "ow": ow, "o_out": o}


def ort_qconv(node):
    """An ORT QLinearConv node of an int8 profile as (O, I, OH, OW), or None.  Its profiler lists a node's inputs
    without the prepacked weight: O is the length of the per-channel weight scale (else of the bias), I and the
    output size come from the input and output, which ORT's layout pass may have made NHWC."""
    ins, outs = node.get("inputs") or [], node.get("outputs") or []
    if node.get("op") != "QLinearConv" or not ins or not _dims(ins[0], 4) or not outs or not _dims(outs[0], 4):
        return None
    channels = [v[0] for v in ins[3:] if _dims(v, 1)]
    if not channels:
        return None
    o, x, y = int(channels[0]), ins[0], outs[0]
    nhwc = y[3] == o and y[1] != o
    i, (oh, ow) = (x[3], (y[1], y[2])) if nhwc else (x[1], (y[2], y[3]))
    return (o, int(i), int(oh), int(ow))


def tvm_conv(kernel, op, lanes):
    """A rule's fp32 convolution kernel (rule 'conv') as {o, i, kh, kw, oh, ow, lanes}: output channels oc_blocks x
    lanes, input channels ic_blocks x its input lanes (the stem's NCHW input has 1; older records say so by the
    kernel's name), or None for another kernel."""
    if not isinstance(kernel, dict) or kernel.get("rule") != "conv":
        return None
    ic_lanes = int(kernel.get("ic_lanes") or (1 if "stem" in str(op) else lanes))
    return {"o": kernel["oc_blocks"] * lanes, "i": kernel["ic_blocks"] * ic_lanes, "kh": kernel["kh"],
            "kw": kernel["kw"], "oh": kernel["oh"], "ow": kernel["ow"], "lanes": lanes}


QCONV_RULES = ("vnni_conv", "avx2_conv")


def tvm_qconv(kernel):
    """A rule's int8 convolution kernel as (O, I, OH, OW) with O in blocks of 16, or None for another kernel."""
    if not isinstance(kernel, dict) or kernel.get("rule") not in QCONV_RULES:
        return None
    return (int(kernel["oc_blocks"]) * 16, int(kernel["ic"]), int(kernel["oh"]), int(kernel["ow"]))


def lanes_of(rec):
    """A rule record's vector lanes (rules.lanes; 16 when it names none, as the pages read it)."""
    rules = ((rec.get("extra") or {}).get("rules") or {}) if isinstance(rec.get("extra"), dict) else {}
    lanes = rules.get("lanes", 16) if isinstance(rules, dict) else 16
    return int(lanes) if isinstance(lanes, int) and not isinstance(lanes, bool) and lanes > 0 else 16
