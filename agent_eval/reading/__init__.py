"""Libraries the read commands share: loading a run, its images, formatting, statistics, plots, comparison tables.
Never imports a command or a benchmark kind."""
