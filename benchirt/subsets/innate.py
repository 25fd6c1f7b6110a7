"""Innate ability: which real classifier leads consistently across the suite and its subsets (seed 003 §4.9, §5.5).

seed 003 §4.9 defines the assessment: rate the same classifiers on the full benchmark and on
IRT-chosen subsets; the model "with the best and most consistent performance" has the best innate
ability. §5.5 read it off the rating tables. Here it is counted, with its uncertainty:

* per scenario (full suite and every subset), the leading real classifier, its margin over the
  runner-up in rating points, and whether the lead is **separable**: the leader's interval
  [R − 2RD, R + 2RD] (seed 003 §2.6, the tournament's ``low``/``high``) lies entirely above the
  runner-up's;
* how **order-robust** the lead is: the share of random dataset orders
  (:func:`benchirt.rating.permutation_analysis`) in which the leader is the highest-rated real
  classifier;
* the verdict: the classifier leading in most scenarios (ties: better mean rank among the real
  classifiers), with how many of those leads are separable and how often they survive a reordering.
"""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

def innate_ability(
    ratings: pd.DataFrame, scenarios: list[str], lead_shares: Mapping[str, pd.Series] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Side-by-side ratings of the real classifiers, the leader of each scenario and the verdict.

    Parameters
    ----------
    ratings : DataFrame, long
        ``subset, classifier, role, rating, rd, volatility, low, high`` and optionally the
        order-robust ``rating_mean, rating_sd, rank_min, rank_max`` (as in
        :attr:`benchirt.subsets.SubsetEvaluation.ratings`).
    scenarios : list of str
        Scenario names in display order (``"full"`` first).
    lead_shares : mapping, optional
        ``{scenario: Series(real classifier -> share of dataset orders in which it rates highest
        among the real classifiers)}``.

    Returns
    -------
    table : DataFrame
        One row per (scenario, real classifier): ``subset, classifier, rating, rd, volatility,
        real_rank`` (1 = highest rating among the real classifiers), ``volatility_rank`` (1 = lowest),
        the order-robust columns when present and ``p_lead`` (share of orders it leads) with
        ``lead_shares``.
    leaders : DataFrame
        One row per scenario: ``subset, leader, runner_up, margin, separable, lowest_volatility`` and,
        with ``lead_shares``, ``p_lead`` of the leader.
    verdict : str
        One paragraph naming the most consistent leader and the uncertainty of its lead.
    """
    real = ratings[ratings["role"] == "real"]
    tables, leaders = [], []
    for name in scenarios:
        frame = real[real["subset"] == name].sort_values(["rating", "classifier"], ascending=[False, True])
        frame = frame.assign(
            real_rank=range(1, len(frame) + 1),
            volatility_rank=frame["volatility"].rank(method="min").astype(int),
        )
        if lead_shares is not None and name in lead_shares:
            frame["p_lead"] = frame["classifier"].map(lead_shares[name]).fillna(0.0).to_numpy()
        tables.append(frame)
        first, second = frame.iloc[0], frame.iloc[1]
        row = {
            "subset": name,
            "leader": first["classifier"],
            "runner_up": second["classifier"],
            "margin": float(first["rating"] - second["rating"]),
            "separable": bool(first["low"] > second["high"]),
            "lowest_volatility": frame.sort_values(["volatility", "classifier"]).iloc[0]["classifier"],
        }
        if "p_lead" in frame.columns:
            row["p_lead"] = float(first["p_lead"])
        leaders.append(row)

    columns = ["subset", "classifier", "rating", "rd", "volatility", "real_rank", "volatility_rank"]
    table = pd.concat(tables, ignore_index=True)
    columns += [c for c in ("rating_mean", "rating_sd", "rank_min", "rank_max", "p_lead") if c in table.columns]
    table = table[columns]
    leaders = pd.DataFrame(leaders)
    return table, leaders, _verdict(table, leaders, scenarios)


def innate_wide(table: pd.DataFrame, values=("rating", "real_rank", "volatility")) -> pd.DataFrame:
    """The innate table side by side: rows = real classifier, columns = (measure, scenario).

    Rows are sorted by the mean real rank over the scenarios (best first).
    """
    scenarios = list(dict.fromkeys(table["subset"]))
    wide = table.pivot(index="classifier", columns="subset", values=list(values))
    wide = wide.reindex(columns=pd.MultiIndex.from_product([list(values), scenarios]))
    order = table.groupby("classifier")["real_rank"].mean().sort_values(kind="mergesort").index
    return wide.loc[order]


def _verdict(table: pd.DataFrame, leaders: pd.DataFrame, scenarios: list[str]) -> str:
    counts = leaders["leader"].value_counts()
    mean_rank = table.groupby("classifier")["real_rank"].mean()
    candidates = pd.DataFrame({"leads": counts}).join(mean_rank, how="left")
    candidates = candidates.rename_axis("classifier").reset_index()
    best = candidates.sort_values(["leads", "real_rank", "classifier"], ascending=[False, True, True]).iloc[0]
    name = best["classifier"]
    led = leaders[leaders["leader"] == name]
    n, k = len(scenarios), len(led)
    separable = int(led["separable"].sum())
    lowest_vol = int((leaders["lowest_volatility"] == name).sum())
    text = (
        f"Innate ability (seed 003 §4.9): {name} leads the real classifiers on {k} of {n} suites "
        f"({', '.join(led['subset'])}), by {led['margin'].min():.1f} to {led['margin'].max():.1f} rating points "
        f"over the runner-up; the lead is separable by the R ± 2RD intervals on {separable} of {k}"
    )
    if "p_lead" in leaders.columns:
        text += (
            f"; over random dataset orders it stays ahead in {100 * led['p_lead'].min():.0f}–"
            f"{100 * led['p_lead'].max():.0f} % of them"
        )
    text += f". It has the lowest volatility among the real classifiers on {lowest_vol} of {n}. "
    others = leaders.loc[leaders["leader"] != name, "leader"].unique()
    if k == n and separable == n:
        text += f"Verdict: {name} has the most consistent lead, and it is larger than the rating uncertainty."
    elif k == n:
        runners = ", ".join(sorted(leaders.loc[~leaders["separable"], "runner_up"].unique()))
        text += (
            f"Verdict: {name} leads consistently, but not always beyond the rating uncertainty "
            f"(not separable from {runners} on every suite)."
        )
    else:
        text += (
            f"Verdict: no consistent leader; {', '.join(sorted(others))} lead(s) elsewhere, so the suites "
            "do not single out one classifier."
        )
    return text
