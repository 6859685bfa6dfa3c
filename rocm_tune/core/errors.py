"""Errors meant for people.

`UserError` is bad input: the CLI prints its message on one line and exits with code 2.
The message must name the bad value and say what is allowed. The class itself is defined in
`rocm_tune.profiles.errors` (the bottom layer, so the profile loaders can raise it without importing
core); this is where everything else imports it from.
"""

from rocm_tune.profiles.errors import UserError

__all__ = ["UserError"]
