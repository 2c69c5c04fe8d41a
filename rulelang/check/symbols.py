"""The symbol table: what each top-level name of a game is (a zone, a def, an enum's member...),
with its declaration and type, and the game's components, player fields and settings. The checker
builds it (`checker.build_symbols`); the checker's parts and the compiler read it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rulelang.language import nodes as N


@dataclass
class Symbol:
    kind: str  # var, setting, enum, member, zone, component, cards, def, proc, keyword, phase
    decl: object
    type: str = "any"


@dataclass
class SymbolTable:
    """Every top-level name of a game and what it is; its components, player fields and settings."""

    symbols: dict[str, Symbol] = field(default_factory=dict)
    components: dict[str, N.ComponentDecl] = field(default_factory=dict)
    player_fields: dict[str, N.FieldDecl] = field(default_factory=dict)
    settings: dict[str, object] = field(default_factory=dict)
    game: N.GameDecl | None = None
    decls: list = field(default_factory=list)
    table_columns: set = field(default_factory=set)  # the column names of the data files of `table`s
    # a table's file whose header could not be read: any field name may be one of its columns, so
    # `row.q` is not refused (the file is reported once, at its table)
    table_columns_unread: bool = False
    refused: set = field(default_factory=set)  # names declared again over a built-in's (said once, there)
    # a phase's name that something else declared first (said once, at the phase): the round may list it
    clashing_phases: set = field(default_factory=set)

    def kind(self, name: str) -> str | None:
        sym = self.symbols.get(name)
        return sym.kind if sym else None

    def names(self, kind: str) -> list[str]:
        """The names of one kind ("zone", "enum", ...), in the order declared."""
        return [n for n, s in self.symbols.items() if s.kind == kind]

    def all_fields(self) -> set[str]:
        out = set(self.table_columns)
        for comp in self.components.values():
            out.update(f.name for f in comp.fields)
        return out

    def table_file(self, source) -> str | None:
        """The data file a `table` reads: its text, or the text a setting it names holds by default."""
        if isinstance(source, N.Name) and self.kind(source.id) == "setting":
            source = self.symbols[source.id].decl.default
        return source.value if isinstance(source, N.StrLit) else None

    def enum_of_member(self, name: str) -> str | None:
        sym = self.symbols.get(name)
        return sym.type if sym and sym.kind == "member" else None
