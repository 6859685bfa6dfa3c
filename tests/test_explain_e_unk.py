"""explain's fallback by resemblance reads more of the lines that tell (helper e-unk, issue 26; choices by
cross-validation inside the fit corpus, benchmarks/explain_cv.py).

- a warning-LEVEL line that says something failed is an error line: NCCL/RCCL have no error level (nccl
  src/include/debug.h: every failure is WARN(...), printed `host:pid:tid [dev] NCCL WARN ...`), DeepSpeed/Python
  logging print a failed step at [WARNING]. A warning that says nothing failed, a Python warning category
  (`UserWarning:`: the run went on) and c10's/glog's one-letter level (c10d logs each failed connect attempt at
  `[W socket.cpp]` and raises when it gives up) stay out;
- the confidence threshold still refuses lines of no family.
The lines are written from the tools' own format strings, not taken from the corpus.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose import resemble
from rocm_tune.core.runs.diagnose.diagnose import explain_text

NOISE = ("Loading checkpoint shards: 100%|##########| 4/4 [00:05<00:00,  1.31s/it]\n"
         "[INFO|trainer.py:2128] 2025-01-10 12:00:01 >> ***** Running training *****\n"
         "  0%|          | 0/1000 [00:00<?, ?it/s]\n")


def _read(text: str) -> list[str]:
    return [ln for _, ln in resemble.error_lines(text)]


@pytest.mark.parametrize("line", [
    # nccl src/proxy.cc: WARN("[Proxy Service %d] Failed to execute operation %s from rank %d, retcode %d")
    "node-3:40112:40190 [3] NCCL WARN [Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 3",
    # nccl src/misc/ibvwrap.cc: WARN("Call to ibv_reg_mr failed with error %s", strerror(errno)) - RCCL prints the same
    "gpu-07:9121:9188 [6] NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory",
    # Python logging at WARNING (DeepSpeed's logger format) saying a step failed
    "[2025-02-03 11:22:33,444] [WARNING] [engine.py:3301:_save_checkpoint] saving the optimizer state failed: "
    "[Errno 122] Disk quota exceeded",
])
def test_a_warning_level_line_that_says_something_failed_is_read(line):
    assert _read(NOISE + line + "\n") == [line]


@pytest.mark.parametrize("line", [
    # DeepSpeed runtime/config_utils.py: a deprecation at WARNING, nothing failed
    "[2025-02-03 11:22:33,444] [WARNING] [config_utils.py:70:_process_deprecated_field] Config parameter "
    "cpu_offload is deprecated use offload_optimizer instead",
    # a Python warning category with a failing word: warnings.warn, the run went on
    "/opt/venv/lib/python3.11/site-packages/torch/amp/grad_scaler.py:132: UserWarning: torch.cuda.amp.GradScaler is "
    "enabled, but CUDA is not available.  Disabling.",
    # c10's one-letter level: c10d's socket.cpp logs each failed attempt here and raises when it gives up
    "[W0215 08:12:44.123456 socket.cpp:752] [c10d] The client socket has failed to connect to [trainer-0]:29400 "
    "(errno: 110 - Connection timed out).",
])
def test_a_warning_that_is_only_a_note_or_a_retry_stays_out(line):
    assert _read(NOISE + line + "\n") == []


def test_the_threshold_refuses_lines_of_no_family():
    lines = ["RuntimeError: the widget's frobnication count must be a prime number, got 12",
             "ERROR: the thermostat schedule could not be parsed: expected HH:MM at column 7"]
    assert resemble.classify(lines) is None
    assert resemble.classify([lines[0]]) is None and resemble.classify([lines[1]]) is None
    exp = explain_text(NOISE + "\n".join(lines) + "\n")
    assert all(d.code != resemble.CODE for d in exp.diagnoses)


def test_a_collective_failure_printed_at_nccls_warn_level_is_guessed_not_called_harmless():
    # nccl proxy.cc's failure line alone (no rule reads it): before e-unk it was dropped as a warning and explain
    # said "unknown"; read now, it resembles the collectives' cases
    line = "node-3:40112:40190 [3] NCCL WARN [Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 3"
    exp = explain_text(NOISE + line + "\n")
    assert exp.answer == "nccl_rccl_timeout_hang"
    r = exp.diagnoses[exp.root]
    # the confident tier or, under the thresholds the lexicon's CV re-chose, the weak one: a guess, never harmless
    assert r.code in (resemble.CODE, resemble.CODE_WEAK) and r.first.text == line and r.numbers["confidence"] >= 0.8


def test_a_log_of_harmless_warnings_only_still_answers_no_failure():
    # the benign side is unchanged: notes at WARNING level and a Python warning, the run going on, no failure
    exp = explain_text(NOISE + "[2025-02-03 11:22:33,444] [WARNING] [config_utils.py:70:_process_deprecated_field] "
                       "Config parameter cpu_offload is deprecated use offload_optimizer instead\n"
                       "/opt/venv/lib/python3.11/site-packages/torch/utils/checkpoint.py:91: UserWarning: None of the "
                       "inputs have requires_grad=True. Gradients will be None\n"
                       "{'loss': 1.52, 'grad_norm': 3.1, 'learning_rate': 1e-05, 'epoch': 0.1}\n"
                       "{'train_runtime': 1234.5, 'train_loss': 1.02}\n")
    assert exp.answer == "benign_warning" and exp.root is None


def test_harmless_notes_then_a_failure_at_nccls_warn_level_is_no_longer_called_harmless():
    # a DeepSpeed deprecation note, then the RCCL proxy's failure (WARN level) ending the log: the failure is read
    exp = explain_text(NOISE + "[2025-02-03 11:22:33,444] [WARNING] [config_utils.py:70:_process_deprecated_field] "
                       "Config parameter cpu_offload is deprecated use offload_optimizer instead\n"
                       "node-3:40112:40190 [3] NCCL WARN [Proxy Service 3] Failed to execute operation Connect from "
                       "rank 3, retcode 3\n")
    assert exp.answer == "nccl_rccl_timeout_hang" and exp.status == "failed"
