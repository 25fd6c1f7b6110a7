"""Named studies as code, composed from the same stage functions ``benchirt run`` uses.

- :mod:`pipelines.decodirt_cc18` — the decodIRT study of seed 003 on OpenML-CC18 (offline mirror or online).
- :mod:`pipelines.airt_study` — AIRT (seed 000) on the ASlib scenarios of the paper.

Run them as modules from the project root, e.g. ``python -m pipelines.decodirt_cc18 --help``.
"""
