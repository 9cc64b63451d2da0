"""The one user-facing error type: main() prints it without a traceback."""


class ReportError(Exception):
    """A problem the user can fix; carries every problem found, not just the first.

    Each problem is one line: a line break inside one (from a file or folder name of a pull request)
    is written as the two characters backslash and n (or r), so a name can neither split its own
    line nor forge another that reads as a message of its own."""

    def __init__(self, problems, hint=""):
        if isinstance(problems, str):
            problems = [problems]
        self.problems = [p.replace("\r", "\\r").replace("\n", "\\n") if isinstance(p, str) else p
                         for p in problems]
        self.hint = hint
        super().__init__(self.__str__())

    def __str__(self):
        text = "\n".join(self.problems)
        return f"{text}\n{self.hint}" if self.hint else text


def broken_check(where, exc):
    """One problem line for a check or page that raised on what it read (a bug of reportgen that the
    input reached): it names the file, folder or page, not just 'internal error', so the user knows
    which input to look at or set aside.  REPORTGEN_DEBUG=1 keeps the traceback (the caller re-raises)."""
    text = str(exc)
    text = text if len(text) <= 200 else text[:200] + f"... [{len(text) - 200} more characters]"
    return (f"{where}: cannot be checked or shown ({type(exc).__name__}: {text}); reportgen broke on this "
            "input, please report it (REPORTGEN_DEBUG=1 shows the traceback)")


def debugging():
    """True when REPORTGEN_DEBUG asks for tracebacks instead of one-line errors."""
    import os
    return bool(os.environ.get("REPORTGEN_DEBUG"))
