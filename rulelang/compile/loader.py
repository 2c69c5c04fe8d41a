"""Loading a game: parse a .rules file, check it, apply its variants and settings, compile it.

``load()`` is the one door from a file to a playable ``Game``; the runtime itself knows nothing
of parsing or checking.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rulelang.language import nodes as N
from rulelang.check.checker import check_rules
from rulelang.compile.compiler import Compiler, RuleError, compile_program
from rulelang.core.errors import Diagnostic, DiagnosticBag, RulesError, Span, did_you_mean
from rulelang.core.budgets import NUMBER_BOUND, BudgetExceeded, Budgets, as_budgets, resident_mb, using
from rulelang.core.sourcefile import check_text_size
from rulelang.engine.runtime import Game
from rulelang.language.variants import apply_variants


def _unknown_setting(name: str, rules: N.RulesFile | None, settings: dict, bag: DiagnosticBag) -> None:
    """`--set NAME=...` names no setting of the game as loaded: say where it is, if a variant declares it."""
    decls = rules.decls if rules is not None else []
    for d in decls:
        if isinstance(d, N.VariantDecl):
            for item in d.items:
                if isinstance(item, N.SettingDecl) and item.name == name:
                    bag.error(item.span, f'setting "{name}" belongs to variant {d.name}, which is not chosen',
                              hint=f"add --variant {d.name} to use --set {name}=...")
                    return
    game_decl = next((d for d in decls if isinstance(d, N.GameDecl)), None)
    span = game_decl.span if game_decl is not None else Span(file=(rules.path if rules is not None else "<rules>") or "<rules>",
                                                              line=1, column=1)
    bag.error(span, f'there is no setting "{name}" in this game (given with --set)',
              expected=", ".join(settings) or "(this game has no settings)", hint=did_you_mean(name, list(settings)))


def resolve_settings(table, decls, overrides: list, cli: dict[str, str] | None, bag: DiagnosticBag,
                     rules: N.RulesFile | None = None) -> dict:
    settings: dict[str, Any] = {}
    compiler = Compiler(table, {})
    for d in decls:
        if isinstance(d, N.SettingDecl):
            settings[d.name] = compiler.const(d.default, {})
    for o in overrides:
        settings[o.name] = compiler.const(o.value, {})
    for name, text in (cli or {}).items():
        decl = next((d for d in decls if isinstance(d, N.SettingDecl) and d.name == name), None)
        if decl is None:
            _unknown_setting(name, rules, settings, bag)
            continue
        if decl.choices:
            if text not in decl.choices:
                bag.error(decl.span, f'setting "{name}" is one of {", ".join(decl.choices)}, not "{text}"')
            settings[name] = text
        elif type(settings.get(name)) is bool:  # a setting takes a value of its default's kind
            if type(text) is not bool and text not in ("true", "false"):
                bag.error(decl.span, f'setting "{name}" is true or false, not "{text}"')
            settings[name] = text if type(text) is bool else text == "true"
        elif type(settings.get(name)) is int:
            try:
                number = text if type(text) is int else int(str(text).strip())
            except ValueError:
                number = None
            if number is None or not -NUMBER_BOUND <= number <= NUMBER_BOUND:
                bag.error(decl.span, f'setting "{name}" takes a whole number (within ±10^18), not "{text}"')
                number = 0
            settings[name] = number
        elif text in ("true", "false"):
            settings[name] = text == "true"
        else:
            try:
                settings[name] = int(text)
            except ValueError:
                settings[name] = text
    return settings



def load(path: str | Path, variant: str | list[str] | None = None, settings: dict[str, str] | None = None,
         text: str | None = None, budgets: "Budgets | dict | None" = None, fused: bool = True) -> Game:
    """Parse, check and compile a .rules file; raise RulesError with every problem found.

    `fused=False` keeps every statement an op of its own (no runs written as one generated op), so
    each op run stands for one rules line: what coverage (balance/coverage.py) records. Slower.

    `budgets` raises or lowers the resource budgets (see `rulelang.core.budgets.Budgets`), e.g.
    ``budgets={"cards": 500_000}``; matches of the game run within them."""
    chosen_budgets = as_budgets(budgets)
    memory_base = resident_mb()
    with using(chosen_budgets):
        try:
            game = _load(path, variant, settings, text, fused)
        except BudgetExceeded as exc:
            raise RulesError(Diagnostic(exc.span, exc.message, hint=exc.hint)) from None
        except MemoryError:
            raise RulesError(Diagnostic(Span(file=str(path), line=1, column=1), "loading the rules ran out of memory "
                                        "(budget memory_mb: MiB of memory a match may take)")) from None
    game.program.budgets = chosen_budgets
    game.program.memory_base = memory_base
    return game


def _load(path, variant, settings, text, fused=True) -> Game:
    from rulelang.language.astcache import parse_text_cached, read_and_parse  # an unchanged file is not parsed again
    from rulelang.core.resources import find_game

    if text is None:
        resolved = find_game(str(path))
        source, rules = read_and_parse(resolved)  # (read once, within the source_bytes budget: sourcefile)
        path = str(resolved)
    else:
        check_text_size(text, str(path))  # a text given whole is held to source_bytes as a file is
        rules = parse_text_cached(text, str(path))
        source = text
    variants = [v for v in (variant.split(",") if isinstance(variant, str) else (variant or [])) if v]
    table = check_rules(rules, variants)
    bag = DiagnosticBag()
    decls, overrides = apply_variants(rules, variants, bag)
    chosen = resolve_settings(table, decls, overrides, settings, bag, rules)
    bag.raise_if_any()
    try:
        program = compile_program(decls, table, chosen, fused)
    except RuleError as exc:
        raise RulesError(Diagnostic(exc.span, exc.message)) from None
    game_decl = next((d for d in decls if isinstance(d, N.GameDecl)), None)
    return Game(program, rules, variants, chosen, str(path), source, game_decl)
