"""BabyVision in VISTA's setting: VISTA's grade (scoring.py's normalized exact match), both grades on every record
with --grade choosing `correct`, VISTA's looks over the question's image (core/support.py: inspect and read_pixels
by event, its checks and answers), the options' checks, and the settings compare treats as rungs."""

import base64
import io
import json

import pytest
from PIL import Image

from agent_eval.benchmarks.babyvision.benchmark import BabyVision
from agent_eval.benchmarks.babyvision.grading import grade_reply
from agent_eval.benchmarks.babyvision.hooks import BabyVisionHooks
from agent_eval.benchmarks.babyvision.vista_match import choice_label, exact_match, normalize
from agent_eval.benchmarks.games.vista.looks import StillLooks, Supplied, quantized
from agent_eval.datamodel.judge_contract import JudgeCall


@pytest.mark.parametrize(
    "given,letter",
    [("B", "B"), ("(B)", "B"), ("B.", "B"), ("[b]", "B"), ("\\text{B}", "B"), ("option b", "B"),
     ("(C)\\ \\text{red}", "C"), ("(D) yellow", "D"), ("yellow", None), ("AB", None), ("", None)],
)  # fmt: skip
def test_a_choice_answer_names_its_letter_as_vista_reads_it(given, letter):
    assert choice_label(given) == letter


@pytest.mark.parametrize(
    "a,b",
    [("\\text{A}", "a"), ("better late than never", "Better,late,than,never"), ("(4,2,6,5)", "4,2,6,5"),
     ("1\\to\\text{X}", "1-x"), ("1 -> X", "1-x"), ("1 → X", "1-x"), ("1 – X", "1-x"), ("\\#3", "#3"),
     ("６", "6"), ("'7'", "7"), ("a;\\ b", "a,b"), ("\\textbf{\\text{Up}}", "up")],
)  # fmt: skip
def test_normalizing_keeps_what_makes_answers_different_and_drops_the_rest(a, b):
    assert normalize(a) == normalize(b)


def test_normalizing_does_not_merge_different_answers():
    assert normalize("10,7,7") != normalize("10,4,10")
    assert normalize("(4,7)") == "4,7" and normalize("(1)(2)") == "(1)(2)"  # brackets kept when not one pair
    assert not exact_match(None, "6", "blank") and not exact_match("", "", "blank")  # no answer is no match
    assert exact_match("(D) yellow", "D", "choice") and not exact_match("yellow", "D", "choice")


class Judge:
    model = "m"

    def __init__(self, reply: str | None):
        self.reply, self.asked = reply, []

    def ask(self, prompt, max_tokens):
        self.asked.append(prompt)
        return JudgeCall(prompt=prompt, model=self.model, reply=self.reply, error=None if self.reply else "down")


def test_both_grades_are_made_and_the_grade_option_picks_correct():
    judge = Judge("False")
    by_vista = grade_reply("so \\boxed{6 }", "How many?", "6", "blank", judge, "vista")
    assert (by_vista.correct, by_vista.exact_match, by_vista.judge_verdict, by_vista.ungraded) == (
        True,
        True,
        False,
        None,
    )
    by_judge = grade_reply("so \\boxed{6 }", "How many?", "6", "blank", judge, "judge")
    assert (by_judge.correct, by_judge.exact_match, by_judge.judge_verdict) == (False, True, False)
    assert len(judge.asked) == 2 and "Model Output: 6 \n" in judge.asked[0]  # the judge sees the extracted answer
    alone = grade_reply("\\boxed{5}", "How many?", "6", "blank", None, "vista")  # no judge: VISTA's grade stands
    assert (alone.correct, alone.judge_verdict, alone.ungraded) == (False, None, None)
    undecided = grade_reply("\\boxed{6}", "How many?", "6", "blank", None, "judge")
    assert undecided.ungraded and undecided.exact_match  # judged by nobody: ungraded, VISTA's grade kept beside
    failed = grade_reply("\\boxed{6}", "How many?", "6", "blank", Judge(None), "judge")
    assert "the judge failed" in failed.ungraded and failed.judge_verdict is None


def test_the_options_are_checked_and_vistas_tools_need_vistas_first_message():
    kind = BabyVision()
    kind.configure({"task_prompt": "vista", "image_tools": "vista", "grade": "vista"})
    assert kind.template_name("image") == "vista" and kind.grade_by == "vista"
    with pytest.raises(ValueError, match="give --task-prompt vista too"):
        kind.configure({"image_tools": "vista"})
    kind.configure({})
    assert (kind.task_prompt, kind.image_tools, kind.grade_by, kind.template_name("none")) == (
        "ours",
        "ours",
        "judge",
        "none",
    )


def _png(width: int, height: int) -> bytes:
    image = Image.new("RGB", (width, height), (250, 250, 250))
    for x in range(width // 2):
        for y in range(height // 2):
            image.putpixel((x, y), (201, 30, 33))  # the top-left quarter red-ish
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def looks():
    return StillLooks([Supplied.of_file(_png(200, 100), "question_image")])


def _texts(result) -> list[str]:
    return [c.text for c in result.content if c.type == "text"]


def test_the_tools_are_vistas_two_addressed_by_event(looks):
    definitions = looks.definitions()
    assert list(definitions) == ["inspect", "read_pixels"]
    inspect_schema = definitions["inspect"][1]["properties"]["views"]["items"]
    assert inspect_schema["required"] == ["label", "event"] and "turn" not in inspect_schema["properties"]
    pixels = definitions["read_pixels"][1]["properties"]["views"]["items"]
    assert pixels["required"] == ["label", "event", "region", "rows", "columns"]
    assert pixels["properties"]["rows"]["maximum"] == 200 and "fit within 200x200" in definitions["inspect"][0]
    assert (
        looks.visuals[0].label()
        == '<visual kind="current" event="0" moment="0" view="question_image" size="200x100"></visual>'
    )


def test_inspect_enlarges_each_view_to_fit_without_smoothing_and_labels_it(looks):
    views = [
        {"label": "all", "event": 0},
        {"label": "corner", "event": 0, "region": {"x": 0, "y": 0, "width": 20, "height": 10}},
    ]
    result = looks.inspect({"question": "What is red?", "views": views})
    assert not result.is_error
    metadata, *labels = _texts(result)
    shown = json.loads(metadata)
    assert shown["visual_kind"] == "inspection" and shown["view_count"] == 2
    assert [v["image_size"] for v in shown["views"]] == [{"width": 200, "height": 100}, {"width": 200, "height": 100}]
    assert shown["views"][1] | {} == {"index": 2, "region": {"x": 0, "y": 0, "width": 20, "height": 10},
                                      "image_size": {"width": 200, "height": 100}, "event": 0, "moment": 0,
                                      "view": "question_image", "label": "corner"}  # fmt: skip
    assert labels[1] == (
        '<visual kind="derived" event="0" moment="0" view="question_image" label="corner" '
        'region="{&quot;height&quot;:10,&quot;width&quot;:20,&quot;x&quot;:0,&quot;y&quot;:0}" resampling="nearest" '
        'size="200x100"></visual>'
    )
    corner = Image.open(io.BytesIO(base64.b64decode(result.content[4].data)))
    colours = {corner.getpixel((x, y)) for x in range(0, 200, 3) for y in range(0, 100, 3)}
    assert colours == {(201, 30, 33)}  # nearest neighbour: no blended colour


def test_read_pixels_rounds_colours_to_4_bits_with_a_palette_of_the_calls_own(looks):
    view = {
        "label": "band",
        "event": 0,
        "region": {"x": 0, "y": 0, "width": 200, "height": 100},
        "rows": 2,
        "columns": 2,
    }
    result = looks.read_pixels({"question": "Which colours?", "views": [view]})
    shown = json.loads(_texts(result)[0])
    red, white = quantized((201, 30, 33)), quantized((250, 250, 250))
    assert red == (204, 34, 34) and white == (255, 255, 255)
    assert shown["palette"] == {"0": "#CC2222", "1": "#FFFFFF"} and shown["views"][0]["samples"] == ["01", "11"]
    assert shown["color_bits"] == 4 and shown["palette_scope"] == "call" and shown["views"][0]["label"] == "band"
    only_white = dict(view, region={"x": 150, "y": 60, "width": 50, "height": 40})
    again = json.loads(_texts(looks.read_pixels({"question": "And here?", "views": [only_white]}))[0])
    assert again["palette"] == {"0": "#FFFFFF"}  # a new call, a new palette


@pytest.mark.parametrize(
    "arguments,said",
    [({"question": "q", "views": [{"label": "x", "turn": 0}]}, "Invalid tool arguments."),
     ({"question": "q", "views": [{"label": "x", "event": 3}]}, "Unknown event."),
     ({"question": "q", "views": [{"label": "x", "event": 0, "moment": 1}]}, "The event has no such observation."),
     ({"question": "q", "views": [{"label": "x", "event": 0, "view": "other"}]}, "The observation has no such view."),
     ({"question": "q", "views": [{"label": "x", "event": 0, "region": {"x": 150, "y": 0, "width": 60, "height": 5}}]},
      '{"error":"View 1: invalid region."}'),
     ({"question": " ", "views": [{"label": "x", "event": 0}]}, '{"error":"Invalid arguments."}')],
)  # fmt: skip
def test_a_refused_look_says_why_in_vistas_words(looks, arguments, said):
    result = looks.inspect(arguments)
    assert result.is_error and _texts(result) == [said]


def test_compare_treats_each_of_vistas_settings_as_a_rung():
    hooks = BabyVisionHooks()
    ours = hooks.rungs("python", {})
    vista = hooks.rungs("image", {"task_prompt": "vista", "image_tools": "vista", "grade": "vista"})
    assert ours == {"tool mode": "python", "image tools": "ours", "first message": "ours", "grade": "judge"}
    assert {k for k in ours if ours[k] != vista[k]} == set(ours)
    assert hooks.rungs("none", {"image_tools": "vista"})["image tools"] is None  # no tools: nothing to differ in
