"""Innate ability: which real classifier leads consistently across the suite and its subsets (Cardoso et al. 2021 §4.9,
§5.5).

§4.9 rates the same classifiers on the full benchmark and on IRT-chosen subsets; the model "with the best and most
consistent performance" has the best innate ability, which §5.5 read off the rating tables. Here it is counted, with its
uncertainty:

* per scenario (full suite and every subset), the leading real classifier, its margin over the runner-up in rating
  points, and whether the lead is **separable**: the leader's [R − 2RD, R + 2RD] (§2.6) lies entirely above the
  runner-up's;
* how **order-robust** the lead is: the share of random dataset orders (:func:`benchirt.rating.permutation_analysis`) in
  which the leader is the highest-rated real classifier;
* the verdict: the classifier leading in most scenarios (ties: better mean rank among the real classifiers), with how
  many leads are separable and how often they survive a reordering.
"""
from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

def innate_ability(
    ratings: pd.DataFrame, scenarios: list[str], *, lead_shares: Mapping[str, pd.Series] | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, str]:
    """Side-by-side ratings of the real classifiers, the leader of each scenario and the verdict.

    ``ratings``: long ``subset, classifier, role, rating, rd, volatility, low, high`` and optionally ``rating_mean,
    rating_sd, rank_min, rank_max`` (as :attr:`benchirt.subsets.SubsetEvaluation.ratings`); ``scenarios``: names in
    display order (``"full"`` first); ``lead_shares`` (optional): ``{scenario: Series(real classifier -> share of
    dataset orders in which it rates highest among the real classifiers)}``.

    Returns
    -------
    table : DataFrame
        Per (scenario, real classifier): ``subset, classifier, rating, rd, volatility, real_rank`` (1 = highest among
        the real), ``volatility_rank`` (1 = lowest), the order-robust columns when present and, with ``lead_shares``,
        ``p_lead``.
    leaders : DataFrame
        Per scenario: ``subset, leader, runner_up, margin, separable, tied_with`` (others with the leader's exact
        rating, comma-separated; empty for a strict lead), ``lowest_volatility`` and, with ``lead_shares``, the leader's
        ``p_lead``.
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
            # equal top ratings are a tie, not a lead (the name order above is no evidence)
            "tied_with": ", ".join(frame.loc[frame["rating"] == first["rating"], "classifier"].iloc[1:]),
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


def innate_wide(table: pd.DataFrame, *, values=("rating", "real_rank", "volatility")) -> pd.DataFrame:
    """The innate table side by side: rows = real classifier (best mean real rank first), columns = (measure, scenario)."""
    scenarios = list(dict.fromkeys(table["subset"]))
    wide = table.pivot(index="classifier", columns="subset", values=list(values))
    wide = wide.reindex(columns=pd.MultiIndex.from_product([list(values), scenarios]))
    order = table.groupby("classifier")["real_rank"].mean().sort_values(kind="mergesort").index
    return wide.loc[order]


def _most_consistent(table: pd.DataFrame, strict: pd.DataFrame, robust: bool) -> str:
    """The candidate of :func:`_verdict`: highest mean share of orders led (``robust``), then most suites led
    alone (``strict``: the leaders without a tie), then the better mean rank, then the name."""
    stats = table.groupby("classifier").agg(real_rank=("real_rank", "mean"))
    stats["leads"] = strict["leader"].value_counts().reindex(stats.index, fill_value=0)
    stats["p_lead"] = table.groupby("classifier")["p_lead"].mean() if robust else 0.0
    stats = stats.rename_axis("classifier").reset_index()
    keys = ["p_lead", "leads", "real_rank", "classifier"] if robust else ["leads", "real_rank", "classifier"]
    return stats.sort_values(keys, ascending=[k in ("real_rank", "classifier") for k in keys]).iloc[0]["classifier"]


def _verdict_sentence(name: str, leaders: pd.DataFrame, n: int, k: int, separable: int, n_tied: int,
                      shares: pd.Series | None) -> str:
    """The closing verdict: no leader (a tie at the top), a clear lead, a consistent lead or none."""
    if k == 0 and n_tied:
        return "Verdict: no leader — the top of the ratings is a tie."
    if k == n and separable == n and (shares is None or shares.min() >= 0.95):
        return "Verdict: a clear lead on every suite, larger than the rating uncertainty."
    if k == n or (shares is not None and shares.min() >= 0.5):
        return f"Verdict: a consistent lead, but within the rating uncertainty on {n - separable} of {n} suites."
    others = sorted(set(leaders["leader"]) - {name})
    return (f"Verdict: no consistent leader — {', '.join(others)} lead(s) elsewhere; the suites do not single "
            "out one classifier.")


def _verdict(table: pd.DataFrame, leaders: pd.DataFrame, scenarios: list[str]) -> str:
    """Name the most consistent leader and state how certain its lead is: the real classifier with the highest mean
    share of dataset orders it leads (when the order analysis ran), else the one leading most suites in sorted order;
    ties to the better mean rank, then the name."""
    n = len(scenarios)
    strict = leaders[leaders["tied_with"] == ""]
    robust = "p_lead" in table.columns
    name = _most_consistent(table, strict, robust)
    led = strict[strict["leader"] == name]
    k, separable = len(led), int(led["separable"].sum())
    tied = leaders[[name == leader or name in members.split(", ")
                    for leader, members in zip(leaders["leader"], leaders["tied_with"])]]
    tied = tied[tied["tied_with"] != ""]
    text = f"Innate ability (Cardoso et al. 2021 §4.9): {name} leads the real classifiers most consistently. "
    text += f"In sorted dataset order it leads {k} of {n} suites"
    if k:
        text += (
            f" ({', '.join(led['subset'])}), by {led['margin'].min():.1f} to {led['margin'].max():.1f} rating "
            f"points; the lead is separable by the R ± 2RD intervals on {separable} of {k}"
        )
    if len(tied):
        text += f"; it is tied for first (equal ratings) on {len(tied)} ({', '.join(tied['subset'])})"
    text += "."
    shares = None
    if robust:
        shares = table[table["classifier"] == name].set_index("subset")["p_lead"].reindex(scenarios)
        per_suite = ", ".join(f"{s} {100 * v:.0f} %" for s, v in shares.items())
        text += (f" Over random dataset orders it leads alone in {100 * shares.mean():.0f} % of them on average "
                 f"({per_suite}).")
    lowest_vol = int((leaders["lowest_volatility"] == name).sum())
    text += f" It has the lowest volatility among the real classifiers on {lowest_vol} of {n} suites. "
    text += _verdict_sentence(name, leaders, n, k, separable, len(tied), shares)
    return text
