"""`explain` on ms-swift's and the plain transformers Trainer's runtime failures (helper e-swift2, issue 26).

The messages are written from the tools' source (modelscope/ms-swift swift/model/model_meta.py, swift/template/
register.py, base.py, vision_utils.py, swift/infer_engine/vllm_engine.py, swift/rlhf_trainers/rollout_mixin.py,
swift/cli/main.py; vllm/v1/core/kv_cache_utils.py; transformers trainer.py / modeling_utils.py; PIL's Image.open)
with their f-string holes filled by other values than any corpus case, inside swift's own log shape: `[INFO:swift]`
records, tqdm bars, torchrun rank prefixes.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose

HEAD = ("[INFO:swift] Successfully registered `/usr/local/lib/python3.10/site-packages/swift/llm/dataset/data/"
        "dataset_info.json`.\n"
        "[INFO:swift] rank: 0, local_rank: 0, world_size: 2, local_world_size: 2\n"
        "[INFO:swift] Loading the model using model_dir: /mnt/models/Qwen2.5-VL-7B-Instruct\n"
        "[WARNING:swift] Please install the package: `pip install \"qwen_vl_utils>=0.0.6\" -U`.\n")
BAR = "Map: 100%|##########| 2000/2000 [00:03<00:00, 612.51 examples/s]\n"
STEPS = ("{'loss': 1.7734, 'token_acc': 0.61, 'grad_norm': 2.01, 'learning_rate': 9.9e-05, 'memory(GiB)': 21.4, "
         "'train_speed(iter/s)': 0.31, 'epoch': 0.01, 'global_step/max_steps': '5/500'}\n"
         "Train:   1%|1         | 5/500 [00:16<26:40,  3.23s/it]\n")


def _tb(frames: list[tuple[str, int, str, str]], rank: str = "") -> str:
    out = f"{rank}Traceback (most recent call last):\n"
    for path, line, fn, code in frames:
        out += f'{rank}  File "{path}", line {line}, in {fn}\n{rank}    {code}\n'
    return out


SW = "/opt/conda/lib/python3.10/site-packages/swift"
TF = "/opt/conda/lib/python3.10/site-packages/transformers"
EXIT = ("E0612 10:11:12.123000 4321 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
        "local_rank: 0 (pid: 4400) of binary: /opt/conda/bin/python\n")


def _explain(tmp_path, text):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    return exp, (exp.diagnoses[exp.root] if exp.root is not None else None)


# (family, root code, log)
CASES = {
    # swift/model/model_meta.py: a multimodal checkpoint no registered model_type matches
    "swift-model-type-unmatched": ("unrecognized_model_type_adapter", "swift-model-type-unmatched", HEAD + _tb(
        [(f"{SW}/llm/model/register.py", 612, "get_model_info_meta", "model_meta = get_matched_model_meta(...)")],
        "[rank1]: ") + "[rank1]: ValueError: Model \"/data/ckpt/MiniMax-VL-02\" is not supported because no suitable "
        "`model_type` was found. Please refer to the documentation and specify an appropriate `model_type` manually: "
        "https://swift.readthedocs.io/en/latest/Instruction/Supported-models-and-datasets.html\n" + EXIT),
    # the same registry, ambiguous match (several types fit the directory)
    "swift-model-type-ambiguous": ("unrecognized_model_type_adapter", "swift-model-type-unmatched", HEAD + _tb(
        [(f"{SW}/model/model_meta.py", 227, "get_matched_model_meta", "raise ValueError(")]) +
        "ValueError: Failed to automatically match `model_type` for `/root/ckpt-900`. Multiple possible types found: "
        "['qwen3', 'qwen3_emb']. Please specify `model_type` manually.\n"),
    # swift/template/register.py: no template for the model
    "swift-template-unmatched": ("unrecognized_model_type_adapter", "swift-model-type-unmatched", HEAD + _tb(
        [(f"{SW}/template/register.py", 43, "get_template", "raise ValueError(")]) +
        "ValueError: Failed to automatically match `template_type` for `/mnt/m/internlm-xc3`. Please specify "
        "`template_type` manually via `--template`. See documentation: https://swift.readthedocs.io/en/latest/\n"),
    # vLLM v1 inside GRPO colocate: one request's KV cache does not fit
    "vllm-kv-cache": ("gpu_oom", "vllm-kv-cache-too-small", HEAD + "(EngineCore_0 pid=812) INFO 06-12 10:11:12 "
        "[gpu_worker.py:276] Available KV cache memory: 0.84 GiB\n" + _tb(
        [("/opt/conda/lib/python3.10/site-packages/vllm/v1/core/kv_cache_utils.py", 686,
          "check_enough_kv_cache_memory", "raise ValueError(")], "[rank3]: ") +
        "[rank3]: ValueError: To serve at least one request with the models's max seq len (65536), (7.00 GiB KV cache "
        "is needed, which is larger than the available KV cache memory (0.84 GiB). Based on the available memory, the "
        "estimated maximum model length is 7856. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` "
        "when initializing the engine.\n" + EXIT),
    # swift/template/base.py replace_tag: more <image> tags than images in a row
    "media-count": ("dataset_error", "swift-media-count-mismatch", HEAD + BAR + _tb(
        [(f"{SW}/llm/template/base.py", 1044, "_encode", "assert len(idx_list) == len(images), "
          "f'len(idx_list): {len(idx_list)}, len(images): {len(images)}'")]) +
        "AssertionError: len(idx_list): 3, len(images): 2\n"
        "[ERROR:swift] 👆👆👆There are errors in the template.encode, and no data was input.\n"),
    "video-frames": ("dataset_error", "swift-media-count-mismatch", HEAD + _tb(
        [(f"{SW}/template/vision_utils.py", 432, "load_video_cv2", "raise ValueError(")]) +
        "ValueError: Video file /nas/clips/0007.mp4 has invalid or zero frame count: -1\n"),
    "pil-unidentified": ("dataset_error", "swift-media-count-mismatch", HEAD + BAR + _tb(
        [("/opt/conda/lib/python3.10/site-packages/PIL/Image.py", 3498, "open", "raise UnidentifiedImageError(msg)")],
        "[rank0]: ") + "[rank0]: PIL.UnidentifiedImageError: cannot identify image file <_io.BytesIO object at "
        "0x7f3a2c1d9e90>\n"),
    "swift2-invalid-image": ("dataset_error", "swift-media-count-mismatch", HEAD + _tb(
        [(f"{SW}/llm/utils/vision_utils.py", 120, "_read_from_path", "raise ValueError(f'invalid image: \"{path}\"')")]) +
        "ValueError: invalid image: \"images/train/000123.png\"\n"),
    # swift/infer_engine/vllm_engine.py: the installed vLLM lacks an engine kwarg swift passes
    "vllm-too-old": ("version_check", "swift-engine-too-old", HEAD + _tb(
        [(f"{SW}/llm/infer/infer_engine/vllm_engine.py", 331, "_prepare_engine_kwargs", "assert ...")]) +
        "AssertionError: The current version of vLLM does not support `limit_mm_per_prompt`. Please upgrade vLLM.\n"),
    "transformers-bound": ("version_check", "swift-engine-too-old", HEAD + _tb(
        [(f"{SW}/model/register.py", 191, "get_model_tokenizer", "raise ValueError(")]) +
        "ValueError: experts_impl is only supported in \"transformers>=5.0\".\n"),
    # swift/rlhf_trainers/rollout_mixin.py: use_vllm with no vLLM installed
    "vllm-missing": ("missing_package", "engine-not-installed", HEAD + _tb(
        [(f"{SW}/trainers/rlhf_trainer/grpo_trainer.py", 233, "__init__", "raise ImportError(")], "[rank0]: ") +
        "[rank0]: ImportError: vLLM is not available and `use_vllm` is set to True. Please install vLLM with "
        "`pip install vllm -U` to use it.\n"),
    "optimum-missing": ("missing_package", "engine-not-installed", _tb(
        [(f"{TF}/modeling_utils.py", 4533, "to_bettertransformer", "raise ImportError(")]) +
        "ImportError: The package `optimum` is required to use Better Transformer.\n"),
    # transformers' Trainer: the evaluation batch ran the GPU out of memory
    "eval-oom": ("gpu_oom", "eval-oom", STEPS + _tb([(f"{TF}/trainer.py", 4211, "evaluation_loop", "raise "
                                                        "RuntimeError(")]) +
        "RuntimeError: Evaluation hit an out-of-memory error. `auto_find_batch_size` only adjusts the training batch "
        "size, reduce `per_device_eval_batch_size` instead.\n"),
    "state-dict-corrupt": ("model_download", "state-dict-file-corrupt", _tb(
        [(f"{TF}/modeling_utils.py", 4890, "_load_pretrained_model", "raise ValueError(")]) +
        "ValueError: The state dictionary of the model you are trying to load is corrupted. Are you sure it was "
        "properly saved?\n"),
    "no-pad-token": ("tokenizer_template", "no-pad-token-batch", STEPS[:0] + _tb(
        [(f"{TF}/models/llama/modeling_llama.py", 1001, "forward", "raise ValueError(")]) +
        "ValueError: Cannot handle batch sizes > 1 if no padding token is defined.\n"),
    # Trainer.compute_loss with a bare backbone: no logits among the outputs -> the model class
    "no-loss-backbone": ("config_error", "trainer-model-without-head", _tb(
        [(f"{TF}/trainer.py", 3790, "compute_loss", "raise ValueError(")]) +
        "ValueError: The model did not return a loss from the inputs, only the following keys: last_hidden_state,"
        "hidden_states. For reference, the inputs it received are input_ids,attention_mask,labels.\n"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_swift_runtime_rules(tmp_path, name):
    family, code, text = CASES[name]
    exp, r = _explain(tmp_path, text)
    assert r is not None, name
    assert (exp.answer, r.code) == (family, code), (name, exp.answer, r.code, r.first.text)
    assert r.fix


@pytest.mark.parametrize("keys", ["logits", "start_logits,end_logits", "loss_logits,past_key_values"])
def test_no_loss_with_logits_stays_data(tmp_path, keys):
    """Outputs with logits: the model has its head; the labels are missing from the inputs (the data)."""
    text = (_tb([(f"{TF}/trainer.py", 3790, "compute_loss", "raise ValueError(")]) +
            f"ValueError: The model did not return a loss from the inputs, only the following keys: {keys}. For "
            "reference, the inputs it received are input_ids,attention_mask.\n")
    exp, r = _explain(tmp_path, text)
    assert exp.answer == "dataset_error" and r is not None and r.code != "trainer-model-without-head"


@pytest.mark.parametrize("spelling", ["route_mapping", "ROUTE_MAPPING"])
@pytest.mark.parametrize("sub", ["dpo", "kto", "grpo-train"])
def test_swift_cli_unknown_subcommand(tmp_path, spelling, sub):
    """swift/cli/main.py (2.x ROUTE_MAPPING, 3.x/4.x route_mapping): the subcommand typed is not one swift has."""
    text = ("$ swift " + sub + " --model Qwen/Qwen3-8B --dataset d.jsonl\n" +
            _tb([("/root/venv/bin/swift", 8, "<module>", "sys.exit(cli_main())"),
                 (f"{SW}/cli/main.py", 62, "cli_main",
                  f"file_path = importlib.util.find_spec({spelling}[method_name]).origin")]) +
            f"KeyError: '{sub}'\n")
    exp, r = _explain(tmp_path, text)
    assert exp.answer == "config_error", (exp.answer, r and r.code)
    assert "rlhf" in (r.fix if r else "")


def test_keyerror_elsewhere_is_not_a_subcommand(tmp_path):
    """A KeyError in another statement is not read as the CLI router's."""
    text = (_tb([(f"{SW}/llm/dataset/preprocessor/core.py", 201, "preprocess", "label = row[method_name]")]) +
            "KeyError: 'grpo'\n")
    exp, r = _explain(tmp_path, text)
    assert not (r is not None and "rlhf_type" in r.fix)


@pytest.mark.parametrize("line", [
    # the same words for a package that is installed but too old stay version_check
    "ImportError: You need to have `accelerate>=0.30.0` to be able to use LOMO optimizers",
    "AssertionError: The enable_return_routed_experts attribute is not supported. Please upgrade vllm to 0.14.0 "
    "or higher",
])
def test_version_bounds_stay_version_check(tmp_path, line):
    exp, r = _explain(tmp_path, HEAD + _tb([(f"{SW}/x.py", 1, "f", "raise")]) + line + "\n")
    assert exp.answer == "version_check", (exp.answer, r and r.code)


@pytest.mark.parametrize("line", [
    "[rank0]: AssertionError: Model: /mnt/llm/Mistral-Small-3.1-24B is not supported.",
    "ValueError: Model: OpenGVLab/InternVL3-8B is not supported.",
    "ValueError: Model glm4v_moe is not supported by megatron-bridge. Please use bridge_backend=\"mcore-bridge\" or "
    "check AutoBridge.list_supported_models() for supported architectures.",
])
def test_megatron_registry_unknown_model(tmp_path, line):
    """Megatron-SWIFT (swift/megatron/arguments/megatron_args.py, 3.x megatron/utils/convert.py): no mcore model
    meta for this model -> the runner's registry does not know it."""
    text = (HEAD + "[INFO:swift] megatron_args: MegatronArguments(...)\n" +
            _tb([(f"{SW}/megatron/utils/convert.py", 72, "convert_hf2mcore", "assert megatron_model_meta is not None")])
            + line + "\n")
    exp, r = _explain(tmp_path, text)
    assert (exp.answer, r and r.code) == ("unrecognized_model_type_adapter", "swift-model-type-unmatched")


# (family, code, exception line, frame) for engine/DeepSpeed/PEFT lines inside swift runs
ENGINE = {
    "trl-server": ("config_error", "rollout-server-unreachable",
                   "ConnectionError: The vLLM server can't be reached at http://10.0.0.5:8001 after 120 seconds. "
                   "Make sure the server is running by running `trl vllm-serve`.",
                   f"{SW}/trainers/rlhf_trainer/vllm_client.py"),
    "swift4-servers": ("config_error", "rollout-server-unreachable",
                       "[rank2]: ConnectionError: Servers not reachable after 300s: ['http://127.0.0.1:8010']",
                       f"{SW}/rlhf_trainers/vllm_client.py"),
    "local-refused": ("config_error", "rollout-server-unreachable",
                      "requests.exceptions.ConnectionError: HTTPConnectionPool(host='localhost', port=8002): Max "
                      "retries exceeded with url: /init_communicator/ (Caused by NewConnectionError('<urllib3."
                      "connection.HTTPConnection object at 0x7f0c>: Failed to establish a new connection: [Errno 111] "
                      "Connection refused'))", "/opt/conda/lib/python3.10/site-packages/requests/adapters.py"),
    "zero2-twice": ("ddp_error", "zero-grad-reduced-twice",
                    "[rank1]: AssertionError: The parameter 1023 has already been reduced. Gradient computed twice for "
                    "this partition. Multiple gradient reduction is currently not supported",
                    "/opt/conda/lib/python3.10/site-packages/deepspeed/runtime/zero/stage_1_and_2.py"),
    "vllm-tp": ("config_error", "vllm-placement-gpus",
                "ValueError: The number of required GPUs exceeds the total number of available GPUs in the placement "
                "group.", "/opt/conda/lib/python3.10/site-packages/vllm/executor/ray_utils.py"),
    "lora-block": ("config_error", "lora-target-type-unsupported",
                   "ValueError: Target module Qwen2_5_VLDecoderLayer(...) is not supported. Currently, only the "
                   "following modules are supported: `torch.nn.Linear`, `torch.nn.Embedding`, `torch.nn.Conv2d`, "
                   "`transformers.pytorch_utils.Conv1D`.",
                   "/opt/conda/lib/python3.10/site-packages/peft/tuners/lora/model.py"),
}


@pytest.mark.parametrize("name", sorted(ENGINE))
def test_engine_lines_in_swift_runs(tmp_path, name):
    family, code, line, frame = ENGINE[name]
    text = HEAD + STEPS + _tb([(frame, 100, "f", "raise")]) + line + "\n" + EXIT
    exp, r = _explain(tmp_path, text)
    assert (exp.answer, r and r.code) == (family, code), name


def test_remote_hub_connection_stays_download(tmp_path):
    """The local-server rule reads only local hosts: the Hub's connection errors stay model_download."""
    text = (HEAD + _tb([("/opt/conda/lib/python3.10/site-packages/requests/adapters.py", 519, "send", "raise")]) +
            "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='huggingface.co', port=443): Max retries "
            "exceeded with url: /api/models/Qwen/Qwen2.5-7B-Instruct/revision/main (Caused by NewConnectionError("
            "'Failed to establish a new connection: [Errno 101] Network is unreachable'))\n")
    exp, r = _explain(tmp_path, text)
    assert exp.answer == "model_download" and r is not None and r.code != "rollout-server-unreachable"


@pytest.mark.parametrize("line", [
    "ValueError: expected sequence of length 256 at dim 1 (got 211)",
    "RuntimeError: stack expects each tensor to be equal size, but got [1024] at entry 0 and [733] at entry 3",
])
def test_unpadded_batch(tmp_path, line):
    """torch's tensor-from-lists / stack refusal on a batch of token rows of unequal length: the samples and their
    collator (dataset_error, as the default-collate frame rule of r3-ver reads the same fact)."""
    text = (STEPS[:0] + "***** Running training *****\n" +
            _tb([(f"{TF}/data/data_collator.py", 92, "torch_default_data_collator",
                  "batch[k] = torch.tensor([f[k] for f in features])")]) + line + "\n")
    exp, r = _explain(tmp_path, text)
    assert (exp.answer, r and r.code) == ("dataset_error", "batch-not-padded")


def test_image_stack_is_not_the_padding_rule(tmp_path):
    """Images of different sizes (3-D shapes) are not token rows: the padding rule does not claim them."""
    text = (_tb([("/opt/conda/lib/python3.10/site-packages/torch/utils/data/_utils/collate.py", 141, "collate",
                  "return torch.stack(batch, 0, out=out)")]) +
            "RuntimeError: stack expects each tensor to be equal size, but got [3, 224, 224] at entry 0 and "
            "[3, 256, 256] at entry 1\n")
    exp, r = _explain(tmp_path, text)
    assert r is None or r.code != "batch-not-padded"


TORCH = "/opt/conda/lib/python3.10/site-packages/torch"
_EMB_TAIL = [(f"{TORCH}/nn/modules/module.py", 1518, "_call_impl", "return forward_call(*args, **kwargs)"),
             (f"{TORCH}/nn/modules/sparse.py", 162, "forward", "return F.embedding("),
             (f"{TORCH}/nn/functional.py", 2233, "embedding",
              "return torch.embedding(weight, input, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse)")]


@pytest.mark.parametrize("call,family", [
    ("inputs_embeds = self.word_embeddings(input_ids)", "tokenizer_template"),
    ("inputs_embeds = self.embed_tokens(input_ids)", "tokenizer_template"),
    ("token_type_embeddings = self.token_type_embeddings(token_type_ids)", "tokenizer_template"),
    ("position_embeddings = self.position_embeddings(position_ids)", "config_error"),
    ("position_embeds = self.wpe(position_ids)", "config_error"),
])
def test_embedding_index_out_of_range(tmp_path, call, family):
    """torch.embedding's CPU check names no table; the model's last embedding call in the traceback does."""
    text = (STEPS + _tb([(f"{TF}/trainer.py", 3318, "training_step", "loss = self.compute_loss(model, inputs)"),
                         (f"{TF}/models/bert/modeling_bert.py", 232, "forward", call), *_EMB_TAIL]) +
            "IndexError: index out of range in self\n")
    exp, r = _explain(tmp_path, text)
    assert exp.answer == family, (call, exp.answer, r and r.code)


def test_embedding_index_without_model_frame_is_not_claimed(tmp_path):
    text = _tb(_EMB_TAIL) + "IndexError: index out of range in self\n"
    exp, r = _explain(tmp_path, text)
    assert exp.answer not in ("tokenizer_template", "config_error")
