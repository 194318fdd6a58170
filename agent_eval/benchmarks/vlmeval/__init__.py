"""VLMEvalKit's multiple-choice TSV: loaded, prompted and graded as VLMEvalKit does.

benchmark.py   VlmEvalMcq: the kind (load, setup through fieldformats, grade, scorer hash, samples)
grading.py     one reply graded as mcq_vanilla_eval: the rules, then the judge where they read nothing
hooks.py       how show presents an item: the option read, by the rules or the judge
loader.py      the TSV read as VLMEvalKit reads it (pandas); bad rows left out, one line each
matching.py    can_infer: option letter, refusals, "answer is X", option text
prompting.py   the MCQ prompt and the judge's matching prompt, byte for byte
"""
