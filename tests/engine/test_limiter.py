"""The run's rate limiter on its own (a fake clock, no network): what the provider's headers ask, how the
concurrency falls on a rate limit and climbs back as requests succeed, and the breaker on failures."""

import asyncio
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import pytest

from agent_eval.engine.gateway.limiter import CALM_S, TRIP_AFTER, RateLimiter, wait_asked


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_the_wait_the_provider_asks_from_each_header_it_may_send():
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    wall = now.timestamp()
    assert wait_asked({"Retry-After": "3"}) == 3.0
    assert wait_asked({"retry-after-ms": "250", "retry-after": "9"}) == 0.25  # the precise one wins
    assert wait_asked({"retry-after": format_datetime(now + timedelta(seconds=7))}, wall) == pytest.approx(7)
    reset = (now + timedelta(seconds=12)).isoformat().replace("+00:00", "Z")
    assert wait_asked(
        {"anthropic-ratelimit-requests-remaining": "0", "anthropic-ratelimit-requests-reset": reset}, wall
    ) == pytest.approx(12)
    assert (
        wait_asked({"anthropic-ratelimit-tokens-remaining": "5000", "anthropic-ratelimit-tokens-reset": reset}, wall)
        is None
    )  # budget left: no wait
    assert wait_asked({"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "6m0s"}) == 360
    assert wait_asked({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "20ms"}) == 0.02
    assert wait_asked({"content-type": "application/json"}) is None


def run(coroutine):
    return asyncio.run(coroutine)


def test_a_rate_limit_lowers_the_limit_to_what_the_provider_accepted_and_pauses_everyone():
    async def scenario():
        clock = Clock()
        limiter = RateLimiter(16, clock=clock)
        for _ in range(16):
            await limiter.acquire()
        # The provider accepts 4: the 12 others come back 429, one by one, asking for 2 s.
        for _ in range(12):
            limiter.release("limited", status=429, wait_s=2.0)
        assert limiter.limit == 4 and limiter.in_flight == 4
        waiter = asyncio.ensure_future(limiter.acquire())
        await asyncio.sleep(0)
        limiter.release("ok")  # a slot is free, but the provider asked for 2 s
        await asyncio.sleep(0)
        assert not waiter.done() and limiter.snapshot().queued == 1 and limiter.snapshot().paused_s == 2.0
        clock.now += 2.0
        limiter._grant()
        assert await asyncio.wait_for(waiter, 1) and limiter.in_flight == 4

    run(scenario())


def test_the_limit_climbs_back_one_step_at_a_time_once_calm():
    async def scenario():
        clock = Clock()
        limiter = RateLimiter(8, clock=clock)
        for _ in range(5):
            await limiter.acquire()
        limiter.release("limited", status=429, wait_s=0.0)  # 5 in flight, one too many
        assert limiter.limit == 4
        limiter.release("ok")
        await limiter.acquire()
        assert limiter.limit == 4  # not yet: a rate limit was just met
        clock.now += CALM_S
        limiter.release("ok")  # at the full limit, calm: one step up
        assert limiter.limit == 5
        await limiter.acquire()
        limiter.release("ok")
        assert limiter.limit == 5  # at most one step per second
        clock.now += 1.0
        await limiter.acquire()
        await limiter.acquire()
        limiter.release("ok")
        assert limiter.limit == 6

    run(scenario())


def test_failures_in_a_row_trip_the_breaker_which_says_so_and_a_success_closes_it():
    async def scenario():
        clock = Clock()
        limiter = RateLimiter(8, clock=clock, outage_hold_s=1800)
        for _ in range(TRIP_AFTER):
            await limiter.acquire()
        limiter.release("failed", status=500)
        limiter.release("failed", status=None)
        assert not limiter.notices and limiter.limit == 8
        limiter.release("failed", status=500)
        assert limiter.notices.popleft() == (
            "provider down: 3 failed requests in a row (HTTP 500 x2, stream cut x1), none answered; "
            "holding the requests (up to 30m each), one probing every 2-10s"
        )
        state = limiter.snapshot()
        assert state.breaker_open and state.paused_s == 2.0 and limiter.limit == 1 and limiter.down
        assert state.describe() == "provider down 0s: holding 0 request(s) (bound 30m)"
        clock.now += 2.0
        await limiter.acquire()  # one probe after the pause
        limiter.release("failed", status=503 - 1)  # 502: still failing, the pause doubles, said on the line only
        assert not limiter.notices and limiter.snapshot().paused_s == 4.0
        for pause in (8.0, 10.0, 10.0):  # doubling, at most BREAKER_MAX_S: a recovery is met within seconds
            clock.now += limiter.snapshot().paused_s
            await limiter.acquire()
            limiter.release("failed", status=500)
            assert limiter.snapshot().paused_s == pause
        limiter.holding = 3  # the gateway counts its held requests in and out
        assert limiter.snapshot().describe() == "provider down 24s: holding 3 request(s) (bound 30m)"
        clock.now += 10.0
        await limiter.acquire()
        limiter.release("ok")
        assert limiter.limit == 8 and not limiter.snapshot().breaker_open and not limiter.down
        assert limiter.notices.popleft() == "provider answering again after 34s down: held requests resumed"

    run(scenario())


def test_failures_counted_against_their_item_never_trip_the_breaker_nor_reset_it():
    """One item's poison request (the provider answers the others) must not pause the run."""

    async def scenario():
        clock = Clock()
        limiter = RateLimiter(8, clock=clock)
        for _ in range(2 * TRIP_AFTER):
            await limiter.acquire()
        for _ in range(TRIP_AFTER):
            limiter.release("failed", status=500, own=True)
        assert not limiter.breaker_open and not limiter.notices and limiter.snapshot().describe() == ""
        limiter.release("failed", status=500)
        limiter.release("failed", status=500, own=True)  # neutral: the provider's run of failures goes on
        limiter.release("failed", status=None)
        assert not limiter.breaker_open
        limiter.release("failed", status=500)
        assert limiter.breaker_open

    run(scenario())


def test_the_provider_answered_since_a_time_is_told_by_when_the_answered_request_was_sent():
    """An answer to a request sent before an item's failures began is no sign that the provider answers now."""

    async def scenario():
        clock = Clock()
        limiter = RateLimiter(4, clock=clock)
        assert not limiter.answered_since(0.0)
        await limiter.acquire()
        clock.now = 10.0
        limiter.release("ok", sent_at=5.0)  # a long answer, sent at 5, whole at 10
        assert limiter.answered_since(5.0) and not limiter.answered_since(6.0)
        await limiter.acquire()
        limiter.release("limited", status=529, wait_s=0.0)  # overloaded: down until something is answered
        assert limiter.down and not limiter.breaker_open and limiter.snapshot().breaker_open
        await limiter.acquire()
        clock.now = 12.0
        limiter.release("ok", sent_at=11.0)
        assert limiter.answered_since(6.0) and not limiter.down

    run(scenario())


def test_a_request_whose_cli_hangs_up_while_queued_leaves_no_slot_taken():
    async def scenario():
        limiter = RateLimiter(1)
        await limiter.acquire()
        queued = asyncio.ensure_future(limiter.acquire())
        await asyncio.sleep(0.01)
        queued.cancel()
        await asyncio.sleep(0.01)
        limiter.release("ok")
        assert limiter.in_flight == 0 and limiter.snapshot().queued == 0
        assert await asyncio.wait_for(limiter.acquire(), 1) is True

    run(scenario())


def test_a_request_that_waited_its_bound_leaves_the_queue_without_a_slot():
    async def scenario():
        limiter = RateLimiter(1)
        await limiter.acquire()
        assert await limiter.acquire(give_up=lambda: True) is False  # asked after POLL_S of waiting
        assert limiter.in_flight == 1 and limiter.snapshot().queued == 0

    run(scenario())


def test_a_raise_that_meets_a_limit_at_once_doubles_the_calm_before_the_next():
    async def scenario():
        clock = Clock()
        limiter = RateLimiter(8, clock=clock)
        for _ in range(5):
            await limiter.acquire()
        limiter.release("limited", status=429, wait_s=0.0)  # the provider takes 4: limit 4, 4 in flight
        clock.now += CALM_S
        limiter.release("ok")  # at the full limit and calm: raised to 5
        assert limiter.limit == 5
        await limiter.acquire()
        await limiter.acquire()  # 5 in flight
        limiter.release("limited", status=429, wait_s=0.0)  # the raise went too far
        assert limiter.limit == 4 and limiter.calm_s == 2 * CALM_S
        clock.now += CALM_S
        limiter.release("ok")
        assert limiter.limit == 4  # not yet: twice the calm now
        await limiter.acquire()
        clock.now += CALM_S
        limiter.release("ok")
        assert limiter.limit == 5

    run(scenario())


def test_the_progress_line_shows_the_limit_the_queue_and_the_pause():
    from agent_eval.engine.gateway.limiter import LimiterState

    assert LimiterState(16, 16, 3, 0, 0.0, False).describe() == ""  # nothing to say while unhindered
    assert LimiterState(4, 16, 4, 12, 0.6, False).describe() == "limit 4/16 queued 12 wait 1s"
    assert (
        LimiterState(1, 16, 1, 5, 8.0, True, down_s=80.0, holding=3, bound_s=1800.0).describe()
        == "provider down 1m20s: holding 3 request(s) (bound 30m)"
    )
