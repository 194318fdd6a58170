"""VLMEvalKit's prompt texts: the question as an image MCQ shows it (ImageMCQDataset.build_prompt) and the
judge's prompt when the rules cannot read an option (multiple_choice.build_prompt / build_prompt_cn, with
build_option_str). The texts are the reference's, byte for byte (the English one's "Your should" included)."""

from __future__ import annotations

import re

SELECT_LINE = "Please select the correct answer from the options above. \n"

JUDGE_TEMPLATE_EN = (
    "You are an AI assistant who will help me to match "
    "an answer with several options of a single-choice question. "
    "You are provided with a question, several options, and an answer, "
    "and you need to find which option is most similar to the answer. "
    "If the meaning of all options are significantly different from the answer, output Z. "
    "Your should output a single uppercase character in A, B, C, D (if they are valid options), and Z. \n"
    "Example 1: \n"
    "Question: What is the main object in image?\nOptions: A. teddy bear B. rabbit C. cat D. dog\n"
    "Answer: a cute teddy bear\nYour output: A\n"
    "Example 2: \n"
    "Question: What is the main object in image?\nOptions: A. teddy bear B. rabbit C. cat D. dog\n"
    "Answer: Spider\nYour output: Z\n"
    "Example 3: \n"
    "Question: {question}?\nOptions: {options}\nAnswer: {prediction}\nYour output: "
)
JUDGE_TEMPLATE_CN = (
    "你是一个帮助我匹配答案与单选题中多个选项的 AI 助手。"
    "你会被提供：一个问题，多个选项，一个答案。你的任务是找到与答案意义最相近的选项。"
    "如果所有选项的意义都与答案显著不同，则输出 Z。"
    "你应该输出一个单个的大写字母，例如 A, B, C, D（如果它们是有效选项），或 Z。"
    "例 1:"
    "问题: 图中最主要的物体是什么?\n选项: A. 泰迪熊 B. 兔子 C. 猫 D. 狗\n答案: 一只可爱的泰迪熊\n输出: A\n"
    "例 2: \n"
    "问题: 图中最主要的物体是什么?\n选项: A. 泰迪熊 B. 兔子 C. 猫 D. 狗\n答案: 蜘蛛\n输出: Z\n"
    "例 3: \n"
    "问题: {question}?\n选项: {options}\n答案: {prediction}\n输出: "
)
_CJK = re.compile("[\u4e00-\u9fff]")


def mcq_prompt(question: str, options: dict[str, str], hint: str | None) -> str:
    """The text that follows the image(s): optional hint, the question, the non-empty options."""
    text = f"Hint: {hint}\n" if hint is not None else ""
    text += f"Question: {question}\n"
    if options:
        text += "Options:\n" + "".join(f"{letter}. {option}\n" for letter, option in options.items())
        text += SELECT_LINE
    return text


def judge_prompt(question: str, options: dict[str, str], prediction: str) -> str:
    """The prompt the reference sends its judge; the Chinese one when the question holds a CJK ideograph."""
    listed = "There are several options: \n" + "".join(f"{k}. {v}\n" for k, v in options.items())
    template = JUDGE_TEMPLATE_CN if _CJK.search(question) else JUDGE_TEMPLATE_EN
    return template.format(question=question, options=listed, prediction=prediction)
