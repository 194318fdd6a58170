"""Text a CLI prints in place of the model's answer when the API call failed.

Claude Code ends an API failure with a final message such as "API Error: 500 {...}" or
"Invalid API key · Please run /login", sometimes in a result marked success. Such text is the
CLI's, never the model's answer: the parsers move it to the transcript's error.
"""

from __future__ import annotations

import re

PLACEHOLDER = re.compile(
    r"^\s*(API Error\b|Not logged in\b|Invalid API key\b|Credit balance is too low\b|"
    r"Your organization does not have access\b|Claude AI usage limit reached\b|Prompt is too long\b|"
    r"OAuth token has expired\b|Request timed out\b)",
    re.IGNORECASE,
)
STATUS_IN_PLACEHOLDER = re.compile(r"API Error:?\s*(\d{3})\b")


def is_placeholder(text: str | None) -> bool:
    return bool(text and PLACEHOLDER.match(text))


def placeholder_status(text: str) -> int | None:
    match = STATUS_IN_PLACEHOLDER.search(text or "")
    return int(match.group(1)) if match else None
