"""YAML data files (the archive's tables, the retest profiles) parsed within limits.

yaml.safe_load constructs no objects, but it still expands aliases (a "billion laughs" file of
a few hundred bytes names 10^9 strings) and recurses once per nesting level (a file of 10^5
brackets ends in a RecursionError).  Data files need neither: an alias, nesting deeper than
MAX_DEPTH, a key given twice in one mapping or a file over MAX_BYTES is refused with one line
naming the file.
"""
import re

import yaml

MAX_DEPTH = 64
MAX_DIGITS = 100
_SURROGATE = re.compile("[\ud800-\udfff]")
_BREAK = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]")
"""Line breaks other than '\n' and control characters in a value (YAML escapes such as "\\r" or "\\x02"): Markdown
reads a lone '\r' as a new line and drops STX/ETX, so an archive text placed in a table row or a code block ended it
("``\\x02`" became a fence), and what followed was live page Markdown."""
MAX_BYTES = 20_000_000


class Refused(yaml.YAMLError):
    """A data file beyond the limits (its message names what, the caller names the file)."""


class _Loader(yaml.SafeLoader):
    depth = 0
    aliases = False
    controls = False

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent) and not self.aliases:
            mark = self.peek_event().start_mark
            raise Refused(f"line {mark.line + 1}: uses a YAML alias (*{self.peek_event().anchor}); data files "
                          "spell every value out (aliases are refused: they can expand without bound)")
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise Refused(f"line {mark.line + 1}: nested deeper than {MAX_DEPTH} levels")
            return super().compose_node(parent, index)
        finally:
            self.depth -= 1

    def compose_mapping_node(self, anchor):
        # a key written as a list or a mapping (`? [a]` / `: 1`): no reader of these files can name it,
        # and a lookup of it in a table stopped the build and `reportgen machines` with an internal
        # TypeError (unhashable type)
        node = super().compose_mapping_node(anchor)
        for key, _value in node.value:   # a tagged one is left to the tag's own refusal, which names the tag
            if not isinstance(key, yaml.ScalarNode) and key.tag in ("tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"):
                raise Refused(f"line {key.start_mark.line + 1}: a key written as a list or a mapping; every key "
                              "of these files is a plain name")
        return node

    def construct_mapping(self, node, deep=False):
        # a key given twice: PyYAML keeps the last silently, so a second entry far down a file
        # would replace the reviewed one without a word.  Keys compare as the values they read as:
        # 1 and 0x1, yes and true, null and ~ are one key spelled twice; so are two merge keys
        seen = set()
        for key, _value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag == "tag:yaml.org,2002:merge":
                # <<: {text: a} beside text: b keeps one of the two silently
                raise Refused(f"line {key.start_mark.line + 1}: a YAML merge key (<<); data files spell every key "
                              "out (a merged key and one given beside it: one would be dropped without a word)")
            if isinstance(key, yaml.ScalarNode):
                value = ("<<",) if key.tag == "tag:yaml.org,2002:merge" else (key.tag, self.construct_object(key))
                if value in seen:
                    raise Refused(f"line {key.start_mark.line + 1}: key {key.value[:60]!r} given twice in one "
                                  "mapping (the second would silently replace the first)")
                seen.add(value)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node):
        # int() of more than 4300 digits is a ValueError, not a YAMLError: "internal error"
        digits = sum(c.isdigit() for c in str(node.value))
        if digits > MAX_DIGITS:
            raise Refused(f"line {node.start_mark.line + 1}: an integer of {digits} digits (at most {MAX_DIGITS})")
        return super().construct_yaml_int(node)

    def compose_scalar_node(self, anchor):
        # every value and key, read as data (loads) or walked as nodes (compose: mkdocs.yml).  "\ud800" in a
        # double-quoted scalar reads as a lone surrogate: no text, and writing it into a page failed with a
        # UnicodeEncodeError naming no file; "\r" ended a table row or a code fence on a page
        node = super().compose_scalar_node(anchor)
        if _SURROGATE.search(node.value):
            raise Refused(f"line {node.start_mark.line + 1}: a lone UTF-16 surrogate escape (such as \\ud800): "
                          "not text, it cannot be written to a page")
        found = None if self.controls else _BREAK.search(node.value)
        if found:
            raise Refused(f"line {node.start_mark.line + 1}: a value holds the line break or control character "
                          f"U+{ord(found.group()):04X} (a YAML escape such as \\r or \\x02); a text of these files "
                          "breaks its lines with \\n only and holds no other control character")
        return node


_Loader.add_constructor("tag:yaml.org,2002:int", _Loader.construct_yaml_int)


def loads(text, aliases=False, controls=False):
    """The value of one YAML document; Refused (a yaml.YAMLError) beyond the limits. ``aliases``: for
    the project's own words files (docs/words/, reviewed as code is), which share a sentence by alias.
    ``controls``: control characters allowed in values (the hostile corpus's payloads, which pages show as text)."""
    if len(text) > MAX_BYTES:
        raise Refused(f"{len(text)} characters, over the {MAX_BYTES} a data file may have")
    loader = _Loader(text)
    loader.aliases, loader.controls = aliases, controls
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def compose(text):
    """The node tree of one YAML document within the same limits (no alias, MAX_DEPTH, MAX_BYTES), for a
    reader that walks nodes (mkdocs.yml: an alias under extra: reused in nav: expanded to 10^5 pages,
    and the build ran for minutes without a word)."""
    if len(text) > MAX_BYTES:
        raise Refused(f"{len(text)} characters, over the {MAX_BYTES} a data file may have")
    loader = _Loader(text)
    try:
        return loader.get_single_node()
    finally:
        loader.dispose()


def describe(exc):
    """One line for a yaml.YAMLError (PyYAML's own message spans several lines with a snippet), or for
    the OSError or UnicodeDecodeError of reading the file."""
    if isinstance(exc, Refused):
        return str(exc)
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).split("\n", 1)[0]
    return f"line {mark.line + 1}: {problem}" if mark is not None else problem
