"""MkDocs plugin: inject data into the pages, add generated pages, index every figure.

Hooks, in MkDocs' order:
  on_config        load archive + results once, validate, merge, build chart specs
  on_files         add provenance pages, the coverage page and chart SVGs
  on_page_markdown render the page template (Jinja, StrictUndefined) with the data
  on_page_content  keep each page's HTML for the coverage checks
  on_env           every page is rendered: evaluate coverage and fill its page
  on_post_build    write numbers.json and coverage.json, publish records and logs
"""
import functools
import html
import json
import math
import re
import time
from pathlib import Path

import jinja2
import jinja2.meta
import jinja2.nodes
from mkdocs.config import config_options as c
from mkdocs.config.base import Config
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File

from reportgen import pages
from reportgen.publish import digitforms, nofollow
from reportgen.data import archive, campaigns, compare, derived, frame, load, logtext, merge, plainfile, profiles, runfacts, runlists, seed
from reportgen.errors import ReportError, broken_check, debugging
from reportgen.pages import e2e_rules, history, int8_rules, machines, pairs
from reportgen.render import blame, cells, charts, comparable, figures, labels, provenance
from reportgen.publish import configcheck, coverage, csvs, nesting, pagecontent
from reportgen.publish.configcheck import MAX_SETTING_CHARS
from reportgen.publish import sandbox
from reportgen.publish.sandbox import RENDER_S, sandbox as _sandbox, time_limit as _time_limit
from study import confusables, identity
from reportgen.data.words import W
from reportgen.render.figures import FigureBook, derived_entries

COVERAGE_PAGE = "coverage.md"
from reportgen.publish.coveragepage import GENERATED, coverage_markdown
# Per-record provenance pages stay out of the search index (three quarters of it, 1.6 of 2.2 MB, which every page
# view downloads): a reader reaches them from a figure's link, the family's index page or `reportgen trace ID`.
UNSEARCHED = "---\nsearch:\n  exclude: true\n---\n"


class ReportgenConfig(Config):
    results_dir = c.Type(str, default="results")
    archive_dir = c.Type(str, default="archive")
    machine = c.Type(str, default="")   # publication machine (id or prefix); "" = merge.DEFAULT_RULE


def checked_runs(results_dir):
    """(runs, campaigns) as a build accepts them, or ReportError naming each problem (run_problems).
    The build and retest's clean_stale (before it publishes a run a stopped retest left) apply this
    one check, so a run the one accepts the other never refuses."""
    runs, campaigns, problems = run_problems(results_dir)
    if problems:
        raise ReportError(problems)
    return runs, campaigns


def theme_shadow_problem(files, docs_dir, theme_dirs):
    """A docs file at the path of a theme file, or None: MkDocs lets docs/ win without a word, so a
    docs/assets/javascripts/bundle.<hash>.min.js (or the search worker) became the script every page
    runs as the theme's, a file no reviewer reads as one."""
    import os
    for file in files:
        if file.abs_src_path and Path(file.abs_src_path).is_relative_to(docs_dir):
            theirs = next((d for d in theme_dirs for uri in (file.src_uri, file.dest_uri)   # docs/404.md: the 404 page
                           if os.path.isfile(os.path.join(d, uri))), None)
            if theirs is not None:
                return (f"docs/{file.src_uri}: stands in for the theme's own file of that path ({theirs}); "
                        "a docs file never replaces the theme's: give it another name")
    return None


def spec_problem(where, page_html, specs):
    """A chart spec of a page that is not one the build draws from its records (charts.specs), as it
    writes it, or None: a page's own <script id="spec-x"> drew any figures, labels or escapes."""
    from reportgen.publish import sitecheck
    parsed = sitecheck.Markup()
    parsed.feed(page_html)
    for tag, name, text in parsed.data:
        if name.startswith("spec-") and (name[5:] not in specs or text != charts.payload(specs[name[5:]])):
            return (f"{where}: <{tag} id={name[:60]!r}>: not a chart the build draws from the records "
                    "(a page shows only charts.py's charts, with their data, through a chart placeholder)")
    return None


def run_problems(results_dir, runs=None):
    """(runs, campaigns, problems): every run valid alone and against the others (load.read_runs;
    ``runs`` when the caller has read them), every engine one the pages can name, the campaigns valid
    as runs are.  verify collects the problems with the others it finds; a build stops at them."""
    problems = []
    if runs is None:
        try:
            runs = load.read_runs(results_dir)
        except ReportError as exc:
            problems.extend(exc.problems)
            runs = []
    problems.extend(labels.engine_problems(runs))
    try:
        campaigns = load.read_campaigns(results_dir, runs)
    except ReportError as exc:
        problems.extend(exc.problems)
        campaigns = None
    return runs, campaigns, problems


class Data:
    """Everything the templates may use, computed once per build."""

    def __init__(self, root, results_dir, archive_dir, machine="", how=merge.BY_OPTION):
        self.results_dir = root / results_dir
        self.archive_dir = root / archive_dir
        loaded, self.campaigns = checked_runs(self.results_dir)
        # a run whose code cannot be checked out never stands for a case (history lists it, marked)
        self.all_runs, self.unknown_commits = runfacts.standing(root, loaded)
        self.code_changed = runfacts.code_changed(root)   # does git show the code changed between two runs (history.jumps)
        self.excluded_runs = [run for run in loaded if run.run_id in self.unknown_commits]
        self.loaded = loaded   # every valid run, for the build's verify (it need not read them twice)
        # One publication machine: every topic page, conclusion and chart uses only its runs.
        self.machine, self.machine_reason = merge.publication_machine(self.all_runs, machine or None, how)
        self.default_machine = merge.publication_machine(self.all_runs)[0]   # the rule's, named beside a pin
        self.runs = merge.runs_of(self.all_runs, self.machine)
        self.smoke = bool(self.runs) and all(merge.is_smoke(r) for r in self.runs)
        self.tables, self.environments = archive.read_archive(self.archive_dir)
        self.checks = derived.run_checks(self.tables)
        # the records whose median jumped against an earlier run of the same code on their machine, found
        # once: history lists them, figures (FigureBook), chart points and numbers.json flag them
        memo = {}   # each record's claims, read once for both
        self.jumps = history.all_jumps(self.all_runs, self.code_changed, profiles.claims_across(root), memo)
        self.jumped = history.flagged(self.all_runs, found=self.jumps)
        self.confirming = runlists.confirming(self.results_dir, self.all_runs)[0]   # problems: checked_runs refused them
        self.first_level = history.first_levels(self.all_runs, self.confirming, memo)   # held by no accepted run
        self.new_level = self.first_level | history.unconfirmed(self.all_runs, self.code_changed, found=self.jumps,
                                                                confirming=self.confirming, memo=memo)
        # a Current is marked for either (charts' points, "fastest of" choices read the mark); the words differ
        self.current = merge.current_records(self.runs, self.jumped | self.new_level, history.held_back(self.jumps))
        blame.track(self.current)   # a page stopping on a field missing or null names the record and the field
        self.frame = frame.of(self.current)   # the same records as one DataFrame, kept on self.current
        self.archive = frame.archive_frame(self.tables)   # the historical cells, strings as printed
        self.env = merge.latest_environment(self.runs, self.current)
        self.specs = charts.build_all(self.tables, self.current, self.env, self.runs)
        # the seed's content map and code snippets, read once: the checklist, write-up pages and coverage use them
        self.content_map = seed.read_content_map(self.archive_dir)
        self.code = seed.read_code(self.archive_dir)
        self.rules, self.items = coverage.read_items(self.archive_dir, self.code)
        # The cross-machine page: each machine's own current records and headline figures.
        self.machines = merge.machines(self.all_runs)
        self.by_machine = {mid: merge.current_records(merge.runs_of(self.all_runs, mid), self.jumped | self.new_level)
                           for mid in self.machines}
        blame.track(*self.by_machine.values())   # the machines page reads theirs
        # a ratio of two current records held to the jump factor as a median is (pages.pairs)
        self.pairs = pairs.flagged_pairs(self.all_runs, self.by_machine, self.jumped | self.new_level, self.code_changed,
                                         self.confirming, history.JUMP)
        self.headlines = {mid: machines.headline(cur, merge.latest_environment(merge.runs_of(self.all_runs, mid), cur))
                          for mid, cur in self.by_machine.items()}
        # the rule section may read another machine (pages/e2e_rules.pick): its chart too
        self.specs["rules_curve"] = charts.flagged(e2e_rules.curve_chart(self).to_dict())

    def families(self):
        return sorted({c.record["experiment"] for c in self.current.values()})


ARCHIVE_SECTIONS = (("s20_tf_vs_tvm", "s20"), ("s20_summary", "s20-summary"), ("s20_top_classes", "s20-classes"),
                    ("s21_peak", "s21-peak"), ("s21_numpy", "s21"), ("s22_hand_ladder", "s22"), ("s23_tvm_stages", "s23"),
                    ("s33_tvm_stages_text", "s33"), ("s24_passes", "s24"), ("s29_conv_unit", "s29"), ("s31_int8", "s31"),
                    ("s02_groups", "s02"), ("s08_quant_metrics", "s08"), ("s09_summary", "s09"), ("s32_coverage", "s32"),
                    ("prose_numbers", "prose-numbers"))
"""(archived table, its heading's anchor) in the order archive.md shows them: names holding digits are
the code's, never text typed into a page's Jinja (pagecontent.template_problem)."""
HIST_ENVS = ("hist_tf_tvm_2020", "hist_gemm_server", "hist_quant", "hist_relay_tvm06")
"""The seed's environments environment.md lists, in its order."""


class Templates:
    """The names a page template can use. Values are finished strings."""

    def __init__(self, data, book):
        self.data, self.book = data, book

    def names(self):
        d, b = self.data, self.book
        return {
            "hist": lambda table, row, col: b.historical(d.tables[table].cell(row, col)),
            # the archive's words are text, never Markdown ('\n\n!!! danger' made a live warning box)
            "archive_title": lambda table: cells.text(d.tables[table].meta["title"]),
            "archive_evidence": lambda table: cells.text(d.tables[table].meta["unit_evidence"]),
            "not_comparable": lambda *families: comparable.family_note(d.current, families),
            "compare_alpha": f"{compare.ALPHA:g}",
            "compare_min_effect": f"{compare.MIN_EFFECT:.0%}",
            "publication_machine": d.machine or "",
            "publication_by_option": d.machine_reason == merge.BY_OPTION,
            "publication_pinned": d.machine_reason.startswith(merge.PINNED),
            "publication_default": d.default_machine or "",
            "publication_cases": str(len(d.machines[d.machine].thorough_cases)) if d.machine else "0",
            "publication_families": str(len(d.machines[d.machine].thorough_families)) if d.machine else "0",
            "hist_env": lambda key: machines.historical_environment(d.environments[key]),
            "hist_env_keys": HIST_ENVS,
            "archive_sections": ARCHIVE_SECTIONS,
            "chart": self.chart,
            "link": b.link,
            "measured": self.measured,
            "runs": [r.run_id for r in d.runs],
            # ISA words on pages come from the publication machine, never typed for one CPU
            "isa_level": identity.isa_level(d.env or {}),
            "has_vnni": "vnni" in identity.isa_level(d.env or {}),
            # does AVX-512 raise the measured FMA peak here (Zen 4 runs 512-bit FMAs as two 256-bit halves)?
            "avx512_doubles_peak": self.wide_gain() > 1.5,
            "widest_register": {"avx512": "zmm", "avx2": "ymm"}.get(identity.isa_level(d.env or {})[:6], "xmm"),
            **pages.names(self),
        }

    def wide_gain(self):
        """Measured FP64 one-core peak with AVX-512 over AVX2 on the publication machine (0 if unmeasured)."""
        wide = merge.isa_peak(self.data.current, "float64", 1, "avx512")
        narrow = merge.isa_peak(self.data.current, "float64", 1, "avx2")
        if wide is None or narrow is None:
            return 0.0
        return wide.gflops() / narrow.gflops()

    def threads(self, threads):
        """A thread count of a template ('all' = the publication machine's cores)."""
        return self.data.env["logical_cores"] if threads == "all" else threads

    def chart(self, name):
        href = self.book._rel(f"assets/charts/{name}.svg")
        return charts.embed_html(name, self.data.specs[name], href)

    def measured(self, family):
        """True when the family has a current record (for pages still waiting on data)."""
        return family in self.data.families()


def _page_own(value):
    """A value in the rendering read for markup only the build writes: a word as it is ({% set kind =
    "csv" %}<p class="{{ kind }}"> makes the class), markup or escaped text left out (what placeholders
    write: the build's own figures and verdicts, record strings escaped)."""
    text = "" if value is None else str(value)
    return "" if "<" in text or "&" in text else text


def _digit_free(value):
    """A placeholder's value in the rendering read for typed figures: as it is, or pagecontent.LEFT_OUT
    when it is text holding a digit (a figure, or markup made by reportgen/pages, whose figures are the
    records').  A number is kept, marked (COMPUTED): Jinja computed it (a loop's counter) or a placeholder gave it."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{pagecontent.COMPUTED}{value}{pagecontent.COMPUTED}"
    text = "" if value is None else str(value)   # two figures glued in one value ({{ a ~ b }}) are left out twice
    return digitforms.left_out(text) if re.search(r"\d", text) else text


UNBOUNDED = {jinja2.nodes.Pow: "'**'", jinja2.nodes.Mul: "'*'", jinja2.nodes.Mod: "'%'"}
"""Operators whose result can outgrow any page (a power, a string repeated, "%0999999999d" % 1): Jinja
folds them while it compiles a page, before any render, and the sandbox intercepts none of them. No
docs page uses them."""
LARGEST_LITERAL = 10**4   # a number a page writes: "a\nb"|indent(2000000000) was folded into 2 GB


MAX_TEMPLATE_DEPTH = 40
"""How deep a docs page's parsed Jinja may nest (the project's pages: at most 9).  Jinja parses a chain of
attributes, filters or 'and's in a loop, not by recursion, so ``x.a.a...`` 3000 long parsed, and every walk
of its tree after (the checks below, Jinja's own analysis) ran out of stack: 'reportgen broke'."""


def _deep_node(tree):
    """The first node of a parsed page nested deeper than MAX_TEMPLATE_DEPTH, or None: measured with a stack
    of its own, before anything walks the tree by recursion."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_TEMPLATE_DEPTH:
            return node
        stack.extend((child, depth + 1) for child in node.iter_child_nodes())
    return None


def _unbounded_node(tree):
    """The first node of a parsed docs page whose work has no bound (UNBOUNDED, or a number beyond
    LARGEST_LITERAL), with ``what`` set to name it; None when there is none."""
    for node in tree.find_all((*UNBOUNDED, jinja2.nodes.Const)):
        if type(node) in UNBOUNDED:
            node.what = f"the operator {UNBOUNDED[type(node)]}"
            return node
        value = node.value
        if isinstance(value, (int, float)) and not isinstance(value, bool) and not abs(value) <= LARGEST_LITERAL:
            node.what = f"a number beyond {LARGEST_LITERAL}"   # never printed: str() of 5000 digits raises
            return node
    return None


class ReportgenPlugin(BasePlugin[ReportgenConfig]):
    render_left = sandbox.BUILD_RENDER_S   # seconds every page's renders may still take (on_config resets it)
    generated = frozenset()   # the pages the build writes itself (on_files sets them)

    def on_config(self, config):
        self.root = Path(config.config_file_path).resolve().parent
        configcheck.config_problems(config, self.root, self.config)   # before any data is read
        self.data = Data(self.root, self.config.results_dir, self.config.archive_dir, self.config.machine,
                         getattr(self, "chosen_by", merge.PINNED))
        print(f"publication machine: {self.data.machine} ({self.data.machine_reason})", flush=True)
        self.book = FigureBook()
        self.book.jumped = self.data.jumped
        self.book.new_level = self.data.new_level
        for pair in self.data.pairs:
            for key in pair.keys:
                self.book.pairs.setdefault(key, []).append(pair)
        self.book.followed = pairs.followed
        self.jinja = _sandbox()
        # the same pages with every placeholder value that holds a digit left out: what is left is the
        # text the page's author typed, as the reader gets it (loops run, conditions decided, words and
        # units of placeholders kept: "0.01 {{ unit }}"), read for figures
        self.typed = _sandbox(_digit_free)
        # and with every value holding markup left out: the markup the page's own text makes, read for
        # what only the build writes ({% set kind = "csv" %}<p class="{{ kind }}"> is the page's own)
        self.bare = _sandbox(_page_own)
        self.render_left = sandbox.BUILD_RENDER_S   # seconds every page's renders may still take
        self.converter = nesting.Converter(getattr(config, "markdown_extensions", None) or [],
                                           getattr(config, "mdx_configs", None) or {})   # and their conversions
        self.pages_html = {}
        self.csv_files = {}   # site path -> CSV text of one table (publish.csvs)
        self.csv_owner = {}   # site path -> the docs page whose table it is
        self.names_defined, self.names_used, self.names_shown = set(), set(), set()
        pages = [{family: f"provenance/{family}.md"} for family in self.data.families()]
        pages += [{W("plugin.on_config.machine_title", machine=mid): machines.provenance_page(mid)} for mid in self.other_machines()]
        # the build's own titles and footer are words (docs/words/plugin.yaml) the theme writes into every page,
        # outside the content's checks: plain text, the footer's <code> aside (a nav title ending '<s>' struck out every page)
        # the footer as written, its <code> pairs around the placeholders aside ('<code>' 600 000 times passed a
        # check made after every <code> was stripped, and 3.6 MB went into every page)
        footer = W("plugin.footer.text", commit="", date="", machine="")
        own = [next(iter(entry)) for entry in pages] + [W("plugin.on_config.nav_provenance"),
                                                         footer.replace("<code></code>", "")]
        odd = next((t for t in own if re.search(r'[<>&"]', t) or len(t) > MAX_SETTING_CHARS), None) or (
            footer if len(footer) > MAX_SETTING_CHARS else None)
        if odd is not None:
            raise ReportError(f"docs/words/plugin.yaml: {odd[:60]!r}: a navigation title or the footer is plain text "
                              f"(no <, >, & or \", the footer's <code> aside; at most {MAX_SETTING_CHARS} characters): "
                              "the theme writes it into every page")
        # and held to the rules of mkdocs.yml's titles: two ideographic spaces made a blank section title, 200
        # enclosing marks were drawn over every page's footer, a section named as a page took its place
        odd = next(((t, why) for t in own[:-1] + [own[-1].strip()] if (why := configcheck.title_problem(t))), None)
        if odd is not None:
            raise ReportError(f"docs/words/plugin.yaml: {odd[0][:60]!r}: a navigation title or the footer that is "
                              f"{odd[1]}; the theme writes it into every page")
        link = configcheck.csv_link_problem(W("plugin.csv_link"))
        if link:
            raise ReportError(f"docs/words/plugin.yaml: csv_link: {link}")
        titles = configcheck.nav_titles(getattr(config, "nav", None)) + own[:-1]
        twice = confusables.repeated(titles, apart=True)
        if twice is not None:
            raise ReportError(f"docs/words/plugin.yaml: {twice[:60]!r}: a navigation title the build adds is the same as "
                              "another title of the navigation, or one character from it; each names one place in it")
        if pages and config.nav is not None:
            config.nav.append({W("plugin.on_config.nav_provenance"): pages})
        # every page's footer names the code and machine it was built from (the commit's date, not the clock)
        config["copyright"] = W("plugin.footer.text", commit=html.escape(self.code_version["commit"][:10]),
                                date=html.escape(self.code_version["date"]),
                                machine=html.escape(self.data.machine or "—"))
        return config

    @functools.cached_property
    def code_version(self):
        """{commit, date} of the checkout the site is built from ("unknown" outside git)."""
        import subprocess
        try:
            out = subprocess.run(["git", "-C", str(self.root), "log", "-1", "--format=%H %cs"], capture_output=True,
                                 text=True, timeout=30).stdout.split()
        except (OSError, subprocess.SubprocessError):
            out = []
        return {"commit": out[0], "date": out[1]} if len(out) == 2 else {"commit": "unknown", "date": "unknown"}

    def on_files(self, files, config):
        shadow = theme_shadow_problem(files, config.docs_dir, config.theme.dirs)
        odd = [pagecontent.docs_file_problem(f.src_uri, f.abs_src_path) for f in files
               if f.abs_src_path and Path(f.abs_src_path).is_relative_to(config.docs_dir)]
        if shadow or any(odd):
            raise ReportError(shadow or [p for p in odd if p])
        docs = {f.src_uri for f in files}   # a docs file at a path the build writes was replaced, without a word
        for family in self.data.families():
            grouped = provenance.groups(merge.family(self.data.current, family))
            files.append(File.generated(config, f"provenance/{family}.md",
                                        content=GENERATED + "\n" + provenance.index_page(family, grouped)))
            for group, currents in grouped.items():   # one small page per group (not in the nav)
                head = UNSEARCHED.replace("---\n", f"---\ntitle: {json.dumps(provenance.group_title(family, currents))}\n", 1)
                content = head + GENERATED + "\n" + provenance.page(self.data.results_dir, f"{family} · {group}", currents,
                                                     data_prefix="../../data")
                files.append(File.generated(config, f"provenance/{family}/{group}.md", content=content))
        for mid in self.other_machines():
            entries = {cur.record["id"]: cur for cur in self.data.headlines[mid].values()}
            for section in (e2e_rules, int8_rules):   # sections that read this machine's records
                src = section.source(self.data, self.book)
                if src.machine == mid:
                    entries.update(src.records())
            # another machine's cells link their cited log lines, not whole logs: the site stays
            # the same size per machine however long its logs grow
            content = UNSEARCHED + GENERATED + "\n" + provenance.page(self.data.results_dir, W("plugin.on_config.machine_title", machine=mid),
                                                                      entries, full_log=False)
            files.append(File.generated(config, machines.provenance_page(mid), content=content))
        files.append(File.generated(config, COVERAGE_PAGE, content=GENERATED + W("plugin.on_files.coverage_stub")))
        for name, spec in self.data.specs.items():
            files.append(File.generated(config, f"assets/charts/{name}.svg", content=charts.svg(spec)))
            files.append(File.generated(config, f"assets/charts/{name}.print.svg",
                                        content=charts.svg(spec, text=charts.PRINT_TEXT)))
        # the pages this build wrote itself (File.generated marks them), never a docs page whose text
        # starts with the GENERATED comment: that line skipped the hidden-character and placeholder checks
        self.generated = {f.src_uri for f in files if f.generated_by is not None}
        if docs & self.generated:
            raise ReportError(f"docs/{sorted(docs & self.generated)[0]}: the build writes a file of this path itself")
        return files

    def on_page_markdown(self, markdown, page, config, files):
        self.book.set_page(page.file.src_uri)
        blame.start()
        generated = page.file.src_uri in self.generated
        if not generated and len(markdown) > pagecontent.MAX_PAGE_CHARS:   # before any check reads it whole (a 4 MiB
            raise ReportError(pagecontent.source_problem(f"docs/{page.file.src_uri}", markdown))   # page: 25 s of Jinja)
        hidden = None if generated else (plainfile.huge_reference_problem(f"docs/{page.file.src_uri}", markdown)
                                         or plainfile.hidden_text_problem(
            f"docs/{page.file.src_uri}", markdown, controls=True) or plainfile.shown_controls_problem(
            f"docs/{page.file.src_uri}", markdown) or plainfile.front_matter_problem(
            f"docs/{page.file.src_uri}", page.file.abs_src_path) or plainfile.hidden_text_problem(
            f"docs/{page.file.src_uri} front matter (escapes decoded)", json.dumps(page.meta, ensure_ascii=False, default=str)))
        if hidden:
            raise ReportError(hidden)
        if generated:
            # a case group's entries (generated after every docs page, so the book already holds the
            # derived figures of all of them): formula and operands of each figure derived from its records
            uri = page.file.src_uri
            if uri.startswith("provenance/") and (uri.count("/") == 2 or uri.startswith("provenance/machine-")):
                markdown += "\n" + provenance.derived_section(
                    derived_entries(self.book.index(), page.file.src_uri), self.book._rel)
            return self._converts(f"docs/{page.file.src_uri}", markdown, markdown)   # records' text in it
        try:
            try:
                tree = self.jinja.parse(markdown)
            except RecursionError:   # 60 000 nested '{{' (a mistake as much as an attack): name the page
                raise ReportError(f"docs/{page.file.src_uri}: its Jinja is nested too deep for Jinja's parser; "
                                  "a docs page fills in placeholders") from None
            deep = _deep_node(tree)
            if deep is not None:
                raise ReportError(f"docs/{page.file.src_uri}:{getattr(deep, 'lineno', 1)}: a placeholder nested more than "
                                  f"{MAX_TEMPLATE_DEPTH} deep (attributes, filters or operators chained): a docs page "
                                  "fills in placeholders; compute it in a reportgen/pages module")
            names = Templates(self.data, self.book).names()
            self.names_defined = set(names)
            unbounded = _unbounded_node(tree)   # before find_undeclared_variables: its code generator folds constants
            if unbounded:
                raise ReportError(f"docs/{page.file.src_uri}:{unbounded.lineno}: {unbounded.what}: a docs page holds "
                                  "placeholders, not arithmetic (Jinja computes it while checking the page, with no "
                                  "bound: 9**(9**9) stopped the build); compute it in a reportgen/pages module")
            assembled = pagecontent.template_problem(tree)
            if assembled:
                raise ReportError(f"docs/{page.file.src_uri}:{assembled.lineno}: {assembled.what}: a docs page fills in "
                                  "placeholders, it does not assemble text (markup only the build writes could be made "
                                  "out of pieces no check reads); compute it in a reportgen/pages module")
            odd = pagecontent.source_problem(f"docs/{page.file.src_uri}", markdown)
            if odd:
                raise ReportError(odd)
            # names the template sets itself ({% set %}, {% for %}) are not placeholders, even where
            # Jinja's own analysis cannot prove them set (a {% set %} inside an {% if %})
            local = {n.name for n in tree.find_all(jinja2.nodes.Name) if n.ctx in ("store", "param")}
            used = jinja2.meta.find_undeclared_variables(tree) - local
            self.names_used |= used
            unknown = sorted(used - self.names_defined - set(self.jinja.globals))
            if unknown:   # every unknown name of the page at once, not the first one rendering meets
                raise ReportError(f"docs/{page.file.src_uri}: unknown placeholder{'s' if len(unknown) > 1 else ''}: "
                                  f"{', '.join(unknown)} (not defined by any reportgen/pages module)")
            where, started = f"docs/{page.file.src_uri}", time.monotonic()
            with _time_limit(max(1, min(RENDER_S, math.ceil(self.render_left))), where):
                text, shown = sandbox.render_shown(self.jinja, tree, names, where, unfolded=history.SHOWN)
                own = sandbox.render(self.typed, tree, names, where)   # the page's own text, Jinja run, placeholder figures out
                bare = sandbox.render(self.bare, tree, names, where)
            self.render_left -= time.monotonic() - started
            self.names_shown |= shown   # asked for and run: history.SHOWN holds the jump list to it
            hidden = plainfile.shown_controls_problem(f"docs/{page.file.src_uri} as rendered", text)
            if hidden:   # '&#{{ n }};' made a backspace of a placeholder's bare 8
                raise ReportError(hidden)
            # the rendered text's bounds first (its size, its blocks): the typed-figure scan reads it whole
            typed = [p for p in [pagecontent.source_problem(f"docs/{page.file.src_uri} (as rendered)", bare)] if p] or \
                pagecontent.typed_in_rendered(f"docs/{page.file.src_uri}", own, phrases=digitforms.declared(page.meta))
            if typed:
                raise ReportError(typed)
            shows_current = any(e["page"] == page.file.src_uri and e["kind"] == "current"
                                for e in self.book.entries.values())
            # the machines page is the banner's target; a page with the machine card says it already
            text = pagecontent.under_title(text, machines.banner(self.data, page.file.src_uri) if shows_current and (
                page.file.src_uri != machines.PAGE and "machine_card" not in shown) else "", not self.data.smoke)
            return self._converts(f"docs/{page.file.src_uri}", markdown, text)   # as MkDocs is handed it, banner placed
        except jinja2.UndefinedError as exc:
            raise ReportError(f"docs/{page.file.src_uri}: unknown placeholder: {exc}") from exc
        except jinja2.TemplateSyntaxError as exc:
            raise ReportError(f"docs/{page.file.src_uri}:{exc.lineno}: template syntax: {exc.message}") from exc
        except (ReportError, OSError):   # these name their file already
            raise
        except Exception as exc:  # noqa: BLE001 - a page broke on the records it shows: name the page
            if debugging():
                raise
            said = blame.blamed(exc)
            raise ReportError(f"{said}; docs/{page.file.src_uri} was not built" if said
                              else broken_check(f"docs/{page.file.src_uri}", exc)) from exc

    def other_machines(self):
        return [mid for mid in self.data.by_machine if mid != self.data.machine]

    def on_post_page(self, output, page, config):
        # the page as a reader gets it (a bidi or zero-width character written as an entity, made by a
        # placeholder or given in the front matter's title) is read by verify at the build's end
        # (sitecheck.Markup notes the first one of every document it parses)
        drawn = spec_problem(f"docs/{page.file.src_uri}", output, self.data.specs) if "spec-" in output else None
        # a control character as Markdown writes it ('&\\#8;' is '&#8;' once the escape is undone)
        drawn = drawn or plainfile.shown_controls_problem(f"docs/{page.file.src_uri} as built", output)
        if drawn:
            raise ReportError(drawn)
        return with_csp(output)

    def on_post_template(self, output_content, template_name, config):
        # the static templates (404.html) are pages a visitor is sent to: the same policy
        return with_csp(output_content) if template_name.endswith(".html") else output_content

    def _converts(self, where, own, text):
        """``text``, once the page converts within the bounds (nesting.Converter), else ReportError."""
        deep = self.converter.problem(where, own, text)
        if deep:
            raise ReportError(deep)
        return text

    def on_page_content(self, html, page, config, files):
        uri = page.file.src_uri
        # the pages the build wrote are exempt, by what it wrote (a docs page under provenance/ passed by its path)
        if uri not in getattr(self, "generated", ()):
            html, found = csvs.attach(html, uri.removesuffix(".md"), W("plugin.csv_link"))
            taken = sorted(set(found) & set(self.csv_files))
            if taken:   # 'gemm/ladder.md' and 'gemm-ladder.md' both name csv/gemm-ladder-1.csv: one replaced the other
                raise ReportError(f"docs/{uri}: its table's download {taken[0]} is another page's "
                                  f"({self.csv_owner[taken[0]]}); rename the page")
            self.csv_files.update(found)
            self.csv_owner.update(dict.fromkeys(found, f"docs/{uri}"))
            headings = len(_HTML_HEADING.findall(html))
            if headings > pagecontent.MAX_PAGE_HEADINGS:   # as converted: '- # h' in a list, a heading in a box
                raise ReportError(f"docs/{uri}: {headings} headings as converted, more than "
                                  f"{pagecontent.MAX_PAGE_HEADINGS}: each is an entry of the page's table of contents "
                                  "the theme writes (37 000 in a list made a 3.9 MB page in minutes)")
        odd = pagecontent.content_problem(f"docs/{uri}", html, set(self.data.specs))
        if odd:
            raise ReportError(odd)
        self.pages_html[uri] = html
        return html

    def on_env(self, env, config, files):
        # every page's title as MkDocs settled it (a nav entry, the front matter or the page's first heading) is
        # written into every page's navigation: a 250 000-character heading made a 103 MB site in five minutes
        nav = getattr(config, "nav", None) if config else None
        # a page listed without a title takes its page's: the same as a section's title ('- fupan.md' beside a
        # section of that name), or as another page's
        listed = set(configcheck._strings(nav))
        seen = confusables.Names(apart=True)
        for title in configcheck.nav_sections(nav):
            seen.seen(title, f"mkdocs.yml's section {title!r:.40}")
        for f in files.documentation_pages():
            if f.page is None:
                continue
            why = configcheck.title_problem(str(f.page.title or ""))
            if why:   # the front matter's or the heading's title: 200 marks on one letter, ideographic spaces
                raise ReportError(f"docs/{f.src_uri}: its title ({str(f.page.title)[:40]!r}) is {why}; the "
                                  "theme writes every page's title into every page")
            if f.src_uri in listed:   # a nav entry without a title takes the page's: two of one name
                earlier = seen.seen(str(f.page.title or ""), f"docs/{f.src_uri}", apart=f.src_uri not in self.generated)
                if earlier is not None:   # the build's pages are titled by run ids: those may be one character apart
                    raise ReportError(f"docs/{f.src_uri}: its title ({str(f.page.title)[:40]!r}) is the title of "
                                      f"{earlier} too, or one character from it; each names one place in the navigation")
        content_map = self.data.content_map
        passages = coverage.evaluate_content(content_map, self.pages_html, self.book.index(self.pages_html), self.data.tables,
                                             self.data.code, self.root)
        today = coverage.evaluate_today(content_map, self.pages_html, self.root)
        ratios = coverage.ratios(content_map, passages, today)
        results = coverage.evaluate(self.data.items, self.pages_html, self.book.index(self.pages_html), self.data.tables,
                                    (passages, ratios))
        self.coverage = results
        self.content_rows = coverage.content_problems(passages, today, ratios)
        page = files.get_file_from_path(COVERAGE_PAGE).page
        page.markdown = coverage_markdown(results, coverage.archived_missing(self.book.index(self.pages_html), self.data.tables),
                                          self.data.rules, self.pages_html, (passages, today, ratios))
        self._converts(f"docs/{COVERAGE_PAGE}", page.markdown, page.markdown)   # the archive's words in it
        page.render(config, files)   # rendered here, after on_page_content: its markup is checked here
        odd = pagecontent.content_problem(f"docs/{COVERAGE_PAGE}", page.content, set(self.data.specs))
        if odd:   # a <form> in a coverage rule's text reached the page
            raise ReportError(odd)
        return env

    def on_post_build(self, config):
        unused = sorted(self.names_defined - self.names_used)   # dead code, or a page lost a sentence
        unrun = sorted(set(history.SHOWN) - self.names_shown - set(unused))   # named, never run: {% if false %}
        for names, how, fix in ((unused, "used by no page in docs/", "remove {0} from reportgen/pages, or put {0} back on a page"),
                                (unrun, "never run by the page that names it", "take {0} out of the branch or comment")):
            if names:
                raise ReportError(f"placeholder{'s' if len(names) > 1 else ''} {how}: {', '.join(names)} "
                                  f"({fix.format('them' if len(names) > 1 else 'it')})")
        if self.book.unfollowed:   # a ratio of two families' records that no rule holds to the jump factor
            a, b = sorted(self.book.unfollowed)[0]
            raise ReportError(f"reportgen/pages: a page prints a figure of {a} and {b} records of one machine, a pair of "
                              "families reportgen/pages/pairs.py does not follow (add one to ACROSS)")
        _say_jumps(self.data.all_runs, every=self.data.jumps)
        if self.data.pairs:
            print(cells.visible(f"history: {len(self.data.pairs)} ratio(s) of two current records moved beyond the noise "
                                f"while neither record did (listed at history.html#jumps)"), flush=True)
        for line in campaigns.step_lines(self.data.campaigns, self.data.loaded):
            print(cells.visible(line), flush=True)
        site = Path(config.site_dir)
        # every file is written without following a link (nofollow): a site folder holds only our files
        for name, text in sorted(self.csv_files.items()):
            nofollow.write_text(site, name, text)
        nofollow.write_text(site, "numbers.json", json.dumps(self.book.index(self.pages_html), ensure_ascii=False, indent=1))
        nofollow.write_text(site, "coverage.json", json.dumps(
            [{"id": r.item["id"], "page": r.item["page"], "anchor": r.item["anchor"],
              "covered": r.covered, "reasons": r.reasons} for r in self.coverage] + self.content_rows,
            ensure_ascii=False, indent=1))
        nofollow.write_text(site, "machine.json", json.dumps(
            {"publication_machine": self.data.machine, "reason": self.data.machine_reason,
             "smoke_only": self.data.smoke, "machines": sorted(self.data.by_machine)}, indent=1) + "\n")
        databases = []
        cited = _cited(self.pages_html.values(), "runs")
        for run in self.data.all_runs:
            # The site ships what its pages cite (logs, records, artifacts a page links to, and the
            # manifest of each such run), never a whole run: it stays light as history grows, and
            # every shipped file is one run.json lists (load refused symlinks; none is followed).
            # Tuning work folders (MetaSchedule databases) are summarized, not copied.
            wanted = {rel for rid, rel in cited if rid == run.run_id and (rel in run.manifest["files"] or rel == "run.json")}
            if wanted:
                wanted.add("run.json")
            for rel in sorted(wanted):
                # a text file over load.SHIP_LIMIT_BYTES ships truncated, with a line naming the whole
                nofollow.write_bytes(site, f"data/runs/{run.run_id}/{rel}", load.shipped_bytes(run, rel))
            databases.extend(load.file_summary(run, path) for path in load.tuning_files(run, TUNING_FOLDER))
        # a record a provenance entry links to, one file each (a reviewer gets the raw record without
        # the whole records.jsonl of its run), and another machine's cited log lines
        shipped = {kind: _cited(self.pages_html.values(), kind, _SHIPPED_NAME) for kind in ("records", "logs")}
        shipping = {rid for names in shipped.values() for rid, _name in names}
        for run in (run for run in self.data.all_runs if run.run_id in shipping):
            for rec in run.records:
                for kind, name, text in (
                        ("records", figures.record_file(rec["id"]),
                         lambda: json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n"),
                        ("logs", rec.get("log") and figures.log_excerpt_file(rec),
                         lambda: logtext.excerpt_text(self.data.results_dir, rec))):
                    if (run.run_id, name) in shipped[kind]:
                        nofollow.write_text(site, f"data/{kind}/{run.run_id}/{name}", text())
        nofollow.write_text(site, "data/tuning-databases.json", json.dumps(databases, indent=1) + "\n")


_HTML_HEADING = re.compile(r"<h[1-6][\s>]", re.I)


def _say_jumps(runs, code_changed=None, every=None):
    """At build time, one line when a run's figure or claim moved beyond the noise (a median by
    history.JUMP, a claim by its own rule in reportgen.data.claims) against the same machine's
    earlier run of the same code: the history page lists them, the builder hears of it too.
    ``every``: history.all_jumps(runs, code_changed) when the caller has it."""
    found, changed = history.split(history.all_jumps(runs, code_changed) if every is None else every)
    if changed:
        print(cells.visible(f"history: {len(changed)} record(s) moved beyond the noise between runs whose "
                            f"records claim another code or environment (listed at history.html#jumps)"), flush=True)
    if found:
        case, before, after, ratio, _changed, stat = found[-1]   # the newest: most often the run just added
        print(cells.visible(f"history: {len(found)} record(s) moved beyond the noise between runs of the "
                            f"same code on one machine (see history.html#jumps), e.g. {case} {before} -> {after}: "
                            f"x{ratio:.3g} ({stat})"), flush=True)


TUNING_FOLDER = "tune-"
"""A family's MetaSchedule work folder under artifacts/<family>/ (its databases and logs)."""


_SHIPPED_NAME = r"[A-Za-z0-9_.\-]+\.(?:json|txt)"   # figures.record_file / log_excerpt_file names


def _cited(pages_html, kind, name=r'[^"#?]+'):
    """{(run id, file)} of every data/<kind>/<run>/<file> a page links to: a run's own file
    (kind "runs"), a record ("records"), a log excerpt ("logs")."""
    pattern = re.compile(rf'(?:href|src)="(?:\.\./)*data/{kind}/([A-Za-z0-9_.+\-]+)/({name})"')
    return {(m.group(1), html.unescape(m.group(2))) for page in pages_html for m in pattern.finditer(page)}


PAGE_CSP = ("default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
            "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'")
"""The policy every page declares in a meta element, so that a copy served by any static host (or
opened from disk) loads nothing from elsewhere, runs no plugin and no inline or eval'd script:
Material's two inline scripts are files of the site (reportgen/publish/theme, docs/assets/js),
the search worker's iframe loads its first script as a file (docs/assets/vendor/iframe-worker-*),
and Vega interprets its chart expressions (charts.js: ast) instead of compiling them with Function.
`reportgen serve` sends it as a header too, with frame-ancestors (which a meta element cannot carry)."""

CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{PAGE_CSP}">'


def with_csp(page_html):
    """A page with the policy as the first element of its head (every .html the site holds)."""
    return page_html.replace("<head>", f"<head>\n{CSP_META}", 1)
