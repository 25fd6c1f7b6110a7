"""Response matrices from predictions that OpenML already stores (no training).

OpenML keeps, for every evaluated run, a predictions file with the out-of-fold prediction of every row of
the task's dataset (Vanschoren et al. 2014). This package reads those files (:mod:`.predictions`), the
task's split and dataset (:mod:`.task`), a folder in OpenML's cache layout (:mod:`.folder`) or a
respondents × items matrix (:mod:`.matrix`), chooses respondents among a flow's many runs
(:mod:`.select`), writes what ``benchirt respond`` exports (:mod:`.export`), and fetches runs from the
server into benchirt's own cache (:mod:`.fetch`). ``benchirt import-runs`` is :mod:`.command`; what
``benchirt run --estimate`` reads of a source without importing it (runs, flows, respondents × items per
dataset) is :mod:`.shapes`.
"""
