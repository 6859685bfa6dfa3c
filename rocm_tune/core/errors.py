"""Errors meant for people.

`UserError` is bad input: the CLI prints its message on one line and exits with code 2.
The message must name the bad value and say what is allowed.
"""


class UserError(ValueError):
    """Bad input from the user (path, value, option combination). Exit code 2, no traceback."""

    exit_code = 2
