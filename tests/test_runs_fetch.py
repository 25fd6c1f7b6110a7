"""The online path: openml-python's real listing code and benchirt's downloads against a stub of OpenML's
REST API on 127.0.0.1 (tests/openml_stub.py): pages of at most 1,000 rows, a 504 retried, a run that keeps
failing recorded while the others finish, and a rerun that makes no request at all."""
from __future__ import annotations

import json

import numpy as np
import openml
import pandas as pd
import pytest

import openml_stub as stub
from benchirt.cli import main
from benchirt.stored_runs import fetch


#: The 12 most accurate runs of the stub's task (ties: lowest run id), as the listing ranks them.
RANKED = sorted(range(1, stub.N_RUNS + 1), key=lambda r: (-stub.accuracy(r), r))[:12]
FLAKY, BROKEN = RANKED[1], RANKED[2]


@pytest.fixture
def server(monkeypatch):
    flaky = {f"/data/download/{100000 + FLAKY}",
             "/api/v1/xml/evaluation/list/function/predictive_accuracy/limit/1000/offset/1000/task/31"}
    with stub.Stub(flaky=flaky, broken={f"/api/v1/xml/run/{BROKEN}"}) as running:
        monkeypatch.setattr(openml.config, "server", f"{running.url}/api/v1/xml")
        monkeypatch.setattr(openml.config, "apikey", "")
        monkeypatch.setattr(openml.config, "connection_n_retries", 1)  # benchirt's own retries, no 1 s sleeps
        monkeypatch.setattr(openml.config, "retry_policy", "human")
        monkeypatch.setattr(fetch, "BACKOFF_SECONDS", 0.01)
        yield running


def test_fetch_pages_retries_records_failures_and_a_rerun_asks_nothing(server, tmp_path):
    options = fetch.FetchOptions(max_runs=12)
    result = fetch.fetch_source(str(stub.TASK), options=options, cache=tmp_path)
    listings = [h for h in server.hits if "/evaluation/list/" in h]
    assert [h.split("/offset/")[1].split("/")[0] for h in listings] == ["0", "1000", "1000"]  # 2 pages, a 504 retried
    assert all("/limit/1000/" in h for h in listings)
    assert server.hits.count(f"/data/download/{100000 + FLAKY}") == 2  # a 504, then the file
    assert list(result.failures) == [str(BROKEN)] and "HTTP 500 after 4 tries" in result.failures[str(BROKEN)]
    assert server.hits.count(f"/api/v1/xml/run/{BROKEN}") == fetch.RETRIES
    assert sorted(result.run_ids) == sorted(r for r in RANKED if r != BROKEN)
    assert json.loads((tmp_path / "failures.json").read_text()).keys() == {str(BROKEN)}
    text = (tmp_path / "runs" / str(FLAKY) / "predictions.arff").read_text()
    assert text.startswith("@RELATION") and (tmp_path / "tasks" / "31" / "datasplits.arff").is_file()

    before = len(server.hits)
    again = fetch.fetch_source(str(stub.TASK), options=options, cache=tmp_path)
    assert sorted(again.run_ids) == sorted(result.run_ids)
    # the failed run is asked for again (it is not cached); nothing else is
    assert set(server.hits[before:]) == {f"/api/v1/xml/run/{BROKEN}"}


def test_import_runs_from_the_stub_writes_the_matrix_and_rerun_is_offline(server, tmp_path, capsys):
    args = ["import-runs", str(stub.TASK), "--out", str(tmp_path / "out"), "--cache", str(tmp_path / "cache"),
            "--per-flow", "all", "--keep-duplicates", "--max-runs", "5", "--min-accuracy", "0"]
    server.broken.clear()
    assert main(args) == 0
    responses = pd.read_csv(tmp_path / "out" / "responses" / "stubdata" / "responses.csv", index_col=0)
    respondents = pd.read_csv(tmp_path / "out" / "responses" / "stubdata" / "respondents.csv")
    assert responses.shape == (5, stub.N_ROWS)
    for name, run_id in zip(respondents["respondent"], respondents["run_id"]):
        expected = [stub.correct(run_id, row) for row in range(stub.N_ROWS)]
        assert np.array_equal(responses.loc[name].to_numpy(), np.array(expected, int))
        assert respondents.set_index("run_id").loc[run_id, "accuracy"] == pytest.approx(stub.accuracy(run_id))
    assert set(respondents["uploader"]) <= {1, 2} and set(respondents["flow_id"]) <= set(range(500, 507))
    before = len(server.hits)
    assert main(args) == 0
    assert len(server.hits) == before
    assert "(0 requests to OpenML, 0 runs not fetched)" in capsys.readouterr().out


def test_listing_filters_flows_on_the_server_and_top_flows_here(server):
    by_flow = fetch.list_task_runs(stub.TASK, fetch.FetchOptions(flows=(501, 503)))
    assert set(by_flow["flow_id"]) == {501, 503}
    assert len(by_flow) == sum(stub.flow_of(r) in (501, 503) for r in range(1, stub.N_RUNS + 1))
    assert any("/flow/501,503" in hit for hit in server.hits)
    top = fetch.list_task_runs(stub.TASK, fetch.FetchOptions(top_flows=2))
    best = {}
    for r in range(1, stub.N_RUNS + 1):
        best[stub.flow_of(r)] = max(best.get(stub.flow_of(r), 0.0), stub.accuracy(r))
    assert set(top["flow_id"]) == set(sorted(best, key=lambda f: (-best[f], f))[:2]) == {503, 504}
    assert list(top["value"]) == sorted(top["value"], reverse=True)  # most accurate first
