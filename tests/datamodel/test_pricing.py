"""Prices per request from genai-prices' bundled map, under the user's override file; never a made-up 0."""

import socket

import pytest

from agent_eval.datamodel import pricing
from agent_eval.datamodel.pricing import PricingError, has_price, price_request, provenance

OPUS = {
    "input_tokens": 1000,
    "cache_creation_input_tokens": 2000,
    "cache_read_input_tokens": 10000,
    "output_tokens": 500,
}
GPT = {"input_tokens": 10000, "input_tokens_details": {"cached_tokens": 8000}, "output_tokens": 500}


@pytest.fixture(autouse=True)
def no_overrides(monkeypatch):
    monkeypatch.delenv(pricing.OVERRIDES_ENV, raising=False)


def test_both_wires_read_as_their_apis_word_the_usage():
    # Anthropic's input excludes the cache (writes $6.25, reads $0.50 per MTok for Opus 4.8); OpenAI's
    # includes the cached tokens ($0.50), so only 2000 are fresh at $5.
    assert price_request("anthropic", "claude-opus-4-8", OPUS).usd == pytest.approx((5000 + 12500 + 5000 + 12500) / 1e6)
    assert price_request("responses", "gpt-5.5", GPT).usd == pytest.approx((10000 + 4000 + 15000) / 1e6)


def test_the_long_context_tier_is_decided_per_request():
    long = {"input_tokens": 300000, "output_tokens": 100}
    assert price_request("responses", "gpt-5.5", long).usd == pytest.approx((300000 * 10 + 100 * 45) / 1e6)


def test_an_unknown_model_or_no_usage_is_unpriced_with_the_reason():
    unknown = price_request("responses", "gpt-unknown-7", GPT)
    assert unknown.usd is None and "no price for 'gpt-unknown-7'" in unknown.note and "genai-prices" in unknown.note
    assert price_request("anthropic", "claude-opus-4-8", None).usd is None
    assert not has_price("gpt-unknown-7", "responses") and has_price("gpt-5.5", "responses")


def test_the_override_file_comes_first_and_is_recorded(tmp_path, monkeypatch):
    path = tmp_path / "prices.yaml"
    path.write_text(
        "models:\n  gpt-5.5: {input: 1, cached_input: 0.1, output: 2}\n  my-gateway-model: {input: 1, output: 1}\n"
    )
    monkeypatch.setenv(pricing.OVERRIDES_ENV, str(path))
    price = price_request("responses", "gpt-5.5", GPT)
    assert price.usd == pytest.approx((2000 * 1 + 8000 * 0.1 + 500 * 2) / 1e6)
    assert price.source.startswith(f"$AGENT_EVAL_PRICING {path.resolve()} (sha256 ")
    assert price_request("responses", "gpt-5.4", GPT).source == pricing.data_version()  # the map's, as before
    assert has_price("my-gateway-model", "anthropic")
    assert provenance()["overrides"]["path"] == str(path.resolve()) and len(provenance()["overrides"]["sha256"]) == 64


@pytest.mark.parametrize(
    "text,says",
    [
        ("models: [1, 2]", "expected a `models:` mapping"),
        ("models:\n  m: {input: 1}\n", "needs at least input and output"),
        ("models:\n  m: {input: 1, output: 2, outptu: 3}\n", "unknown price key(s) ['outptu']"),
        ("models:\n  m: {input: one, output: 2}\n", "prices must be numbers"),
        ("models: {m: [", "cannot read the pricing overrides"),
    ],
)
def test_a_bad_override_file_is_one_line_naming_it(tmp_path, monkeypatch, text, says):
    path = tmp_path / f"bad{abs(hash(text))}.yaml"
    path.write_text(text)
    monkeypatch.setenv(pricing.OVERRIDES_ENV, str(path))
    with pytest.raises(PricingError) as error:
        provenance()
    assert str(path) in str(error.value) and says in str(error.value)


def test_pricing_never_goes_to_the_network(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("a connection was attempted")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    assert price_request("anthropic", "claude-opus-4-8", OPUS).usd > 0
