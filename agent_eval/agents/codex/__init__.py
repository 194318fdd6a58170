"""Codex: the adapter (command line, env, auth) and its JSONL event / rollout parser.

adapter.py       Codex: `codex exec --json`, prompt on stdin, config in a private CODEX_HOME
events.py        its `exec --json` events (and its rollout) -> the normalised Transcript
login.py         its login file (~/.codex/auth.json): a ChatGPT login's tokens or a plain API key
"""
