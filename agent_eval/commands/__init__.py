"""Layer 4, one module per CLI command (its click `command`); a command never imports another or cli.py.

compare, demo, doctor, export, merge, parse, regrade, report, run, sample_data, score, show, slurm/, sweep, table: the
commands
options.py      options and defaults several commands share
usererrors.py   bad input is one clear line and exit code 2, never a traceback
"""
