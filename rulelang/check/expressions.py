"""The checker's expressions (`ExpressionChecks`, a part of `checker.Checker`): one `expr_*` method
per expression node, found by the node's class in `EXPR_CHECKS`; each gives the value's checked
type (a word of `check.types`) and reports undefined names, wrong arity, fields no component has,
and values of the wrong kind.
"""
from __future__ import annotations

import re

from rulelang.language import nodes as N
from rulelang.model.builtins import BUILTINS, BUILTIN_VALUES, SPECIAL_FUNCS
from rulelang.model.geometry import BOARD_FUNCTIONS, EDGE_NAMES
from rulelang.check.dependencies import TEMPLATE_NAMES, shown_node
from rulelang.core.errors import Span, did_you_mean, source_line
from rulelang.check.types import (BUILTIN_RESULT, BUILTIN_VALUE_TYPES, ENTITY_BUILTIN_ATTRS, ON_A_BOARD,
                                  PLAYER_BUILTIN_ATTRS, ZONE_BUILTIN_ATTRS, _not_a_board, compatible, describe_type,
                                  known_type, never_alike, type_name)


# "{p} draws {c.point}": a text shows names and fields in braces
SHOWN_ANYTHING = re.compile(r"\{([^{}]*)\}")
SHOWN_NAME_ONLY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


class _PlacesInText:
    """Where each `{...}` of a text stands in its source line, in order, so a diagnostic about one
    points at it rather than at the whole text; the text's own span when it cannot be found there
    (a text over several lines, or an escape before it)."""

    def __init__(self, span: Span):
        self.span = span
        line = source_line(span.file, span.line) if span.line > 0 and span.column > 0 else None
        self.raw = line[span.column - 1:] if line is not None and line[span.column - 1:span.column] == '"' else None
        self.at = 1

    def span_of(self, shown: str) -> Span:
        """The span of the name in braces `shown` (the next one found), without its braces."""
        if self.raw is None:
            return self.span
        index = self.raw.find(shown, self.at)
        if index < 0:
            return self.span
        self.at = index + len(shown)
        column = self.span.column + index + 1
        return Span(file=self.span.file, line=self.span.line, column=column, end_line=self.span.line,
                    end_column=column + len(shown) - 2)


def _source_words(node) -> str:
    """A node's text as written, when it stands on one line (else "...")."""
    span = node.span
    text = source_line(span.file, span.line) if span.end_line == span.line else None
    return text[span.column - 1:span.end_column - 1] if text else "..."


def _label_name_span(span: Span, name: str) -> Span | None:
    """Where `{name}` stands in the `label "..."` line of the component declared at `span` (None when the
    label cannot be found in the source: the diagnostic then points at the component)."""
    if span.line <= 0:
        return None
    for line in range(span.line, max(span.end_line, span.line) + 1):
        text = source_line(span.file, line)
        if text is None:
            return None
        label = re.search(r'\blabel\s*"', text if line > span.line else text[max(span.column - 1, 0):])
        if label is None:
            continue
        start = (0 if line > span.line else max(span.column - 1, 0)) + label.end()
        at = text.find("{" + name + "}", start)
        if at >= 0:
            return Span(file=span.file, line=line, column=at + 2, end_line=line, end_column=at + 2 + len(name))
    return None


class ExpressionChecks:
    """Checks expressions; `expr` finds the check of a node by its class."""

    def undefined(self, name: str, span: Span, scope: set):
        if name in self.t.refused:
            return  # its declaration was refused, which is said there: its uses would only repeat it
        if name in BUILTINS or name in SPECIAL_FUNCS:
            # a built-in function written without its values (`directions` for `directions(board)`)
            b = BUILTINS.get(name)
            doc = b.doc if b is not None else SPECIAL_FUNCS[name][2]
            self.err(span, f'"{name}" is a built-in function, not a value: call it with its values',
                     hint=f"{name}(...): {doc}")
            return
        candidates = set(scope) | set(self.t.symbols) | set(BUILTIN_VALUES) | set(BUILTINS) | set(SPECIAL_FUNCS) \
            | {"true", "false", "none"}
        # a name never declared (or declared under another spelling) is said once, at its first use
        nothing = 'the language writes "no value" as `none`' if name in ("null", "nil", "None", "undefined", "NULL") \
            else 'a range of whole numbers is written `1..N` (or `0..N - 1`)' if name == "range" else None
        self.err(span, f'"{name}" is not defined', hint=nothing or did_you_mean(name, candidates),
                 fold=(("undefined", name), f'"{name}" is used again'))

    def zone_decl_of(self, x) -> N.ZoneDecl | None:
        """The zone a name or a call (`hand(p)`) names, or None."""
        sym = self.t.symbols.get(x.id if isinstance(x, N.Name) else x.func if isinstance(x, N.Call) else None)
        return sym.decl if sym and sym.kind == "zone" else None

    def board_of_decl(self, decl: N.ZoneDecl):
        """A board zone's topology (a layer's is its base's), or None for a zone that is no board."""
        seen = set()
        while decl.board is None and decl.layer_of is not None and decl.name not in seen:
            seen.add(decl.name)
            sym = self.t.symbols.get(decl.layer_of)
            if sym is None or sym.kind != "zone":
                return None
            decl = sym.decl
        return decl.board

    def expect_zone(self, x, scope):
        ty = self.expr(x, scope)
        if ty not in ("zone", "any"):
            self.err(x.span, f"this should be a zone, but it is {describe_type(ty)}",
                     expected="a zone such as `discard` or `hand(p)`")

    def expect_cards(self, x, scope):
        ty = self.expr(x, scope)
        if ty in ("int", "bool", "str", "player", "cell", "keyword") or ty.startswith("sym:"):
            hint = None
            if ty == "keyword":
                hint = "a keyword is an ability printed on cards; to use one write `perform KEYWORD on card`"
            self.err(x.span, f"this should be a card (or a list of cards, or a zone), but it is {describe_type(ty)}",
                     hint=hint)

    def expect_player(self, x, scope):
        self.expect_type(x, scope, "player", "a player")

    def expect_type(self, x, scope, want: str, words: str):
        ty = self.expr(x, scope)
        if ty not in (want, "any"):
            self.err(x.span, f"this should be {words}, but it is {describe_type(ty)}",
                     hint="player(N) is the player in seat N" if (want, ty) == ("player", "int") else None)

    def check_label(self, template: str, comp: N.ComponentDecl, span: Span):
        fields = {f.name for f in comp.fields} | ENTITY_BUILTIN_ATTRS
        for m in SHOWN_ANYTHING.finditer(template):
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", m.group(1)):  # a label shows its card's own fields
                self.err(_label_name_span(comp.span, m.group(1)) or span,
                         f'a label shows its card\'s fields only, so "{{{m.group(1)}}}" would be printed as it is',
                         expected='a field of the card in braces, as in "{rank} of {suit}"',
                         hint="give the card a field holding that value, or show the value in a `log` text")
        for m in re.finditer(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", template):
            if m.group(1) not in fields:
                span = _label_name_span(comp.span, m.group(1)) or span
                # (its cards giving that field too are the same mistake: a field renamed in the component)
                self.err(span, f'the label of {comp.name} uses "{m.group(1)}", which is not one of its fields',
                         hint=did_you_mean(m.group(1), fields),
                         fold=(("ctor field", comp.name, m.group(1)), f'"{m.group(1)}" is used again'))

    def check_label_case(self, case: N.LabelCase, comp: N.ComponentDecl):
        """`label "..." if COND`: the text as any label's, and a condition that reads only the card's
        fields, enum members, settings and built-ins of plain values (it is worked out with no match)."""
        from rulelang.check.dependencies import VALUE_BUILTINS
        from rulelang.language.nodes import nodes_in

        self.check_label(case.text, comp, case.span)
        fields = {f.name for f in comp.fields}
        ty = self.expr(case.when, set(fields))
        if ty not in ("bool", "any"):
            self.err(case.when.span, f"a label's condition is true or false, but this is {describe_type(ty)}")
        for x in nodes_in(case.when):
            if isinstance(x, N.Name) and x.id not in fields and self.t.kind(x.id) not in ("member", "setting", None):
                self.err(x.span, f'a label\'s condition reads only the card\'s own fields, not "{x.id}"',
                         expected=f"a field of {comp.name}: {', '.join(sorted(fields)) or 'none'}")
            elif isinstance(x, N.Call) and (x.func not in VALUE_BUILTINS or x.func in self.t.symbols):
                self.err(x.span, f"a label's condition reads only the card's own fields, so it cannot call {x.func}()",
                         expected="the fields compared, counted or added with each other")

    def keyword_values(self, x) -> None:
        """A keyword given to a card (printed on it, a field's default, an assignment, a local) without the
        values its parameters need (`boost` for `boost(n)`): performing it would have none to fill them in."""
        for k in x.items if isinstance(x, N.ListLit) else (x,):
            sym = self.t.symbols.get(k.id) if isinstance(k, N.Name) else None
            if sym is not None and sym.kind == "keyword" and sym.decl.params:
                n = len(sym.decl.params)
                self.err(k.span, f'keyword "{k.id}" takes {n} value{"s" if n != 1 else ""}, which each card '
                         f'that carries it gives: write {k.id}({", ".join(p.name.upper() for p in sym.decl.params)})',
                         fold=(("keyword values", k.id), f'"{k.id}" is printed again without its values'))

    def card_ctor(self, ctor: N.CardCtor, scope: set):
        comp = self.t.components.get(ctor.component)
        if comp is None:
            self.err(ctor.span, f'"{ctor.component}" is not a component', hint=did_you_mean(ctor.component, self.t.components),
                     fold=(("component", ctor.component), f'"{ctor.component}" is used again'))
            for a in ctor.args:
                self.expr(a.value, scope)
            return
        # a deck of 50,000 cards names the same component again and again: its fields are read once
        plan = self._ctor_plans.get(ctor.component)
        if plan is None or plan[0] is not comp:
            fields = {f.name: f for f in comp.fields}
            wants = {name: type_name(f.type) for name, f in fields.items()}
            needed = [name for name, f in fields.items() if f.default is None and wants[name] != "condition"
                      and not wants[name].startswith("list:")]
            plan = self._ctor_plans[ctor.component] = (comp, fields, wants, needed)
        _, fields, wants, needed = plan
        given = {a.name for a in ctor.args}
        missing = [name for name in needed if name not in given]
        unknown = [a for a in ctor.args if a.name not in wants]
        for a in ctor.args:
            want = wants.get(a.name)
            if want is None:
                # a field renamed or misspelt in the component: its cards give the old name and miss the new
                # one, which is one mistake (said once, with the field that has no value)
                hint = did_you_mean(a.name, fields)
                if hint is None and missing:
                    hint = f"{comp.name}'s fields without a value here: " + ", ".join(f'"{m}"' for m in missing)
                self.err(a.span, f'component {comp.name} has no field "{a.name}"', hint=hint,
                         fold=(("ctor field", comp.name, a.name), f'"{a.name}" is used again'))
            if want == "condition":
                self.expr(a.value, scope | {"self"})  # judged later, for each card as `self`
                continue
            enum = self.t.symbols.get(want) if want is not None else None
            members = enum.decl.members if enum is not None and enum.kind == "enum" else None
            x = a.value
            if members is not None and isinstance(x, N.Name) and x.id not in scope and x.id not in self.t.symbols \
                    and x.id not in BUILTIN_VALUES:  # a member the enum does not have: said with its members
                self.err(x.span, f'"{x.id}" is not one of the members of {want}', expected=", ".join(members),
                         hint=did_you_mean(x.id, members),
                         fold=(("undefined", x.id), f'"{x.id}" is used again'))
                continue
            ty = self.expr(x, scope)
            if want in ("keyword", "list:keyword"):
                self.keyword_values(x)
            if want is not None and not compatible(want, ty, self.t):
                # (each card given the same kind of value: one mistake, in the field's type or in every card)
                quoted = members is not None and isinstance(x, N.StrLit) and x.value in members
                self.err(x.span, f'field "{a.name}" of {comp.name} is {describe_type(want)}, but this is {describe_type(ty)}',
                         hint=f"write the member without quotes: `{x.value}`" if quoted else None,
                         fold=(("ctor type", comp.name, a.name, ty), f'{describe_type(ty)} for "{a.name}" is given again'))
        for name in missing if not unknown else ():
            self.err(ctor.span, f'{comp.name} needs a value for "{name}"', expected=f"{name}: <{fields[name].type}>",
                     fold=(("ctor missing", comp.name, name), f"{comp.name} without a \"{name}\" is made again"))

    def board_call(self, c: N.Call):
        """Board built-ins (ray, edge, regions, ...): the first value must be a board, a side of a board
        one the board has."""
        board = c.args[0] if c.args else None
        if isinstance(board, N.Name) and self.t.kind(board.id) == "zone":
            decl = self.t.symbols[board.id].decl
            topology = self.board_of_decl(decl)
            if topology is None:
                if decl.layer_of is None:  # (a layer on nothing is said at its declaration)
                    self.err(board.span, f'{c.func}() works on a board, and the zone "{board.id}" is not one',
                             expected='a zone declared as a board, as in "zone grid: board grid 8 size 8 by 8"')
            elif c.func == "edge" and topology.width is None:
                self.err(c.span, f'edge() needs a board with sides: "{board.id}" has no fixed width and height',
                         expected="a square grid with a size (grid 4 size 8 by 8) or a hex rhombus or rectangle")
        if c.func == "edge" and len(c.args) == 2 and isinstance(c.args[1], N.StrLit) \
                and c.args[1].value not in EDGE_NAMES:
            self.err(c.args[1].span, f'a board has no side called "{c.args[1].value}"',
                     expected=", ".join(f'"{n}"' for n in EDGE_NAMES),
                     hint=did_you_mean(c.args[1].value, list(EDGE_NAMES)))

    def arity(self, c: N.Call, lo: int, hi: int | None, what: str):
        n = len(c.args)
        if n < lo or (hi is not None and n > hi):
            want = (f"{lo} argument{'s' if lo != 1 else ''}" if lo == hi else f"at least {lo} arguments" if hi is None
                    else f"{lo} to {hi} arguments")
            self.err(c.span, f"{what} takes {want}, but {n} {'was' if n == 1 else 'were'} given")

    def call(self, c: N.Call, scope: set, statement=False) -> str:
        name = c.func
        sym = self.t.symbols.get(name)
        args = c.args
        if c.kwargs and not (sym and sym.kind == "component"):
            self.err(c.kwargs[0].span, f'"{c.kwargs[0].name}:" names an argument, which only cards take (Component(field: value))')
        if name in ("has", "usable", "matched", "matching"):
            lo, hi, _ = SPECIAL_FUNCS[name]
            self.arity(c, lo, hi, f"{name}()")
            if name == "has":
                if args:
                    self.expr(args[0], scope)
                if len(args) > 1 and not (isinstance(args[1], N.Name) and self.t.kind(args[1].id) == "keyword"):
                    fold = None
                    if isinstance(args[1], N.Name) and self.t.kind(args[1].id) is None \
                            and args[1].id not in scope and args[1].id not in BUILTIN_VALUES:
                        # a keyword misspelt or removed: one mistake with its other uses (on cards...)
                        fold = (("undefined", args[1].id), f'"{args[1].id}" is used again')
                    self.err(args[1].span, "the second argument of has() is the name of a keyword",
                             hint=did_you_mean(getattr(args[1], "id", ""), self.t.names("keyword")), fold=fold)
                return "bool"
            if name in ("matched", "matching"):
                for a in args[:2]:
                    self.expr(a, scope)
                if len(args) == 3:
                    f = args[2]
                    if not (isinstance(f, N.Name) and self.t.kind(f.id) == "def" and len(self.t.symbols[f.id].decl.params) == 2):
                        self.err(f.span, f"the third argument of {name}() is the name of a def with two parameters")
                return "bool" if name == "matched" else "list:any"
            for a in args:
                self.expr(a, scope)
            return "bool"
        if name in BUILTINS and name not in scope:
            b = BUILTINS[name]
            self.arity(c, b.min_args, b.max_args, f"{name}()")
            types = [self.expr(a, scope) for a in args]
            if name in ("max", "min") and any(t.startswith(("sym:", "list:sym:")) and ":setting:" not in t for t in types):
                # (Python would order the members' names alphabetically, not by their place in the enum)
                self.err(c.span, f"{name}() works on numbers, not on members of an enum",
                         hint="compare two members by their place in the enum: `if a > b then a else b`; "
                              "a member's place as a number is index_of(a, ENUM)")
            if name == "sorted_by" and len(types) == 2 and types[1].startswith("list:sym:") and ":setting:" not in types[1]:
                enum = types[1][9:]
                self.err(args[1].span, "sorted_by() sorts by numbers, not by members of an enum",
                         hint=f"sort by each member's place in the enum: [index_of(x, {enum}) for ...]")
            if (name in BOARD_FUNCTIONS or name in ON_A_BOARD) and types and _not_a_board(types[0]):
                self.err(args[0].span, f"{name}() works on a board, but this is {describe_type(types[0])}",
                         expected=f'a zone declared as a board, as in "{name}(grid, ...)"')
            elif name in BOARD_FUNCTIONS or name in ON_A_BOARD:
                self.board_call(c)
            return BUILTIN_RESULT.get(name, "any")
        if sym is None:
            if name in scope:
                self.err(c.span, f'"{name}" is a local value, not something that can be called')
            else:
                self.undefined(name, c.span, scope)
            for a in args:
                self.expr(a, scope)
            return "any"
        arg_types = [self.expr(a, scope) for a in args]
        if sym.kind in ("def", "proc", "keyword"):
            n = len(sym.decl.params)
            what = f'{"procedure" if sym.kind == "proc" else sym.kind} "{name}"'
            self.arity(c, n, n, what)
            for param, a, got in zip(sym.decl.params, args, arg_types):  # (a parameter's declared type)
                want = type_name(param.type) if param.type is not None else None
                if want is not None and never_alike(want, got):
                    self.err(a.span, f'{what} takes {describe_type(want)} for "{param.name}", but this is '
                                     f"{describe_type(got)}", expected=describe_type(want))
            if sym.kind == "proc" and not statement:
                self.err(c.span, f'procedure "{name}" does things and has no value; call it as a statement, or make it a def')
            if sym.kind == "keyword" and statement:
                self.err(c.span, f'writing a keyword makes a keyword value; to use it write `perform {name}(...) on card`')
            return "keyword" if sym.kind == "keyword" else "any"
        if sym.kind == "zone" and sym.decl.count is not None:  # display(2): one of a family, counted from 1
            self.arity(c, 1, 1, f'zone "{name}"')
            if args and arg_types[0] not in ("int", "any"):
                self.err(args[0].span, f'"{name}(...)" takes which of the {name} zones, counting from 1, '
                                       f'but this is {describe_type(arg_types[0])}')
            return "zone"
        if sym.kind == "zone":
            if not sym.decl.per_player:
                self.err(c.span, f'zone "{name}" is shared by all players; write it without (...)')
            self.arity(c, 1, 1, f'zone "{name}"')
            if args and arg_types[0] not in ("player", "any"):
                self.err(args[0].span, f'"{name}(...)" takes a player, but this is {describe_type(arg_types[0])}')
            return "zone"
        if sym.kind == "component":
            self.card_ctor(N.CardCtor(span=c.span, component=name, args=c.kwargs), scope)
            self.err(c.span, "cards are declared in a `cards` block, not made inside rules")
            return "any"
        self.err(c.span, f'"{name}" is a {sym.kind}, not something that can be called')
        return "any"

    def prompt(self, text, span: Span, scope: set):
        """A choice's `as "..."` prompt may show values like any text: "{p} picks a card"."""
        if text is not None and "{" in text:
            self.expr(N.StrLit(span=span, value=text), scope)

    # a check meets about 20,000 expressions per pass, so one dict look-up replaces a chain of isinstance tests
    def expr(self, x, scope: set) -> str:
        """Check an expression and return its type ("int", "list:player", "sym:Color", "any", ...); None, a
        part left out (`draw from deck to hand`'s count), is any value."""
        check = EXPR_CHECKS.get(type(x))
        return check(self, x, scope) if check is not None else "any"

    def expr_str(self, x: N.StrLit, scope: set) -> str:
        if "{" not in x.value:
            return "str"
        # "{p} draws {c.point}": the names shown in a text are checked like any other (as the compiler reads them)
        inside = _PlacesInText(x.span)
        for m in TEMPLATE_NAMES.finditer(x.value):
            self.expr(shown_node(m.group(1), inside.span_of(m.group(0))), scope)
        inside = _PlacesInText(x.span)
        for m in SHOWN_ANYTHING.finditer(x.value):
            if not SHOWN_NAME_ONLY.fullmatch(m.group(1)):
                self.err(inside.span_of(m.group(0)), f'a text shows names and fields only, so "{{{m.group(1)}}}" would be printed as it is',
                         expected='a name or a field in braces, as in "{p.score}"',
                         hint="compute the value first: `let n = ...`, then write \"{n}\"")
        return "str"

    def expr_name(self, x: N.Name, scope: set) -> str:
        if x.id in scope:
            return self.local_types.get(x.id, "any")
        if x.id in BUILTIN_VALUES:
            return BUILTIN_VALUE_TYPES[x.id]
        sym = self.t.symbols.get(x.id)
        if sym is None:
            if x.id == "self":
                self.err(x.span, '"self" only exists inside a keyword or a card field that is a condition or effect')
            else:
                self.undefined(x.id, x.span, scope)
            return "any"
        if sym.kind == "zone":
            if sym.decl.count is not None:  # a family of zones: all of them, in order
                return "list:zone"
            if sym.decl.per_player:
                self.err(x.span, f'each player has their own "{x.id}"; say whose: {x.id}(p)')
            return "zone"
        if sym.kind in _NAME_TYPES:
            return _NAME_TYPES[sym.kind].format(type=sym.type, name=x.id)
        if sym.kind == "var":
            return sym.type if sym.type in ("int", "bool", "str", "player") or sym.type.startswith("map:") else "any"
        if sym.kind == "def":
            if sym.decl.params:
                n = len(sym.decl.params)
                self.err(x.span, f'def "{x.id}" takes {n} argument{"s" if n != 1 else ""}: write {x.id}(...)')
            return "any"
        if sym.kind == "proc":
            self.err(x.span, f'procedure "{x.id}" must be called as a statement: {x.id}(...)')
            return "any"
        if sym.kind == "phase":
            self.phase_refs.add(x.id)
            return "str"
        return "any"

    def expr_attr(self, x: N.Attr, scope: set) -> str:
        return self.attr_type(self.expr(x.obj, scope), x)

    def expr_index(self, x: N.Index, scope: set) -> str:
        ty = self.expr(x.obj, scope)
        if ty.startswith("map:"):  # c.cost[g]: the number of one member
            self.map_key(ty[4:], x.index, scope)
            return "int"
        if ty == "any":  # a list at a position, or a map at a member (a local or a def's value)
            at = self.expr(x.index, scope)
            if at not in ("int", "any") and not (at.startswith("sym:") and not at.startswith("sym:setting:")):
                self.err(x.index.span, f"this should be a whole number (a position in a list) or a member of an "
                                       f"enum (in a map), but it is {describe_type(at)}")
            return "any"
        self.expect_type(x.index, scope, "int", "a whole number")
        return ty[5:] if ty.startswith("list:") else "any"

    def map_key(self, enum: str, key, scope: set):
        """The member a map of `enum` is read or changed at: a member of that enum."""
        ty = self.expr(key, scope)
        if ty in ("any", "sym:" + enum):
            return
        members = self.t.symbols[enum].decl.members if self.t.kind(enum) == "enum" else []
        self.err(key.span, f"this map holds a number per {enum}, so it is read at a {enum}, but this is {describe_type(ty)}",
                 expected=f"one of {', '.join(members)}" if members else f"a {enum}",
                 hint=f"a map is read at a member (`m[{members[0]}]`), not at a position" if ty == "int" and members else None)

    def expr_maplit(self, x: N.MapLit, scope: set) -> str:
        """`{red: 2, blue: 1}`: members of one enum, each once, with whole numbers."""
        if not x.entries:
            self.err(x.span, "a map written out names at least one member, so that its enum is known",
                     expected="{member: number, ...}, as in {red: 0}")
            return "map:any"
        enum = None
        seen = set()
        for entry in x.entries:
            of = self.t.enum_of_member(entry.key)
            if of is None or self.t.kind(of) != "enum":
                members = [n for n, s in self.t.symbols.items()
                           if s.kind == "member" and not s.type.startswith("setting:")]
                self.err(entry.span, f'"{entry.key}" is not a member of an enum, so it cannot be a key of a map',
                         expected="members of one enum", hint=did_you_mean(entry.key, members))
            elif enum is None:
                enum = of
            elif of != enum:
                self.err(entry.span, f'"{entry.key}" is a {of}, but this map holds a number per {enum} '
                                     f'(its first key is a {enum})', expected=f"members of {enum} only")
            if entry.key in seen:
                self.err(entry.span, f'"{entry.key}" is given twice in this map')
            seen.add(entry.key)
            ty = self.expr(entry.value, scope)
            if ty not in ("int", "any"):
                self.err(entry.value.span, f"a map holds whole numbers, but this is {describe_type(ty)}")
        return "map:" + enum if enum is not None else "map:any"

    def expr_list(self, x: N.ListLit, scope: set) -> str:
        if self.one_membership_test(x, scope):
            return "list:bool"
        tys = [self.expr(i, scope) for i in x.items]
        return "list:" + (tys[0] if tys and all(t == tys[0] for t in tys) else "any")

    def one_membership_test(self, x: N.ListLit, scope: set) -> bool:
        """`[x in hand(p)]` with `x` never declared: a list of one value, whether `x` is in the list, where a
        list of the list's items (`[x for x in ...]`) or some of them (`[x in ... where ...]`) was meant."""
        if len(x.items) != 1 or not isinstance(x.items[0], N.Member) or x.items[0].negated:
            return False
        test = x.items[0]
        if not isinstance(test.elem, N.Name):
            return False
        name = test.elem.id
        if name in scope or name in self.t.symbols or name in self.t.refused or name in BUILTIN_VALUES \
                or name in BUILTINS or name in SPECIAL_FUNCS or name in ("true", "false", "none"):
            return False
        self.expr(test.coll, scope)
        span = test.coll.span
        line = source_line(span.file, span.line) if span.line > 0 and span.line == span.end_line else None
        coll = line[span.column - 1:span.end_column - 1] if line and span.end_column > span.column else "..."
        self.err(x.span, f'this is read as a list of one true-or-false value (whether "{name}" is in {coll}), '
                         f'and "{name}" is not defined',
                 hint=f"for the items of the list write `[{name} for {name} in {coll}]`, "
                      f"or for some of them `[{name} in {coll} where ...]`")
        return True

    def expr_filter(self, x: N.FilterList, scope: set) -> str:
        ty = self.expr(x.coll, scope)
        self.expr(x.cond, scope | {x.var})
        return ty if ty.startswith("list:") else "list:any"

    def expr_map(self, x: N.MapList, scope: set) -> str:
        self.expr(x.coll, scope)
        inner = scope | {x.var}
        for clause in x.more:
            self.expr(clause.coll, inner)
            inner = inner | {clause.var}
        self.expr(x.cond, inner)
        return "list:" + self.expr(x.expr, inner)

    def expr_cond(self, x: N.CondExpr, scope: set) -> str:
        self.expr(x.test, scope)
        a = self.expr(x.then, scope)
        b = self.expr(x.other, scope)
        return a if a == b else "any"

    def expr_binop(self, x: N.BinOp, scope: set) -> str:
        a = self.expr(x.left, scope)
        b = self.expr(x.right, scope)
        if x.op == "+" and (a.startswith("list:") or b.startswith("list:")):
            return a if a.startswith("list:") else b
        if x.op == "+" and (a == "str" or b == "str"):
            return "str"
        for ty, side in ((a, x.left), (b, x.right)):
            if ty not in ("int", "any"):
                self.err(side.span, f'"{x.op}" works on numbers, but this is {describe_type(ty)}')
        return "int"

    def expr_compare(self, x: N.Compare, scope: set) -> str:
        a = self.expr(x.left, scope)
        b = self.expr(x.right, scope)
        if x.op in ("<", ">", "<=", ">=") and _ordered_enum(a, b):
            # two members of one enum: by their place in it (`bronze < gold`)
            if a.startswith("sym:") and b.startswith("sym:") and a != b:
                self.err(x.span, f'"{x.op}" orders the members of one enum by their place in it, but this compares '
                                 f"{describe_type(a)} with {describe_type(b)}",
                         expected=f"two {a[4:]} values")
        elif x.op in ("<", ">", "<=", ">="):
            for ty, side in ((a, x.left), (b, x.right)):
                if ty not in ("int", "any"):
                    enum = ty[4:] if ty.startswith("sym:") and not ty.startswith("sym:setting:") else None
                    self.err(side.span, f'"{x.op}" compares numbers, but this is {describe_type(ty)}',
                             hint=f"two members of {enum} compare by their place in it (`a {x.op} b`); a member's "
                                  f"place as a number is index_of(a, {enum})" if enum else None)
        elif a.startswith("sym:") and b.startswith("sym:") and a != b:
            self.err(x.span, f"this compares {describe_type(a)} with {describe_type(b)}: they can never be equal")
        elif (a.startswith("list:") and isinstance(x.right, N.NoneLit)) or \
                (b.startswith("list:") and isinstance(x.left, N.NoneLit)):
            listed = x.left if a.startswith("list:") else x.right
            self.err(x.span, f"a list is never none (it is empty or not), so this is always "
                             f"{'false' if x.op == '==' else 'true'}",
                     hint=f"write `{'' if x.op == '==' else 'not '}empty({_source_words(listed)})`")
        elif never_alike(a, b):
            self.err(x.span, f"this compares {describe_type(a)} with {describe_type(b)}: they can never be equal, "
                             f"so this is always {'false' if x.op == '==' else 'true'}",
                     expected=f"{describe_type(a)} on both sides")
        return "bool"

    def expr_member(self, x: N.Member, scope: set) -> str:
        self.expr(x.elem, scope)
        ty = self.expr(x.coll, scope)
        if ty.startswith("map:"):
            self.err(x.span, f"a map holds a number for every {ty[4:]}, so whether a member is in it says nothing",
                     hint="to test a member's number write `m[member] > 0`")
        return "bool"

    def expr_boolop(self, x: N.BoolOp, scope: set) -> str:
        for i in x.items:
            self.expr(i, scope)
        return "bool"

    def expr_not(self, x: N.Not, scope: set) -> str:
        self.expr(x.operand, scope)
        return "bool"

    def expr_neg(self, x: N.Neg, scope: set) -> str:
        self.expect_type(x.operand, scope, "int", "a number")
        return "int"

    def expr_range(self, x: N.Range, scope: set) -> str:
        self.expect_type(x.low, scope, "int", "a number")
        self.expect_type(x.high, scope, "int", "a number")
        return "list:int"

    def expr_cell(self, x: N.CellLit, scope: set) -> str:
        self.expr(x.a, scope)
        self.expr(x.b, scope)
        return "cell"

    def field_value(self, field_type: str) -> str:
        """The type of a field's value: members of an enum compare only with that enum's members; a
        condition is true or false when read."""
        if self.t.kind(field_type) == "enum":
            return "sym:" + field_type
        if not known_type(field_type, self.t):  # (reported where the field is declared)
            return "any"
        return {"condition": "bool", "card": "any"}.get(field_type, field_type)

    def attr_type(self, ty: str, x: N.Attr) -> str:
        # the type of a field depends only on the owner's type and the field's name (the table does not change
        # during a check), so it is worked out once; a field that is reported is worked out again at each use
        key = (ty, x.name)
        known = self._attr_types.get(key)
        if known is None:
            errors = self.bag.reported
            known = self.find_attr_type(ty, x)
            if self.bag.reported == errors:
                self._attr_types[key] = known
        return known

    def find_attr_type(self, ty: str, x: N.Attr) -> str:
        name = x.name
        if ty == "player":
            if name in self.t.player_fields:
                return self.field_value(type_name(self.t.player_fields[name].type))
            if name not in PLAYER_BUILTIN_ATTRS:
                self.err(x.span, f'players have no field "{name}"', expected="a field declared in `player { ... }`",
                         hint=did_you_mean(name, set(self.t.player_fields) | PLAYER_BUILTIN_ATTRS))
                return "any"  # (said once: not again as a number where it is used)
            return "int"
        if ty.startswith("entity:"):
            fields = self.component_fields(ty[7:])
            if name in fields:
                return self.field_value(type_name(fields[name].type))
            if name not in ENTITY_BUILTIN_ATTRS:
                self.err(x.span, f'{ty[7:]} cards have no field "{name}"', hint=did_you_mean(name, set(fields) | ENTITY_BUILTIN_ATTRS))
            return "any"
        if ty == "zone":
            if name not in ZONE_BUILTIN_ATTRS:
                self.err(x.span, f'zones have no field "{name}"', expected="size or owner")
                return "any"
            return "int" if name == "size" else "player"
        if ty in ("int", "bool", "str") or ty.startswith("list:") or ty.startswith("sym:"):
            self.err(x.span, f'{describe_type(ty)} has no field "{name}"')
            return "any"
        # unknown owner: the field must exist on some component or on players
        known = self._field_types_by_name()
        if name not in known:
            everything = (set(known) | set(self.t.table_columns) | ENTITY_BUILTIN_ATTRS | PLAYER_BUILTIN_ATTRS
                          | ZONE_BUILTIN_ATTRS)
            if name not in everything and not self.t.table_columns_unread:
                self.err(x.span, f'no component or player has a field "{name}"', hint=did_you_mean(name, everything),
                         fold=(("field", name), f'the field "{name}" is used again'))
            return "any"
        types = known[name]
        return next(iter(types)) if len(types) == 1 else "any"

    def component_fields(self, name: str) -> dict:
        """A component's fields by name (read once per checker: attribute checks ask for them often)."""
        cache = self.__dict__.setdefault("_component_fields", {})
        fields = cache.get(name)
        if fields is None:
            comp = self.t.components.get(name)
            fields = cache[name] = {f.name: f for f in comp.fields} if comp else {}
        return fields

    def _field_types_by_name(self) -> dict[str, set]:
        """Every declared field name (components and players) with the value types it has anywhere."""
        known = self.__dict__.get("_field_types")
        if known is None:
            known = {}
            fields = [f for comp in self.t.components.values() for f in comp.fields] + [*self.t.player_fields.values()]
            for f in fields:
                known.setdefault(f.name, set()).add(self.field_value(type_name(f.type)))
            self.__dict__["_field_types"] = known
        return known


# the type of a name of these kinds (a setting's is a number, a text or true/false, as its default is:
# --set keeps the kind)
_NAME_TYPES = {"member": "sym:{type}", "enum": "list:sym:{name}", "setting": "{type}", "keyword": "keyword",
               "component": "list:entity:{name}", "cards": "list:any"}
_E = ExpressionChecks
EXPR_CHECKS = {
    N.IntLit: lambda self, x, scope: "int", N.BoolLit: lambda self, x, scope: "bool", N.StrLit: _E.expr_str,
    N.Name: _E.expr_name, N.Call: _E.call, N.Attr: _E.expr_attr, N.Index: _E.expr_index, N.ListLit: _E.expr_list,
    N.FilterList: _E.expr_filter, N.MapList: _E.expr_map, N.CondExpr: _E.expr_cond, N.BinOp: _E.expr_binop,
    N.Compare: _E.expr_compare, N.Member: _E.expr_member, N.BoolOp: _E.expr_boolop, N.Not: _E.expr_not,
    N.Neg: _E.expr_neg, N.Range: _E.expr_range, N.CellLit: _E.expr_cell, N.MapLit: _E.expr_maplit,
}  # (a node not listed, `none`, is any value)


def _ordered_enum(a: str, b: str) -> bool:
    """Whether `a < b` compares members of enums (not a setting's choices): a member with a member, or
    with a value whose type is not known."""
    def member(ty):
        return ty.startswith("sym:") and not ty.startswith("sym:setting:")
    return (member(a) and (member(b) or b == "any")) or (member(b) and a == "any")
