"""Scenario files in JSON form: a JSON scenario (an object, or a list of them) written as the rules
syntax of a scenario, which the parser then reads (see docs/scenarios.md, "Scenarios in JSON").
"""
from __future__ import annotations

import json


def json_to_rules(data: dict, name: str) -> str:
    """A JSON scenario written as rules syntax (one item per line)."""
    rule = data.get("rule", [])  # the rulebook sentence checked: a text or a list of lines
    lines = [f"/// {line}" for part in ([rule] if isinstance(rule, str) else rule) for line in str(part).splitlines()]
    lines.append(f"scenario {json.dumps(data.get('name', name))} {{")
    if "game" in data:
        lines.append(f"  game {json.dumps(data['game'])}")
    variants = data.get("variant") or data.get("variants")
    if variants:
        lines.append("  variant " + (variants if isinstance(variants, str) else ", ".join(variants)))
    for key in ("players", "seed"):
        if key in data:
            lines.append(f"  {key} {int(data[key])}")
    pos = data.get("position")
    if pos:
        lines.append("  position {")
        if "round" in pos:
            lines.append(f"    round {int(pos['round'])}")
        if "phase" in pos:
            lines.append(f"    phase {pos['phase']}")
        for target, value in (pos.get("set") or {}).items():
            lines.append(f"    set {target} = {value}")
        for zone, cards in (pos.get("zones") or {}).items():
            if isinstance(cards, dict):
                for cell, items in cards.items():
                    lines.append(f"    {zone} at {cell}: " + (", ".join(items) if items else "empty"))
            else:
                lines.append(f"    {zone}: " + (", ".join(cards) if cards else "empty"))
        lines.append("  }")
    for step in data.get("steps", []):
        if "run" in step:
            lines.append(f"  run {step['run']}")
        elif "choose" in step:
            lines.append(f"  choose {json.dumps(step['choose'])}")
        elif "expect" in step:
            if "rule" in step:
                lines.append(f"  /// {step['rule']}")
            lines.append(f"  expect {step['expect']}")
        elif "expect_error" in step:
            lines.append(f"  expect error {json.dumps(step['expect_error'])}")
    lines.append("}")
    return "\n".join(lines) + "\n"
