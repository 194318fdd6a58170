"""Helpers shared by the tests (run fixtures, agent runs, the browser, the import graph). Tests import
these, never another test module."""
