"""``benchirt run --estimate``: the expected time and peak memory of a study, before paying for it.

The cost model is deliberately simple — per classifier, a constant times the work its algorithm does, in CPU seconds
of one thread — and calibrated in two steps: ``python benchmarks/scale.py --calibrate`` measures the constants on
synthetic single-threaded fits; ``--calibrate-run RUN_DIR`` then fits one factor per group of classifiers
(:data:`COST_GROUPS`), the IRT constant and the suite-wide stages' constants to finished runs' CPU seconds per
(dataset, stage), replacing a synthetic constant only where the refit predicts better. Both rewrite
``cost_model.json``; ``scale.py --check RUN_DIR`` compares measured and estimated, ``docs/scale.md`` states the error.
Work units, for ``n`` fitted rows, ``m`` predicted rows, ``d`` features and ``c`` classes:

=====================  ===============================  =====================================
classifier             work                             why
=====================  ===============================  =====================================
naive Bayes            ``(n + m) d c``                  one pass over the data per class
k-nearest neighbours   ``m n d``                        distances from every query to every row
decision tree          ``n log2(n) d``                  sorting every feature at every level
random forest (T)      ``T n log2(n) sqrt(d)``          T trees on ``sqrt(d)`` features per split
SVC                    ``n (n + m) d``                  the kernel matrix (libsvm)
MLP, ladder            ``n (d + c)`` (× epochs, ladder) one pass per epoch, 100 hidden units
=====================  ===============================  =====================================

Fixed costs come on top, measured on datasets small enough that the work terms are negligible:
``fixed_seconds_per_fit[classifier]`` per fit (one fold or the final fit; per epoch for the ladder) and
``fixed_seconds_per_dataset`` (loading, cleaning, splitting, preprocessing, the artificial classifiers, scheduling).

A dataset's shape comes without loading it where it can: OpenML's qualities (openml's cache or the server, no data
download), else for OpenML-CC18 the shapes of :mod:`benchirt.data.recorded_shapes` (the output names the source);
files and builtins are read. Memory: the loaded table (``load_bytes_per_value`` per value for a local file,
``openml_load_bytes_per_value`` for OpenML — an upper bound, :mod:`benchirt.data.compact`) plus the float64 working
copies of the capped training part. The wall time on ``W`` workers schedules the response stage's tasks as
``execution.tasks`` cuts them: with ``fits`` a preparation task per dataset, then its fit units
(:class:`benchirt.responses.units.FitPlan`) handed out as the executor does (:func:`task_schedule`); with
``datasets`` the longest-processing-time schedule (:func:`lpt_makespan`). The IRT stage follows (:func:`irt_seconds`);
a field of stored runs is costed from its matrices' shapes (:func:`stored_estimate`); the suite-wide stages run one
after the other in the driver (:func:`suite_stage_seconds`).
"""
from __future__ import annotations

import heapq
import json
import math
from dataclasses import dataclass
from importlib import resources

import pandas as pd

from benchirt.data.recorded_shapes import RECORDED_SOURCE
from benchirt.errors import BenchirtError
from benchirt.pipeline.handout import UNIT, next_pick
from benchirt.pool.artificial import ARTIFICIAL_NAMES

#: The packaged cost model (constants in seconds per work unit; see the module docstring).
COST_MODEL_RESOURCE = "cost_model.json"
#: float64 copies of the training part alive at once while one task fits (features, scaled, split).
WORKING_COPIES = 4
#: Shapes of datasets loaded from OpenML's parquet files (:func:`benchirt.data.openml_source.load_openml`).
OPENML_SOURCES = ("OpenML qualities", RECORDED_SOURCE)


@dataclass(frozen=True)
class Shape:
    """What the cost model needs of a dataset: rows, features (target excluded), classes, and where from."""

    rows: int
    features: int
    classes: int
    source: str


#: Groups of classifiers whose seconds ``--calibrate-run`` rescales together (one factor each, key of
#: ``run_factors``); ``"dataset"`` is the preparation (loading, cleaning, splitting, fixed cost per dataset).
COST_GROUPS = ("forest", "neural", "svc", "knn", "light", "dataset")
#: The columns of :func:`estimate`'s table (and :func:`stored_estimate`'s) giving the respondents × items of the
#: IRT stage's matrix (not printed: a trained dataset's are the pool and its test part).
IRT_SHAPE = ("irt_respondents", "irt_items")
#: The stages that run once over the whole suite, in the driver, after the IRT stage.
SUITE_STAGES = ("rate", "subset", "airt", "report")


def cost_group(classifier: str) -> str:
    """The :data:`COST_GROUPS` entry of a pool classifier (``"ladder"``: the MLP epoch ladder)."""
    if classifier.startswith("random_forest"):
        return "forest"
    if classifier in ("mlp", "ladder"):
        return "neural"
    if classifier == "svc":
        return "svc"
    if classifier.startswith("knn_"):
        return "knn"
    return "light"


def load_cost_model() -> dict:
    """The packaged calibration (``benchirt/pipeline/cost_model.json``)."""
    text = resources.files("benchirt.pipeline").joinpath(COST_MODEL_RESOURCE).read_text(encoding="utf-8")
    return json.loads(text)


def work_units(classifier: str, n: int, m: int, d: int, c: int) -> float:
    """Work of fitting ``classifier`` on ``n`` rows and predicting ``m`` (module docstring table)."""
    log_n = math.log2(max(n, 2))
    if classifier.endswith("_nb"):
        return (n + m) * d * c
    if classifier.startswith("knn_"):
        return m * n * d
    if classifier == "decision_tree":
        return n * log_n * d
    if classifier.startswith("random_forest"):
        trees = int(classifier.rsplit("_", 1)[1]) if classifier[-1].isdigit() else 100
        return trees * n * log_n * math.sqrt(d)
    if classifier == "svc":
        return n * (n + m) * d
    if classifier in ("mlp", "ladder"):
        return n * (d + c)
    raise KeyError(classifier)


def response_cost(shape: Shape, config, model: dict) -> dict:
    """Expected seconds (one thread) and peak bytes of the response stage on one dataset.

    ``config`` is a :class:`benchirt.responses.ResponseConfig` whose split, caps, folds, pool and ladder decide the
    sizes. The units and their order are those the fits run (:func:`benchirt.responses.units.plan_units`), and the
    time budget is the fits' rule (:func:`~benchirt.responses.units.over_budget`) on the predicted first-fold seconds:
    a classifier it stops costs its first fold only and is listed in ``skipped``. ``tasks`` cuts ``seconds`` as the
    tasks do: the preparation first, then one entry per fit unit in plan order.
    """
    from benchirt.pool import resolve_pool

    test, used, cv = _rows(shape, config)
    k = config.cv_folds
    fold_fit, fold_predict = cv * (k - 1) // k, max(cv // k, 1)
    constants, per_fit = model["seconds_per_unit"], model["fixed_seconds_per_fit"]
    factors = model.get("run_factors", {})

    def builtin(name: str, n: int, m: int) -> float:
        return factors.get(cost_group(name), 1.0) * (
            constants[name] * work_units(name, n, m, shape.features, shape.classes) + per_fit[name])

    def seconds(name: str, n: int, m: int) -> float:
        if name not in constants:  # an extra classifier: costed as the slowest built-in, said in the table
            return max(builtin(c, used, test) for c in constants if c != "ladder")
        return builtin(name, n, m)

    pool = resolve_pool(config.pool, extra=config.extra)
    fold = {spec.name: seconds(spec.name, fold_fit, fold_predict) for spec in pool}
    final = {spec.name: seconds(spec.name, used, test) for spec in pool}
    units, skipped = _planned_units(pool, config, fold)
    ladder = config.ladder_epochs * seconds("ladder", used, test)
    unit_seconds = [ladder if unit.kind == "ladder" else
                    sum((fold if unit.kind == "fold" else final)[m.name] for m in unit.members) for unit in units]
    per_classifier = {name: fold[name] if name in skipped else k * fold[name] + final[name] for name in fold}
    preparation = factors.get("dataset", 1.0) * (model["fixed_seconds_per_dataset"]
                                                 + model["load_seconds_per_value"] * shape.rows * shape.features)
    tasks = [preparation] + unit_seconds
    per_value = model["openml_load_bytes_per_value" if shape.source in OPENML_SOURCES else "load_bytes_per_value"]
    load = per_value * shape.rows * shape.features
    working = WORKING_COPIES * 8 * used * shape.features
    return {"seconds": sum(tasks), "tasks": tasks, "units": [unit.label for unit in units],
            "peak_bytes": load + working + model["base_bytes"], "train_used": used, "cv_rows": cv, "test_rows": test,
            "slowest": max(per_classifier, key=lambda name: per_classifier[name], default=None), "skipped": list(skipped)}


def _rows(shape: Shape, config) -> tuple[int, int, int]:
    """The test rows, the training rows used and the rows cross-validated, as ``respond`` caps them."""
    test = test_items(shape, config)
    train = shape.rows - test
    used = min(train, config.max_train or train)
    return test, used, min(used, config.max_cv_train or used)


def _planned_units(pool, config, fold: dict[str, float]) -> tuple[list, dict]:
    """The fit units in the order the fits run them, and the classifiers the time budget stops after their
    first fold (predicted from ``fold``, each classifier's seconds per fold)."""
    from benchirt.responses.units import over_budget, plan_units, release

    first, rest = plan_units(pool, config.cv_folds, config.ladder_epochs)
    if config.time_budget is None:
        return first + rest, {}
    skipped = over_budget(fold, config.cv_folds + 1, config.time_budget)
    return first + (release(rest, skipped) if first else rest), skipped


def irt_cost(shape: Shape, config, model: dict) -> float:
    """Expected seconds of one trained dataset's IRT fit (:func:`irt_seconds` of its response matrix)."""
    return irt_seconds(respondents(config), test_items(shape, config), model)


def test_items(shape: Shape, config) -> int:
    """The test items of a trained dataset: its test part as ``respond`` caps it (``test_size``, ``max_test``)."""
    return min(math.ceil(config.test_size * shape.rows), config.max_test)


def irt_seconds(n_respondents: int, items: int, model: dict) -> float:
    """Expected CPU seconds of one dataset's IRT stage on ``n_respondents`` × ``items``:
    ``fixed + scale · respondents^respondents_power · items^items_power`` (``model["irt_seconds"]``).

    The powers are fitted to real runs' IRT stages, multi-start search, abilities and item fit included
    (``benchmarks/estimate_accuracy.py --fit-irt``). Datasets of one shape can differ severalfold (how many starts
    the search climbs), so the model is accurate for a stage summed over datasets, not for one dataset.
    """
    part = model["irt_seconds"]
    return part["fixed"] + part["scale"] * n_respondents ** part["respondents_power"] * items ** part["items_power"]


def respondents(config) -> int:
    """Rows of a dataset's response matrix: the pool, extra classifiers, ladder rungs and artificial classifiers."""
    return len(config.pool) + len(config.extra) + config.ladder_epochs + (len(ARTIFICIAL_NAMES) if config.artificial else 0)


def rated_classifiers(config) -> int:
    """Classifiers the suite-wide stages compare: the pool, extra and artificial classifiers (not the ladder)."""
    return len(config.pool) + len(config.extra) + (len(ARTIFICIAL_NAMES) if config.artificial else 0)


def suite_stage_seconds(stages, datasets: int, config, model: dict) -> dict[str, float]:
    """Expected seconds of each suite-wide stage among ``stages`` (:data:`SUITE_STAGES`): a fixed part plus a
    part per dataset × rated classifier (``suite_stage_seconds[stage]`` = ``{"fixed": s, "per_cell": s}``,
    fitted to real runs by ``scale.py --calibrate-run``). A stage the model has no entry for is left out."""
    return suite_cell_seconds(stages, datasets * rated_classifiers(config), model)


def suite_cell_seconds(stages, cells: int, model: dict) -> dict[str, float]:
    """:func:`suite_stage_seconds` of ``cells`` rated (dataset, classifier) pairs (a sparse field of stored runs
    counts the pairs it holds)."""
    parts = model.get("suite_stage_seconds", {})
    return {stage: parts[stage]["fixed"] + parts[stage]["per_cell"] * cells
            for stage in SUITE_STAGES if stage in stages and stage in parts}


def openml_dataset_shape(spec, *, ask_server: bool = True) -> Shape:
    """An OpenML dataset's shape: its qualities (openml's cache, or the server when ``ask_server``), else the
    recorded table of :mod:`benchirt.data.recorded_shapes` (``Shape.source`` says which); raises
    OpenMLUnavailableError when neither knows the dataset."""
    from benchirt.data.openml_source import has_cached_qualities, openml_shape
    from benchirt.data.recorded_shapes import recorded_shape
    from benchirt.errors import OpenMLUnavailableError

    if ask_server or has_cached_qualities(spec):
        try:
            return Shape(*openml_shape(spec), "OpenML qualities")
        except OpenMLUnavailableError:
            if recorded_shape(spec.location) is None:
                raise
    recorded = recorded_shape(spec.location)
    if recorded is None:
        raise OpenMLUnavailableError(f"OpenML dataset {spec.location}: OpenML was not reachable and benchirt has no "
                                     "recorded shape of it")
    return Shape(*recorded, RECORDED_SOURCE)


def dataset_shape(spec, *, ask_server: bool = True, max_categories: int | None = 32) -> Shape:
    """The shape of a suite member: OpenML qualities or the recorded table (:func:`openml_dataset_shape`;
    no data download), else the loaded dataset, its features counted as the one-hot encoder widens them."""
    if spec.kind == "openml":
        return openml_dataset_shape(spec, ask_server=ask_server)
    dataset = spec.load()
    return Shape(len(dataset.y), encoded_width(dataset.X, max_categories), int(dataset.y.nunique()),
                 "loaded (one-hot width)")


def encoded_width(X: pd.DataFrame, max_categories: int | None) -> int:
    """Columns the fits see: one per numeric feature, one per category of a nominal one (at most
    ``max_categories``, as :func:`benchirt.preprocess.make_preprocessor` encodes them)."""
    from benchirt.data.dataset import is_nominal

    width = 0
    for name in X.columns:
        column = X[name]
        if is_nominal(column):
            categories = max(int(column.nunique()), 1)
            width += categories if max_categories is None else min(categories, max_categories)
        else:
            width += 1
    return width


def lpt_makespan(seconds: list[float], workers: int) -> float:
    """Wall time of independent tasks on ``workers`` (longest first, each to the least busy worker)."""
    loads = [0.0] * max(1, workers)
    for task in sorted(seconds, reverse=True):
        heapq.heapreplace(loads, loads[0] + task)
    return max(loads)


def task_schedule(datasets: list[list[float]], workers: int) -> list[tuple[float, float, int, int]]:
    """The (dataset, fit) tasks on ``workers`` as a run hands them out (:func:`benchirt.pipeline.handout.next_pick`):
    ``(start, end, dataset, task)`` in start order. ``datasets`` are in run order, each a list whose entry 0 is its
    preparation and the rest its fit units (``task`` indexes it). An idle worker waits for a preparation under way."""
    pending = list(range(len(datasets)))[::-1]
    opened: list[list] = []  # [dataset, time its preparation ends, its next unit]
    free = [0.0] * max(1, workers)
    started = []
    while free:
        now = heapq.heappop(free)
        pick = next_pick(opened, lambda d: d[1] <= now and d[2] < len(datasets[d[0]]), bool(pending))
        if pick is None:
            waiting = [ready for index, ready, unit in opened if unit < len(datasets[index]) and ready > now]
            if waiting:
                heapq.heappush(free, min(waiting))
            continue  # else nothing left for this worker
        what, dataset = pick
        if what == UNIT:
            assert dataset is not None  # next_pick gives UNIT with its dataset
            index, task = dataset[0], dataset[2]
            dataset[2] += 1
        else:
            index, task = pending.pop(), 0
            opened.append([index, now + datasets[index][0], 1])
        end = now + datasets[index][task]
        started.append((now, end, index, task))
        heapq.heappush(free, end)
    return started


def task_makespan(datasets: list[list[float]], workers: int) -> float:
    """Wall time of the (dataset, fit) tasks on ``workers`` (:func:`task_schedule`)."""
    return max((end for _, end, _, _ in task_schedule(datasets, workers)), default=0.0)


def estimate(specs, response_config, workers: int, *, model: dict | None = None,
             ask_server: bool = True) -> pd.DataFrame:
    """One row per dataset: shape, sizes as capped, expected seconds of respond and irt, peak memory. Once OpenML
    did not answer (or with ``ask_server`` False) only openml's cache is asked, as openml-python retries an
    unreachable server on every call."""
    model = model or load_cost_model()
    rows = []
    for spec in specs:
        try:
            shape = dataset_shape(spec, ask_server=ask_server, max_categories=response_config.max_categories)
        except BenchirtError as exc:
            rows.append({"dataset": spec.name, "note": f"no shape: {exc}".splitlines()[0]})
            continue
        ask_server = ask_server and shape.source != RECORDED_SOURCE
        cost = response_cost(shape, response_config, model)
        rows.append({"dataset": spec.name, "rows": shape.rows, "features": shape.features, "classes": shape.classes,
                     "train_used": cost["train_used"], "cv_rows": cost["cv_rows"],
                     "respond_s": cost["seconds"], "respond_tasks_s": cost["tasks"],
                     "irt_s": irt_cost(shape, response_config, model), "irt_respondents": respondents(response_config),
                     "irt_items": test_items(shape, response_config),
                     "peak_gb": cost["peak_bytes"] / 1e9, "slowest": cost["slowest"],
                     "over_budget": ",".join(cost["skipped"]) or "-", "note": shape.source})
    return pd.DataFrame(rows)


def expected_wall_seconds(table: pd.DataFrame, workers: int, *, tasks: str = "fits",
                          suite_seconds: float = 0.0) -> float:
    """Expected wall seconds of the response and IRT stages of :func:`estimate`'s datasets on ``workers``,
    scheduled as ``execution.tasks`` cuts the response stage (module docstring), plus ``suite_seconds``
    (the suite-wide stages, run one after the other: :func:`suite_stage_seconds`)."""
    known = table.dropna(subset=["respond_s"]) if "respond_s" in table else table.iloc[0:0]
    if tasks == "fits" and workers > 1:
        fits = task_makespan(list(known["respond_tasks_s"]), workers) + lpt_makespan(list(known["irt_s"]), workers)
    else:
        fits = lpt_makespan((known["respond_s"] + known["irt_s"]).tolist(), workers)
    return fits + suite_seconds


def format_estimate(table: pd.DataFrame, workers: int, model: dict, *, tasks: str = "fits",
                    suite: dict[str, float] | None = None) -> str:
    """The table and the totals as ``benchirt run --estimate`` prints them (``tasks``: ``execution.tasks``;
    ``suite``: the suite-wide stages' seconds, :func:`suite_stage_seconds`)."""
    shown = table.drop(columns=["respond_tasks_s", *IRT_SHAPE], errors="ignore")
    for column in ("respond_s", "irt_s"):
        if column in shown:
            shown[column] = shown[column].map(_duration)
    if "peak_gb" in shown:
        shown["peak_gb"] = shown["peak_gb"].map(lambda v: f"{v:.2f}" if pd.notna(v) else "")
    lines = [shown.fillna("").to_string(index=False), "", *_total_lines(table, workers, tasks, suite or {})]
    lines.append(f"Cost model: {model['calibrated']} ({model['machine']}); accuracy: {model['typical_error']} "
                 "(docs/scale.md).")
    return "\n".join(lines)


def _total_lines(table: pd.DataFrame, workers: int, tasks: str, suite: dict[str, float]) -> list[str]:
    """CPU time, the suite-wide stages, the expected wall time and the largest peak memory of :func:`format_estimate`."""
    known = table.dropna(subset=["respond_s"]) if "respond_s" in table else table.iloc[0:0]
    per_dataset = (known["respond_s"] + known["irt_s"]).tolist()
    lines = [f"CPU time, one thread per fit: {_duration(sum(per_dataset))} over {len(per_dataset)} dataset(s) "
             f"(respond {_duration(known['respond_s'].sum())}, irt {_duration(known['irt_s'].sum())})"]
    if suite:
        lines.append("Suite-wide stages, one after the other in the driver: "
                     + ", ".join(f"{stage} {_duration(seconds)}" for stage, seconds in suite.items()))
    longest_task = max((t for tasks in known.get("respond_tasks_s", []) for t in tasks), default=0.0)
    cut = (f"(dataset, fit) tasks, the longest {_duration(longest_task)}; " if tasks == "fits" and workers > 1
           else "one task per dataset; " if workers > 1 else "")
    stages = ", ".join(["respond", "irt", *suite])
    lines.append(f"Expected wall time on {workers} worker(s) with nothing else running ({stages}): "
                 f"{_duration(expected_wall_seconds(table, workers, tasks=tasks, suite_seconds=sum(suite.values())))} "
                 f"({cut}longest dataset {_duration(max(per_dataset, default=0.0))})")
    if len(known) and "peak_gb" in known:
        lines.append(f"Largest peak memory of one dataset: {known['peak_gb'].max():.2f} GB"
                     + (f" (x {workers} workers at once: up to {known['peak_gb'].nlargest(workers).sum():.2f} GB)"
                        if workers > 1 else ""))
    return lines


def estimate_text(config) -> str:
    """What ``benchirt run CONFIG --estimate`` prints for a :class:`~benchirt.pipeline.PipelineConfig`."""
    execution = config.execution
    workers = run_workers(execution)
    where = (f"Dask scheduler {execution.scheduler}" if execution.scheduler
             else f"SLURM jobs, at most {workers} worker(s) at once; `--dry-run` plans the jobs"
             if execution.backend == "slurm"
             else f"{'Dask LocalCluster' if execution.backend == 'dask' else 'local'}, {workers} worker(s)")
    model = load_cost_model()
    table, suite, lines = estimate_run(config, workers, model)
    from benchirt.pipeline.config import source_label

    stored = is_stored_runs(config.stage_config("respond"))  # nothing is trained: no fit tasks, no memory guard
    guard = [] if stored else [memory_guard_line(table, execution, workers)]
    tasks = "datasets" if stored else execution.tasks
    return "\n".join([f"Estimate for {source_label(config.source)} ({where}; {policy_text(config)})", *lines,
                      shape_sources_line(table), format_estimate(table, workers, model, tasks=tasks, suite=suite), *guard])


def run_workers(execution) -> int:
    """The workers a run's ``execution`` section gives (``n_jobs``, or every core when it is not positive; under
    ``backend: slurm`` the most at once, ``max_jobs × cores``)."""
    import os

    if execution.backend == "slurm":
        return execution.slurm.max_jobs * execution.slurm.cores

    return execution.n_jobs if execution.n_jobs > 0 else (os.cpu_count() or 1)


def is_stored_runs(response_config) -> bool:
    """Whether the ``respond`` section imports stored runs (:class:`benchirt.stored_runs.config.ImportConfig`)."""
    return type(response_config).__name__ == "ImportConfig"


def policy_text(config) -> str:
    """The options that size the study, as the estimate's first line names them."""
    responses = config.stage_config("respond")
    pairs: tuple[tuple[str, object], ...] = (
        (("per_flow", responses.per_flow), ("max_items", responses.max_items)) if is_stored_runs(responses) else
        (("max_train", responses.max_train), ("max_cv_train", responses.max_cv_train),
         ("time_budget", responses.time_budget)))
    return "size policy: " + ", ".join(f"{name} {'none' if value is None else value}" for name, value in pairs)


def estimate_run(config, workers: int, model: dict) -> tuple[pd.DataFrame, dict[str, float], list[str]]:
    """The per-dataset table (:func:`estimate` or :func:`stored_estimate`), the suite-wide stages' seconds
    (:func:`suite_cell_seconds`) and the lines to print before the table (where the datasets came from)."""
    responses = config.stage_config("respond")
    if is_stored_runs(responses):
        table = stored_estimate(responses, config.base_dir, model)
        lines = stored_lines(responses)
    else:
        specs, listing = estimate_specs(config)
        table = estimate(specs, responses, workers, model=model, ask_server=listing is None)
        lines = [listing] if listing else []
    return table, suite_cell_seconds(config.stages, rated_cells(responses, table), model), lines


def rated_cells(response_config, table: pd.DataFrame) -> int:
    """The (dataset, classifier) pairs the suite-wide stages compare: the datasets with a shape times the rated
    classifiers (:func:`rated_classifiers`), or for a stored-runs field the respondents it holds per dataset."""
    if is_stored_runs(response_config):
        return int(table["respondents"].sum())
    known = int(table["respond_s"].notna().sum()) if "respond_s" in table else 0
    return known * rated_classifiers(response_config)


def stored_estimate(response_config, base_dir, model: dict) -> pd.DataFrame:
    """One row per dataset of a stored-runs source (:func:`benchirt.stored_runs.shapes.stored_shapes`): runs, flows,
    the respondents × items the IRT stage fits, and the expected seconds of the import (``stored_seconds_per_cell``
    per stored answer) and of the IRT stage (:func:`irt_seconds`)."""
    from benchirt.stored_runs.shapes import stored_shapes

    rows = []
    for shape in stored_shapes(response_config, base_dir=base_dir):
        respond = model["stored_seconds_per_cell"] * shape.cells
        rows.append({"dataset": shape.dataset, "runs": shape.runs, "flows": shape.flows,
                     "respondents": shape.respondents, "items": shape.items, "respond_s": respond,
                     "respond_tasks_s": [respond], "irt_s": irt_seconds(shape.respondents, shape.items, model),
                     "irt_respondents": shape.respondents, "irt_items": shape.items,
                     "note": shape.source})
    return pd.DataFrame(rows)


def stored_lines(response_config) -> list[str]:
    """What the estimate of a stored-runs config says before its table: the source, and what it does not cost."""
    source = response_config.path if response_config.path is not None else f"OpenML tasks {response_config.tasks}"
    lines = [f"Stored runs: {source} (respondents: one per flow unless per_flow is all; items after per_flow and "
             "max_items; rows the import refuses later are counted)"]
    if response_config.pool is not False:
        lines.append("respond.pool: benchirt's own pool fits beside the runs are not in this estimate "
                     "(estimate the suite alone with a config without source: openml-runs)")
    return lines


def estimate_specs(config) -> tuple[list, str | None]:
    """The suite's datasets, and a line saying so when OpenML-CC18's listing had to come from the recorded table.

    OpenML-CC18 (``OpenML-CC18``, ``99``, ``openml:99``) on a machine that cannot reach OpenML and never cached its
    listing is estimated over :mod:`benchirt.data.recorded_shapes`; any other unresolvable suite fails as ``run``
    would."""
    from benchirt.data.recorded_shapes import CC18_SUITE_ID, RECORDED_SHAPES_RESOURCE, recorded_specs
    from benchirt.errors import OpenMLUnavailableError
    from benchirt.pipeline.config import resolve_specs

    try:
        return resolve_specs(config), None
    except OpenMLUnavailableError:
        if not _names_cc18(config.suite):
            raise
    return recorded_specs(), (f"Suite listing: OpenML cannot be reached and no listing of suite {CC18_SUITE_ID} is "
                              f"cached; its {len(recorded_specs())} datasets are taken from benchirt's recorded "
                              f"table (benchirt/data/{RECORDED_SHAPES_RESOURCE}). A run needs the listing once online.")


def _names_cc18(suite) -> bool:
    from benchirt.data.openml_source import suite_id
    from benchirt.data.recorded_shapes import CC18_SUITE_ID

    if isinstance(suite, str) and suite.lower().startswith("openml:"):
        suite = suite.split(":", 1)[1]
    return isinstance(suite, (int, str)) and not isinstance(suite, bool) and suite_id(suite) == CC18_SUITE_ID


def shape_sources_line(table: pd.DataFrame) -> str:
    """Where the shapes came from, counted (the per-dataset source is the table's ``note`` column)."""
    if "note" not in table:
        return "Shapes: none."
    column = "rows" if "rows" in table else "items"  # a stored-runs field's shape is its items
    known = table[column].notna() if column in table else pd.Series(False, index=table.index)
    parts = [f"{count} from {source}" for source, count in table.loc[known, "note"].value_counts().items()]
    if (~known).any():
        parts.append(f"{int((~known).sum())} without a shape (see the note)")
    return "Shapes: " + "; ".join(parts) + "."


def memory_guard_line(table: pd.DataFrame, execution, workers: int) -> str:
    """The run's per-dataset memory limit and the datasets its guard would skip (:mod:`benchirt.pipeline.preflight`)."""
    from benchirt.pipeline.memory import GB, memory_limit

    limit, source = memory_limit(execution, workers)
    if limit is None:
        return f"Memory guard: no limit ({source})."
    over = table.loc[table["peak_gb"] * GB > limit, "dataset"].tolist() if "peak_gb" in table else []
    return (f"Memory guard: {limit / GB:.1f} GB per dataset ({source}); "
            + (f"a run skips {len(over)} dataset(s) before loading: {', '.join(over)}" if over else "no dataset is over it")
            + ".")


def _duration(seconds: float) -> str:
    if pd.isna(seconds):
        return ""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


#: ``benchirt run`` says so before it starts when the IRT stage is estimated at more CPU seconds than this.
IRT_WARNING_SECONDS = 600.0


def irt_matrices(config) -> tuple[list[tuple[str, int, int]], str]:
    """Each dataset's (name, respondents, items) as the IRT stage will fit it, read cheaply, and the option that
    caps the items: a stored-runs field's shapes (:func:`benchirt.stored_runs.shapes.stored_shapes`), else the
    suite's datasets at their largest test part (``respond.max_test``; nothing loaded). Raises BenchirtError when the
    source or suite cannot be read."""
    responses = config.stage_config("respond")
    if is_stored_runs(responses):
        from benchirt.stored_runs.shapes import stored_shapes

        return ([(shape.dataset, shape.respondents, shape.items)
                 for shape in stored_shapes(responses, base_dir=config.base_dir)], "respond.max_items")
    from benchirt.pipeline.config import resolve_specs

    return ([(spec.name, respondents(responses), responses.max_test) for spec in resolve_specs(config)],
            "respond.max_test")


def item_cap(matrices: list[tuple[str, int, int]], seconds: float, model: dict) -> int:
    """The largest number of items per dataset whose IRT stage is estimated at most ``seconds`` (at least 1)."""
    low, high = 1, max(items for _, _, items in matrices)
    while low < high:
        middle = (low + high + 1) // 2
        if sum(irt_seconds(n, min(items, middle), model) for _, n, items in matrices) <= seconds:
            low = middle
        else:
            high = middle - 1
    return low


def long_run_warning(config, *, model: dict | None = None, threshold: float = IRT_WARNING_SECONDS) -> str | None:
    """What ``benchirt run`` prints first when the IRT stage is estimated over ``threshold`` CPU seconds: the
    estimate and the options that cut it (the item cap that brings it under, more workers). None when it is not, the
    run has no IRT stage, or the shapes cannot be read (the run then says why)."""
    if "irt" not in config.stages:
        return None
    model = model or load_cost_model()
    try:
        matrices, option = irt_matrices(config)
    except BenchirtError:
        return None
    seconds = [irt_seconds(n, items, model) for _, n, items in matrices]
    total = sum(seconds)
    if total <= threshold:
        return None
    workers = run_workers(config.execution)
    largest = max(range(len(seconds)), key=seconds.__getitem__)
    name, n, items = matrices[largest]
    return (f"Long IRT stage ahead: estimated {total / 60:.0f} CPU-min over {len(matrices)} dataset(s) (the largest "
            f"{name}: {n} respondents x {items} items, {seconds[largest] / 60:.0f} CPU-min), over the warning "
            f"threshold of {threshold / 60:.0f} CPU-min; on {workers} worker(s) about {total / 60 / workers:.0f} min. "
            f"To cut it: {option}: {item_cap(matrices, threshold, model)} keeps it under {threshold / 60:.0f} CPU-min "
            "(the IRT stage's cost grows with the items), or more workers (--n-jobs N, execution.n_jobs: the datasets "
            "are fitted side by side). benchirt run CONFIG --estimate shows each dataset.")
