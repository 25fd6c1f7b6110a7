"""No import cycle between benchirt's packages, and none between modules.

The graph counts every import, function-level ones included (:mod:`tests.import_graph`), so a cycle
hidden inside a function is still found.
"""
from __future__ import annotations

import import_graph

def test_the_graph_reads_function_level_imports():
    edges = import_graph.edges()
    # function-level imports, one of each kind: a plain one, a lazily exported name, a relative-free submodule
    assert "benchirt.pipeline.progress" in edges["benchirt.pipeline.respond_stage"]
    assert "benchirt.irt.stage" in edges["benchirt.irt.pipeline_stage"]          # `from benchirt.irt import irt_for_responses`
    assert "benchirt.report" in edges["benchirt.report.pipeline_stage"]


def test_a_cycle_is_found_whatever_its_length():
    graph = {"a": frozenset({"b"}), "b": frozenset({"c"}), "c": frozenset({"a"}), "d": frozenset({"a"})}
    assert import_graph.cycles(graph) == [["a", "b", "c"]]
    assert import_graph.cycles({"a": frozenset({"b"}), "b": frozenset()}) == []


def test_no_import_cycle_between_packages():
    assert import_graph.cycles(import_graph.package_graph()) == []


def test_pipeline_and_report_do_not_import_each_other_both_ways():
    graph = import_graph.package_graph()
    assert not ("benchirt.report" in graph["benchirt.pipeline"] and "benchirt.pipeline" in graph["benchirt.report"])


def test_no_module_cycle():
    """Any cycle fails, function-level imports included (the last one, in ``data``, was broken by building
    OpenML specs in ``data.openml_specs`` and loading them in ``data.openml_source``)."""
    assert import_graph.cycles(import_graph.edges()) == []


def _sub_packages(graph: dict[str, frozenset[str]]) -> set[str]:
    """The benchirt packages that are folders (``benchirt.irt``), not top-level modules (``benchirt.io``)."""
    return {name for name in graph if name != "benchirt" and (import_graph.PACKAGE / name.split(".")[1]).is_dir()}


def test_the_page_model_imports_no_package_so_every_stage_may_import_it():
    """``benchirt.document`` (page model, figures, legibility) is the ground floor of the stages' report sections."""
    graph = import_graph.package_graph()
    assert not graph["benchirt.document"] & _sub_packages(graph)


def test_the_report_imports_at_most_five_packages():
    """The stages' sections live beside them (``Stage.sections``): the report keeps the page, the conclusions
    (rating, irt, subsets) and the run overview (pipeline) on the page model (issue 45: at most 5, from 7)."""
    graph = import_graph.package_graph()
    assert len(graph["benchirt.report"] & _sub_packages(graph)) <= 5
