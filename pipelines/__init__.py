"""Named studies as code, composed from the same stage functions ``benchirt run`` uses.

- :mod:`pipelines.decodirt_cc18` — the decodIRT study of Cardoso et al. 2021 on OpenML-CC18 (offline mirror or online).
- :mod:`pipelines.airt_study` — AIRT (Kandanaarachchi & Smith-Miles 2023) on the ASlib scenarios of the paper.

Run them as modules from the project root, e.g. ``python -m pipelines.decodirt_cc18 --help``.
"""
