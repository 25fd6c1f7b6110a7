"""A report as data, and what draws it: the ground floor every stage's report sections build on.

:mod:`benchirt.document.page` holds the page model (sections of paragraphs, tables, figures and notes) and its
HTML and Markdown renderings; :mod:`benchirt.document.figures` turns a matplotlib figure into a legible block
(:mod:`benchirt.document.legibility`); :mod:`benchirt.document.context` is what a stage's sections read beside
their stage's own result. This package imports no stage package, so any stage may import it
(``benchirt/<stage>/report_sections.py``, named by the stage's registry record).
"""
