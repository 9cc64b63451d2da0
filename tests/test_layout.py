"""The layout is a contract: a test walks every import and every file read and enforces it.

Packages: ``study`` (record schema, run manifest, environment, identity: the contract both sides
share) <- ``experiments`` (measure, write records) and ``reportgen`` (read records, publish).
Inside reportgen the layers run one way: data -> render -> pages -> publish -> commands -> cli;
``errors`` is shared by all.  A module imports only its own layer or a lower one, no presentation
module (render, pages, publish) imports a command, and only ``reportgen/data`` reads result and
archive files.
"""
import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ["errors", "data", "render", "pages", "publish", "commands", "cli"]
PRESENTATION = {"render", "pages", "publish"}


def _modules(package):
    for path in sorted((ROOT / package).rglob("*.py")):
        yield ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"), path


def _imports(path):
    """Absolute names of every module a file imports (relative imports resolved), with line numbers."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = ".".join(path.relative_to(ROOT).parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            yield mod, node.lineno
            for alias in node.names:   # from reportgen.pages import e2e  ->  reportgen.pages.e2e
                yield f"{mod}.{alias.name}", node.lineno


def _layer(module):
    parts = module.split(".")
    if parts[0] != "reportgen" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in LAYERS else None


def _project_imports(package):
    for module, path in _modules(package):
        for imported, line in _imports(path):
            top = imported.split(".")[0]
            if top in ("study", "experiments", "reportgen"):
                yield module, path, imported, line


def test_packages_import_one_way():
    allowed = {"study": {"study"}, "experiments": {"study", "experiments"}, "reportgen": {"study", "reportgen"}}
    wrong = [f"{path.relative_to(ROOT)}:{line}: {module} imports {imported}"
             for package in allowed for module, path, imported, line in _project_imports(package)
             if imported.split(".")[0] not in allowed[package]]
    assert not wrong, "\n".join(wrong)


def test_reportgen_layers_run_one_way():
    wrong = []
    for module, path, imported, line in _project_imports("reportgen"):
        mine, theirs = _layer(module), _layer(imported)
        if mine is None or theirs is None:
            if module != "reportgen" and mine is None:
                wrong.append(f"{path.relative_to(ROOT)}: module outside the layers {LAYERS}")
            continue
        if LAYERS.index(theirs) > LAYERS.index(mine):
            wrong.append(f"{path.relative_to(ROOT)}:{line}: {mine} module imports {imported} ({theirs} layer)")
        if mine in PRESENTATION and theirs == "commands":
            wrong.append(f"{path.relative_to(ROOT)}:{line}: presentation module imports the command {imported}")
    assert not sorted(set(wrong)), "\n".join(sorted(set(wrong)))


READS = {"read_text", "read_bytes", "open", "load", "safe_load", "iterdir", "glob", "rglob"}
# Files outside data/ that read files, each with what it reads (none of them result or archive files).
OTHER_READERS = {
    "reportgen/publish/verify.py": "the built site (HTML, numbers.json, machine.json, its data/ copies: checked against the\n"
                                "sha256 sums of the run manifests that data/load read) and the page templates",
    "reportgen/publish/coverage.py": "the rendered pages of the built site",
    "reportgen/publish/sitecheck.py": "every file of the built site (its sha256, bounded JSON, HTML/SVG markup)",
    "reportgen/publish/pagecontent.py": "the page templates (hand-typed figures) and the vendored scripts (their sha256)",
    "reportgen/commands/pdf.py": "mkdocs.yml and the built site's HTML",
    "reportgen/commands/build.py": "the output folder it replaces (a lock file, is it a site?)",
    "reportgen/commands/lockfile.py": "the lock files of build and retest (never through a symlink)",
    "reportgen/commands/retest.py": "profiles, the code it fingerprints, and the log and records it is writing",
    "reportgen/commands/serve.py": "the built site",
    "reportgen/commands/stale.py": "the names in results/runs/ (a stopped retest's .tmp- folders, locks and markers);\n"
                                   "the runs in them through data/load",
    "reportgen/publish/wordsplit.py": "the search's word cache in this user's cache folder (a plain file, size-bounded)",
    "reportgen/publish/nofollow.py": "nothing: it opens the site files it writes (never through a symlink)",
    "reportgen/commands/trace.py": "the built site's numbers.json (a derived figure's formula and operands) and\n"
                                   "machine.json (which machine a plain id means)",
    "reportgen/pages/writeup.py": "docs/snippets/*.py, the test-executed code shown on the pages",
}


def _file_reads(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in READS and not (name == "load" and isinstance(func, ast.Attribute)
                                      and getattr(func.value, "id", "") not in ("json", "yaml")):
                yield node.lineno, name


def test_only_data_reads_result_and_archive_files():
    wrong = []
    for _module, path in _modules("reportgen"):
        rel = str(path.relative_to(ROOT))
        if rel.startswith("reportgen/data/"):
            continue
        reads = list(_file_reads(path))
        if reads and rel not in OTHER_READERS:
            wrong += [f"{rel}:{line}: {name}() outside reportgen/data" for line, name in reads]
    assert not wrong, "\n".join(wrong)


def _module_graph():
    """module -> the project modules it imports anywhere in its code (function bodies too); for
    ``from pkg import name`` the edge goes to ``pkg.name`` when that is a module, else to ``pkg``."""
    known = {module for package in ("study", "experiments", "reportgen") for module, _ in _modules(package)}
    graph = {}
    for package in ("study", "experiments", "reportgen"):
        for module, path in _modules(package):
            names = {name for name, _ in _imports(path)} & known
            # `from pkg import mod` yields pkg and pkg.mod: keep the module, not the package above it
            graph[module] = {name for name in names if not any(other.startswith(f"{name}.") for other in names)} - {module}
    return graph


def _cycles(graph):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_cycle_between_modules():
    """Inside a package too: a cycle (experiments.int8.quantize <-> vnni_ops was one, through an
    import inside a function) means two modules that cannot be understood one without the other."""
    assert _cycles(_module_graph()) == []
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]   # the finder finds one


MAX_MODULE_LINES = 700


def test_no_module_is_over_700_lines():
    """A module a reader cannot hold in mind is split by concern (the GEMM ladder's MetaSchedule
    tuning, the NCHWc rules, the graph study's ResNet-18 and pass map each live in their own)."""
    long = [f"{path.relative_to(ROOT)}: {n} lines"
            for folder in ("experiments", "reportgen", "study")
            for path in sorted((ROOT / folder).rglob("*.py"))
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES]
    assert long == []


def _undefined_names(tree):
    """Names a module loads that nothing in it defines, imports or binds (scopes merged: a cheap
    check that catches a name left behind when code moves between modules)."""
    import ast
    import builtins
    defined = set(dir(builtins)) | {"__file__", "__path__", "__name__", "__doc__", "__spec__"}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            defined.add(node.id)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            defined.add(node.name)
    return sorted({n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - defined)


def test_no_module_uses_a_name_it_never_defines_or_imports():
    import ast
    found = {str(path.relative_to(ROOT)): names
             for folder in ("experiments", "reportgen", "study")
             for path in sorted((ROOT / folder).rglob("*.py"))
             if (names := _undefined_names(ast.parse(path.read_text(encoding="utf-8"))))}
    assert found == {}
