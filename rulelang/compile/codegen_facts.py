"""What the code generator can tell of an expression before it runs (`NodeFacts`, a part of
`codegen.Generator`): a zone or board the rules name, a list of cards or of whole numbers for sure, a
quantifier, a board's owned cells; the generator writes faster code where these hold.
"""
from __future__ import annotations


from rulelang.language import nodes as N


# the pseudo-fields of a card that are plain slots of Entity (see values.entity_extra)
_ENTITY_SLOTS = ("face_down", "zone", "cell", "place", "id")


INT = "#int "  # in Generator.card_locals: INT + a Python local that holds a whole number for sure


PAIR = "#pair "  # in Generator.card_locals: PAIR + a Python local that holds a tuple of two whole numbers for sure


def _literal_range(node) -> tuple | None:
    """The numbers of `a..b` written with whole numbers (at most 64 of them), else None."""
    if type(node) is not N.Range:
        return None
    bounds = []
    for end in (node.low, node.high):
        sign = 1
        if type(end) is N.Neg:
            sign, end = -1, end.operand
        if type(end) is not N.IntLit or type(end.value) is not int:
            return None
        bounds.append(sign * end.value)
    low, high = bounds
    return tuple(range(low, high + 1)) if high - low < 64 else None


class NodeFacts:
    """What an expression is for sure, found from its tree and the game's symbols."""

    def zone_named(self, node):
        """The ZoneInfo of a zone that is not a player's, when `node` is its name (not shadowed): the
        name's value is always that Zone; else None."""
        if not isinstance(node, N.Name) or node.id in self.pylocals or node.id in self.cc.scope:
            return None
        sym = self.cc.t.symbols.get(node.id)
        info = self.cc.program.zones.get(node.id) if sym is not None and sym.kind == "zone" else None
        return info if info is not None and not info.per_player else None

    def is_board_zone(self, node) -> bool:
        """The name of a shared board zone (not shadowed): its value is always that BoardZone."""
        info = self.zone_named(node)
        return info is not None and info.topology is not None

    def cards_on_board(self, node) -> bool:
        """`at(board, cell)`, `neighbors(card)` or `neighbors(board, cell)`: the board's own list of cards."""
        return self.is_builtin(node, "at", 2) or self.is_builtin(node, "neighbors", 1) \
            or self.is_builtin(node, "neighbors", 2)

    def walks_cards(self, node) -> bool:
        """Whether `iterable(node)` is a list or tuple as it is (a board's own `at`, `neighbors`,
        `ray`, or the numbers of a literal range): no as_list needed around it."""
        return self.cards_on_board(node) or self.is_builtin(node, "ray", 3) or _literal_range(node) is not None

    def yields_cards(self, node) -> bool:
        """Whether every item of the collection `node` is a card: a zone the rules name (or a
        player's, `hand(p)`), the cards on a cell or next to one, or such a list filtered."""
        while isinstance(node, N.FilterList):
            node = node.coll
        if isinstance(node, N.Name):
            return self.zone_named(node) is not None
        if isinstance(node, N.Call) and not node.kwargs and node.func not in self.cc.scope \
                and node.func not in self.pylocals:
            sym = self.cc.t.symbols.get(node.func)
            if sym is not None:
                return sym.kind == "zone" and len(node.args) == 1 and node.func in self.cc.program.zones
            return self.cards_on_board(node)
        return False

    def is_empty_cells(self, x) -> bool:
        """Whether a list is `[c in cells(board) where empty(at(board, c))]` of a board the rules name."""
        if not (isinstance(x, N.FilterList) and x.keep == "where" and self.is_builtin(x.coll, "cells", 1)
                and self.is_board_zone(x.coll.args[0]) and self.is_builtin(x.cond, "empty", 1)):
            return False
        at = x.cond.args[0]
        return (self.is_builtin(at, "at", 2) and isinstance(at.args[0], N.Name) and at.args[0].id == x.coll.args[0].id
                and isinstance(at.args[1], N.Name) and at.args[1].id == x.var
                and x.var not in self.pylocals and x.var not in self.cc.scope)

    def listed_def(self, name: str):
        """The body of a def without parameters whose value is a list written out (`dirs = [(1, 0),
        (0, 1)]`), else None."""
        d = self.def_decls.get(name)
        sym = self.cc.t.symbols.get(name)
        if sym is None or sym.kind != "def" or d is None or d.params or not isinstance(d.body, N.ListLit):
            return None
        return d.body

    def yields_pairs(self, node) -> bool:
        """Whether every item of the collection `node` is a tuple of two whole numbers: the cells of a
        fixed grid or hex board the rules name (`cells(grid)`, `empty_cells(grid)`), or a list of
        such pairs written out (`[(1, 0), (0, 1)]`), or a def without parameters whose body is one
        (`def directions = [(1, 0), (0, 1)]`), or such a collection filtered."""
        while isinstance(node, N.FilterList):
            node = node.coll

        def literal_pairs(items) -> bool:
            return all(isinstance(i, N.CellLit) and all(
                type(v) is N.IntLit or (type(v) is N.Neg and type(v.operand) is N.IntLit) for v in (i.a, i.b))
                for i in items)

        if isinstance(node, N.ListLit):
            return literal_pairs(node.items)
        if isinstance(node, N.Name) and node.id not in self.pylocals and node.id not in self.cc.scope:
            listed = self.listed_def(node.id)
            return listed is not None and node.id not in self.setting_defs and literal_pairs(listed.items)
        if (self.is_builtin(node, "cells", 1) or self.is_builtin(node, "empty_cells", 1)) and self.is_board_zone(node.args[0]):
            t = self.zone_named(node.args[0]).topology
            return not t.open and t.kind in ("grid", "hex")
        return False

    def yields_ints(self, node) -> bool:
        """Whether every item of the collection `node` is a whole number: a range written with
        whole numbers (`0..3`), or such a range filtered."""
        while isinstance(node, N.FilterList):
            node = node.coll
        return _literal_range(node) is not None

    def is_int(self, node) -> bool:
        """Whether the value of `node` is a whole number for sure: one written as such, or a local
        that holds one (card_locals)."""
        if type(node) is N.Neg:
            node = node.operand
        if type(node) is N.IntLit:
            return type(node.value) is int
        if type(node) is N.BinOp:  # of two whole numbers: a whole number, or the helper's error
            return node.op in ("+", "-", "*", "/", "%") and self.is_int(node.left) and self.is_int(node.right)
        if type(node) is N.Index:
            return self.is_pair_coordinate(node)
        return type(node) is N.Name and INT + self.pylocals.get(node.id, "") in self.card_locals

    def is_pair_coordinate(self, node) -> bool:
        """`d[0]` or `cell[1]` of a Python local that holds a tuple of two whole numbers for sure
        (yields_pairs): a whole number, read as it is."""
        return (isinstance(node.index, N.IntLit) and type(node.index.value) is int and node.index.value in (0, 1)
                and isinstance(node.obj, N.Name) and node.obj.id in self.pylocals
                and PAIR + self.pylocals[node.obj.id] in self.card_locals)

    def is_builtin(self, node, name: str, arity: int) -> bool:
        """A call of the built-in `name` (not shadowed by a local or a declaration of the game)."""
        return (isinstance(node, N.Call) and node.func == name and len(node.args) == arity and not node.kwargs
                and name not in self.cc.scope and name not in self.pylocals and self.cc.t.symbols.get(name) is None)

    def is_quantifier(self, node) -> bool:
        return (isinstance(node, N.Call) and node.func in ("any", "all") and node.func not in self.cc.scope
                and node.func not in self.pylocals and len(node.args) == 1 and isinstance(node.args[0], N.FilterList)
                and node.args[0].keep == "where")

    def holds_quantifier(self, node) -> bool:
        """Whether `node` is a quantifier, or `and`/`or`/`not`/`if then else` around one."""
        if isinstance(node, N.BoolOp):
            return any(self.holds_quantifier(item) for item in node.items)
        if isinstance(node, N.Not):
            return self.holds_quantifier(node.operand)
        if isinstance(node, N.CondExpr):
            return self.holds_quantifier(node.then) or self.holds_quantifier(node.other)
        return (self.is_quantifier(node) or self._quantified_leaf(node, bind=True) is not None
                or self.hoistable(node) is not None)

    def _counts(self, node) -> bool:
        """`count([x in coll while cond])` or `count([x in coll where cond])`: body_lines writes it as a
        loop that counts."""
        return self.is_builtin(node, "count", 1) and isinstance(node.args[0], N.FilterList)

    def is_owned_group(self, x) -> bool:
        """`region(board, cell, owned_cells(board, p))` or `regions(board, owned_cells(board, p))` on a
        board the rules name, the cell a local name (nothing that can fail is worked out before the
        player, in either order), the player anything; `owned_cells(board, p)` may be a def that is
        just that (`stones(p) = owned_cells(board, p)`)."""
        if len(x.args) != (3 if x.func == "region" else 2):
            return False
        board, cell, owned = x.args[0], x.args[1], x.args[-1]
        local = isinstance(cell, N.Name) and (cell.id in self.pylocals or cell.id in self.cc.scope)
        if len(x.args) == 3 and not local:
            return False
        return self.is_board_zone(board) and self.owned_cells_call(owned, board.id)

    def owned_cells_call(self, node, board: str) -> bool:
        """`owned_cells(board, p)`, or a call of a def with one parameter whose body is just
        `owned_cells(board, parameter)`."""
        if self.is_builtin(node, "owned_cells", 2):
            return isinstance(node.args[0], N.Name) and node.args[0].id == board
        if not (isinstance(node, N.Call) and len(node.args) == 1 and not node.kwargs and node.func not in self.cc.scope
                and node.func not in self.pylocals):
            return False
        sym, d = self.cc.t.symbols.get(node.func), self.def_decls.get(node.func)
        if sym is None or sym.kind != "def" or d is None or len(d.params) != 1:
            return False
        body, param = d.body, d.params[0].name
        return (isinstance(body, N.Call) and body.func == "owned_cells" and len(body.args) == 2 and not body.kwargs
                and self.cc.t.symbols.get("owned_cells") is None and param not in ("owned_cells", board)
                and isinstance(body.args[0], N.Name) and body.args[0].id == board
                and isinstance(body.args[1], N.Name) and body.args[1].id == param)
