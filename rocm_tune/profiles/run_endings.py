"""e-cons (issue 26): the lines a trainer, a runner or a benchmark prints only once its run ended well. A log that
holds one had its run complete: what alarmed the user there (a warning, an `NCCL WARN`) did not stop it, unless a
failure of its own comes after (the engine still names that one as the root). Data only: read by
core/runs/diagnose/diagnose.py (scan_bytes' `finished`).

Sources (read, not guessed):
- transformers/trainer.py: `Training completed. Do not forget to share your model on huggingface.co/models =)`
  after the training loop, then `{'train_runtime': ..., 'train_samples_per_second': ...}`; `log_metrics` prints
  `***** train metrics *****` (run_clm.py and the runners built on the Trainer: LLaMA-Factory, TRL, ms-swift).
- ms-swift swift/llm/base.py: `End time of running main` once main's run() returned; swift/llm/train/sft.py (and
  swift/trainers/mixin.py): `last_model_checkpoint: <dir>` then `best_model_checkpoint: ...` after trainer.train().
- axolotl src/axolotl/train.py: `Training Completed!!! Saving pre-trained model to {cfg.output_dir}` after
  trainer.train() (newer releases: `Training completed! Saving trained model to ...`).
- Lightning pytorch/loops/fit_loop.py: `` `Trainer.fit` stopped: `max_epochs=N` reached. `` (or `max_steps=N`) when
  the fit loop reached its limit.
- Megatron-LM megatron/training/training.py: `print_datetime('after training is done')` ->
  `[after training is done] datetime: ...`.
- ComfyUI execution.py (main.py's prompt_worker): `Prompt executed in N seconds` once a queued workflow ran through.
- llama.cpp common/sampling + src/llama-context.cpp: `llama_perf_context_print:        total time = ...` (older
  builds `llama_print_timings:        total time = ...`) once a generation ended.
- nccl-tests / rccl-tests src/common.cu: `# Out of bounds values : 0 OK` then `# Avg bus bandwidth    : N` once
  every size ran (a non-zero count prints `FAILED`: not an ending well).
"""

from __future__ import annotations

FINISHED: tuple[bytes, ...] = (
    b"'train_runtime'", b'"train_runtime"', b"***** train metrics *****", b"Training completed",
    b"End time of running main",
    b"Training Completed!!! Saving", b"] last_model_checkpoint: ", b"`Trainer.fit` stopped: `max_",
    b"[after training is done]", b"# Out of bounds values : 0 OK", b"Prompt executed in ",
    b"llama_perf_context_print:        total time", b"llama_print_timings:        total time",
)

# A training loop's progress bar at its end (tqdm: `100%|██████████| 873/873 [1:02:11<00:00,  4.27s/it]`), and the
# save a trainer does after it: transformers Trainer._save (`Saving model checkpoint to <dir>`),
# PreTrainedModel.save_pretrained (`Model weights saved in <file>`), LLaMA-Factory's plot_loss (`Figure saved at:`),
# kohya sd-scripts (`model saved.`). With every loop the log shows at its end and no error-like line after the last
# bar, the run saved its result: it ended well.
# (percent, n, total) of a tqdm bar's state
BAR = rb"(?<!\d)(\d{1,3})%\|[^|\r\n]{0,120}\| ?(\d+)/(\d+) \["
SAVED_AFTER_BAR = (rb"Saving model checkpoint to |Model weights saved in |Figure saved at: |\bmodel saved\.|"
                   rb"Saving (?:the )?(?:final |trained )?model (?:to|at) ")
