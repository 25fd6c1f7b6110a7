"""Which runs become respondents and which rows become items: a declared, recorded rule.

A flow has one run per hyperparameter setting, often hundreds. Rules:

* ``all`` — every run is a respondent;
* ``best`` / ``median`` / ``first`` — one run per flow: the most accurate (ties: lowest run id), the lower median by
  accuracy, or the first uploaded (lowest run id);
* ``best-held-out`` (default) — the most accurate run of each flow *on the even folds*, scored on the odd folds' rows
  only. Choosing the best of many runs on the rows it is scored on inflates its score (the winner's curse, Cawley &
  Talbot 2010); choosing on one half and keeping the other half's rows as items removes that bias at the cost of half
  the items. Without folds (a matrix source) the halves are a seeded stratified random split. When every flow has
  one run (after the accuracy floor) there is nothing to choose: that run is the respondent and every row an item
  (:attr:`Selection.rule_applied` says so).

Whatever the rule, :func:`winners_curse` measures per flow the chosen run's accuracy gap between the two halves. Then
runs below ``min_accuracy`` are dropped before choosing (label-encoding failures score 0 %), a ``max_items``
stratified sample is shared by all respondents, and identical response patterns are kept once (with their count) —
each step counted in :attr:`Selection.notes`.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
import pandas as pd

from benchirt.errors import ConfigError
from benchirt.options import Boolean, Choice, Constraint, Integer, Number, validate_fields
from benchirt.stored_runs.matrix import RunMatrix
from benchirt.stored_runs.names import DEFAULT_RULE, RULES  # noqa: F401  (defined where the command line reads them light)


@dataclass(frozen=True)
class SelectionOptions:
    """A selection rule and its limits.

    Attributes
    ----------
    rule : str
        One of :data:`RULES`.
    min_accuracy : float or None
        Runs whose accuracy on all rows is below this are dropped; None: ``1 / n_classes`` when the classes are known
        (worse than guessing uniformly), else no floor.
    max_items : int or None
        Keep a stratified sample (by class, else by fold) of at most this many items.
    deduplicate : bool
        Keep one respondent per distinct response pattern (its ``n_identical`` counts the others).
    seed : int
        Seed of the item sample and of the halves of a source without folds.
    pool_trains : bool
        benchirt's pool trains beside the runs on the non-item rows
        (:meth:`benchirt.stored_runs.config.ImportConfig.selection`): ``best-held-out`` holds out its half even when
        every flow has one run.
    """

    rule: str = DEFAULT_RULE
    min_accuracy: float | None = None
    max_items: int | None = None
    deduplicate: bool = True
    seed: int = 0
    pool_trains: bool = False

    #: The declared constraint of every option (:func:`benchirt.options.validated`); a ``respond`` section
    #: that imports runs declares its selection options with these (:class:`benchirt.stored_runs.config.ImportConfig`).
    OPTIONS: ClassVar[dict[str, Constraint]] = {
        "rule": Choice(choices=RULES),
        "min_accuracy": Number(at_least=0, at_most=1, optional=True),
        "max_items": Integer(minimum=2, optional=True),
        "deduplicate": Boolean(),
        "seed": Integer(),
        "pool_trains": Boolean(),
    }

    def __post_init__(self) -> None:
        validate_fields("selection", self, self.OPTIONS)


@dataclass
class Selection:
    """The respondents and items chosen from a :class:`RunMatrix`.

    Attributes
    ----------
    responses : pandas.DataFrame of int8, shape (n_respondents, n_items)
        Index: respondent names (the flow's; ``<flow name> run <run id>`` under ``all``); columns: OpenML row ids as
        strings.
    respondents : pandas.DataFrame
        Per respondent: its provenance, ``accuracy`` (all rows), ``item_accuracy`` (the items kept),
        ``selection_accuracy`` (the half it was chosen on; NaN for rules choosing on all rows), ``n_runs_of_flow``,
        ``n_identical`` and ``identical_runs``.
    winners_curse : pandas.DataFrame
        :func:`winners_curse`, per flow with at least two runs.
    notes : list of str
        Every count: runs below the floor, runs not chosen, items left out, duplicates merged.
    rule_applied : str
        The rule's name, or for ``best-held-out`` with one run per flow :data:`NOTHING_TO_CHOOSE`.
    """

    responses: pd.DataFrame
    respondents: pd.DataFrame
    winners_curse: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    rule_applied: str = ""


#: :attr:`Selection.rule_applied` of ``best-held-out`` when every flow has one run: nothing to choose, no row held out.
NOTHING_TO_CHOOSE = "best-held-out: one run per flow, no row held out"


def across_datasets(options: SelectionOptions, n_datasets: int) -> tuple[SelectionOptions, list[str]]:
    """The options for one dataset of an import of ``n_datasets``: with several, a flow is one respondent on
    every dataset (the datasets × flows matrix the rating and AIRT stages read), so identical patterns are
    not merged (a flow merged into another on one dataset would be missing from that matrix); said."""
    if n_datasets < 2 or not options.deduplicate or options.rule == "all":
        return options, []
    return dataclasses.replace(options, deduplicate=False), [
        f"identical response patterns kept: over {n_datasets} datasets each flow is one respondent on every "
        "dataset (the datasets x flows matrix of the rating and AIRT stages)"]


def halves(matrix: RunMatrix, seed: int) -> tuple[np.ndarray, str]:
    """True for the items of the *choosing* half (even folds, or a seeded stratified half of the rows when
    there are fewer than two folds), and how the halves were made."""
    if matrix.item_fold is not None and len(np.unique(matrix.item_fold)) >= 2:
        return matrix.item_fold % 2 == 0, "the even folds"
    rng = np.random.default_rng(seed)
    strata = matrix.item_class if matrix.item_class is not None else np.zeros(len(matrix.items), np.int16)
    choose = np.zeros(len(matrix.items), bool)
    for value in np.unique(strata):
        where = rng.permutation(np.flatnonzero(strata == value))
        choose[where[: (len(where) + 1) // 2]] = True
    by = " stratified by class" if matrix.item_class is not None else ""
    return choose, f"a random half of the rows{by} (seed {seed}; no folds to split on)"


def _flow_keys(runs: pd.DataFrame) -> np.ndarray:
    ids = runs["flow_id"].astype("object")
    return np.where(ids.isna(), "name:" + runs["flow_name"].astype(str), "id:" + ids.astype(str)).astype(str)


def _order_key(runs: pd.DataFrame) -> np.ndarray:
    """Position of each run in upload order (numeric run ids first, ascending; then the others as given)."""
    numeric = pd.to_numeric(runs["run_id"], errors="coerce")
    return np.lexsort((np.arange(len(runs)), numeric.fillna(np.inf).to_numpy()))


def _choose(keys: np.ndarray, score: np.ndarray, order: np.ndarray, rule: str) -> np.ndarray:
    """Indices of one run per flow under ``rule`` (``score``: the accuracy it ranks by)."""
    rank_in_upload = np.empty(len(order), np.int64)
    rank_in_upload[order] = np.arange(len(order))
    frame = pd.DataFrame({"key": keys, "score": score, "upload": rank_in_upload, "index": np.arange(len(keys))})
    if rule == "first":
        return frame.sort_values("upload").groupby("key", sort=False)["index"].first().to_numpy()
    if rule in ("best", "best-held-out"):
        ordered = frame.sort_values(["score", "upload"], ascending=[False, True])
        return ordered.groupby("key", sort=False)["index"].first().to_numpy()
    ordered = frame.sort_values(["key", "score", "upload"], ascending=[True, True, True])
    sizes = ordered.groupby("key", sort=False).size()
    starts = np.concatenate(([0], np.cumsum(sizes.to_numpy())[:-1]))
    return ordered["index"].to_numpy()[starts + (sizes.to_numpy() - 1) // 2]


def winners_curse(matrix: RunMatrix, choose_half: np.ndarray, keep: np.ndarray) -> pd.DataFrame:
    """Per flow with ≥ 2 kept runs: the best run chosen on one half, scored on both halves: ``chosen_in``,
    ``chosen_out``, ``median_out``, ``gap``, ``half_difference``, ``curse``, ``best_minus_median_out``.

    ``gap = chosen_in − chosen_out`` mixes the optimism of choosing on the scored rows with how much easier one half
    is; the latter is the flow's typical run, ``half_difference`` = the median over its runs of (in − out), and
    ``curse = gap − half_difference`` is the winner's curse. ``best_minus_median_out`` is what the choice is worth on
    rows it did not see.
    """
    responses = matrix.responses[keep]
    acc_in = responses[:, choose_half].mean(axis=1)
    acc_out = responses[:, ~choose_half].mean(axis=1)
    keys = _flow_keys(matrix.runs.iloc[np.flatnonzero(keep)])
    frame = pd.DataFrame({"key": keys, "in": acc_in, "out": acc_out, "difference": acc_in - acc_out,
                          "flow_name": matrix.runs["flow_name"].to_numpy()[keep]})
    order = _order_key(matrix.runs.iloc[np.flatnonzero(keep)])
    chosen = _choose(keys, acc_in, order, "best")
    grouped = frame.groupby("key")
    counts, median_out, half_difference = grouped.size(), grouped["out"].median(), grouped["difference"].median()
    rows = []
    for index in chosen:
        key = keys[index]
        if counts[key] < 2:
            continue
        gap = acc_in[index] - acc_out[index]
        rows.append({"flow": key.split(":", 1)[1], "flow_name": frame["flow_name"].iloc[index],
                     "n_runs": int(counts[key]), "chosen_in": acc_in[index], "chosen_out": acc_out[index],
                     "median_out": float(median_out[key]), "gap": gap,
                     "half_difference": float(half_difference[key]), "curse": gap - float(half_difference[key]),
                     "best_minus_median_out": acc_out[index] - float(median_out[key])})
    columns = ["flow", "flow_name", "n_runs", "chosen_in", "chosen_out", "median_out", "gap", "half_difference",
               "curse", "best_minus_median_out"]
    return pd.DataFrame(rows, columns=columns).sort_values(["curse", "flow_name"], ascending=[False, True],
                                                           ignore_index=True)


def _stratified_sample(strata: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Indices of a sample of ``size`` of the positions, each stratum in proportion (largest remainders)."""
    values, counts = np.unique(strata, return_counts=True)
    quota = counts * size / counts.sum()
    take = np.floor(quota).astype(int)
    for i in np.argsort(-(quota - take), kind="stable")[: size - take.sum()]:
        take[i] += 1
    chosen = [rng.choice(np.flatnonzero(strata == v), t, replace=False) for v, t in zip(values, take)]
    return np.sort(np.concatenate(chosen))


def select(matrix: RunMatrix, *, options: SelectionOptions | None = None) -> Selection:
    """Apply ``options`` to ``matrix``: floor, rule, item sample, deduplication — each counted in the notes."""
    options = options or SelectionOptions()
    notes: list[str] = []
    keep = _above_floor(matrix, options.min_accuracy, notes)
    choose_half, how = halves(matrix, options.seed)
    curse = winners_curse(matrix, choose_half, keep)
    kept = np.flatnonzero(keep)
    keys = _flow_keys(matrix.runs.iloc[kept])
    flow_sizes = pd.Series(keys).value_counts()
    nothing_to_choose = flow_sizes.max() == 1 and not options.pool_trains
    rule = NOTHING_TO_CHOOSE if options.rule == "best-held-out" and nothing_to_choose else options.rule
    chosen, selection_accuracy, items = _choose_runs(matrix, kept, keys, choose_half, how, rule, notes)
    if rule not in ("all", NOTHING_TO_CHOOSE):
        notes.append(f"one run per flow ({rule}): {len(chosen)} respondents from {len(kept)} runs of "
                     f"{len(flow_sizes)} flows; {len(kept) - len(chosen)} runs not chosen")
    if len(curse):
        notes.append(f"winner's curse over {len(curse)} flows with ≥ 2 runs: the best run chosen on one half scores "
                     f"{curse['curse'].mean():.4f} lower on the other half on average beyond the halves' own "
                     f"difference (max {curse['curse'].max():.4f}); it beats the flow's median run there by "
                     f"{curse['best_minus_median_out'].mean():.4f}")
    item_index = _item_sample(matrix, np.flatnonzero(items), options, notes)
    rows = kept[chosen]
    block = matrix.responses[np.ix_(rows, item_index)]
    respondents = matrix.runs.iloc[rows].reset_index(drop=True)
    respondents.insert(0, "respondent", _names(respondents, per_run=options.rule == "all"))
    respondents["accuracy"] = matrix.accuracy[rows]
    respondents["item_accuracy"] = block.mean(axis=1) if block.shape[1] else np.nan
    respondents["selection_accuracy"] = selection_accuracy[chosen]
    respondents["n_runs_of_flow"] = flow_sizes.reindex(keys[chosen]).to_numpy()
    respondents["n_identical"] = 1
    respondents["identical_runs"] = ""
    if options.deduplicate:
        block, respondents, merged = _deduplicate(block, respondents)
        if merged:
            notes.append(f"identical response patterns kept once: {merged} respondent(s) merged into "
                         f"{len(respondents)} distinct patterns (n_identical and identical_runs in respondents.csv)")
    responses = pd.DataFrame(block, index=pd.Index(respondents["respondent"], name="respondent"),
                             columns=matrix.item_labels_of(item_index))
    return Selection(responses=responses, respondents=respondents, winners_curse=curse, notes=notes,
                     rule_applied=rule)


def _above_floor(matrix: RunMatrix, min_accuracy: float | None, notes: list[str]) -> np.ndarray:
    """Which runs reach the accuracy floor (``min_accuracy``, else 1 / the number of classes); the dropped
    ones counted in ``notes``; no run reaching it is refused."""
    accuracy = matrix.accuracy
    n_classes = len(np.unique(matrix.item_class)) if matrix.item_class is not None else None
    floor = min_accuracy
    if floor is None and n_classes:
        floor = 1.0 / n_classes
        notes.append(f"accuracy floor 1/{n_classes} classes = {floor:.3f} (worse than guessing uniformly)")
    if floor is None:
        return np.ones(len(accuracy), bool)
    keep = accuracy >= floor
    if (~keep).any():
        notes.append(f"{int((~keep).sum())} of {len(keep)} runs below the accuracy floor {floor:.3f} dropped "
                     f"(of them {int((accuracy == 0).sum())} at 0 %: label-encoding failures)")
    if not keep.any():
        raise ConfigError(f"{matrix.dataset}: no run reaches the accuracy floor {floor:.3f}; lower min_accuracy")
    return keep


def _choose_runs(matrix: RunMatrix, kept: np.ndarray, keys: np.ndarray, choose_half: np.ndarray, how: str,
                 rule: str, notes: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The respondents by ``rule`` (positions in ``kept``, sorted), each one's accuracy on the choosing half
    (NaN unless ``best-held-out``), and which rows are items (the other half under ``best-held-out``)."""
    selection_accuracy = np.full(len(kept), np.nan)
    items = np.ones(len(matrix.items), bool)
    if rule == "all":
        chosen = np.arange(len(kept))
    elif rule == NOTHING_TO_CHOOSE:
        chosen = np.arange(len(kept))
        notes.append(f"best-held-out: each of the {len(kept)} flows has one run, so there is no run to choose and no "
                     f"row is held out: all {len(items)} rows are the items")
    elif rule == "best-held-out":
        score = matrix.responses[kept][:, choose_half].mean(axis=1)
        chosen = _choose(keys, score, _order_key(matrix.runs.iloc[kept]), "best-held-out")
        selection_accuracy = score
        items = ~choose_half
        notes.append(f"best run per flow chosen on {how} ({int(choose_half.sum())} rows); the other "
                     f"{int(items.sum())} rows are the items (no row both chooses and scores)")
    else:
        chosen = _choose(keys, matrix.accuracy[kept], _order_key(matrix.runs.iloc[kept]), rule)
    return np.sort(chosen), selection_accuracy, items


def _item_sample(matrix: RunMatrix, item_index: np.ndarray, options: SelectionOptions,
                 notes: list[str]) -> np.ndarray:
    """``item_index``, or a sample of ``options.max_items`` of it stratified by class (else fold), said in ``notes``."""
    if options.max_items is None or len(item_index) <= options.max_items:
        return item_index
    strata = (matrix.item_class if matrix.item_class is not None
              else matrix.item_fold if matrix.item_fold is not None else np.zeros(len(matrix.items), np.int16))
    sample = _stratified_sample(strata[item_index], int(options.max_items), np.random.default_rng(options.seed))
    by = "class" if matrix.item_class is not None else "fold" if matrix.item_fold is not None else "nothing"
    notes.append(f"max_items: a sample of {len(sample)} of {len(item_index)} items stratified by {by} "
                 f"(seed {options.seed}), the same for every respondent")
    return item_index[sample]


def _names(runs: pd.DataFrame, per_run: bool) -> list[str]:
    """Respondent names: the flow's name when each flow has one respondent (so a flow is the same respondent
    on every dataset of a study: ratings and AIRT compare it across datasets), else ``<flow> run <id>``;
    two flows with one name are told apart by their flow id."""
    if per_run:
        return [f"{flow} run {run}" for flow, run in zip(runs["flow_name"], runs["run_id"])]
    names = runs["flow_name"].astype(str)
    shared = names.duplicated(keep=False).to_numpy()
    return [f"{name} [flow {flow}]" if twice else name for name, flow, twice in zip(names, runs["flow_id"], shared)]


def _deduplicate(block: np.ndarray, respondents: pd.DataFrame):
    """Keep the first respondent (by accuracy, then as listed) of every distinct response pattern."""
    order = np.lexsort((np.arange(len(block)), -respondents["accuracy"].to_numpy()))
    packed = np.packbits(block[order].astype(bool), axis=1)
    _, first, inverse = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    keep_sorted = np.sort(order[first])
    groups: dict[int, list[int]] = {}
    for position, group in enumerate(inverse):
        groups.setdefault(int(group), []).append(int(order[position]))
    leader = {members[0]: members for members in groups.values()}
    out = respondents.iloc[keep_sorted].reset_index(drop=True)
    out["n_identical"] = [len(leader[i]) for i in keep_sorted]
    out["identical_runs"] = [" ".join(str(respondents["run_id"].iloc[j]) for j in leader[i][1:]) for i in keep_sorted]
    return block[keep_sorted], out, len(block) - len(keep_sorted)
