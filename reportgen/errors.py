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
