"""How BabyVision runs read: items grouped by subtype (their task; the type is their category), and each
item's \\boxed{} answer with the judge's verdict and calls."""

from __future__ import annotations

from agent_eval.benchmarks.judgedshow import JudgedHooks


class BabyVisionHooks(JudgedHooks):
    group_column = "subtype"
    read_label = "\\boxed{} answer"
    read_key = "extracted"
