"""YAML data files (the archive's tables, the retest profiles) parsed within limits.

yaml.safe_load constructs no objects, but it still expands aliases (a "billion laughs" file of
a few hundred bytes names 10^9 strings) and recurses once per nesting level (a file of 10^5
brackets ends in a RecursionError).  Data files need neither: an alias, nesting deeper than
MAX_DEPTH, a key given twice in one mapping or a file over MAX_BYTES is refused with one line
naming the file.
"""
import yaml

MAX_DEPTH = 64
MAX_BYTES = 20_000_000


class Refused(yaml.YAMLError):
    """A data file beyond the limits (its message names what, the caller names the file)."""


class _Loader(yaml.SafeLoader):
    depth = 0
    aliases = False

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


    def construct_mapping(self, node, deep=False):
        # a key given twice: PyYAML keeps the last silently, so a second entry far down a file
        # would replace the reviewed one without a word
        seen = set()
        for key, _value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                if (key.tag, key.value) in seen:
                    raise Refused(f"line {key.start_mark.line + 1}: key {key.value[:60]!r} given twice in one "
                                  "mapping (the second would silently replace the first)")
                seen.add((key.tag, key.value))
        return super().construct_mapping(node, deep=deep)


def loads(text, aliases=False):
    """The value of one YAML document; Refused (a yaml.YAMLError) beyond the limits. ``aliases``: for
    the project's own words files (docs/words/, reviewed as code is), which share a sentence by alias."""
    if len(text) > MAX_BYTES:
        raise Refused(f"{len(text)} characters, over the {MAX_BYTES} a data file may have")
    loader = _Loader(text)
    loader.aliases = aliases
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def describe(exc):
    """One line for a yaml.YAMLError (PyYAML's own message spans several lines with a snippet)."""
    if isinstance(exc, Refused):
        return str(exc)
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).split("\n", 1)[0]
    return f"line {mark.line + 1}: {problem}" if mark is not None else problem
