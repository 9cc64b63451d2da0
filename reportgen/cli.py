"""Command line: verbs in workflow order. Each is a thin wrapper over a function tests call."""
import os
import sys
from pathlib import Path

import click

from reportgen.errors import ReportError, debugging


class Root(os.PathLike):
    """The project root, found on first use: --root, or the nearest folder up holding mkdocs.yml."""

    def __init__(self, given, explicit):
        self.given, self.explicit, self._path = given, explicit, None

    @property
    def path(self):
        if self._path is None:
            start = self.given.resolve()
            if self.explicit:
                if not start.is_dir():
                    raise ReportError(f"--root {start}: no such folder; point --root at the project folder")
                self._path = start
            else:
                found = next((p for p in (start, *start.parents)   # a link is found, and refused where it is read
                              if (p / "mkdocs.yml").is_file() or (p / "mkdocs.yml").is_symlink()), None)
                if found is None:
                    raise ReportError(f"{start}: not inside the project (no mkdocs.yml here or in any parent "
                                      "folder); cd into it or pass --root")
                self._path = found
            from reportgen.data import words
            words.use_root(self._path)   # the project's words, not the package checkout's
        return self._path

    def __fspath__(self):
        return str(self.path)

    def __truediv__(self, other):
        return self.path / other


def _machine_option(_ctx, _param, value):
    """--machine: None when not given; an empty or blank value (an unset shell variable) is refused,
    never read as "not given": `build --machine "$M"` would publish the default machine instead."""
    if value is not None and not value.strip():
        raise ReportError(f"--machine: {value!r} is empty; give a machine id or a unique prefix of one "
                          "(`reportgen machines` lists them), or leave the option out for the default")
    return value


def _path_option(_ctx, param, value):
    """--root, --site-dir: a path holding no control, zero-width or bidi character (a right-to-left override in a
    --site-dir reversed every message naming it, and the folders a stopped build left were hard to name)."""
    from reportgen.data import plainfile
    problem = value is not None and plainfile.hidden_text_problem(f"--{param.name.replace('_', '-')}", str(value),
                                                                  controls=True)
    if problem:
        raise ReportError(f"{problem} (in the path given)")
    return value


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--root", type=click.Path(file_okay=False, path_type=Path), default=None, callback=_path_option,
              help="Project root (holds mkdocs.yml, results/, docs/); default: found upwards from here.")
@click.pass_context
def cli(ctx, root):
    """Re-run the TVM study, build its site, and trace any figure to its log."""
    ctx.obj = Root(root or Path("."), explicit=root is not None)
    if ctx.invoked_subcommand != "retest":   # retest handles its stops itself (commands.stops)
        _stops_unwind()


def _stops_unwind():
    """SIGTERM (kill, timeout) and SIGHUP (a closed terminal) end a command as Ctrl-C does: its cleanup
    runs (a verify's fresh build, a serve's copy, the build's word folder), where the default action
    ended the process on the spot and left them in /tmp."""
    import signal

    def stop(_signum, _frame):
        raise KeyboardInterrupt
    try:
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, stop)
    except ValueError:   # not the main thread (a test calling the group): leave the signals alone
        pass


@cli.command(name="retest")
@click.option("--profile", type=click.Choice(["quick", "standard", "full"]), default="quick",
              show_default=True)
@click.option("--only", multiple=True, metavar="NAME", help="Run only this family (repeatable).")
@click.option("--force", is_flag=True, help="Re-measure cases even when reusable.")
@click.option("--rpc-tracker", metavar="HOST:PORT", help="Measure on a device registered with this TVM RPC tracker.")
@click.option("--rpc-key", metavar="KEY", help="Device key at the tracker (with --rpc-tracker).")
@click.option("--target", "target_json", metavar="JSON", help="TVM target: of the RPC device (default: what it reports), or {\"kind\": \"cuda\"} for this machine's GPU.")
@click.option("--allow-dirty", is_flag=True,
              help="Run a standard/full profile from a tree with uncommitted code (marked dirty in run.json).")
@click.pass_obj
def retest_command(root, profile, only, force, rpc_tracker, rpc_key, target_json, allow_dirty):
    """Run experiment families and store a new run under results/runs/.

    Example: reportgen retest --profile quick --only numpy_gemm
    """
    from reportgen.commands import retest
    retest.retest(root, profile, only=only, force=force, argv=sys.argv, rpc_tracker=rpc_tracker,
                  rpc_key=rpc_key, target_json=target_json, allow_dirty=allow_dirty)


@cli.command(name="build")
@click.option("--site-dir", type=click.Path(path_type=Path), default=None, callback=_path_option,
              help="Output folder (default: <root>/site).")
@click.option("--strict", is_flag=True, help="Fail unless every item of the coverage page is met.")
@click.option("--machine", metavar="ID", default=None, callback=_machine_option,
              help="Publication machine (id or unique prefix, listed on the machines page). Default: the machine "
                   "whose standard/full runs measured the most cases.")
@click.pass_obj
def build_command(root, site_dir, strict, machine):
    """Build the site from existing results (runs nothing) for one machine, then verify it.

    Example: reportgen build --strict --machine 94ea28a9
    """
    from reportgen.commands import build
    build.build(root, site_dir or root / "site", strict=strict, machine=machine)


@cli.command(name="pdf")
@click.option("--site-dir", type=click.Path(path_type=Path), default=None, callback=_path_option,
              help="Built site (default: <root>/site); writes study.pdf into it.")
@click.pass_obj
def pdf_command(root, site_dir):
    """Print the whole article, in nav order, to site/study.pdf (skips with a note without chromium).

    Example: reportgen build && reportgen pdf
    """
    from reportgen.commands import pdf
    pdf.write_pdf(root, site_dir or root / "site")


@cli.command(name="serve")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="TCP port on 127.0.0.1; 0 picks a free one.")
@click.option("--site-dir", type=click.Path(path_type=Path), default=None, callback=_path_option)
@click.pass_obj
def serve_command(root, port, site_dir):
    """Serve the built site on localhost.

    Example: reportgen serve --port 8000
    """
    from reportgen.commands import serve
    serve.serve(site_dir or root / "site", port, root)


@cli.command(name="verify")
@click.option("--site-dir", type=click.Path(path_type=Path), default=None, callback=_path_option)
@click.option("--strict", is_flag=True, help="Also fail for every unmet item of the coverage page.")
@click.pass_obj
def verify_command(root, site_dir, strict):
    """Check results, archive and the built site; exit 1 naming file and field.

    Example: reportgen verify --strict
    """
    from reportgen.commands import build, pdf
    build.verify_site(root, site_dir or root / "site", strict=strict, printed=pdf.printed(root))
    click.echo("verify: ok")


@cli.command(name="trace")
@click.argument("figure_id")
@click.option("--site-dir", type=click.Path(path_type=Path), default=None, callback=_path_option,
              help="built site whose numbers.json lists derived figures (default: site/)")
@click.option("--machine", metavar="ID", default=None, callback=_machine_option,
              help="Machine (id or unique prefix) whose record a plain id means; default: the site's "
                   "publication machine, or the only machine that measured it.")
@click.pass_obj
def trace_command(root, figure_id, site_dir, machine):
    """Show where a figure comes from: record, raw samples, log lines, command; for a derived
    figure (a ratio, a utilization) also its formula and every operand's record.

    Example: reportgen trace numpy_gemm/dtype=float32/n=1024/threads=1/blas=best#util_measured
    """
    from reportgen.commands import trace
    click.echo(trace.trace(root, figure_id, site_dir, machine))


@cli.command(name="machines")
@click.pass_obj
def machines_command(root):
    """List the machines the runs come from (id, CPU, ISA, runs per profile, families), mark the
    publication machine and this one, and say how to add this machine's figures.

    Example: reportgen machines
    """
    from reportgen.commands import machines
    click.echo(machines.report(root))


@cli.command(name="compare")
@click.argument("run_a")
@click.argument("run_b")
@click.pass_obj
def compare_command(root, run_a, run_b):
    """Per case: B/A ratio of medians and a noise-aware verdict (Mann-Whitney U).

    Example: reportgen compare 20261129T170000Z-quick-abc 20261130T090000Z-quick-abc
    """
    from reportgen.data import compare
    click.echo(compare.compare(root, run_a, run_b))


def _say(text):
    """An error line for the terminal: a control, bidi or zero-width character from a file name or
    a value read from results/ is written as an escape (\x1b), never sent raw (an ANSI or OSC 8
    sequence would recolour, clear or hyperlink the terminal)."""
    from reportgen.render import cells
    click.echo(cells.visible(text), err=True)


def main():
    try:
        os.getcwd()
    except OSError:   # the folder the shell is in was removed: every relative path would fail naming nothing
        _say("error: the current folder no longer exists (removed while the shell was in it); cd into the "
             "project again and rerun")
        sys.exit(1)
    try:
        code = cli(standalone_mode=False)
    except ReportError as exc:
        _say(f"error: {exc}")
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except OSError as exc:   # a file we could not read or write: name it, no traceback
        # a copy or a rename names its source first and its destination second: on a full disk the
        # destination is the file that could not be written (the source named the theme's file)
        where = (f"{exc.filename2}: (copied from {exc.filename}) " if getattr(exc, "filename2", None)
                 else f"{exc.filename}: " if exc.filename else "")
        _say(f"error: {where}{exc.strerror or exc}")
        sys.exit(1)
    except Exception as exc:  # a bug: one line, and how to see the traceback
        if debugging():
            raise
        _say(f"error: internal error {type(exc).__name__}: {exc} "
             "(set REPORTGEN_DEBUG=1 for the traceback, and please report it)")
        sys.exit(2)
    sys.exit(code if isinstance(code, int) else 0)


if __name__ == "__main__":
    main()
