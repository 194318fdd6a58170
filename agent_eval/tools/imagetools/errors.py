"""The one error type the image tools raise for bad requests."""


class ToolInputError(ValueError):
    """A request the model can fix: the message says what is allowed.

    Front ends turn it into an MCP `isError` result or a non-zero CLI exit; anything
    else escaping the tools is a bug.
    """
