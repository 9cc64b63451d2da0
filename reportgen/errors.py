"""The one user-facing error type: main() prints it without a traceback."""


class ReportError(Exception):
    """A problem the user can fix; carries every problem found, not just the first."""

    def __init__(self, problems, hint=""):
        if isinstance(problems, str):
            problems = [problems]
        self.problems = list(problems)
        self.hint = hint
        super().__init__(self.__str__())

    def __str__(self):
        text = "\n".join(self.problems)
        return f"{text}\n{self.hint}" if self.hint else text
