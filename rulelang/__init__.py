"""rulelang: a rules language and interpreter for board and card games.

    game = rulelang.load("games/mygame.rules", variant="short")
    match = game.new_match(players=4, seed=1)
    while not match.is_over:
        match.apply(match.legal_options()[0])
    print(match.result)
"""
__all__ = ["load", "Game", "Match", "Option", "RulesError", "RulesRuntimeError", "Diagnostic", "Span"]
__version__ = "0.1.0"

# Imported on first use, so that `rulelang check` does not pay for the compiler, the runtime and
# networkx, nor (a file that passed before: `verdicts`) for the AST's models and pydantic.
_LAZY = {"load": "rulelang.compile.loader", "Game": "rulelang.engine.runtime",
         "Match": "rulelang.engine.runtime", "Option": "rulelang.engine.runtime",
         "Diagnostic": "rulelang.core.errors", "RulesError": "rulelang.core.errors",
         "RulesRuntimeError": "rulelang.core.errors", "Span": "rulelang.core.errors"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
