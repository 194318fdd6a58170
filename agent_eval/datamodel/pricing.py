"""Token prices for CLIs that report no cost: a YAML table the user can extend."""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

import yaml

from agent_eval.datamodel.records import Usage

BUILTIN = Path(__file__).with_name("pricing.yaml")


class PricingError(Exception):
    """A pricing file that cannot be read: one line for the user, exit 2."""


@lru_cache(maxsize=None)
def _table(extra: str | None) -> dict[str, dict[str, float]]:
    table: dict[str, dict[str, float]] = {}
    for path in [BUILTIN] + ([Path(extra)] if extra else []):
        try:
            data = yaml.safe_load(path.read_text()) or {}
        except (OSError, yaml.YAMLError) as error:
            raise PricingError(f"{path}: cannot read the pricing table ({error})") from None
        for model, prices in (data.get("models") or {}).items():
            if not isinstance(prices, dict) or not {"input", "output"} <= set(prices):
                raise PricingError(f"{path}: model {model!r} needs at least input and output prices per million tokens")
            table[str(model)] = {k: float(v) for k, v in prices.items()}
    return table


def prices(model: str) -> dict[str, float] | None:
    return _table(os.environ.get("AGENT_EVAL_PRICING")).get(model)


def pricing_files() -> str:
    extra = os.environ.get("AGENT_EVAL_PRICING")
    return f"{BUILTIN}" + (f" and {extra}" if extra else " (add models via $AGENT_EVAL_PRICING)")


def price_usd(model: str, usage: Usage) -> float | None:
    """None when the model has no price or the CLI reported no usage: never a made-up 0."""
    table = prices(model)
    if table is None or usage.input_tokens is None or usage.output_tokens is None:
        return None
    cached = usage.cached_input_tokens or 0
    cost = (
        (usage.input_tokens - cached) * table["input"]
        + cached * table.get("cached_input", table["input"])
        + usage.output_tokens * table["output"]
    )
    return round(cost / 1e6, 6)
