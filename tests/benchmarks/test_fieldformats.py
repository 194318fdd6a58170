"""The field's formats as data: VLMEvalKit's TSV and BabyVision's folder read as the reference reads them
(prompt text byte for byte), their bad rows left out with one line each, detection, and grading with a
stand-in judge object (the judge over HTTP is tested end to end)."""

import base64
import io
import json

import pytest
from PIL import Image

from agent_eval.benchmarks import load_benchmark
from agent_eval.benchmarks.babyvision.loader import read_dataset
from agent_eval.benchmarks.vlmeval.loader import read_tsv
from agent_eval.datamodel.jsonl import DataError
from agent_eval.datamodel.judge_contract import JudgeCall


def _png(colour=(200, 10, 10), size=(8, 8)) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", size, colour).save(buffer, format="PNG")
    return buffer.getvalue()


B64 = base64.b64encode(_png()).decode()
HEADER = "index\timage\tquestion\thint\tA\tB\tC\tD\tE\tF\tanswer\tcategory\tl2-category\n"
ROWS = [
    f"1\t{B64}\tWhat colour is the car?\t\tred\tblue\t\t\t\t\tA\tcolour\tperception\n",
    f"2\t{B64}\tHow many dogs?\tCount only the dogs on the grass.\t1\t2\t3\t\t\t\tB\tcount\tperception\n",
    f"3\t{B64}\tWhich side is the cup on?\t\tleft\tright\ttop\tbottom\t\t\tD\tspatial\treasoning\n",
    f"4\t{B64}\tWhat is written on the sign?\tThe sign is small.\tSTOP\tGO\tYIELD\tEXIT\tSLOW\t\tE\tocr\tperception\n",
    '5\t1\tPick the {odd} one: "x"\t\ta\tb\tc\td\te\tf\tF\tlogic\treasoning\n',
]
# ImageMCQDataset.build_prompt's text for those rows, as VLMEvalKit itself builds it (run on the same TSV).
EXPECTED = {
    "1": "Question: What colour is the car?\nOptions:\nA. red\nB. blue\n"
    "Please select the correct answer from the options above. \n",
    "2": "Hint: Count only the dogs on the grass.\nQuestion: How many dogs?\nOptions:\nA. 1\nB. 2\nC. 3\n"
    "Please select the correct answer from the options above. \n",
    "3": "Question: Which side is the cup on?\nOptions:\nA. left\nB. right\nC. top\nD. bottom\n"
    "Please select the correct answer from the options above. \n",
    "4": "Hint: The sign is small.\nQuestion: What is written on the sign?\nOptions:\nA. STOP\nB. GO\nC. YIELD\n"
    "D. EXIT\nE. SLOW\nPlease select the correct answer from the options above. \n",
    "5": 'Question: Pick the {odd} one: "x"\nOptions:\nA. a\nB. b\nC. c\nD. d\nE. e\nF. f\n'
    "Please select the correct answer from the options above. \n",
}


def _tsv(tmp_path, rows, header=HEADER):
    path = tmp_path / "bench.tsv"
    path.write_text(header + "".join(rows), encoding="utf-8")
    return path


def test_tsv_prompts_are_the_references_byte_for_byte(tmp_path):
    dataset = read_tsv(_tsv(tmp_path, ROWS))
    assert dataset.problems == []
    assert {item.id: item.prompt_text for item in dataset.items} == EXPECTED
    shared = next(i for i in dataset.items if i.id == "5")
    assert shared.images[0].data == B64  # "1" in `image`: row 1's image
    assert {i.id: (i.task, i.category) for i in dataset.items}["3"] == ("spatial", "reasoning")


def test_tsv_numbers_and_na_strings_read_as_pandas_reads_them(tmp_path):
    # A numbers-only option column with empty cells shows floats; "None" is an empty cell to pandas.
    header = "index\timage\tquestion\tA\tB\tC\tanswer\n"
    rows = [f"1\t{B64}\tQ1\t1\tNone\t3\tA\n", f"2\t{B64}\tQ2\t2\tx\t\tB\n"]
    items = {i.id: i for i in read_tsv(_tsv(tmp_path, rows, header)).items}
    assert (
        items["1"].prompt_text == "Question: Q1\nOptions:\nA. 1\nC. 3.0\n"
        "Please select the correct answer from the options above. \n"
    )
    assert items["2"].prompt_text.endswith("A. 2\nB. x\nPlease select the correct answer from the options above. \n")


def test_tsv_multi_image_rows_and_image_paths(tmp_path):
    (tmp_path / "imgs").mkdir()
    (tmp_path / "imgs" / "a.png").write_bytes(_png())
    (tmp_path / "imgs" / "b.png").write_bytes(_png((0, 0, 255)))
    header = "index\timage_path\tquestion\tA\tB\tanswer\n"
    rows = ["7\t['imgs/a.png', 'imgs/b.png']\tWhich differs?\tfirst\tsecond\tB\n", "8\timgs/a.png\tQ\tx\ty\tA\n"]
    items = {i.id: i for i in read_tsv(_tsv(tmp_path, rows, header)).items}
    assert [s.path.name for s in items["7"].images] == ["a.png", "b.png"]
    assert [s.name for s in items["7"].images] == ["image_1", "image_2"]
    assert [s.name for s in items["8"].images] == ["image"]


NOT_AN_IMAGE = base64.b64encode(b"bytes long enough to be read as data, not as a row index" * 2).decode()


def test_tsv_bad_rows_each_get_one_line_and_the_rest_loads(tmp_path):
    rows = ROWS[:2] + [
        "11\tnot*an*image*but*long*enough*to*be*read*as*base64*data*not*an*index*xxxxxxxx\tQ\t\ta\tb\t\t\t\t\tA\tc\tl\n",
        f"12\t{NOT_AN_IMAGE}\tQ\t\ta\tb\t\t\t\t\tA\tc\tl\n",
        f"13\t{B64}\tQ without options\t\t\t\t\t\t\t\tA\tc\tl\n",
        f"14\t{B64}\tQ without answer\t\ta\tb\t\t\t\t\t\tc\tl\n",
        "15\t99\tQ naming a row that is not there\t\ta\tb\t\t\t\t\tA\tc\tl\n",
    ]
    dataset = read_tsv(_tsv(tmp_path, rows))
    assert [i.id for i in dataset.items] == ["1", "2"]
    assert len(dataset.problems) == 5
    for problem, index, what in zip(
        dataset.problems,
        range(11, 16),
        ["does not decode", "not an image", "no options", "no answer", "holds no image"],
    ):
        assert problem.startswith(f"{tmp_path / 'bench.tsv'} row {index - 8} (index {index}): ")
        assert what in problem


def test_tsv_missing_image_file_is_a_row_problem(tmp_path):
    header = "index\timage_path\tquestion\tA\tB\tanswer\n"
    dataset = (
        read_tsv(_tsv(tmp_path, ["1\tgone.png\tQ\tx\ty\tA\n", f"2\t{tmp_path / 'here.png'}\tQ\tx\ty\tA\n"], header))
        if (tmp_path / "here.png").write_bytes(_png())
        else None
    )
    assert [i.id for i in dataset.items] == ["2"]
    assert dataset.problems == [
        f"{tmp_path / 'bench.tsv'} row 1 (index 1): its image file {tmp_path / 'gone.png'} "
        "does not exist; the row is left out"
    ]


def test_tsv_without_a_needed_column_is_one_clear_error(tmp_path):
    with pytest.raises(DataError, match="missing column\\(s\\) answer"):
        read_tsv(_tsv(tmp_path, [f"1\t{B64}\tQ\ta\tb\n"], "index\timage\tquestion\tA\tB\n"))


def _babyvision(tmp_path, rows):
    (tmp_path / "images").mkdir(exist_ok=True)
    (tmp_path / "images" / "1.png").write_bytes(_png())
    (tmp_path / "meta_data.jsonl").write_text("".join(r if isinstance(r, str) else json.dumps(r) + "\n" for r in rows))
    return tmp_path


BV_CHOICE = {
    "taskId": 1,
    "image": "images/1.png",
    "question": "Which one?",
    "ansType": "choice",
    "options": ["red", "blue", "green"],
    "choiceAns": 1,
    "blankAns": None,
    "type": "Visual Tracking",
    "subtype": "Maze",
}
BV_BLANK = {
    "taskId": 2,
    "image": "images/1.png",
    "question": "How many?",
    "ansType": "blank",
    "options": [],
    "choiceAns": "null",
    "blankAns": "4",
    "type": "Spatial Perception",
    "subtype": "Count 3D",
}


def test_babyvision_questions_are_the_references(tmp_path):
    dataset = read_dataset(_babyvision(tmp_path, [BV_CHOICE, BV_BLANK]))
    items = {i.id: i for i in dataset.items}
    assert items["1"].prompt_text == (
        "Which one?\nChoices:\n(A) red\n(B) blue\n(C) green\nThink about the question "
        "and give your final answer in \\boxed{Answer} format."
    )
    assert items["1"].answer == "B" and (items["1"].task, items["1"].category) == ("Maze", "Visual Tracking")
    assert (
        items["2"].prompt_text == "How many?\nThink about the question and give your final answer in "
        "\\boxed{Answer} format."
    )
    assert items["2"].answer == "4"


def test_babyvision_bad_lines_each_get_one_line(tmp_path):
    meta = tmp_path / "meta_data.jsonl"
    rows = [
        BV_CHOICE,
        "{not json\n",
        {**BV_CHOICE, "taskId": 3, "options": []},
        {**BV_BLANK, "taskId": 4, "blankAns": None},
        {**BV_CHOICE, "taskId": 5, "image": "images/none.png"},
        {**BV_CHOICE, "taskId": 6, "choiceAns": None},
    ]
    dataset = read_dataset(_babyvision(tmp_path, rows))
    assert [i.id for i in dataset.items] == ["1"]
    assert [p.split(": ", 1)[0] for p in dataset.problems] == [f"{meta}:{n}" for n in range(2, 7)]
    for problem, what in zip(
        dataset.problems,
        ["malformed JSON", "without options", "without blankAns", "does not exist", "not an option's index"],
    ):
        assert what in problem


def test_detection_by_the_registry(tmp_path):
    benchmark, dataset = load_benchmark(_tsv(tmp_path, ROWS))
    assert benchmark.name == "vlmeval" and len(dataset.items) == 5
    benchmark, dataset = load_benchmark(
        _babyvision(tmp_path / "bv", [BV_CHOICE]) if (tmp_path / "bv").mkdir() is None else None
    )
    assert benchmark.name == "babyvision" and len(dataset.items) == 1


class ScriptedJudge:
    """A stand-in judge answering from a list, counting its calls."""

    model = "stand-in"

    def __init__(self, *replies):
        self.replies = list(replies)
        self.asked = []

    def ask(self, prompt, max_tokens, attempt=0):
        self.asked.append((prompt, max_tokens, attempt))
        reply = self.replies.pop(0)
        return JudgeCall(
            model=self.model,
            prompt=prompt,
            reply=reply,
            usage={"input_tokens": 1, "output_tokens": 1},
            error=None if reply is not None else "down",
        )


def test_mcq_grade_asks_the_judge_only_when_the_rules_cannot_and_retries_three_times(tmp_path):
    from agent_eval.benchmarks.vlmeval.benchmark import VlmEvalMcq

    benchmark = VlmEvalMcq()
    item = {i.id: i for i in read_tsv(_tsv(tmp_path, ROWS)).items}["3"]  # left, right, top, bottom; D
    judge = ScriptedJudge("maybe", "still unsure", "D")
    benchmark.set_judge(judge)
    assert benchmark.grade("The answer is D", item).correct and judge.asked == []
    graded = benchmark.grade("I think it is at the lower edge", item)
    assert graded.correct and graded.metrics.decided_by == "judge"
    assert [a[2] for a in judge.asked] == [0, 1, 2] and len(graded.metrics.judge_calls) == 3
    assert judge.asked[0][0].endswith(
        "Question: Which side is the cup on??\nOptions: There are several options: \n"
        "A. left\nB. right\nC. top\nD. bottom\n\nAnswer: I think it is at the lower "
        "edge\nYour output: "
    )
    benchmark.set_judge(ScriptedJudge(None, None, None))
    graded = benchmark.grade("I think it is at the lower edge", item)
    assert graded.ungraded and "judge failed" in graded.ungraded and not graded.correct
    benchmark.set_judge(None)
    graded = benchmark.grade("I think it is at the lower edge", item)
    assert graded.ungraded and not graded.correct


def test_mcq_scorer_hash_names_the_judge():
    from agent_eval.benchmarks.vlmeval.benchmark import VlmEvalMcq

    plain = VlmEvalMcq().scorer_hash()
    judged = VlmEvalMcq()
    judged.set_judge(ScriptedJudge())
    assert judged.scorer_hash() != plain


def test_babyvision_grade_always_asks_the_judge(tmp_path):
    from agent_eval.benchmarks.babyvision.benchmark import BabyVision

    item = read_dataset(_babyvision(tmp_path, [BV_CHOICE])).items[0]
    benchmark = BabyVision()
    judge = ScriptedJudge("True", "False")
    benchmark.set_judge(judge)
    graded = benchmark.grade("so \\boxed{B}", item)
    assert graded.correct and graded.prediction == "B"
    assert judge.asked[0][1] == 16 and "Ground Truth Answer: B,\nModel Output: B\n" in judge.asked[0][0]
    graded = benchmark.grade("no box at all", item)
    assert not graded.correct and graded.metrics.extracted is None and "Model Output: None\n" in judge.asked[1][0]


# The judges' prompts as VLMEvalKit builds them (multiple_choice.build_prompt with build_option_str;
# babyvision.LLM_JUDGE_PROMPT), written out from its code.
MCQ_JUDGE = (
    "You are an AI assistant who will help me to match an answer with several options of a single-choice "
    "question. You are provided with a question, several options, and an answer, and you need to find which "
    "option is most similar to the answer. If the meaning of all options are significantly different from the "
    "answer, output Z. Your should output a single uppercase character in A, B, C, D (if they are valid "
    "options), and Z. \nExample 1: \nQuestion: What is the main object in image?\nOptions: A. teddy bear B. "
    "rabbit C. cat D. dog\nAnswer: a cute teddy bear\nYour output: A\nExample 2: \nQuestion: What is the main "
    "object in image?\nOptions: A. teddy bear B. rabbit C. cat D. dog\nAnswer: Spider\nYour output: Z\n"
    "Example 3: \nQuestion: What colour is the car??\nOptions: There are several options: \nA. red\nB. blue\n\n"
    "Answer: a {warm} one\nYour output: "
)
BABYVISION_JUDGE = """You are a careful and strict evaluator. You will be given:

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

Question: How many?
Think about the question and give your final answer in \\boxed{Answer} format.,
Ground Truth Answer: 4,
Model Output: None
"""


def test_judge_prompts_are_the_references_byte_for_byte(tmp_path):
    from agent_eval.benchmarks.babyvision.prompting import judge_prompt as boxed_judge
    from agent_eval.benchmarks.vlmeval.prompting import judge_prompt

    assert judge_prompt("What colour is the car?", {"A": "red", "B": "blue"}, "a {warm} one") == MCQ_JUDGE
    chinese = judge_prompt("车是什么颜色", {"A": "红", "B": "蓝"}, "红色")
    assert chinese.startswith("你是一个帮助我匹配答案与单选题中多个选项的 AI 助手。")
    assert chinese.endswith(
        "问题: 车是什么颜色?\n选项: There are several options: \nA. 红\nB. 蓝\n\n答案: 红色\n输出: "
    )
    item = {i.id: i for i in read_dataset(_babyvision(tmp_path, [BV_BLANK])).items}["2"]
    assert boxed_judge(item.prompt_text, item.answer, None) == BABYVISION_JUDGE
