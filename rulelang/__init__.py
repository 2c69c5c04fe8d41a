"""rulelang: a rules language and interpreter for board and card games.

    game = rulelang.load("games/mygame.rules", variant="short")
    match = game.new_match(players=4, seed=1)
    while not match.is_over:
        match.apply(match.legal_options()[0])
    print(match.result)
"""
from .errors import Diagnostic, RulesError, RulesRuntimeError, Span
from .loader import load
from .runtime import Game, Match, Option

__all__ = ["load", "Game", "Match", "Option", "RulesError", "RulesRuntimeError", "Diagnostic", "Span"]
__version__ = "0.1.0"
