"""agent-eval: run coding-agent CLIs over visual benchmarks and compare tool modes honestly."""

__version__ = "0.1.0"
