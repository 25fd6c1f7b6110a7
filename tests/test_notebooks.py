"""The notebooks run top to bottom (executed with nbclient in a kernel of this interpreter; ``-m slow``: 22 CPU-s)."""
from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"


def _execute(name: str) -> nbformat.NotebookNode:
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    # kernel "python3" is resolved by jupyter_client to the running interpreter (sys.executable),
    # so the notebook sees the same benchirt installation as the tests
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute()
    return notebook


def _outputs(notebook) -> str:
    texts = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            texts.append(output.get("text", "") or str(output.get("data", {}).get("text/plain", "")))
            assert output.get("output_type") != "error", output
            assert output.get("name") != "stderr", output   # no warning reaches the reader (issue 44: TqdmWarning)
    return "\n".join(texts)


@pytest.mark.slow  # about 15 CPU-s; CI's end-to-end runs are test_report_default_run.py's default_run (heavy) and the default suite's test_run_finishes_every_stage_and_skips_the_single_class_dataset
def test_quickstart_runs_top_to_bottom():
    text = _outputs(_execute("01_quickstart.ipynb"))
    assert "exit code 0 - finished" in text
    assert "respondents x test items" in text and "KiB of HTML" in text


@pytest.mark.slow  # about 7 CPU-s; AIRT on a real ASlib scenario runs by default in test_airt_core_command.py's test_real_aslib_scenario
def test_airt_notebook_runs_top_to_bottom(shared_data, monkeypatch):
    monkeypatch.setenv("BENCHIRT_SHARED_DATA", str(shared_data))
    text = _outputs(_execute("02_airt.ipynb"))
    assert "AIRT: 1294 datasets x 11 algorithms" in text
    assert "finished - same portfolio: True" in text


def test_kernel_is_this_interpreter():
    from jupyter_client.manager import KernelManager

    command = KernelManager(kernel_name="python3").format_kernel_cmd()
    assert Path(command[0]).resolve() == Path(sys.executable).resolve()
