"""BabyVision's meta_data.jsonl layout: loaded, prompted and graded (\\boxed{} and a judge) as its reference does.

benchmark.py   BabyVision: the kind (load, setup through fieldformats, grade, scorer hash, samples)
boxed.py       the last \\boxed{...} (nested braces), the box-token form, the judge's True/False
grading.py     one reply graded as _evaluate_single: extracted, then always judged
hooks.py       how show presents an item: the boxed answer and the judge's calls
loader.py      meta_data.jsonl beside its images; bad lines left out, one line each
prompting.py   the question text and the judge's prompt, byte for byte
"""
