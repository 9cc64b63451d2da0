"""Experiment families, each declared once in its own module; profiles give them params only.

A family is one module ``experiments/<module>.py`` with, at module level::

    FAMILY = Family(name="numpy_gemm", timeout_s={"quick": 600, "standard": 3600, "full": 14400})

``reportgen retest`` finds the declarations by reading the source (:func:`declared`: literal
values only, nothing is imported or run) and runs the module as ``python -m``; the profiles
(``experiments/configs/<profile>.yaml``) map every declared family to its params.
"""
import ast
import dataclasses
from pathlib import Path

PROFILES = ("quick", "standard", "full")
"""The profiles, least to most thorough; every family has a timeout and params for each."""

FAMILY_DIR = "experiments"
"""Where family modules live (relative to the project root): one module per family."""


@dataclasses.dataclass(frozen=True)
class Family:
    """An experiment family, declared once as ``FAMILY = Family(...)`` in its entry module."""
    name: str
    """family name: its key in every profile and the first part of its record ids"""
    timeout_s: dict
    """seconds before retest stops the family, per profile: {quick: ..., standard: ..., full: ...}"""
    rpc: bool = False
    """it can measure on a remote device through a TVM RPC tracker (retest --rpc-tracker)"""
    uses: tuple = ()
    """families whose records it reads (Harness.upstream_record); the profile runs them first"""
    depends: tuple = ()
    """non-Python files its code fingerprint covers (C kernels); Python imports are found from the code"""
    params: tuple = ()
    """the profile keys it reads: a key a profile gives it that is not listed here is a typo, and
    retest refuses the profile naming file and key (empty: not checked)"""
    claims_of: dict = dataclasses.field(default_factory=dict)
    """for a profile key, the keys of a record's extra and check it changes in a record of the same case
    ([]: none; it sets how long cases are timed, which cases run, or what a search decides, which is
    not compared): runs of two profiles that give the family different values only of keys listed here
    are compared claim by claim, those claims left out (reportgen.data.claims; a first 'full' run
    is held to the 'standard' runs before it).  A key not listed may change anything."""
    module: str = ""
    """the entry module (set by :func:`declared` from the file it is declared in)"""


FIELDS = {f.name: f for f in dataclasses.fields(Family) if f.name != "module"}


def _literal(node, where, problems):
    try:
        return ast.literal_eval(node)
    except ValueError:
        problems.append(f"{where}: expected a literal value (the declaration is read, not run)")
        return None


MAX_SOURCE_BYTES = 4 << 20
"""The most bytes of one file of the repository's code read (the largest module holds under 60 KB)."""


def read_bytes(path):
    """A file of the code, read only when it is a plain file (not a link: experiments/zz.py linked to
    /dev/zero read until memory ran out, in every build and retest) of at most MAX_SOURCE_BYTES;
    ValueError naming it otherwise."""
    import errno
    import os
    import stat
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        why = "a link, never followed" if exc.errno == errno.ELOOP else exc.strerror
        raise ValueError(f"{path}: cannot be read as a plain file of the code ({why})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SOURCE_BYTES:
        os.close(fd)
        raise ValueError(f"{path}: not a plain file of at most {MAX_SOURCE_BYTES} bytes")
    with os.fdopen(fd, "rb") as fh:
        return fh.read(MAX_SOURCE_BYTES + 1)[:MAX_SOURCE_BYTES]


def read_source(path):
    """The text of a Python file of the code (read_bytes; UnicodeDecodeError is a ValueError)."""
    return read_bytes(path).decode("utf-8")


def parse_source(path):
    """The syntax tree of a Python file of the code: ValueError naming it when it cannot be read or parsed,
    nested past the parser's stack included (100 000 unary minus signs: a MemoryError; a sum of 300 000
    terms: a RecursionError, each an internal error of every build and retest)."""
    try:
        return ast.parse(read_source(path), str(path))
    except SyntaxError as exc:
        raise ValueError(f"{path}: not Python ({exc.msg}, line {exc.lineno})") from None
    except (MemoryError, RecursionError):
        raise ValueError(f"{path}: nested too deep for Python's parser") from None


def _declaration(path, rel, problems):
    """The FAMILY = Family(...) call of one module, as keyword values, or None."""
    try:
        tree = parse_source(path)
    except ValueError as exc:
        problems.append(f"{rel}: cannot be read as a family module ({str(exc).splitlines()[0][:160]})")
        return None
    for node in tree.body:
        if not (isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["FAMILY"]):
            continue
        call = node.value
        func = getattr(call, "func", None)
        if not isinstance(call, ast.Call) or getattr(func, "id", getattr(func, "attr", None)) != "Family":
            problems.append(f"{rel}:{node.lineno}: FAMILY: expected FAMILY = Family(name=..., timeout_s=...)")
            return None
        if call.args:
            problems.append(f"{rel}:{node.lineno}: FAMILY: give every field by name (name=..., timeout_s=...)")
            return None
        return {kw.arg: _literal(kw.value, f"{rel}:{node.lineno}: FAMILY.{kw.arg}", problems) for kw in call.keywords}
    return None


def _check(fields, rel, problems):
    """Field-by-field problems of one declaration."""
    out = []
    for key in fields:
        if key not in FIELDS:
            out.append(f"{rel}: FAMILY.{key}: unknown field (known: {', '.join(FIELDS)})")
    for key in ("name", "timeout_s"):
        if key not in fields:
            out.append(f"{rel}: FAMILY.{key}: missing")
    name = fields.get("name")
    if "name" in fields and not (isinstance(name, str) and name):
        out.append(f"{rel}: FAMILY.name: expected a non-empty string, got {name!r}")
    timeouts = fields.get("timeout_s")
    if "timeout_s" in fields:
        if not isinstance(timeouts, dict):
            out.append(f"{rel}: FAMILY.timeout_s: expected {{profile: seconds}} for {', '.join(PROFILES)}")
        else:
            for profile in PROFILES:
                value = timeouts.get(profile)
                if not (isinstance(value, int) and not isinstance(value, bool) and value > 0):
                    out.append(f"{rel}: FAMILY.timeout_s.{profile}: expected seconds > 0, got {value!r}")
            for profile in timeouts:
                if profile not in PROFILES:
                    out.append(f"{rel}: FAMILY.timeout_s.{profile}: not a profile ({', '.join(PROFILES)})")
    if not isinstance(fields.get("rpc", False), bool):
        out.append(f"{rel}: FAMILY.rpc: expected true or false")
    for key in ("uses", "depends", "params"):
        value = fields.get(key, ())
        if not (isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value)):
            out.append(f"{rel}: FAMILY.{key}: expected a list of strings, got {value!r}")
    claims_of = fields.get("claims_of", {})
    if not (isinstance(claims_of, dict) and all(isinstance(k, str) and isinstance(v, (list, tuple))
                                                and all(isinstance(x, str) and x for x in v) for k, v in claims_of.items())):
        out.append(f"{rel}: FAMILY.claims_of: expected {{profile key: [claim keys]}}, got {claims_of!r:.80}")
    elif isinstance(fields.get("params"), (list, tuple)) and fields.get("params"):
        out += [f"{rel}: FAMILY.claims_of.{key}: not one of its params" for key in claims_of if key not in fields["params"]]
    for dep in fields.get("depends", ()) if not out else ():
        if dep.endswith(".py"):
            out.append(f"{rel}: FAMILY.depends: {dep!r} is Python: imports are found from the code")
    problems.extend(out)
    return not out


def declared(root):
    """Every family declared under ``experiments/`` (name -> Family, in file order) and the
    problems found, as one-line messages naming the file and field."""
    root = Path(root)
    families, problems, where = {}, [], {}
    for path in sorted((root / FAMILY_DIR).glob("*.py")):
        rel = path.relative_to(root).as_posix()
        fields = _declaration(path, rel, problems)
        if fields is None or not _check(fields, rel, problems):
            continue
        if fields["name"] in families:
            problems.append(f"{rel}: FAMILY.name: {fields['name']!r} is already declared in {where[fields['name']]}")
            continue
        where[fields["name"]] = rel
        families[fields["name"]] = Family(**dict(fields, uses=tuple(fields.get("uses", ())),
                                                 depends=tuple(fields.get("depends", ())),
                                                 params=tuple(fields.get("params", ())),
                                                 claims_of={k: tuple(v) for k, v in fields.get("claims_of", {}).items()}),
                                          module=f"{FAMILY_DIR}.{path.stem}")
    return families, problems


PACKAGES = ("experiments", "reportgen", "study")
"""The repository's own code: what a family's fingerprint follows."""


def _module_file(root, name, first=False):
    """The file of a repository module (package __init__ or module.py), or None outside the repo.
    ``first``: the family's own module, which may live outside the packages."""
    if name.split(".")[0] not in PACKAGES and not first:
        return None
    base = Path(root, *name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def import_closure(root, module):
    """Repository files the module imports, transitively (relative imports included), as sorted
    paths relative to root.  Read from the source with ``ast``: nothing is imported or run."""
    root = Path(root)
    seen, todo = set(), [module]
    while todo:
        name = todo.pop()
        path = _module_file(root, name, first=name == module)
        if path is None or path in seen:
            continue
        seen.add(path)
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        parents = name.split(".")
        for part in range(1, len(parents)):   # importing a.b.c runs a/__init__ and a/b/__init__
            todo.append(".".join(parents[:part]))
        for node in ast.walk(parse_source(path)):
            if isinstance(node, ast.Import):
                todo.extend(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    prefix = ".".join(base + ([node.module] if node.module else []))
                else:
                    prefix = node.module or ""
                todo.append(prefix)
                todo.extend(f"{prefix}.{alias.name}" for alias in node.names)   # "from pkg import mod"
    return sorted(p.relative_to(root).as_posix() for p in seen)


def code_files(root, module, depends=()):
    """A family's code: its entry module's import closure inside the repository plus the non-Python
    files it declares in ``depends`` (C kernels it compiles, data it reads)."""
    files = set(import_closure(root, module))
    files.update(dep for dep in depends if not dep.endswith(".py"))
    return sorted(files)
