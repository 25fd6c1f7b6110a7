"""``benchirt run --estimate`` on stored-runs fields, the IRT stage's cost law, and the warning before a long run."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from benchirt.cli import main
from benchirt.pipeline.config import load_config
from benchirt.pipeline.estimate import irt_seconds, item_cap, long_run_warning
from benchirt.stored_runs.shapes import SCANNED, stored_shapes

LAW = {"fixed": 0.5, "scale": 1e-3, "respondents_power": 0.5, "items_power": 1.5}
#: A cost model whose IRT stage is long: 1 CPU-s per respondent × item.
LONG = {"irt_seconds": {"fixed": 0.0, "scale": 1.0, "respondents_power": 1.0, "items_power": 1.0}}


def write_matrix(path: Path, flows: int, runs_per_flow: int, items: int, seed: int = 0) -> Path:
    """A respondents × items matrix CSV of 0/1 answers, rows named ``flow<k>||<run>``."""
    rng = np.random.default_rng(seed)
    lines = ["run," + ",".join(str(j) for j in range(items))]
    for flow in range(flows):
        for run in range(runs_per_flow):
            lines.append(f"flow{flow}||{run}," + ",".join(map(str, rng.integers(0, 2, items))))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def stored_config(tmp_path: Path, suite: str | None = "my-field", **respond) -> Path:
    """A config importing the matrices of ``tmp_path/field`` (relative to the config file); without ``suite:``
    when ``suite`` is None."""
    field = tmp_path / "field"
    field.mkdir(exist_ok=True)
    write_matrix(field / "alpha.csv", flows=6, runs_per_flow=2, items=40)
    write_matrix(field / "beta.csv", flows=4, runs_per_flow=1, items=30, seed=1)
    (field / "index.csv").write_text("file,runs\nalpha,12\nbeta,4\n", encoding="utf-8")  # not a matrix: left out
    config = tmp_path / "field.yaml"
    values = {"suite": suite, "stages": ["respond", "irt", "rate"],
              "respond": {"source": "openml-runs", "path": "field", **respond}, "out": str(tmp_path / "run")}
    config.write_text(yaml.safe_dump({key: value for key, value in values.items() if value is not None}),
                      encoding="utf-8")
    return config


def test_the_shapes_of_a_stored_field_are_read_without_importing(tmp_path):
    """Flows with two runs: one respondent per flow, the held-out half of the rows the items; one run per flow: every
    row an item; max_items caps both; the file without answers is left out, as the import leaves it out."""
    config = load_config(stored_config(tmp_path, max_items=25))
    shapes = {shape.dataset: shape for shape in stored_shapes(config.stage_config("respond"), base_dir=config.base_dir)}
    assert set(shapes) == {"alpha", "beta"}
    alpha, beta = shapes["alpha"], shapes["beta"]
    assert (alpha.runs, alpha.flows, alpha.cells, alpha.respondents, alpha.items) == (12, 6, 480, 6, 20)
    assert (beta.runs, beta.flows, beta.cells, beta.respondents, beta.items) == (4, 4, 120, 4, 25)
    assert alpha.source == SCANNED
    every_run = load_config(stored_config(tmp_path, per_flow="all"))
    shapes = stored_shapes(every_run.stage_config("respond"), base_dir=every_run.base_dir)
    assert [(shape.respondents, shape.items) for shape in shapes] == [(12, 40), (4, 30)]


def test_the_scanned_shapes_are_those_the_import_fits(tmp_path):
    """The estimate's respondents × items are the imported response matrices' (no identical rows to merge here)."""
    from benchirt.stored_runs.responses import imported_results

    config = load_config(stored_config(tmp_path, max_items=25))
    responses = config.stage_config("respond")
    imported = imported_results(responses, base_dir=config.base_dir)
    assert {shape.dataset: (shape.respondents, shape.items) for shape in stored_shapes(responses, base_dir=config.base_dir)} == {
        name: result.responses.shape for name, result in imported.items()}


def test_estimate_of_a_stored_field_prints_each_dataset_and_runs_nothing(tmp_path, capsys):
    config = stored_config(tmp_path, max_items=25)
    assert main(["run", str(config), "--estimate"]) == 0
    text = capsys.readouterr().out
    assert "size policy: per_flow best-held-out, max_items 25" in text
    assert "Shapes: 2 from stored-runs matrix (header and names)." in text
    rows = {line.split()[0]: line.split()[1:5] for line in text.splitlines() if line.split()[:1] in (["alpha"], ["beta"])}
    assert rows == {"alpha": ["12", "6", "6", "20"], "beta": ["4", "4", "4", "25"]}  # runs, flows, respondents, items
    assert "Suite-wide stages, one after the other in the driver: rate" in text
    assert "Memory guard" not in text  # nothing is trained
    assert not (tmp_path / "run").exists()


def test_a_stored_field_without_a_suite_is_estimated(tmp_path, capsys):
    """Without ``suite:`` the estimate failed with "'ImportConfig' object has no attribute 'max_categories'"."""
    assert main(["run", str(stored_config(tmp_path, suite=None)), "--estimate"]) == 0
    assert "Shapes: 2 from stored-runs matrix (header and names)." in capsys.readouterr().out


@pytest.mark.heavy
def test_estimate_of_the_shipped_cv_fold0_config(shared_data, capsys):
    """configs/cv-fold0.yaml is estimated (it was refused: "unknown suite 'cv-fold0'"), from its 20 matrices."""
    if not (shared_data / "openml-runs" / "cv-fold0").is_dir():
        pytest.skip("../shared/data/openml-runs/cv-fold0 is not there")
    config = Path(__file__).resolve().parents[1] / "configs" / "cv-fold0.yaml"
    assert main(["run", str(config), "--estimate"]) == 0
    text = capsys.readouterr().out
    assert "Shapes: 20 from stored-runs matrix (header and names)." in text
    assert "CPU time, one thread per fit:" in text and "over 20 dataset(s)" in text
    row = next(line.split() for line in text.splitlines() if line.split()[:1] == ["2dplanes"])
    assert row[1:5] == ["257", "191", "191", "200"]  # runs, flows, respondents (one run per flow), items (max_items)


def test_the_irt_law_by_hand():
    assert irt_seconds(100, 400, {"irt_seconds": LAW}) == pytest.approx(0.5 + 1e-3 * 10 * 8000)
    model = {"irt_seconds": LAW}
    matrices = [("a", 100, 400), ("b", 25, 4000)]
    cap = item_cap(matrices, 60.0, model)
    cost = sum(irt_seconds(n, min(items, cap), model) for _, n, items in matrices)
    over = sum(irt_seconds(n, min(items, cap + 1), model) for _, n, items in matrices)
    assert cost <= 60.0 < over


def test_a_long_irt_stage_is_announced_with_the_option_that_cuts_it(tmp_path):
    config = load_config(stored_config(tmp_path))
    assert long_run_warning(config, model={"irt_seconds": LAW}) is None  # 6 x 20 and 4 x 30: well under 10 CPU-min
    assert long_run_warning(config, model=LONG, threshold=60.0) == (
        "Long IRT stage ahead: estimated 4 CPU-min over 2 dataset(s) (the largest alpha: 6 respondents x 20 items, "
        "2 CPU-min), over the warning threshold of 1 CPU-min; on 1 worker(s) about 4 min. To cut it: "
        "respond.max_items: 6 keeps it under 1 CPU-min (the IRT stage's cost grows with the items), or more workers "
        "(--n-jobs N, execution.n_jobs: the datasets are fitted side by side). benchirt run CONFIG --estimate shows "
        "each dataset.")
    assert long_run_warning(load_config(stored_config(tmp_path), stages=["respond"]), model=LONG,
                            threshold=60.0) is None


def test_a_trained_suite_is_bounded_by_its_largest_test_part(tmp_path):
    """No dataset is loaded: each is costed at respond.max_test items, and max_test is the option named."""
    config = load_config({"suite": "builtin:iris,wine", "respond": {"max_test": 50}})
    warning = long_run_warning(config, model=LONG, threshold=60.0)
    assert "over 2 dataset(s)" in warning and "x 50 items" in warning
    assert "To cut it: respond.max_test: " in warning


def test_run_says_so_before_a_long_irt_stage_starts(tmp_path, monkeypatch, capsys):
    """The warning is printed (to stderr) before the pipeline runs."""
    import benchirt.pipeline.estimate as estimate
    import benchirt.pipeline.run as run

    def refuse(*args, **kwargs):
        raise RuntimeError("the run started")

    longer = {"irt_seconds": {**LONG["irt_seconds"], "scale": 10.0}}  # 2,400 CPU-s: over the 10 CPU-min threshold
    monkeypatch.setattr(estimate, "load_cost_model", lambda: longer)
    monkeypatch.setattr(run, "run_pipeline", refuse)
    with pytest.raises(RuntimeError, match="the run started"):
        main(["run", str(stored_config(tmp_path))])
    assert capsys.readouterr().err.startswith("Long IRT stage ahead: estimated 40 CPU-min over 2 dataset(s)")


def test_a_source_read_in_full_has_the_shapes_of_the_scan(tmp_path):
    """A runs folder or OpenML tasks are read as the import reads them (:func:`read_shape`): the same counts as the
    header-and-names scan of the same matrices."""
    from benchirt.stored_runs.matrices import read_matrices
    from benchirt.stored_runs.shapes import READ, read_shape

    config = load_config(stored_config(tmp_path, max_items=25))
    responses = config.stage_config("respond")
    read = [read_shape(matrix, responses) for matrix in read_matrices(
        [tmp_path / "field" / "alpha.csv", tmp_path / "field" / "beta.csv"])]
    scanned = stored_shapes(responses, base_dir=config.base_dir)
    assert [shape.source for shape in read] == [READ, READ]
    assert [(s.dataset, s.runs, s.flows, s.cells, s.respondents, s.items) for s in read] == [
        (s.dataset, s.runs, s.flows, s.cells, s.respondents, s.items) for s in scanned]
