"""Failure classification from one table, not from if-chains in the runner.

An attempt's outcome is decided in this order: the harness's own verdicts (timeout, a 403 that the
sandbox's proxy gave, an early stop asked for by the adapter's watcher), then the HTTP status the CLI reported, then the
first pattern in FAILURE_PATTERNS that matches the CLI's error text or stderr tail, then a
non-zero exit or a missing final message (agent_error), then a missing answer tag (no_answer).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from agent_eval.core.process import ProcessResult
from agent_eval.core.transcript import Transcript

HTTP_STATUS = {
    401: "auth_error", 403: "auth_error",
    400: "request_error", 404: "request_error", 422: "request_error",
    429: "rate_limited", 529: "rate_limited", 503: "rate_limited",
}

# (regex over the CLI's error text and stderr tail, status). First match wins.
FAILURE_PATTERNS: list[tuple[re.Pattern, str]] = [
    # The agent used up the turns or budget it was given: its own outcome, graded (wrong), not rerun.
    (re.compile(r"error_max_turns|error_max_budget"), "no_answer"),
    (re.compile(r"^bwrap: |sandbox setup failed", re.MULTILINE), "sandbox_error"),
    (re.compile(r"invalid (x-)?api[ _-]?key|authentication[_ ]error|unauthori[sz]ed|not logged in|"
                r"please run /login|\b401\b|\b403\b|missing (an )?api key|OPENAI_API_KEY|permission_error",
                re.IGNORECASE), "auth_error"),
    (re.compile(r"rate[ _-]?limit|overloaded|too many requests|\b429\b|\b529\b|usage limit|"
                r"experiencing high demand|server_is_overloaded|slow_down|insufficient capacity", re.IGNORECASE),
     "rate_limited"),
    # The API refused the request itself (bad model name, bad parameter): the configuration's fault.
    (re.compile(r"invalid_request_error|model_not_found|does not exist or you do not have access|"
                r"not supported when using|unsupported_(value|parameter)|API Error:?\s*(400|404|422)\b|"
                r"\b(400 Bad Request|404 Not Found|422 Unprocessable)|\"status\":\s*(400|404|422)\b", re.IGNORECASE),
     "request_error"),
]


@dataclass(frozen=True)
class Outcome:
    status: str
    error: str | None = None


def classify(result: ProcessResult, transcript: Transcript, has_answer_tag: bool, timeout_s: float) -> Outcome:
    if result.timed_out:
        return Outcome("timeout", f"no result within --timeout {timeout_s:g}s; process group killed")
    refused = _refused_by_the_sandbox(result, transcript)   # before the watcher's verdict: it reads a 403 as auth
    if refused:
        return refused
    if result.stopped_because:
        return Outcome(result.stopped_because, transcript.error or result.stderr_tail.strip()[-500:] or None)
    if transcript.error_status in HTTP_STATUS:
        return Outcome(HTTP_STATUS[transcript.error_status], transcript.error)
    failed = transcript.error is not None or result.exit_code != 0 or not (transcript.final_text or "").strip()
    if failed:
        text = "\n".join(filter(None, [transcript.error, result.stderr_tail]))
        for pattern, status in FAILURE_PATTERNS:
            if pattern.search(text):
                return Outcome(status, _short(text))
        if result.exit_code != 0:
            return Outcome("agent_error", _short(f"exit code {result.exit_code}: {text}"))
        if transcript.error is not None:
            return Outcome("agent_error", _short(transcript.error))
        lost = f" ({result.malformed_lines} event line(s) could not be read)" if result.malformed_lines else ""
        return Outcome("agent_error", "the agent finished without a final message" + lost)
    if not has_answer_tag:
        return Outcome("no_answer", "the final message has no <answer>...</answer> tag")
    return Outcome("ok")


def _refused_by_the_sandbox(result: ProcessResult, transcript: Transcript) -> Outcome | None:
    """A 403 that the sandbox's proxy gave (it refuses what the policy does not allow with a 403) is
    not the credential's fault: said as a sandbox error naming what was refused, so that it neither
    stops the run as an auth failure nor hides which endpoint was missing."""
    if not result.proxy_refused:
        return None
    text = "\n".join(filter(None, [transcript.error, result.stderr_tail]))
    if transcript.error_status != 403 and not re.search(r"\b403\b", text):
        return None
    shown = ", ".join(result.proxy_refused[:5]) + (" ..." if len(result.proxy_refused) > 5 else "")
    return Outcome("sandbox_error", _short(f"the sandbox's proxy refused {shown} (not an allowed endpoint in "
                                           f"sandbox/policy.yaml); the CLI then failed: {text}"))


def _short(text: str, limit: int = 1500) -> str:
    text = text.strip()
    return text if len(text) <= limit else "..." + text[-limit:]
