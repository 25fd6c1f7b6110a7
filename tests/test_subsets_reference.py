"""Subsets on the offline mirror's decodIRT results (../shared/data/decodirt-reference) and the command."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchirt.cli import main
from benchirt.rating import glicko_tournament
from benchirt.subsets import SubsetConfig, build_subsets, evaluate_subsets
from benchirt.subsets.command import default_roles
from test_subsets_selection import paper_summaries

ARTIFICIAL_PT = ["otimo", "pessimo", "majoritario", "minoritario", "rand1", "rand2", "rand3"]


def ltm_summaries(reference) -> pd.DataFrame:
    """Percentages of items above Cardoso et al. 2021 §4.5's thresholds from ltm's item parameters."""
    rows = []
    for folder in sorted(p for p in reference.iterdir() if p.is_dir()):
        items = pd.read_csv(folder / "ltm_item_params.csv", index_col=0)
        rows.append({"dataset": folder.name,
                     "pct_discrimination_gt": 100 * (items["Discriminacao"] > 0.75).mean(),
                     "pct_difficulty_gt": 100 * (items["Dificuldade"] > 1.0).mean(),
                     "pct_guessing_gt": 100 * (items["Adivinhacao"] > 0.2).mean()})
    return pd.DataFrame(rows)


def true_scores(reference) -> pd.DataFrame:
    parts = []
    for folder in sorted(p for p in reference.iterdir() if p.is_dir()):
        table = pd.read_csv(folder / "true_scores.csv")
        parts.append(pd.DataFrame({"dataset": folder.name, "classifier": table["Clf"], "score": table["Score"]}))
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def reference(shared_data):
    folder = shared_data / "decodirt-reference"
    return ltm_summaries(folder), true_scores(folder)


@pytest.fixture(scope="module")
def evaluation(reference):
    summaries, scores = reference
    roles = default_roles(scores["classifier"].unique())
    config = SubsetConfig(n_random=100, n_permutations=50)
    return evaluate_subsets(build_subsets(summaries), scores, summaries, roles=roles, config=config)


def test_reference_summaries_are_the_papers(reference):
    # the mirror's ltm parameters give the percentages decodIRT published (rounded to integers)
    summaries, _ = reference
    mine = summaries.set_index("dataset")
    paper = paper_summaries().set_index("dataset").loc[mine.index]
    assert len(mine) == 50
    assert (mine["pct_discrimination_gt"] - paper["pct_discrimination_gt"]).abs().max() <= 0.5
    assert (mine["pct_difficulty_gt"] - paper["pct_difficulty_gt"]).abs().max() <= 0.5


@pytest.mark.parametrize("cut", [30, 50, 70])
def test_subsets_agree_with_the_papers_on_shared_datasets(reference, cut):
    # The paper chose from 60 datasets, the mirror has 50 of them: the paper's subset, restricted to
    # the mirror, should be (nearly) inside ours.
    summaries, _ = reference
    ours = set(build_subsets(summaries, cuts=cut)[f"decodirt-{cut}"])
    papers = set(build_subsets(paper_summaries(), cuts=cut)[f"decodirt-{cut}"]) & set(summaries["dataset"])
    assert len(papers & ours) >= 0.9 * len(papers)


def test_roles_from_decodirt_names(reference):
    _, scores = reference
    roles = default_roles(scores["classifier"].unique())
    assert sorted(roles.index[roles == "artificial"]) == sorted(ARTIFICIAL_PT)
    assert (roles == "real").sum() == 12


@pytest.mark.heavy
def test_reference_evaluation(evaluation, reference):
    ev = evaluation
    _, scores = reference
    assert ev.notes == ["upper reference(s) left out of the separation: otimo"]
    # separation of the full suite = lowest real − highest non-optimal artificial, single sorted order
    table = glicko_tournament(scores).table.set_index("classifier")["rating"]
    real = table.drop(ARTIFICIAL_PT)
    expected = real.min() - table[[n for n in ARTIFICIAL_PT if n != "otimo"]].max()
    assert ev.fidelity["separation_full"].iloc[0] == pytest.approx(expected, abs=1e-6)
    fid = ev.fidelity.set_index("subset")
    assert list(fid["n_datasets"]) == [15, 25, 35]
    assert fid["kendall_tau"].between(-1, 1).all()
    assert fid[["kendall_tau_percentile", "separation_percentile"]].stack().between(0, 100).all()
    assert fid[["kendall_tau_p_value", "separation_p_value"]].stack().between(1 / 101, 1).all()
    assert len(ev.random_draws) == 300
    for stem, frame in ev.to_frames().items():
        assert not frame.isna().any().any(), stem
    # more datasets -> closer to the full suite's order, for random subsets on average
    means = fid["kendall_tau_random_mean"]
    assert means.iloc[0] < means.iloc[1] < means.iloc[2]
    assert "Innate ability" in ev.innate_verdict and set(ev.leaders["subset"]) == {"full", *ev.subsets}


@pytest.mark.heavy
def test_command_on_mirror_writes_suites_that_resolve_back(reference, shared_data, tmp_path, capsys):
    from benchirt.data import resolve_suite

    summaries, scores = reference
    offline = {spec.name: spec for spec in resolve_suite("cc18-offline")}
    keep = sorted(set(offline) & set(summaries["dataset"]))
    summaries[summaries["dataset"].isin(keep)].to_csv(tmp_path / "summaries.csv", index=False)
    scores[scores["dataset"].isin(keep)].to_csv(tmp_path / "scores.csv", index=False)
    metadata = pd.DataFrame({name: offline[name].load().metadata() for name in keep}).T.rename_axis("dataset")
    metadata.to_csv(tmp_path / "metadata.csv")
    out = tmp_path / "out"
    code = main(["subset", str(tmp_path / "summaries.csv"), str(tmp_path / "scores.csv"), "--out", str(out),
                 "--cuts", "30,50", "--random", "20", "--permutations", "5", "--suite", "cc18-offline",
                 "--metadata", str(tmp_path / "metadata.csv")])
    assert code == 0
    shares = pd.read_csv(out / "characterization.csv").query("subset == 'full'").set_index(["data_type", "task"])
    binary = 100 * (metadata["n_classes"] == 2).mean()
    assert shares.loc[("total", "binary"), "share"] == pytest.approx(binary)
    assert shares.loc[("total", "total"), "share"] == pytest.approx(100)
    means = pd.read_csv(out / "metadata_summary.csv").query("subset == 'full'").set_index("metadata")["mean"]
    assert means["n_features"] == pytest.approx(metadata["n_features"].astype(float).mean())
    written = json.loads((out / "subsets.json").read_text())
    assert written["without_suite_file"] == {}
    for name, members in written["subsets"].items():
        specs = resolve_suite(str(out / "suites" / f"{name}.yaml"))
        assert [s.name for s in specs] == members
        assert all(s.location == offline[s.name].location and s.openml_id == offline[s.name].openml_id
                   for s in specs)
    for stem in ("fidelity", "ratings", "parameters", "reliability", "innate", "leaders", "membership"):
        assert (out / f"{stem}.csv").stat().st_size > 0
    for stem in ("fidelity", "ratings", "parameter_balance", "innate"):
        assert (out / f"{stem}.png").stat().st_size > 0
    assert "Fidelity to the full suite" in capsys.readouterr().out


def test_command_without_sources_lists_subsets_only(tmp_path, capsys):
    rng = np.random.default_rng(0)
    summaries = pd.DataFrame({"dataset": [f"d{i}" for i in range(6)], "pct_discrimination_gt": rng.uniform(0, 100, 6),
                              "pct_difficulty_gt": rng.uniform(0, 100, 6)})
    scores = pd.DataFrame([{"dataset": f"d{i}", "classifier": c, "score": rng.uniform()}
                           for i in range(6) for c in ("a", "b", "c", "optimal")])
    summaries.to_csv(tmp_path / "s.csv", index=False)
    scores.to_csv(tmp_path / "t.csv", index=False)
    code = main(["subset", str(tmp_path / "s.csv"), str(tmp_path / "t.csv"), "--out", str(tmp_path / "o"),
                 "--cuts", "50", "--random", "5", "--permutations", "0", "--no-plots"])
    assert code == 0
    assert json.loads((tmp_path / "o" / "subsets.json").read_text())["without_suite_file"]["budget-50"]
    assert not (tmp_path / "o" / "suites").exists()
    assert "no suite file for budget-50" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--cuts", "0,50"], "subset.cuts: got '0,50', expected percentages of the suite to keep (of its CPU "
                         "for the budget rule, of its datasets for decodIRT's), each in (0, 100], e.g. 30,50,70\n"),
    (["--cuts", "30,abc"], "subset.cuts: got '30,abc', expected percentages of the suite to keep (of its CPU "
                           "for the budget rule, of its datasets for decodIRT's), each in (0, 100], e.g. 30,50,70\n"),
    (["--rule", "decodirt", "--random", "1"], "n_random"),
])
def test_command_bad_options(tmp_path, capsys, argv, message):
    (tmp_path / "s.csv").write_text("dataset,pct_discrimination_gt,pct_difficulty_gt\nd1,1,2\n")
    code = main(["subset", str(tmp_path / "s.csv"), str(tmp_path / "t.csv"), "--out", str(tmp_path / "o"), *argv])
    assert code == 2 and message in capsys.readouterr().err


def test_command_missing_files(tmp_path, capsys):
    code = main(["subset", str(tmp_path / "nope.csv"), str(tmp_path / "t.csv"), "--out", str(tmp_path / "o")])
    assert code == 2 and "IRT summaries file not found" in capsys.readouterr().err


def test_help_documents_the_command(capsys):
    with pytest.raises(SystemExit):
        main(["subset", "--help"])
    text = capsys.readouterr().out
    assert "decodirt" in text and "budget" in text and "--publish" in text and "example:" in text and "OPENML_APIKEY" in text


def test_summaries_from_item_folders(reference, shared_data, tmp_path):
    from benchirt.errors import DataError
    from benchirt.subsets.command import read_summaries

    summaries, _ = reference
    got = read_summaries(shared_data / "decodirt-reference").set_index("dataset")
    expected = summaries.set_index("dataset")
    pd.testing.assert_frame_equal(got[expected.columns], expected, check_exact=False, atol=1e-9)
    # benchirt irt's items.csv layout, with flags
    (tmp_path / "d1").mkdir()
    pd.DataFrame({"item": ["V1", "V2", "V3", "V4"], "discrimination": [1.0, 0.5, -0.2, 2.0],
                  "difficulty": [2.0, 0.0, 0.0, 3.0], "guessing": [0.3, 0.0, 0.1, 0.0],
                  "flag": ["", "", "", "all_wrong"]}).to_csv(tmp_path / "d1" / "items.csv", index=False)
    row = read_summaries(tmp_path).iloc[0]
    # the all_wrong item is difficult but, flagged, never discriminative (its a = 2.0 describes no curve)
    assert (row["pct_discrimination_gt"], row["pct_difficulty_gt"], row["pct_guessing_gt"]) == (25.0, 50.0, 25.0)
    assert row["pct_negative_discrimination"] == 25.0 and row["n_flagged"] == 1
    # benchirt's monotone items (a >= 0) with their ability_slope: the falling items are read from it, as a run does
    pd.DataFrame({"item": ["V1", "V2", "V3", "V4"], "discrimination": [1.0, 0.5, 0.0, 2.0],
                  "difficulty": [2.0, 0.0, 0.0, 3.0], "guessing": [0.3, 0.0, 0.1, 0.0],
                  "ability_slope": [0.8, -0.4, -0.1, 0.0],
                  "flag": ["", "", "", "all_wrong"]}).to_csv(tmp_path / "d1" / "items.csv", index=False)
    assert read_summaries(tmp_path).iloc[0]["pct_negative_discrimination"] == 50.0
    (tmp_path / "d2").mkdir()
    with pytest.raises(DataError, match="d2 holds no item table"):
        read_summaries(tmp_path)
