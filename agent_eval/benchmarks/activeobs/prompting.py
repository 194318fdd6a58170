"""Item-specific text for the prompt: the question, its choices, and the exact answer format. The prompt templates
(prompts/, owned by the runner) wrap this; it never states the answer."""

from __future__ import annotations

from agent_eval.benchmarks.activeobs.schema import ActiveItem

ANSWER_EXAMPLES = {"choice": "2", "frame": "137", "span": "[120, 185]", "frame_angle": "[137, 212.5]", "numeric": "4.5"}
ANSWER_RULES = {
    "choice": "the 1-based number of the right choice",
    "frame": "a frame index (correct within 1 second)",
    "span": "[first_frame, last_frame], inclusive (correct when it overlaps the true period by IoU >= 0.5)",
    "frame_angle": "[frame_index, angle_deg] (correct within 1 second and 20 degrees)",
    "numeric": "a number of seconds (correct within a factor of 2)",
}
EVIDENCE_RULE = (
    '"evidence" points at the person the answer is about: "frame" and "angle" name a view '
    "(the {size}x{size} view of that frame centred on that angle, as the observe tool returns it), "
    'and "bbox" is [x1, y1, x2, y2], the box around the person in that view, with coordinates '
    "normalised to 0-1000 (0,0 top left; 1000,1000 bottom right). It counts when that frame shows "
    "the fact you answer (for a question about a given moment: that moment, within half a second, while "
    "the person still does the same thing; for when something starts: its start or the second after; "
    "for a period: a frame inside it) and the box overlaps the person there by IoU >= 0.5."
)
PASSIVE_EVIDENCE = (
    " You have no observe tool: a panorama column x (of a strip W pixels wide) is angle x / W * 360; "
    "the view centred on angle A covers the {size} panorama pixels (at full {width}-pixel width) "
    "centred on that angle."
)


def question_block(item: ActiveItem) -> str:
    lines = [item.question]
    if item.choices:
        lines += ["Choices:"] + [f"{number}. {choice}" for number, choice in enumerate(item.choices, start=1)]
    return "\n".join(lines)


def answer_instructions(item: ActiveItem, passive: bool = False) -> str:
    size = item.height
    example = (
        f'<answer>{{"answer": {ANSWER_EXAMPLES[item.answer_mode]}, '
        f'"evidence": {{"frame": 137, "angle": 212.5, "bbox": [410, 300, 560, 870]}}}}</answer>'
    )
    text = (
        f"End with one JSON object inside <answer></answer> tags, for example:\n{example}\n"
        f'"answer" is {ANSWER_RULES[item.answer_mode]}. ' + EVIDENCE_RULE.format(size=size)
    )
    if passive:
        text += PASSIVE_EVIDENCE.format(size=size, width=item.width)
    return text


WORLD_MODEL = (
    "You also have a world model: a graph kept for you outside this conversation, through the tools "
    "get_graph, add_entity, add_attribute and add_relation. Write into it the persons and objects you see (each "
    "with its box in the {source} it was seen in), their attributes and the relations between them; each fact "
    "cites that {source}, and only {cited} can be cited. get_graph returns everything you wrote."
)


def world_model_text(passive: bool) -> str:
    """What the world-model tools are for (never how to answer)."""
    if passive:
        return WORLD_MODEL.format(source="attached image", cited="the attached images (by number)")
    return WORLD_MODEL.format(source="observation", cited="observations you made (by the number observe returns)")
