"""A/B comparison of two versions of a game (variants and settings) on the same seeds.

Each arm plays the same n seeds with the same bots. For every headline metric
(``metrics.per_game_values``) we report both arms, the difference B - A with its
confidence interval, and a p-value:

* paired (the default: game i of both arms has the same seed): rates by McNemar's exact test,
  means by the paired t-test; the interval is the t interval of the per-seed differences;
* independent (``independent=True``: arm B plays the next n seeds): rates by Fisher's exact
  test with Newcombe's interval, means by Welch's t-test and interval.

Many metrics are tested at once, so the p-values are adjusted with Holm's method: a
difference is called significant when its adjusted p-value is below ``alpha``. That keeps
the chance of calling *any* difference significant between two identical arms at or below
``alpha`` (the family-wise error rate), whatever the number of metrics.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from rulelang.balance.metrics import CONFIDENCE, STATISTICS, is_rate, p_words, per_game_values
from rulelang.balance.simulate import Summary, simulate

#: what the tests of a comparison need besides a summary's (scipy.stats and statsmodels: about 1.3 s
#: to import), imported while the first arm's games are played
TESTS = ("scipy.stats", "statsmodels.stats.multitest", "statsmodels.stats.proportion",
         "statsmodels.stats.contingency_tables")


@dataclass
class Arm:
    """One side of a comparison: variants and settings, from text like "migration,hand_size=3"."""

    spec: str
    variants: list[str] = field(default_factory=list)
    settings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, spec: str | None) -> "Arm":
        arm = cls(spec or "base")
        for item in (spec or "").split(","):
            item = item.strip()
            if not item or item == "base":
                continue
            if "=" in item:
                k, v = item.split("=", 1)
                arm.settings[k.strip()] = v.strip()
            else:
                arm.variants.append(item)
        return arm


@dataclass
class MetricDiff:
    metric: str
    rate: bool
    a: float | None
    b: float | None
    diff: float | None
    low: float | None
    high: float | None
    p: float | None
    p_adjusted: float | None = None
    significant: bool = False
    n: int = 0

    def to_json(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Comparison:
    a: Arm
    b: Arm
    summary_a: Summary
    summary_b: Summary
    paired: bool
    alpha: float
    diffs: list[MetricDiff]

    def sentences(self) -> list[str]:
        """What changed, in plain words: one sentence per significant difference."""
        out = []
        for d in self.diffs:
            if not d.significant:
                continue
            verb = "rose" if d.diff > 0 else "fell"
            p = f"p {p_words(d.p_adjusted)}"
            name = d.metric
            if name.startswith("seat "):
                name = f"seat {name.split()[1]}'s win rate"
            shown = ".0%" if d.rate else ".2f"
            out.append(f"{name} {verb} from {d.a:{shown}} to {d.b:{shown}} ({p})")
        return out

    def to_json(self) -> dict:
        arms = (("a", self.a, self.summary_a), ("b", self.b, self.summary_b))
        return {side: {"spec": arm.spec, "variants": arm.variants, "settings": arm.settings,
                       "metrics": summary.metrics()} for side, arm, summary in arms} | {
                "games": self.summary_a.count, "paired": self.paired, "alpha": self.alpha,
                "multiple_comparisons": "Holm (family-wise error rate at alpha)",
                "differences": [d.to_json() for d in self.diffs], "summary": self.sentences()}


def _t_interval(diffs, confidence: float) -> tuple[float, float, float]:
    import numpy as np
    from scipy import stats

    arr = np.asarray(diffs, dtype=float)
    mean = float(arr.mean())
    if len(arr) < 2:
        return mean, mean, mean
    sd = float(arr.std(ddof=1))
    half = float(stats.t.ppf(0.5 + confidence / 2, len(arr) - 1)) * sd / math.sqrt(len(arr))
    return mean, mean - half, mean + half


def compare_metric(metric: str, a: list, b: list, paired: bool, confidence: float = CONFIDENCE) -> MetricDiff:
    """Compare one metric's per-game values of two arms (None values are left out)."""
    import numpy as np
    from scipy import stats

    rate = is_rate(metric)
    if paired:
        pairs = [(x, y) for x, y in zip(a, b) if x is not None and y is not None]
        xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
    else:
        xs, ys = [x for x in a if x is not None], [y for y in b if y is not None]
    if not xs or not ys:
        return MetricDiff(metric, rate, None, None, None, None, None, None)
    ma, mb = float(np.mean(xs)), float(np.mean(ys))
    diff = mb - ma
    n = min(len(xs), len(ys))
    if paired:
        d = [y - x for x, y in zip(xs, ys)]
        _, low, high = _t_interval(d, confidence)
        if rate:
            from statsmodels.stats.contingency_tables import mcnemar

            seen = Counter((bool(x), bool(y)) for x, y in zip(xs, ys))  # (won in A, won in B) -> games
            table = [[seen[True, True], seen[True, False]], [seen[False, True], seen[False, False]]]
            p = 1.0 if table[0][1] + table[1][0] == 0 else float(mcnemar(table, exact=True).pvalue)
        else:
            if float(np.std(d)) == 0.0:  # every seed changed by the same amount (or not at all)
                p = 1.0 if d[0] == 0 else 0.0
            else:
                p = float(stats.ttest_rel(ys, xs).pvalue)
    else:
        if rate:
            from statsmodels.stats.proportion import confint_proportions_2indep

            ka, kb = int(round(sum(xs))), int(round(sum(ys)))
            p = float(stats.fisher_exact([[kb, len(ys) - kb], [ka, len(xs) - ka]]).pvalue)
            low, high = (float(v) for v in confint_proportions_2indep(kb, len(ys), ka, len(xs), method="newcomb",
                                                                       alpha=1 - confidence))
        else:
            if np.std(xs) == 0 and np.std(ys) == 0:
                p = 1.0 if ma == mb else 0.0
                low = high = diff
            else:
                res = stats.ttest_ind(ys, xs, equal_var=False)
                p = float(res.pvalue)
                ci = res.confidence_interval(confidence_level=confidence)
                low, high = float(ci.low), float(ci.high)
    return MetricDiff(metric, rate, ma, mb, diff, low, high, min(max(p, 0.0), 1.0), n=n)


def compare_summaries(sa: Summary, sb: Summary, paired: bool, alpha: float = 0.05,
                      confidence: float = CONFIDENCE) -> list[MetricDiff]:
    """Test every headline metric and adjust the p-values for multiple comparisons (Holm)."""
    va, vb = per_game_values(sa), per_game_values(sb)
    diffs = [compare_metric(m, va[m], vb.get(m, []), paired, confidence) for m in va]
    tested = [d for d in diffs if d.p is not None]
    if tested:
        from statsmodels.stats.multitest import multipletests

        reject, adjusted, _, _ = multipletests([d.p for d in tested], alpha=alpha, method="holm")
        for d, r, q in zip(tested, reject, adjusted):
            d.p_adjusted, d.significant = float(q), bool(r)
    return diffs


def compare(path: str, a: str | None, b: str | None, n: int, players: int | None = None,
            agents: list[str] | None = None, seed: int = 0, jobs: int | None = 1, cluster: str | None = None,
            alpha: float = 0.05, independent: bool = False, progress=None) -> Comparison:
    arm_a, arm_b = Arm.parse(a), Arm.parse(b)
    sa = simulate(path, n, variant=arm_a.variants, players=players, agents=agents, seed=seed, jobs=jobs,
                  settings=arm_a.settings, progress=progress, cluster=cluster, statistics=STATISTICS + TESTS)
    sb = simulate(path, n, variant=arm_b.variants, players=players, agents=agents,
                  seed=seed + n if independent else seed, jobs=jobs, settings=arm_b.settings,
                  progress=progress, cluster=cluster)
    if sa.players != sb.players:
        raise ValueError(f"the arms are played by {sa.players} and {sb.players} players: give --players")
    diffs = compare_summaries(sa, sb, paired=not independent, alpha=alpha)
    return Comparison(arm_a, arm_b, sa, sb, not independent, alpha, diffs)
