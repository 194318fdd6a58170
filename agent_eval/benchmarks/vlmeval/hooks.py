"""How VLMEvalKit TSV runs read: items grouped by the TSV's `category` (their task; `l2-category` is
their category), and each item's option as read by the rules or the judge, with the judge's calls."""

from __future__ import annotations

from agent_eval.benchmarks.presentation import JudgedHooks


class VlmEvalHooks(JudgedHooks):
    group_column = "category"
    read_label = "option read"
    read_key = "option"
