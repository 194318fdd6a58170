"""ActiveVision-style static-image benchmark: loader, scoring, the procedural sample generators.

benchmark.py     ActiveVision: one image and one question per item, graded by the shared scorer
loader.py        the released layouts (ActiveVisionItem), checked and hashed
scoring.py       the benchmark's shared scorer: a pure function from (response text, truth) to a grade
samples/         bundled procedural sample tasks with exact ground truth (`sample-data`, `make demo`)
"""
