"""The gateway's spend caps on their own: which cap refuses, with an answer each CLI ends on."""

import json

import pytest

from agent_eval.engine.gateway.ledger import REFUSED, RequestEntry
from agent_eval.engine.gateway.spend import ItemSpend, RunSpend, SpendLimits, refusal_response, wire_of

USAGE = {"input_tokens": 100000, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10000}  # $0.80


def answered(seq: int) -> RequestEntry:
    entry = RequestEntry(seq, 0.0, "POST", "/v1/responses", 10, status=200, answer_model="gpt-5.5")
    entry.api_usage, entry.usage = USAGE, {"input_tokens": 100000, "output_tokens": 10000}
    return entry


def test_each_cap_refuses_once_reached_and_names_itself():
    item = ItemSpend()
    spend = RunSpend(SpendLimits(item_usd=1.0, item_tokens=None, run_usd=None), model="gpt-5.5")
    spend.charge(item, answered(1), "responses")
    assert item.usd == 0.8 and spend.reason_to_refuse(item) is None  # below the cap: goes on
    spend.charge(item, answered(1), "responses")  # the same answer again: priced once
    assert item.usd == 0.8
    spend.charge(item, answered(2), "responses")
    assert "--max-item-cost-usd 1" in spend.reason_to_refuse(item)
    assert "--max-item-tokens 200000" in RunSpend(SpendLimits(item_tokens=200000)).reason_to_refuse(item)
    run = RunSpend(SpendLimits(run_usd=2.0), already_usd=1.5)
    assert run.reason_to_refuse(ItemSpend()) is None
    run.charge(ItemSpend(), answered(1), "responses")
    assert run.run_cap_reached and "--max-cost-usd 2" in run.reason_to_refuse(ItemSpend())  # earlier sessions count


def test_a_refusal_is_recorded_and_shaped_for_each_cli():
    item, entry = ItemSpend(usd=5.0), answered(3)
    response = RunSpend(SpendLimits(item_usd=1.0)).refusal(item, entry, "anthropic")
    # Claude Code ends at once on a 402 marked not to retry; Codex on a 400 (docs/cli-notes.md).
    assert response.status == 402 and response.headers["x-should-retry"] == "false"
    assert json.loads(response.text)["error"]["message"].startswith("agent-eval: the item's cost cap")
    assert entry.error["type"] == REFUSED and item.refusals == 1 and item.refused
    assert (
        refusal_response("responses", "x").status == 400
        and "x-should-retry" not in refusal_response("responses", "x").headers
    )


def test_the_projection_is_the_mean_item_cost_for_each_item_left():
    spend = RunSpend(already_usd=1.0)
    assert spend.projected_usd(10) is None  # nothing finished yet: no rate to project from
    for usd in (0.2, 0.4):
        item = ItemSpend()
        entry = answered(1)
        spend.charge(item, entry, "responses")
        item.usd = usd  # as if these answers had cost this much
        spend.item_ended(item)
    assert spend.projected_usd(10) == pytest.approx(spend.total_usd + 0.3 * 10)


def test_only_model_requests_are_priced_or_refused():
    assert wire_of("POST", "/v1/messages") == "anthropic" and wire_of("POST", "/v1/responses") == "responses"
    assert wire_of("POST", "/v1/messages/count_tokens") is None and wire_of("GET", "/v1/models") is None


def test_price_data_names_the_users_price_file_when_it_priced_an_answer(tmp_path, monkeypatch):
    """`gateway.cost.price_data` says what priced the item: genai-prices' map, `$AGENT_EVAL_PRICING` (the file, its
    hash) when the user's file did, both when both did; and an item resumed after a crash keeps what its earlier
    session's answers were priced by (from gateway.jsonl)."""
    from agent_eval.datamodel import pricing
    from agent_eval.engine.gateway.ledger import line_of

    monkeypatch.delenv(pricing.OVERRIDES_ENV, raising=False)
    by_map = ItemSpend()
    RunSpend(model="gpt-5.5").charge(by_map, answered(1), "responses")
    assert by_map.to_json()["price_data"] == pricing.data_version() and by_map.usd == 0.8
    prices = tmp_path / "prices.yaml"
    prices.write_text("models:\n  my-model: {input: 1, output: 2}\n")
    monkeypatch.setenv(pricing.OVERRIDES_ENV, str(prices))
    mine = answered(2)
    mine.answer_model = "my-model"
    both, spend = ItemSpend(), RunSpend()
    spend.charge(both, mine, "responses")
    label = both.to_json()["price_data"]
    assert label.startswith(f"$AGENT_EVAL_PRICING {prices.resolve()} (sha256 ") and "genai-prices" not in label
    spend.charge(both, answered(3), "responses")  # gpt-5.5: the map's price, beside the user's
    assert both.to_json()["price_data"] == f"{pricing.data_version()} + {label}"
    assert both.to_json()["price_sources"] == sorted([pricing.data_version(), label])
    carried = ItemSpend()
    carried.carry(line_of(mine))
    assert carried.to_json()["price_data"] == label and carried.usd == pytest.approx(0.12)
