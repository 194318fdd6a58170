"""BabyVision's meta_data.jsonl layout: loaded, prompted and graded (\\boxed{} and a judge) as its reference does.

benchmark.py   BabyVision: the kind (load, setup through fieldformats or VISTA's way, grade, scorer hash, samples)
boxed.py       the last \\boxed{...} (nested braces), the box-token form, the judge's True/False
compare.py     compare's and table's part: both grades per run, each paired against the first run
grading.py     one reply graded both ways: the judge's (_evaluate_single) and VISTA's; --grade picks `correct`
hooks.py       how show, report, compare and table read it: the boxed answer, both grades, VISTA's settings as rungs
templates/     the report's part: both grades on an item and in a run's summary
loader.py      meta_data.jsonl beside its images; bad lines left out, one line each
prompting.py   the question text and the judge's prompt, byte for byte
vista_match.py VISTA's grade: the normalized exact match of the boxed answer (its scoring.py)
"""
