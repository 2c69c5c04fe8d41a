"""The things of a match: cards, zones, players and the state (`things`), boards (`board`), the
built-in functions over them (`builtins`; the boards' geometry in `geometry`, pieces on several
cells in `pieces`) and a pending choice's options (`options`).
"""
# pieces and geometry register their built-ins in builtins.BUILTINS: loaded with the package, so
# that BUILTINS is whole whichever module of the package is imported first (in this order: the
# order of the table of built-ins in docs/reference.md)
from rulelang.model import pieces, geometry  # noqa: F401, I001
