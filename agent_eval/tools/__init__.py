"""Tools offered to the agents (served inside or outside the sandbox)."""
