"""Hints of `rulelang check` and the language server: a file that checks clean but probably does not
do what its designer means (issue 41: "Who sees a face-down card in a player's own zone is
surprising. It is hidden from that player unless the rules set the card's owner ... have `check` hint
where a private or per-player zone receives face-down cards that nobody owns")."""
from __future__ import annotations

import subprocess
import sys

from lsprotocol import types as T

import rulelang
from rulelang.check.hints import hints
from rulelang.engine.visibility import visible
from rulelang.language.parser import parse_text
from rulelang.tools.lsp import Analysis, to_lsp_diagnostic

GAME = """\
game "Face down" {
  players 2
  round: play
}
component Card { n: int  label "card {n}" }
cards pack in deck { Card(n: k) for k in 1..10 }
zone deck hidden
zone tableau per player
phase play {
  take turns once {
    move top(deck) to tableau(current) face down
  }
  end game
}
"""
OWNED = GAME.replace("    move top(deck) to tableau(current) face down\n",
                     "    let c = top(deck)\n    move c to tableau(current) face down\n    c.owner = current\n")


def test_a_face_down_card_from_a_shared_zone_in_a_players_public_zone_is_hinted():
    [found] = hints(parse_text(GAME, "fd.rules"))
    assert found.severity == "hint" and (found.span.line, found.span.column) == (11, 5)
    assert 'nobody owns these face-down cards in "tableau", so its player cannot see them' in found.message
    assert "c.owner = p" in found.hint


def test_no_hint_where_the_rules_set_the_owner_or_the_zone_is_private():
    assert hints(parse_text(OWNED, "fd.rules")) == []
    private = GAME.replace("zone tableau per player", "zone tableau per player private")
    assert hints(parse_text(private, "fd.rules")) == []
    assert hints(parse_text(GAME.replace(" face down", ""), "fd.rules")) == []


def test_the_rule_the_hint_explains(tmp_path):
    """docs/reference.md: "a face-down card in a public zone is seen by the card's owner only"."""
    for text, seen_by_its_player in ((GAME, False), (OWNED, True)):
        path = tmp_path / "fd.rules"
        path.write_text(text, encoding="utf-8")
        match = rulelang.load(path).new_match(seed=1)
        [card] = match.s.zones["tableau#1"].items
        assert visible(card, 0) is seen_by_its_player
        assert visible(card, 1) is False


def test_check_prints_the_hint_after_ok_and_passes(tmp_path):
    path = tmp_path / "fd.rules"
    path.write_text(GAME, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "rulelang", "check", str(path)], capture_output=True, text=True,
                         env={"RULELANG_CACHE": "0", "PATH": "/usr/bin:/bin"})
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].endswith("fd.rules: ok (variants: none)")
    assert lines[1].endswith("fd.rules:11:5: hint: nobody owns these face-down cards in \"tableau\", so its player "
                             "cannot see them: a face-down card is seen by its owner only, and a card from a shared "
                             "zone has none")
    assert "^^^^" in lines[3]


def test_the_language_server_shows_it_as_a_hint():
    a = Analysis(GAME, "fd.rules")
    [d] = [to_lsp_diagnostic(d, a.lines) for d in a.diagnostics]
    assert d.severity == T.DiagnosticSeverity.Hint and d.range.start.line == 10
