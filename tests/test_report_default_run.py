"""The default study end to end — the embedded suite through every stage, AIRT included — and its
report: conclusions first, the AIRT section, the subsets' verdict; then the page in a real browser.

The default-suite run keeps the packaged config (suite, stages, IRT, cuts) but uses a smaller pool,
3 folds and a short ladder so that it takes seconds, and runs in the test's process (two workers' start-up
was a third of its CPU; real stages on worker processes are run by test_pipeline_fits and by the Dask test
of test_pipeline_run); ``-m slow`` runs the packaged config unchanged.
"""
from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
import yaml

from benchirt.cli import main
from benchirt.pipeline.config import load_config

ROOT = Path(__file__).resolve().parents[1]
FAST = {
    "respond": {"cv_folds": 3, "ladder_epochs": 10,
                "pool": ["gaussian_nb", "knn_3", "decision_tree", "random_forest_5", "svc"]},
    "rate": {"n_permutations": 20},
    "subset": {"n_random": 10, "n_permutations": 5},
    "report": {"max_dataset_plots": 2},
    "execution": {"n_jobs": 1},
}


def _run(config: dict, out: Path) -> tuple[int, str]:
    path = out.parent / f"{out.name}.yaml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True))
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(io.StringIO()):
        code = main(["run", str(path), "--out", str(out), "--quiet"])
    return code, stdout.getvalue()


@pytest.fixture(scope="module")
def default_run(tmp_path_factory) -> Path:
    packaged = yaml.safe_load((ROOT / "configs" / "default.yaml").read_text())
    config = {**packaged, **{k: {**packaged.get(k, {}), **v} for k, v in FAST.items()}}
    out = tmp_path_factory.mktemp("default") / "run"
    code, _ = _run(config, out)
    assert code == 0
    return out


def _sections(markdown: str) -> list[str]:
    return re.findall(r"^## (.+)$", markdown, flags=re.M)


def _assert_whole_mission(out: Path) -> None:
    summary = (out / "summary.md").read_text()
    assert _sections(summary)[0] == "Conclusions"
    assert "AIRT (algorithm portfolio)" in _sections(summary)
    conclusions = summary.split("## ", 2)[1]
    for claim in ("Primary verdict — Bradley–Terry leaderboard on true score over 12 datasets",
                  "Agreement check — Wilcoxon signed-rank tests", "Agreement check — Bayesian sign test",
                  "Agreement check — Friedman/Nemenyi on true score", "Agreement check — Glicko-2",
                  "Most informative datasets — the ones whose test items tell the",
                  "Which subset could replace the full suite? ", "AIRT (datasets as respondents)"):
        assert claim in conclusions
    assert conclusions.count("Primary verdict") == 1 and "is the best real classifier" in conclusions
    assert "Not in this report" not in conclusions
    assert "Stages: respond, irt, rate, subset, airt." in summary   # the pipeline's order, not alphabetical
    page = (out / "report.html").read_text()
    overlaps = re.findall(r'data-overlapping-labels="(\d+)"', page)
    assert len(overlaps) >= 10 and set(overlaps) == {"0"}                 # no figure has overlapping labels
    assert min(float(v) for v in re.findall(r'data-text-px="([\d.]+)"', page)) >= 10 - 0.01
    assert page.index('id="conclusions"') < page.index('id="overview"') < page.index('id="airt"')


@pytest.mark.heavy
def test_default_config_runs_every_stage_on_the_embedded_suite(default_run):
    config = load_config(None)
    assert config.suite == "embedded" and "airt" in config.stages
    _assert_whole_mission(default_run)


def _number(pattern: str, text: str) -> list[str]:
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not in {text[:300]!r}"
    return list(found.groups())


@pytest.mark.heavy
def test_rating_conclusions_read_back_match_the_exported_tables(default_run, tmp_path):
    """Every number of the rating and subsets conclusions in summary.md, read back from the file, equals the
    one recomputed from the CSVs `benchirt rate` and `benchirt subset` write for the same result (leaderboard,
    pairwise, friedman.json, nemenyi.csv, ratings.csv, permutation.csv; fidelity.csv)."""
    import html
    import json

    import numpy as np
    import pandas as pd

    from benchirt.pipeline.run import load_run
    from benchirt.rating.agreement import BAYES_DECISION, smallest_holm_p
    from benchirt.rating.command import write_outputs
    from benchirt.rating.verdict import probability_is

    run = load_run(default_run)
    rating = run.rate
    write_outputs(rating, tmp_path)
    board, pairwise = pd.read_csv(tmp_path / "leaderboard.csv"), pd.read_csv(tmp_path / "pairwise.csv")
    friedman = json.loads((tmp_path / "friedman.json").read_text())
    nemenyi = pd.read_csv(tmp_path / "nemenyi.csv", index_col=0)
    glicko, orders = pd.read_csv(tmp_path / "ratings.csv"), pd.read_csv(tmp_path / "permutation.csv")
    # summary.md escapes "<", ">" and "&" as HTML entities (they render as the characters): read what a viewer shows
    conclusions = html.unescape((default_run / "summary.md").read_text().split("## ", 2)[1])
    bullets = {line[2:].split(" — ", 1)[0] + (" " + line.split(" — ")[1].split(" ")[0] if "Agreement" in line else ""):
               line for line in conclusions.splitlines() if line.startswith("• ")}
    leader = board["classifier"].iloc[0]
    alpha = rating.config.alpha

    primary = bullets["Primary verdict"]
    real = board[board["role"] != "artificial"]
    champion = real["classifier"].iloc[0]   # the best real classifier heads the verdict, never the optimal one
    n_datasets, name, points = _number(
        r"over (\d+) datasets .*?: (\S+) is the best real classifier \(Bradley–Terry rating (\d+)", primary)
    assert (int(n_datasets), name, int(points)) == (board["n_datasets"].max(), champion, round(real["bt_rating"].iloc[0]))
    assert "above it only the artificial reference optimal" in primary
    mine = pairwise[((pairwise["a"] == champion) & pairwise["b"].isin(real["classifier"]))
                    | ((pairwise["b"] == champion) & pairwise["a"].isin(real["classifier"]))]
    leads = np.where(mine["a"] == champion, mine["statistic"], -mine["statistic"]) > 0
    beaten, above = (mine["separated"] & leads).sum(), (mine["separated"] & ~leads).sum()
    if beaten:
        assert _number(r"significantly better than (\d+) of (\d+) other real classifiers", primary) == [
            str(beaten), str(len(real) - 1)]
    else:
        assert f"cannot be separated from any of the {len(real) - 1} other real classifiers" in primary
    n_tiers = board["tier"].max()
    assert (f"{n_tiers} tiers" in primary) if n_tiers > 1 else ("tier" not in primary)   # no tier talk with one
    assert _number(r"all (\d+) pairs at once on (\d+) datasets", primary) == [str(len(pairwise)), n_datasets]
    low, high = 1 + above, len(real) - beaten
    assert f"its rank among the {len(real)} real classifiers lies {f'at {low}' if low == high else f'between {low} and {high}'}" in primary
    assert f"chance of any false separation ≤ {100 * alpha:g} %" in primary

    separated = pairwise["separated"].to_numpy()
    wilcoxon = bullets["Agreement check Wilcoxon"]
    floor = smallest_holm_p(int(pairwise["n_datasets"].max()), len(pairwise))
    if floor >= alpha:
        assert _number(r"smallest Holm-adjusted p-value it can reach is ([\d.]+)", wilcoxon) == [f"{floor:.3f}"]
    else:
        decided = ((pairwise["wilcoxon_p_holm"] < alpha) & (pairwise["mean_difference"] > 0)).to_numpy()
        assert _number(r"separates (\d+) of (\d+) pairs, the primary (\d+); they agree on (\d+)", wilcoxon) == [
            str(decided.sum()), str(len(pairwise)), str(separated.sum()), str((decided == separated).sum())]

    bayes = bullets["Agreement check Bayesian"]
    decided = (pairwise["p_a_better"] > BAYES_DECISION).to_numpy()
    assert _number(r"separates (\d+) of (\d+) pairs, the primary (\d+); they agree on (\d+)", bayes) == [
        str(decided.sum()), str(len(pairwise)), str(separated.sum()), str((decided == separated).sum())]
    top = pairwise.iloc[0]
    assert (f"P({top['a']} better) {probability_is(top['p_a_better'])}, P(equivalent) "
            f"{probability_is(top['p_equivalent'])}, P({top['b']} better) {probability_is(top['p_b_better'])}") in bayes

    check = bullets["Agreement check Friedman/Nemenyi"]
    k, blocks, cd = _number(r"\((\d+) classifiers over (\d+) datasets, Friedman p [=<] [\d.]+, critical difference "
                            r"([\d.]+) mean ranks\)", check)
    assert (int(k), int(blocks), float(cd)) == (friedman["n_classifiers"], friedman["n_blocks"],
                                                round(friedman["critical_difference"], 2))
    ranks = {row["classifier"]: row["average_rank"] for row in friedman["average_ranks"]}
    tested = pairwise[pairwise["a"].isin(ranks) & pairwise["b"].isin(ranks)]
    decided = [friedman["p_value"] < alpha and nemenyi.loc[a, b] < alpha and ranks[a] < ranks[b]
               for a, b in zip(tested["a"], tested["b"])]
    assert _number(r"separates (\d+) of (\d+) pairs, the primary (\d+); they agree on (\d+)", check) == [
        str(sum(decided)), str(len(tested)), str(tested["separated"].sum()),
        str(sum(d == p for d, p in zip(decided, tested["separated"])))]

    check = bullets["Agreement check Glicko-2"]
    first = glicko.sort_values("rating", ascending=False)["classifier"].iloc[0]
    assert (f"agrees on the leader, {leader}" in check) == (first == leader)
    share = orders.set_index("classifier").loc[leader, "p_first_alone"]
    assert _number(rf"over (\d+) random dataset orders {leader} is first alone in (\d+) %", check) == [
        str(rating.permutation.n_permutations), f"{100 * share:.0f}"]


    from benchirt.subsets.command import write_outputs as write_subsets

    write_subsets(run.subset, tmp_path / "subsets", plots=False)
    comparison = pd.read_csv(tmp_path / "subsets" / "rule_comparison.csv")
    sentence = next(line for line in conclusions.splitlines() if "Which subset could replace the full suite?" in line)
    rule = comparison[comparison["rule"] == "budget"]
    good = rule[(rule["kept"] >= 0.9) & (rule["p_vs_random"] < 0.05)]
    if len(good):
        pick = good.sort_values("budget_share").iloc[0]
        assert f"Recommended: budget-{100 * pick['budget_share']:g} ({pick['n_datasets']:.0f} datasets" in sentence
    elif rule["kept"].notna().any():
        best = rule.loc[rule["kept"].idxmax()]
        assert (f"(best: {best['budget_share']:.0%} of the CPU keeps {best['kept']:.0%}, "
                f"p = {best['p_vs_random']:.2g} against random): benchirt recommends none") in sentence
    else:
        assert "separates no pair" in sentence


@pytest.mark.heavy
def test_usefulness_and_airt_conclusions_read_back_match_the_exported_tables(default_run, tmp_path):
    """The 'most informative datasets' and AIRT bullets of summary.md, read back: every number equals the
    report's exported usefulness table (its rows in summary.md) and the algorithms.csv `benchirt airt` writes."""
    import html

    import pandas as pd
    from scipy.stats import spearmanr

    from benchirt.airt.command import write_result
    from benchirt.pipeline.run import load_run

    summary = html.unescape((default_run / "summary.md").read_text())
    conclusions = summary.split("## ", 2)[1]
    header = "| Rank | Dataset | Real pairs separated (%) | Ability SD (real) |"
    lines = summary.split(header, 1)[1].splitlines()[2:]
    rows = [line.split("|")[1:-1] for line in lines[:lines.index("")]]  # the table ends at the first blank line
    table = pd.DataFrame({"dataset": [r[1].strip() for r in rows], "pairs": [float(r[2]) for r in rows],
                          "sd": [float(r[3]) for r in rows]})
    useful = next(line for line in conclusions.splitlines() if line.startswith("• Most informative datasets"))
    named = re.findall(r"([\w-]+) \((\d+) % of pairs, ability SD ([\d.]+)\)", useful)
    lead, least = useful.split("; least: ")
    assert [name for name, _, _ in named] == table["dataset"].head(3).tolist() + table["dataset"].tail(2).tolist()
    assert len(re.findall(r"% of pairs", lead)) == 3
    for name, pairs, sd in named:
        row = table.set_index("dataset").loc[name]
        # the table's percentages have one decimal, the sentence none: within half a point and its rounding
        assert abs(float(pairs) - row["pairs"]) <= 0.55 and sd == f"{row['sd']:.2f}"
    rho = spearmanr(table["pairs"], table["sd"]).statistic  # the table's 3 decimals can tie two SDs: within 0.01
    assert abs(float(_number(r"the datasets keep this order with Spearman (-?[\d.]+)", useful)[0]) - rho) <= 0.01

    write_result(load_run(default_run).airt, tmp_path / "airt")
    algorithms = pd.read_csv(tmp_path / "airt" / "algorithms.csv")
    airt = next(line for line in conclusions.splitlines() if line.startswith("• AIRT"))
    strong = algorithms[algorithms["lto_strength"] > 0].sort_values(["lto_strength", "algorithm"], ascending=[False, True])
    assert re.findall(r"(\w+) \((\d+) % of it\)", airt) == [
        (a, f"{100 * s:.0f}") for a, s in zip(strong["algorithm"], strong["lto_strength"])]
    anomalous = algorithms[algorithms["anomalous"].astype(bool)]
    assert ("no algorithm is anomalous" in airt) == anomalous.empty
    for name, d in zip(anomalous["algorithm"], anomalous["discrimination"]):
        assert f"{name} (discrimination {d:.2f})" in airt
    flat = algorithms[~algorithms["flag"].isin(["ok", "constant"])]
    for name, d in zip(flat["algorithm"], flat["discrimination"]):
        assert f"{name} (discrimination {d:.2f})" in airt.split("flat curves", 1)[1]


@pytest.mark.heavy
def test_a_run_without_airt_says_why_in_the_conclusions(tmp_path):
    """A 2PL run of three small embedded datasets without subsets and AIRT: the conclusions name what is
    missing and why, and no text speaks of a 3PL."""
    packaged = yaml.safe_load((ROOT / "configs" / "default.yaml").read_text())
    config = {**packaged, **{k: {**packaged.get(k, {}), **v} for k, v in FAST.items()},
              "suite": {"suite": "embedded", "include": ["iris", "wine", "kyphosis"]},
              "stages": ["respond", "irt", "rate", "report"], "irt": {"model": "2PL"}}
    out = tmp_path / "no-airt"
    code, _ = _run(config, out)
    assert code == 0
    summary = (out / "summary.md").read_text()
    conclusions = summary.split("## ", 2)[1]
    assert "Not in this report: AIRT (algorithm portfolio) — the stage 'airt' is not in the config's stages." \
        in conclusions
    assert "Not in this report: benchmark subsets" in conclusions
    assert "Most informative datasets — the ones whose test items tell the 5 real classifiers apart" in conclusions
    # only the model-comparison section, which fits all three models side by side, may name the 3PL
    assert [part[:40] for part in summary.split("\n## ") if "3PL" in part] == ["IRT model fit\n\nMarginal log-likelihood, "]


@pytest.mark.heavy
def test_report_renders_in_a_headless_browser(default_run, tmp_path):
    from benchirt.report.browser import BrowserUnavailable, check_page, find_browser

    try:
        find_browser()
    except BrowserUnavailable as exc:
        pytest.skip(f"browser test skipped: {exc}")
    check = check_page(default_run / "report.html", width=1280, screenshot=tmp_path / "first.png")
    assert check.problems() == []
    assert check.images >= 10 and check.first_section == "conclusions"
    assert (tmp_path / "first.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.heavy
def test_browser_check_catches_a_broken_page(tmp_path):
    """The check is not vacuous: a script error, an undecodable image and an overwide block are all found."""
    from benchirt.report.browser import BrowserUnavailable, check_page, find_browser

    try:
        find_browser()
    except BrowserUnavailable as exc:
        pytest.skip(f"browser test skipped: {exc}")
    import base64
    import io

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (2400, 100), "white").save(buffer, format="PNG")   # shown at half its width
    wide = base64.b64encode(buffer.getvalue()).decode("ascii")
    page = tmp_path / "broken.html"
    page.write_text('<!DOCTYPE html><html><body><img alt="bad" src="data:image/png;base64,AAAA">'
                    f'<main style="max-width:1200px"><img alt="tiny" data-text-px="16" style="max-width:100%" '
                    f'src="data:image/png;base64,{wide}"></main>'
                    '<section id="wide" style="width:400px"><table><tr><th>Long</th><td style="white-space:nowrap">'
                    + "x " * 400 + '</td></tr></table></section>'
                    '<div style="width:3000px">wide</div><script>undefinedFunction()</script></body></html>')
    problems = check_page(page).problems()
    assert any("console error" in p and "undefinedFunction" in p for p in problems)
    assert "image not decoded: bad" in problems
    assert any(p.startswith("wider than the 1280 px viewport: div") for p in problems)
    assert "no conclusions block (section#conclusions)" in problems
    assert any(p.startswith("table wider than its section: wide: Long (") for p in problems)
    assert "figure text 8.0 px (< 10 px) on screen: tiny" in problems       # 16 px in the PNG, shown at 1200/2400


@pytest.mark.slow
def test_packaged_default_run_unchanged(tmp_path):
    """`benchirt run` exactly as shipped (about a minute on 2 cores)."""
    code, stdout = _run(yaml.safe_load((ROOT / "configs" / "default.yaml").read_text()), tmp_path / "run")
    assert code == 0, stdout
    _assert_whole_mission(tmp_path / "run")


def test_one_time_statement_for_the_default_run():
    """README, the packaged config and `benchirt run --help` say the same, from benchmarks/pipeline_walltime.py."""
    from benchirt.pipeline.command import RUN_DESCRIPTION

    statement = "about a minute on 2 cores"
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert statement in readme and "benchmarks/pipeline_walltime.py --skip-dask" in readme
    measured = re.search(r"about a minute on 2 cores \((\d+\.\d) s wall, (\d+(?:\.\d)?) CPU-s", readme)
    assert measured, "the README states the measured wall and CPU time beside 'about a minute'"
    for config in (ROOT / "configs" / "default.yaml", ROOT / "benchirt" / "pipeline" / "default.yaml"):
        text = " ".join(config.read_text().split())
        assert statement.capitalize() in text, config
        assert f"({measured.group(1)} s wall, {measured.group(2)} CPU-s, measured" in text, config
    assert statement in " ".join(RUN_DESCRIPTION.split())


@pytest.mark.heavy
def test_the_scores_are_anchored_on_every_embedded_dataset(default_run):
    """Issue 32's anchors on the default run: per dataset, the optimal respondent has the highest True-Score
    and θ, the pessimal the lowest (ties with a classifier exactly as right or wrong count), and no
    respondent scores below one whose answers it dominates (right wherever the other is right)."""
    import numpy as np

    from benchirt.pipeline.run import load_run

    run = load_run(default_run)
    assert len(run.irt) == 12
    for dataset, irt in run.irt.items():
        answers = run.respond[dataset].responses
        table = irt.abilities.set_index("respondent")
        assert irt.scorer.model == "1PL" and irt.fit.model == "3PL"
        for column in ("theta", "true_score"):
            score = table[column]
            assert score["optimal"] >= score.max() - 1e-9 and score["pessimal"] <= score.min() + 1e-9, dataset
            u = answers.loc[score.index].to_numpy()
            dominates = (u[:, None, :] >= u[None, :, :]).all(axis=2)
            i, j = np.nonzero(dominates)
            values = score.to_numpy()
            assert (values[i] >= values[j] - 1e-9).all(), (dataset, column)
