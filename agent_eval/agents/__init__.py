"""Layer 2, the agent CLIs: one package per CLI behind agents/registry.py. Never imports benchmarks/.

base.py           Agent: what every adapter provides (auth, the command for one item, its event parser)
claude_code/      Claude Code: adapter.py (command line, env, auth), events.py (stream-json), login.py,
                  session_file.py (its own record of a session, which --resume reads)
codex/            Codex: adapter.py, events.py (exec --json events and the rollout), login.py
deferred_removal.py  an item's CLI scaffolding renamed aside at once and deleted in the background
failures.py       the failure table: an attempt's outcome status from its process, transcript and answer
logfiles.py       the CLIs' own session logs, read line by line
placeholders.py   text a CLI prints in place of the model's answer when the API call failed
received.py       which images reached the model, at what size
registry.py       name -> "module:Class"; effort values; the scripted model's environment
seen_images.py    images inside events, saved losslessly beside the transcript
sessions.py       a transcript of several CLI sessions (the run continued after the harness died): split, joined
surface.py        ToolSurface: what a CLI reports offering at start (tools, permission mode, version), compared
"""

from __future__ import annotations

from agent_eval.agents.registry import get_agent

__all__ = ["get_agent"]
