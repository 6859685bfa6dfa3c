"""explain (issue 26 item 5, h8-cfgerr): config_error, model_download, dataset_error and benign_warning read by the
message FAMILY of the library that refused (argparse's `prog: error:`, pydantic's per-field detail line, the config
libraries' own exception classes and frames, huggingface_hub's refusals, safetensors' header errors) and the logger
records that only warn (Ray's worker tag, dmlc's clock, loguru, NCCL's INFO trace, notes that call themselves
harmless). Shapes are the libraries' own wordings, not the corpus cases' lines, each wrapped in realistic noise."""

from __future__ import annotations

import pytest

from tests.helpers_explain import explain_text

NOISE = ("[2025-03-02 10:01:11,402] [INFO] [real_accelerator.py:222:get_accelerator] Setting ds_accelerator to cuda "
         "(auto detect)\n"
         "/opt/conda/lib/python3.10/site-packages/transformers/training_args.py:1575: FutureWarning: "
         "`evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use "
         "`eval_strategy` instead\n  warnings.warn(\n"
         "Loading checkpoint shards: 100%|██████████| 4/4 [00:07<00:00,  1.82s/it]\n")
TEARDOWN = ("E0302 10:01:40.118000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
            "local_rank: 0 (pid: 311) of binary: /opt/conda/bin/python3\n")
FINISHED = ("{'train_runtime': 812.4, 'train_samples_per_second': 9.8, 'train_steps_per_second': 0.61, "
            "'train_loss': 1.0312, 'epoch': 3.0}\n100%|██████████| 500/500 [13:32<00:00,  1.62s/it]\n")
SITE = "/opt/conda/lib/python3.10/site-packages"

FAILURES = [
    # argparse's own refusal behind a launcher's rank prefix, and its other wordings
    ("argparse-rank-prefix", "config_error",
     "usage: train.py [-h] [--lr_scheduler_type {linear,cosine}]\n[rank0]: train.py: error: argument "
     "--lr_scheduler_type: invalid choice: 'cosine_warmup' (choose from 'linear', 'cosine')\n"),
    ("argparse-ambiguous", "config_error",
     "usage: main.py [-h] [--lr LR] [--lr_scheduler LR_SCHEDULER]\nmain.py: error: ambiguous option: --l could match "
     "--lr, --lr_scheduler\n"),
    ("argparse-exclusive", "config_error",
     "usage: finetune.py [-h] (--fp16 | --bf16)\nfinetune.py: error: argument --bf16: not allowed with argument --fp16\n"),
    # pydantic's detail line says the value is of the wrong kind, also under DeepSpeed's own config class
    ("pydantic-v1-deepspeed-dict", "config_error",
     f"Traceback (most recent call last):\n  File \"{SITE}/deepspeed/runtime/zero/config.py\", line 71, in "
     "get_zero_config\n    return DeepSpeedZeroConfig(**zero_config_dict)\n  File \"pydantic/main.py\", line 341, in "
     "pydantic.main.BaseModel.__init__\npydantic.error_wrappers.ValidationError: 1 validation error for "
     "DeepSpeedZeroConfig\noffload_param\n  value is not a valid dict (type=type_error.dict)\n"),
    ("pydantic-v2-deepspeed-auto-string", "config_error",
     "pydantic_core._pydantic_core.ValidationError: 1 validation error for DeepSpeedZeroConfig\nreduce_bucket_size\n"
     "  Input should be a valid integer, unable to parse string as an integer [type=int_parsing, input_value='auto', "
     "input_type=str]\n    For further information visit https://errors.pydantic.dev/2.9/v/int_parsing\n"),
    ("pydantic-v2-literal", "config_error",
     "pydantic_core._pydantic_core.ValidationError: 1 validation error for TrainerConfig\noptimizer\n  Input should "
     "be 'adamw', 'sgd' or 'lion' [type=literal_error, input_value='adam_w', input_type=str]\n"),
    # the config systems' own exception classes and frames
    ("torchtune-config-error", "config_error",
     "torchtune.config._errors.ConfigError: Failed to validate config with 1 error(s):\n    Component 'optimizer' "
     "has unexpected keyword argument 'fused'\n"),
    ("omegaconf-missing-value", "config_error",
     "Traceback (most recent call last):\n  File \"/opt/conda/bin/tune\", line 8, in <module>\n    sys.exit(main())\n"
     f"  File \"{SITE}/omegaconf/base.py\", line 231, in _format_and_raise\n    format_and_raise(\n"
     "omegaconf.errors.MissingMandatoryValue: Missing mandatory value: checkpointer.checkpoint_dir\n"
     "    full_key: checkpointer.checkpoint_dir\n"),
    ("setting-value-unknown", "config_error", "KeyError: 'Invalid optimizer name: adamw_bnb_8bitt'\n"),
    # a number the YAML gave as a string (PyYAML reads `1e-5` as str), met by the optimizer's comparison
    ("number-as-string", "config_error",
     f"Traceback (most recent call last):\n  File \"/work/train.py\", line 88, in <module>\n    opt = AdamW(params, "
     f"lr=cfg['lr'])\n  File \"{SITE}/torch/optim/adamw.py\", line 29, in __init__\n    if not 0.0 <= lr:\n"
     "TypeError: '<=' not supported between instances of 'float' and 'str'\n"),
    ("setting-must-be-set-mentions-dataset", "config_error",
     "ValueError: `max_steps` must be set when the dataset is an iterable dataset\n"),
    ("setting-compared-to-limit", "config_error",
     "ValueError: max_length 8192 is larger than the model's max_position_embeddings 4096\n"),
    ("size-must-divide", "config_error",
     "RuntimeError: Tensor parallel size (3) must divide the number of attention heads (32).\n"),
    ("both-given", "config_error", "ValueError: Cannot specify both `warmup_steps` and `warmup_ratio`\n"),
    # huggingface_hub's refusals in the wordings other tools wrap them in
    ("hub-gated-text-own-lines", "model_download",
     "!!! Exception during processing !!! 401 Client Error. (Request ID: Root=1-67e1;a38b)\n\nCannot access gated "
     "repo for url https://huggingface.co/google/gemma-3-4b-it/resolve/main/config.json.\nAccess to model "
     "google/gemma-3-4b-it is restricted. You must have access to it and be authenticated to access it. Please "
     "log in.\n"),
    ("hub-error-class-bare", "model_download",
     "GatedRepoError: 403 Client Error. (Request ID: Root=1-66a0) Your request to access model "
     "meta-llama/Llama-3.1-8B is awaiting a review from the repo authors.\n"),
    ("hub-token-missing", "model_download",
     "[2026-01-03 11:02:09] [FAIL] HF_TOKEN is not set — required to download black-forest-labs/FLUX.1-dev\n"),
    # a model path that is neither a local directory nor a hub id; a shard the index names but is not there
    ("path-neither-dir-nor-id", "model_download",
     "OSError: Incorrect path_or_model_id: '/data/models/Qwen2.5-7B-Instruct'. Please provide either the path to a "
     "local folder or the repo_id of a model on the Hub.\n"),
    ("tokenizer-path", "model_download",
     "OSError: Can't load tokenizer for '/mnt/llm/Llama-3-8B'. If you were trying to load it from "
     "'https://huggingface.co/models', make sure you don't have a local directory with the same name. Otherwise, "
     "make sure '/mnt/llm/Llama-3-8B' is the correct path to a directory containing all relevant files for a "
     "PreTrainedTokenizerFast tokenizer.\n"),
    ("missing-shard", "model_download",
     "FileNotFoundError: [Errno 2] No such file or directory: '/models/Llama-3-8B/model-00003-of-00004.safetensors'\n"),
    # weights that are not weights: safetensors' header errors by name, in any case; a .bin transformers cannot read
    ("safetensors-lowercase", "model_download",
     "safetensors_rust.safetensorerror: error while deserializing header: headertoolarge\n"),
    ("safetensors-invalid-header", "model_download",
     "safetensors_rust.SafetensorError: Error while deserializing header: InvalidHeaderDeserialization\n"),
    ("bin-unreadable", "model_download",
     "OSError: Unable to load weights from pytorch checkpoint file for '/m/pytorch_model.bin' at "
     "'/m/pytorch_model.bin'. If you tried to load a PyTorch model from a TF 2.0 checkpoint, please set "
     "from_tf=True.\n"),
    # a split the data does not have, in another library's words
    ("split-other-words", "dataset_error",
     "ValueError: Invalid data split: trainval, possible_splits: ['train', 'val']\n"),
    # `datasets`' exception classes named bare, its no-data-files refusal, a CSV pandas cannot parse
    ("datasets-class-bare", "dataset_error",
     "DatasetNotFoundError: Dataset 'acme/support-chats' doesn't exist on the Hub or cannot be accessed.\n"),
    ("datasets-no-data-files", "dataset_error",
     "datasets.exceptions.DataFilesNotFoundError: No (supported) data files found in ./data/train\n"),
    ("pandas-csv", "dataset_error",
     "pandas.errors.ParserError: Error tokenizing data. C error: Expected 2 fields in line 3, saw 4\n"),
]


@pytest.mark.parametrize("name,family,lines", FAILURES, ids=[f[0] for f in FAILURES])
def test_failure_shapes_are_read_as_their_family(tmp_path, name, family, lines):
    e, r = explain_text(tmp_path, NOISE + lines + TEARDOWN)
    assert r is not None and not r.benign, (name, e.answer)
    assert e.answer == family, (name, e.answer, r.code)


def test_deepspeed_validation_of_an_auto_filled_float_stays_a_version_matter(tmp_path):
    """The detail line decides: a float transformers computed for an `auto` key (int_from_float) is the versions of
    DeepSpeed and transformers, not a value the user wrote (LlamaFactory#5252)."""
    e, r = explain_text(tmp_path, NOISE + "pydantic_core._pydantic_core.ValidationError: 1 validation error for "
                        "DeepSpeedZeroConfig\nstage3_prefetch_bucket_size\n  Input should be a valid integer, got a "
                        "number with a fractional part [type=int_from_float, input_value=11560550.4, "
                        "input_type=float]\n" + TEARDOWN)
    assert r is not None and e.answer == "version_check", (e.answer, r.code if r else None)


HARMLESS = [
    ("ray-worker-dmlc-clock", "(train_breast_cancer pid=100759) [00:31:59] WARNING: /xgboost/src/c_api/c_api.cc:1348: "
     "Saving model in the UBJSON format as default.  You can use file extension: `json`, `ubj` or `deprecated` to "
     "choose between formats.\n"),
    ("ray-logger-record", "2024-03-12 23:00:22,443 WARNING api.py:424 -- The default value for `max_ongoing_requests` "
     "is currently 100, but will change to 5 in the next upcoming release.\n"),
    ("loguru-record", "2024-10-15 20:58:13.674 | WARNING  | trainer:setup:31 - gradient checkpointing is on, "
     "use_cache set to False\n"),
    ("tool-prefixed-level", "wandb: WARNING Serializing object of type dict that is 589920 bytes\n"),
    ("self-declared-expected", "You are using the default legacy behaviour of the <class 'transformers.models.llama."
     "tokenization_llama.LlamaTokenizer'>. This is expected, and simply means that the `legacy` (previous) behavior "
     "will be used so nothing changes for you.\n"),
    ("nccl-info-trace", "node-3:2211:2290 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.3<0>\nnode-3:2211:2290 [0] NCCL "
     "INFO NET/Plugin: No plugin found (librccl-net.so), using internal implementation\nnode-3:2211:2290 [0] NCCL "
     "INFO Channel 00/02 :    0   1\n"),
    ("miopen-workspace", "MIOpen(HIP): Warning [IsEnoughWorkspace] [GetSolutionsFallback WTI] Solver <GemmFwdRest>, "
     "workspace required: 91054080, provided ptr: 0 size: 0\n"),
]


@pytest.mark.parametrize("name,lines", HARMLESS, ids=[h[0] for h in HARMLESS])
def test_harmless_records_are_no_failure_when_the_run_finishes(tmp_path, name, lines):
    e, r = explain_text(tmp_path, NOISE + lines + FINISHED)
    assert r is None, (name, r.code if r else None)
    assert e.answer == "benign_warning", (name, e.answer)


def test_a_finished_run_with_unnamed_scary_lines_is_no_failure(tmp_path):
    """No rule names accelerate's kernel note, and c10d's localhost retry only counts when the log ends on it: the
    run finished, so the answer is "no failure", not "unknown"."""
    text = (NOISE + "Detected kernel version 4.18.0, which is below the recommended minimum of 5.5.0; this can cause "
            "the process to hang. It is recommended to upgrade the kernel to the minimum version or higher.\n"
            "[W socket.cpp:663] [c10d] The client socket has failed to connect to [localhost]:29500 (errno: 99 - "
            "Cannot assign requested address).\n" + FINISHED)
    e, r = explain_text(tmp_path, text)
    assert r is None and e.status == "finished" and e.answer == "benign_warning", (e.status, e.answer)


def test_a_harmless_record_is_never_the_root_of_a_real_failure(tmp_path):
    """Ray/dmlc warnings and NCCL INFO before a real refusal: the refusal is the root."""
    text = (NOISE + HARMLESS[0][1] + HARMLESS[5][1] + "main.py: error: unrecognized arguments: --lora_rnak 16\n"
            + TEARDOWN)
    e, r = explain_text(tmp_path, text)
    assert r is not None and not r.benign and e.answer == "config_error", (e.answer, r.code if r else None)


def test_nccl_info_that_reports_a_refused_connection_is_not_called_harmless(tmp_path):
    e, _ = explain_text(tmp_path, NOISE + "node-3:2211:2290 [0] NCCL INFO Call to connect returned Connection "
                        "refused, retrying\n")
    assert e.answer != "benign_warning"


def test_a_finished_clean_log_is_no_failure_and_the_text_lists_no_harmless_lines(tmp_path):
    from rocm_tune.core.runs.diagnose.diagnose import render_text
    e, r = explain_text(tmp_path, "Loading checkpoint shards: 100%|██████████| 4/4 [00:07<00:00,  1.82s/it]\n" + FINISHED)
    assert r is None and e.status == "finished" and e.answer == "benign_warning"
    first = render_text(e).splitlines()[0]
    assert "no failure found" in first and "harmless" not in first, first
