"""agent-eval: run coding-agent CLIs over visual benchmarks and compare tool modes honestly.

Packages by layer (each imports only its own or lower layers; tests/test_architecture.py): datamodel/ (0);
tools/, analysis/, browser/ (1); agents/, benchmarks/ (2); engine/, reading/, scripted/ (3); commands/ and cli.py (4).
Each package's __init__ lists its files."""

__version__ = "0.1.0"
