"""Claude Code: the adapter (command line, env, auth) and its stream-json event parser."""
