"""Hostile rules files against the resource budgets: time, peak memory and the diagnostic of each.

    python bench/_hostile.py            # each case in a fresh process; prints a table
    python bench/_hostile.py --cards    # also `rulelang check` of 10,000 / 25,000 / 50,000 declared cards

The goal (docs/safety.md): every runaway stops within 5 s and under 1 GiB with an error naming
its rules line and its budget; `check` of 50,000 declared cards in under 3 s, linear in size.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAD = 'game "Hostile" {{ players 2; round: a; max rounds 3 }}\n{head}\nphase a {{ {body} }}\n'
CASES = {
    "deck of 10,000,000 by comprehension": ("component C { n: int }\nzone pile\n"
                                             "cards many in pile { C(n: k) for k in 1..10000000 }", 'log "x"'),
    "deck of 3000 x 3000": ("component C { n: int }\nzone pile\ncards many in pile { C(n: k) for k in 1..3000, j in 1..3000 }",
                            'log "x"'),
    "range of 10^9": ("", "let xs = 1..1000000000"),
    "text doubling": ('var t: str = "ab"', "repeat 100 times { t = t + t }"),
    "list doubling": ("var xs: list of int = [1]", "repeat 100 times { xs = xs + xs }"),
    "number squaring": ("var n: int = 3", "repeat 100 times { n = n * n }"),
    "while true": ("var n: int = 0", "while true { n += 1 }"),
    "heavy loop": ("", "while true { let x = count(k in 1..900000 where k > 0) }"),
    "exponential def": ("def f(n) = if n == 0 then roll(1) else f(n - 1) + f(n - 1)", "let v = f(60)"),
    "endless def": ("def f(n) = f(n + 1)", "let v = f(1)"),
    "endless procedure": ("procedure p(n: int) { p(n + 1) }", "p(1)"),
    "triggers ping-pong": ("zone z1\nzone z2\ncomponent C { n: int }\ncards cs in z1 { C(n: 1) }\n"
                           "when c enters z1 { move c to z2 }\nwhen c enters z2 { move c to z1 }", "move top(z1) to z2"),
    "continuous rule never settles": ("var n: int = 0\nalways { n += 1 }", 'log "x"'),
    "dice by the billion": ("", "let r = roll(1000000000, 6)"),
    "deep nesting": ("", "let x = " + "(" * 3000 + "1" + ")" * 3000),
    "deeper nesting": ("", "let x = " + "not " * 5000 + "true"),
    "long sum": ("", "let x = " + " + ".join(["1"] * 20000)),
    "huge board": ("zone b: board grid 8 size 100000 by 100000", 'log "x"'),
}


def run(args: list[str], cwd: str) -> tuple[float, float, int, str]:
    """Run `rulelang ARGS` in a fresh process: seconds, peak resident MiB (GNU time), exit status, first line."""
    start = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "PEAK %M", sys.executable, "-m", "rulelang", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)
    seconds = time.perf_counter() - start
    lines = proc.stderr.strip().splitlines()
    peak = float(lines.pop().split()[1]) / 1024 if lines and lines[-1].startswith("PEAK") else float("nan")
    first = (lines or proc.stdout.strip().splitlines() or [""])[0]
    return seconds, peak, proc.returncode, first


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    os.environ["PYTHONPATH"] = str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import rulelang.cli.main"], check=True)
        print(f"(python + rulelang import alone: {time.perf_counter() - start:.2f} s)")
        print(f"{'case':36} {'seconds':>8} {'peak MiB':>9}  diagnostic")
        for name, (head, body) in CASES.items():
            path = Path(tmp) / "hostile.rules"
            path.write_text(HEAD.format(head=head, body=body), encoding="utf-8")
            seconds, peak, code, first = run(["simulate", "hostile.rules", "-n", "1", "--quiet"], tmp)
            print(f"{name:36} {seconds:8.2f} {peak:9.0f}  [{code}] {first[:150]}")
        if "--cards" in sys.argv:
            for n in (10_000, 25_000, 50_000):
                lines = ['game "Many cards" { players 2; round: a; max rounds 1 }', "enum Suit { red, green, blue }",
                         'component Card { name: str; suit: Suit; point: int = 0; label "{name}" }',
                         "zone deck hidden", "cards pack in deck {"]
                lines += [f'  Card(name: "Card {i}", suit: {("red", "green", "blue")[i % 3]}, point: {i % 13})'
                          for i in range(n)]
                lines += ["}", 'phase a { log "x" }']
                path = Path(tmp) / f"cards{n}.rules"
                path.write_text("\n".join(lines) + "\n", encoding="utf-8")
                seconds, peak, code, first = run(["check", path.name], tmp)
                print(f"{'check of ' + format(n, ',') + ' cards':36} {seconds:8.2f} {peak:9.0f}  [{code}] {first[:100]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
