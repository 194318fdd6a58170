"""AI GameStore's scores against figures worked out by hand: the normalisation min(10000, max(1, 100 raw/median)),
the mean raw over repeats before normalising (VISTA's aggregate), the geometric mean over games with the
arithmetic mean beside it, and the published medians as shipped."""

import json
import math
from pathlib import Path

import pytest

from agent_eval.benchmarks.aigamestore.loader import PUBLISHED_MEDIANS
from agent_eval.benchmarks.aigamestore.measures import geometric_mean, normalized, per_game, summary


@pytest.mark.parametrize(
    "raw, median, expected",
    [
        (465, 465, 100.0),  # the human median itself
        (930, 465, 200.0),
        (2100, 2100, 100.0),
        (21, 2100, 1.0),  # 100 * 21 / 2100 = 1
        (0, 300, 1.0),  # floored at 1
        (5, 300, 1.6666666666666667),
        (40_000, 300, 10_000.0),  # capped at 10000
        (30_000, 300, 10_000.0),  # exactly the cap
    ],
)
def test_normalisation(raw, median, expected):
    assert normalized(raw, median) == pytest.approx(expected)


def test_a_median_must_be_positive():
    with pytest.raises(ValueError):
        normalized(10, 0)


def test_geometric_mean_by_hand():
    # 100, 400, 1: logs 4.6052, 5.9915, 0 -> mean 3.5322 -> e^3.5322 = 34.2; arithmetic 167
    assert geometric_mean([100.0, 400.0, 1.0]) == pytest.approx(34.19951893353394)
    assert geometric_mean([50.0, 200.0]) == pytest.approx(100.0)
    assert geometric_mean([]) is None


def test_a_run_of_three_games_with_repeats():
    rows = [
        ("game1", 930.0, 465.0),  # repeats 930 and 0: mean 465 -> 100
        ("game1", 0.0, 465.0),
        ("game2", 14310.0, 7155.0),  # 200
        ("game3", None, 2100.0),  # no score read: counts as an attempt, no normalised score
        ("extra", 10.0, None),  # no median: raw only
    ]
    games = per_game(rows)
    assert games["game1"] == {"raw": 465.0, "median": 465.0, "normalized": 100.0, "attempts": 2}
    assert games["game2"]["normalized"] == 200.0
    assert games["game3"]["normalized"] is None and games["extra"]["normalized"] is None
    result = summary(games)
    assert result["scored_games"] == 2 and result["games"] == 4
    assert result["geometric_mean"] == pytest.approx(math.sqrt(100 * 200))  # 141.42
    assert result["arithmetic_mean"] == pytest.approx(150.0)
    assert result["unscored"] == ["extra", "game3"]


def test_the_published_medians_as_shipped_with_their_source_and_date():
    data = json.loads(Path(PUBLISHED_MEDIANS).read_text())
    assert "aigamestore.org" in data["source"] and data["recorded_on"] == "2026-09-10"
    medians = [data["games"][f"game{n}"]["human_median"] for n in range(1, 11)]
    assert medians == [465, 7155, 2100, 1342, 7925, 300, 5950, 6695, 4400, 1160]
