"""Reading a provider's error answer for the fix it implies: which model names it offers instead,
which effort values it accepts. Texts as the APIs word them (seen in public reports):

  OpenAI 400: "Unsupported value: 'reasoning.effort' does not support 'xhigh' with this model.
               Supported values are: 'low', 'medium', and 'high'."
  Anthropic 400: "output_config.effort 'max' is not supported when thinking is disabled on this model.
                  Use effort 'high' or below, or enable thinking." / "This model does not support the effort parameter."
  OpenAI 404: "The model `gpt-5.9` does not exist or you do not have access to it."
  Anthropic 404: "model: claude-opus-4-9"
"""

from __future__ import annotations

import difflib
import re

_QUOTED = re.compile(r"'([^']+)'|\"([^\"]+)\"|`([^`]+)`")
_ACCEPTS = re.compile(
    r"(supported values are|valid (?:levels|values)(?: are)?|input should be|one of)\s*:?\s*(.+)", re.IGNORECASE
)
_USE_INSTEAD = re.compile(r"use effort '([^']+)' or below", re.IGNORECASE)
_SUGGESTS = re.compile(r"did you mean\s*[`'\"]?([\w.\-:/]+)", re.IGNORECASE)


def is_effort_error(message: str) -> bool:
    return "effort" in message.lower() or "reasoning" in message.lower()


def accepted_efforts(message: str) -> list[str]:
    """The effort values the provider's message says it accepts ([] when it names none)."""
    found = _ACCEPTS.search(message)
    if found:
        return [next(g for g in m.groups() if g) for m in _QUOTED.finditer(found.group(2))]
    found = _USE_INSTEAD.search(message)
    return [f"{found.group(1)} or below"] if found else []


def suggested_models(message: str, model: str, available: list[str]) -> list[str]:
    """The model the provider's message suggests, else the closest names among those it lists."""
    found = _SUGGESTS.search(message)
    if found:
        return [found.group(1).rstrip(".")]
    return difflib.get_close_matches(model, available, n=3, cutoff=0.5)
