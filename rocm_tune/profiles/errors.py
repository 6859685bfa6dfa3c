"""The error meant for people, defined in the bottom layer.

`profiles` imports nothing of rocm_tune (it is data and its loaders), yet its loaders reject bad profile
files and unknown GPU names the way every other part does. So the one `UserError` type lives here and
`rocm_tune.core.errors` re-exports it: everyone else imports it from core.
"""


class UserError(ValueError):
    """Bad input from the user (path, value, option combination). Exit code 2, no traceback.

    The CLI prints the message on one line; it must name the bad value and say what is allowed."""

    exit_code = 2
