"""Variants: a variant is an overlay of declarations on the base game.

Inside ``variant NAME { ... }``, a declaration marked ``replace`` swaps out the
base declaration with the same name; ``remove NAME`` drops one; ``set S = v``
changes a setting; anything else is added. Several variants apply in order
(``--variant competitive,complex``); ``extends`` pulls in another variant first.
"""
from __future__ import annotations

from rulelang.language import nodes as N
from rulelang.core.errors import DiagnosticBag, Span, did_you_mean


def declared_names(decls) -> dict[str, N.Decl]:
    out = {}
    for d in decls:
        if not isinstance(d, (N.VariantDecl, N.ScenarioDecl, N.RemoveDecl, N.SetSetting)):
            out.setdefault(d.key[1], d)
    return out


def apply_variants(rules: N.RulesFile, names: list[str], bag: DiagnosticBag) -> tuple[list, list[N.SetSetting]]:
    """Return the merged declarations and the setting overrides for the chosen variants."""
    variants = rules.variants()
    base = [d for d in rules.decls if not isinstance(d, (N.VariantDecl, N.ScenarioDecl, N.SetSetting))]
    settings: list[N.SetSetting] = []
    order: list[N.VariantDecl] = []

    def visit(name: str, where: Span, chain: tuple):
        if name in chain:
            bag.error(where, f'variant "{name}" extends itself through {" -> ".join(chain + (name,))}')
            return
        variant = variants.get(name)
        if variant is None:
            bag.error(where, f'there is no variant named "{name}"', expected="one of: " + (", ".join(variants) or "(none declared)"),
                      hint=did_you_mean(name, variants))
            return
        for parent in variant.extends:
            visit(parent, variant.span, chain + (name,))
        if variant not in order:
            order.append(variant)

    for name in names:
        visit(name, rules.span, ())

    decls = list(base)
    for variant in order:
        decls, extra = overlay(decls, variant, bag)
        settings.extend(extra)
    return decls, settings


def overlay(decls: list, variant: N.VariantDecl, bag: DiagnosticBag) -> tuple[list, list[N.SetSetting]]:
    decls = list(decls)
    settings: list[N.SetSetting] = []
    index: dict | None = None
    for item in variant.items:
        if isinstance(item, N.SetSetting):
            settings.append(item)
            continue
        if isinstance(item, N.RemoveDecl):
            kept = [d for d in decls if d.key[1] != item.name]
            if len(kept) == len(decls):
                bag.error(item.span, f'variant "{variant.name}" removes "{item.name}", which the base game does not declare',
                          hint=did_you_mean(item.name, declared_names(decls)))
            decls = kept
            index = None
            continue
        if isinstance(item, (N.VariantDecl, N.ScenarioDecl)):
            bag.error(item.span, "a variant cannot declare another variant or a scenario")
            continue
        if index is None:  # where each declaration is, by key (rebuilt after a removal)
            index = {}
            for i, d in enumerate(decls):
                index.setdefault(d.key, i)
        same = index.get(item.key)  # (the first declaration with that key)
        if item.replace:
            if same is None:
                bag.error(item.span,
                          f'variant "{variant.name}" replaces "{item.key[1]}", which the base game does not declare',
                          hint=did_you_mean(item.key[1], declared_names(decls))
                          or "to add a declaration the base game does not have, write it without `replace`")
                continue
            decls[same] = item
        else:
            if same is not None and not isinstance(item, N.TriggerDecl):
                bag.error(item.span, f'"{item.key[1]}" is already declared by the base game',
                          hint='write "replace" before it to change the base declaration')
                continue
            index.setdefault(item.key, len(decls))
            decls.append(item)
    return decls, settings
