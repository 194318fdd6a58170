"""Bad input is one clear line and exit code 2, never a traceback: shared by every command."""

from __future__ import annotations

import functools
import sys

import click

from agent_eval.agents.base import AuthMissing
from agent_eval.datamodel.config import ConfigError
from agent_eval.datamodel.jsonl import DataError
from agent_eval.datamodel.pricing import PricingError
from agent_eval.datamodel.results import ResultsError

USER_ERRORS = (DataError, ConfigError, ResultsError, AuthMissing, PricingError)


def user_errors(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except USER_ERRORS as error:
            click.echo(f"error: {error}", err=True)
            sys.exit(2)

    return wrapper
