"""Codex: the adapter (command line, env, auth) and its JSONL event / rollout parser."""
