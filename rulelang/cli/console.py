"""The consoles the `rulelang` command prints on (rich, made on first use)."""
import json
from contextlib import contextmanager
from pathlib import Path


class _LazyConsole:
    """A rich Console made on first use: `rulelang check` prints plain lines and starts faster
    without importing rich."""

    def __init__(self, **options):
        self._options = options
        self._console = None

    def __getattr__(self, name):
        if self._console is None:
            from rich.console import Console

            self._console = Console(**self._options)
        return getattr(self._console, name)

    # `with console:` (rich's progress bars do it) looks these up on the class, not through __getattr__
    def __enter__(self):
        return self.__getattr__("__enter__")()

    def __exit__(self, *exc):
        return self.__getattr__("__exit__")(*exc)


# markup off: what is printed holds the rules file's own texts (titles, names, labels), which may hold
# brackets ("[red]" is a fine word in a title); the few styled lines ask for markup themselves
console = _LazyConsole(highlight=False, soft_wrap=True, emoji=False, markup=False)  # "mcts:100:depth=0" is no emoji code
err_console = _LazyConsole(stderr=True, highlight=False, soft_wrap=True, emoji=False, markup=False)


@contextmanager
def progress_bar(quiet: bool, what: str, total: int):
    """A progress bar of `total` steps on stderr (none with --quiet), as the function that advances it.
    It is drawn from the first step on: a mistake found before any game is played (a bot's name, a
    variant, the rules file) is said alone, not under an empty bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                        TimeRemainingColumn(), console=err_console, transient=False, disable=quiet)
    task = progress.add_task(what, total=total)
    started = []

    def advance():
        if not started:
            started.append(progress.start())
        progress.advance(task)

    try:
        yield advance
    finally:
        if started:
            progress.stop()


def write_json(path: str, data, end: str = "") -> None:
    """`--out FILE`: the results as JSON, and a line saying where they went."""
    Path(path).write_text(json.dumps(data, indent=1, default=str) + end, encoding="utf-8")
    console.print(f"results written to {path}")


def print_written(paths, what: str = "plot") -> None:
    for path in paths:
        console.print(f"{what} written to {path}")
