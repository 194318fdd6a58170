"""One module per CLI command (its click `command`). A command imports reading/, core/ and the registries, never
another command or cli.py."""
