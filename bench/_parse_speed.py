"""How long the first `rulelang check` of a file takes in two (or more) checkouts, measured alike.

Not a reference for `rulelang bench` (the leading `_`). The machine may be shared: the runs of the
checkouts alternate (A B A B ...), each in a fresh process with an empty cache folder
(XDG_CACHE_HOME, so the AST cache and the parse cache start empty), and the medians are printed
with the load average before and after:

    python bench/_parse_speed.py games/evacuation.rules /path/to/old /path/to/new -n 11

Each checkout runs its own code (PYTHONPATH set to it; the file is named relative to it). With
--warm, the cache folder is kept from one run to the next: the time of checking an unchanged file.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def one_run(checkout: str, rules: str, cache: str) -> float:
    env = dict(os.environ, PYTHONPATH=checkout, XDG_CACHE_HOME=cache)
    env.pop("RULELANG_CACHE_DIR", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: the modules' bytecode is kept
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "rulelang", "check", rules], cwd=checkout, env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    took = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise SystemExit(f"{checkout}: rulelang check {rules} ended with {done.returncode}")
    return took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rules")
    ap.add_argument("checkouts", nargs="+")
    ap.add_argument("-n", type=int, default=9, help="runs of each checkout (default 9)")
    ap.add_argument("--warm", action="store_true", help="keep the cache between runs (an unchanged file)")
    args = ap.parse_args()
    times: dict[str, list[float]] = {c: [] for c in args.checkouts}
    with tempfile.TemporaryDirectory() as kept:
        for j, c in enumerate(args.checkouts):  # once first: each checkout's bytecode written, as installed
            one_run(c, args.rules, os.path.join(kept, f"warm{j}" if args.warm else f"first{j}"))
        load_before = os.getloadavg()[0]
        for i in range(args.n):
            for j, c in enumerate(args.checkouts):
                if args.warm:
                    times[c].append(one_run(c, args.rules, os.path.join(kept, f"warm{j}")))
                else:
                    with tempfile.TemporaryDirectory() as cache:
                        times[c].append(one_run(c, args.rules, cache))
        load_after = os.getloadavg()[0]
    for c, t in times.items():
        print(f"{c}: median {statistics.median(t):.3f} s, min {min(t):.3f} s ({len(t)} runs)")
    print(f"load average {load_before:.2f} before, {load_after:.2f} after")


if __name__ == "__main__":
    main()
