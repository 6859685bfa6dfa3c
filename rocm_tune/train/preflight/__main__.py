"""`python -m rocm_tune.train.preflight PLAN_JSON [--options-json JSON] [--run-dir DIR]`: the preflight worker.

The command of a run of kind "preflight" (started by `rocm-tune preflight` or `core.check.preflight.start_preflight`).
Prints its progress and the human report to stdout (the run's stdout.log), writes RUN_DIR/preflight.json.
Exit 0 verified, 1 the plan does not hold, 2 bad input.
"""

from __future__ import annotations

import json
import os
import sys


def main(argv: list[str] | None = None) -> int:
    import argparse
    import warnings

    from rocm_tune.core.check import preflight as core
    from rocm_tune.core.errors import UserError

    warnings.filterwarnings("ignore")
    ap = argparse.ArgumentParser(prog="python -m rocm_tune.train.preflight")
    ap.add_argument("plan")
    ap.add_argument("--options-json", default="{}")
    ap.add_argument("--run-dir", default=None)
    ap.add_argument("--json", action="store_true", help="print the result JSON instead of the report")
    args = ap.parse_args(argv)
    try:
        plan, bundle = core.load_input(args.plan)
        try:
            opts = core.PreflightOptions.from_dict(json.loads(args.options_json))
        except (ValueError, TypeError) as exc:
            raise UserError(f"--options-json is not a valid options object: {exc}") from None
        if bundle and not opts.bundle:
            opts = core.PreflightOptions.from_dict({**opts.to_dict(), "bundle": bundle})
        opts.validate()
        run_dir = args.run_dir or os.environ.get("ROCM_TUNE_RUN_DIR") or None
        from rocm_tune.train.preflight.runner import run_preflight

        result = run_preflight(plan, opts, run_dir=run_dir)
    except UserError as exc:
        print(f"rocm-tune preflight: error: {exc}", file=sys.stderr, flush=True)
        return 2
    if args.json:
        sys.stdout.write(json.dumps(result, indent=2, default=str) + "\n")
    else:
        sys.stdout.write("\n" + core.render(result))
    sys.stdout.flush()
    return int(result["exit_code"])


if __name__ == "__main__":
    raise SystemExit(main())
