"""The ways a setting's value is written as something to compute rather than a literal, in the files check reads
(data for rocm_tune/core/runners/values.py). Order matters: the first form that matches names the value.

Each row: (name, regex over the value as read, what it is - said in the answer when the files do not compute it).
Sources: bash(1) "Parameter Expansion", "Command Substitution", "Arithmetic Expansion"; Python's f-strings,
str.format and printf-style formatting (docs.python.org "Format String Syntax"); OmegaConf/Hydra interpolations
and resolvers (`${a.b}`, `${oc.env:X,default}`); Jinja2 / Helm templates (`{{ .Values.x }}`); GNU make `$(VAR)`."""

VALUE_FORMS: tuple[tuple[str, str, str], ...] = (
    ("jinja", r"\{\{.*?\}\}|\{%.*?%\}", "a Jinja/Helm template field, filled when the template is rendered"),
    ("omegaconf-resolver", r"\$\{\s*oc\.[a-z_]+\s*:", "an OmegaConf/Hydra resolver, read when the config is loaded"),
    ("omegaconf-interpolation", r"\$\{\s*[A-Za-z_][\w-]*(?:\.[\w-]+)+\s*\}",
     "an OmegaConf/Hydra interpolation of another key"),
    ("shell-arithmetic", r"\$\(\(", "bash arithmetic the files do not compute (a variable no file sets, a "
     "division by zero)"),
    ("command-substitution", r"\$\([^)]|`[^`]*`", "a command's output (shell command substitution or a Makefile "
                                                    "variable), known only when it runs"),
    ("shell-parameter", r"\$\{[^}]*\}|\$[A-Za-z_]\w*", "a shell variable no file given sets"),
    ("python-field", r"\{[^{}]*\}", "a Python f-string / str.format field the files do not compute"),
    ("printf-field", r"%\([A-Za-z_]\w*\)[-#0 +]*\d*(?:\.\d+)?[sdifr]|^%[-#0 +]*\d*[sdif]$",
     "a Python %-format field the files do not fill"),
)

# what each unread setting falls back to, by the kind of key (said in the answer)
FALLBACK = "the runner's default used here"
