"""BabyVision's texts (VLMEvalKit vlmeval/dataset/babyvision.py), byte for byte: the question as the model
sees it and the judge's prompt."""

from __future__ import annotations

FINAL_ANSWER = "Think about the question and give your final answer in \\boxed{Answer} format."

JUDGE_TEMPLATE = """You are a careful and strict evaluator. You will be given:

1. **Question**
2. **Ground Truth Answer** (correct answer)
3. **Model Output** (answer from another model)

**Your goal:** Determine if the Model Output **accurately matches** the Ground Truth Answer in meaning.

* Matching means: the facts, entities, and key details are equivalent, even if phrasing differs.
* Not matching means: the Model Output is wrong, incomplete, contains extra incorrect facts, or changes the meaning.

**Process (internal reasoning):**

1. Read and understand the Question, Ground Truth Answer, and Model Output.
2. Ignore small wording differences, formatting, or synonyms.
3. If all factual content matches, conclude `1`. Otherwise, conclude `0`.

**Important:**

* Think through your decision step-by-step **internally** before responding.
* In your final output, return **only** True or False, with no extra text or explanation.

**Output format:**

True

or

False

**Input:**

Question: {question},
Ground Truth Answer: {groundtruth},
Model Output: {modeloutput}
"""
# The reference builds its judge with max_tokens=16: the verdict is one word.
JUDGE_MAX_TOKENS = 16


def format_choices(options: list) -> str:
    return "\n".join(f"({chr(65 + n)}) {option}" for n, option in enumerate(options)).strip()


def build_question(row: dict) -> str:
    if row["ansType"] == "blank":
        question = row["question"]
    else:
        question = row["question"] + "\nChoices:\n" + format_choices(row["options"])
    return question + "\n" + FINAL_ANSWER


def judge_prompt(question: str, truth: str, extracted: str | None) -> str:
    # str.format on the template only: braces in the values stay as they are (None shows as "None").
    return JUDGE_TEMPLATE.format(question=question, groundtruth=truth, modeloutput=extracted)
