"""`explain` on ms-swift's own raise sites outside its argument classes (helper e-swift3, issue 26).

rocm_tune/profiles/swift_raises.py is built by tools/build_swift_raises.py from ms-swift 2.x-4.x's template, dataset,
model, trainer, megatron, infer, rewards and hub code; diagnose/swift_raises.py reads an exception line whose message
is one of them as the family its words and file give. Each log below is written as ms-swift prints it (its
`[INFO:swift]` records, tqdm bars, torchrun's rank prefixes) around a message quoted from ms-swift's source (file named
next to it), with values of our own in its f-string holes; none comes from the corpus.
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs.diagnose.diagnose import diagnose
from rocm_tune.core.runs.diagnose.swift_raises import raise_of

HEAD = ("[INFO:swift] Successfully registered `/usr/local/lib/python3.10/dist-packages/swift/llm/dataset/data/"
        "dataset_info.json`.\n"
        "[INFO:swift] rank: 0, local_rank: 0, world_size: 2, local_world_size: 2\n"
        "[INFO:swift] Loading the model using model_dir: /models/Qwen2.5-VL-7B-Instruct\n"
        "Loading checkpoint shards: 100%|##########| 5/5 [00:07<00:00,  1.52s/it]\n"
        "[INFO:swift] model_parameter_info: PeftModelForCausalLM: 8309.6429M Params (20.1851M Trainable [0.2429%])\n"
        "[WARNING:swift] Setting `use_cache=False` because gradient checkpointing is on.\n")
TRAIN = ("[INFO:swift] The TrainArguments will be saved in: /out/v0-20250301-101010/args.json\n"
         "Train:   0%|          | 0/1200 [00:00<?, ?it/s]\n"
         "Train:   1%|1         | 12/1200 [00:31<51:02,  2.58s/it]\n")


def _tb(frames: list[tuple[str, int, str]], rank: str = "") -> str:
    out = [f"{rank}Traceback (most recent call last):"]
    for path, line, fn in frames:
        out.append(f'{rank}  File "{path}", line {line}, in {fn}')
    return "\n".join(out) + "\n"


SITE = "/usr/local/lib/python3.10/dist-packages/swift"
SFT = [(f"{SITE}/cli/sft.py", 10, "<module>"), (f"{SITE}/llm/train/sft.py", 289, "sft_main"),
       (f"{SITE}/llm/base.py", 47, "main")]
ENCODE = SFT + [(f"{SITE}/llm/template/base.py", 421, "encode"), (f"{SITE}/llm/template/base.py", 1006, "_encode")]


def _explain(tmp_path, text: str):
    log = tmp_path / "sft.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    assert exp.root is not None
    return exp.diagnoses[exp.root]


# (name, expected family, log text, the source of the message)
CASES = [
    # swift/llm/template/base.py (3.x): more images than <image> tags in a row
    ("media-tags", "dataset_error", HEAD + TRAIN + _tb(ENCODE) +
     "AssertionError: Number of media: 3, number of media_tags: 1\n", "swift/llm/template/base.py"),
    # swift/template/templates/glm.py (4.x): GLM-4.1V takes one video per sample; two ranks print the same
    ("glm-video", "dataset_error", HEAD + TRAIN + _tb(ENCODE, "[rank1]: ") +
     "[rank1]: AssertionError: GLM4.1V model only support 1 video, but detected 2 <video> \n" +
     _tb(ENCODE, "[rank0]: ") + "[rank0]: AssertionError: GLM4.1V model only support 1 video, but detected 3 <video> \n",
     "swift/template/templates/glm.py"),
    # swift/template/vision_utils.py (4.x): a truncated video file in the data
    ("video-frames", "dataset_error", HEAD + TRAIN + _tb(ENCODE) +
     "ValueError: Could not read enough frames from video file /data/clips/0042.mp4 (expected 16 frames, got 4)\n",
     "swift/template/vision_utils.py"),
    # swift/template/templates/baidu.py (4.x): the processor's features against the row's image tokens
    ("image-features", "dataset_error", HEAD + TRAIN + _tb(ENCODE, "[rank0]: ") +
     "[rank0]: ValueError: Image features and image tokens do not match: tokens: 256, features 512\n",
     "swift/template/templates/baidu.py"),
    # swift/llm/dataset/preprocessor/core.py (3.0): a user turn dumped by the preprocessor; short dumps need the class
    ("user-message", "dataset_error", HEAD + _tb(SFT + [(f"{SITE}/llm/dataset/preprocessor/core.py", 73,
                                                         "_check_messages")]) +
     "ValueError: user_message: {'role': 'user', 'content': ''}\n", "swift/llm/dataset/preprocessor/core.py"),
    # swift/infer_engine/vllm_engine.py (4.x): GRPO's colocated vLLM too old for LoRA
    ("vllm-enable-lora", "version_check", HEAD +
     "[INFO:swift] Start initializing vLLM engine...\n" + _tb(SFT, "[rank0]: ") +
     "[rank0]: AssertionError: The current version of vLLM does not support `enable_lora`. Please upgrade vLLM.\n",
     "swift/infer_engine/vllm_engine.py"),
    # swift/ray/megatron/pipeline.py (4.x): R3 router replay needs a vLLM that returns routed experts
    ("router-replay-vllm", "version_check", HEAD + _tb(SFT) +
     "ValueError: router_replay_mode=R3 requires vLLM>=0.14.0 to return routed_experts.\n",
     "swift/ray/megatron/pipeline.py"),
    # swift/template/templates/qwen.py (4.x): padding_free packing on Qwen3.5 needs a newer transformers
    ("qwen35-packing", "version_check", HEAD + TRAIN + _tb(ENCODE) +
     "RuntimeError: Qwen3.5 packing/padding_free with sequence_parallel_size=1 requires transformers>=5.9.0 "
     "(current: 5.3.0). \n", "swift/template/templates/qwen.py"),
    # swift/rewards/orm.py (4.x): the accuracy reward's package is not installed
    ("math-verify", "missing_package", HEAD + "[INFO:swift] reward_funcs: ['accuracy', 'format']\n" + _tb(SFT) +
     "AssertionError: The math_verify package is required but not installed. Please install it using "
     "'pip install math_verify'.\n", "swift/rewards/orm.py"),
    # swift/model/model_meta.py (4.x): no model_type for a local checkpoint
    ("no-model-type", "unrecognized_model_type_adapter",
     "[INFO:swift] Successfully registered `dataset_info.json`.\n" + _tb(SFT) +
     'ValueError: Model "/models/my-finetuned-7b" is not supported because no suitable `model_type` was found. '
     "Please refer to the documentation and specify an appropriate `model_type` manually: "
     "https://swift.readthedocs.io/en/latest/Instruction/Supported-models-and-datasets.html\n",
     "swift/model/model_meta.py"),
    # swift/llm/utils/template.py (2.x): two <image> tags in one round of a model that takes one per round
    ("one-media-per-round", "dataset_error",
     "[INFO:swift] Setting template_type: qwen-vl\n" + "100%|##########| 500/500 [00:01<00:00, 412.22it/s]\n" +
     _tb([(f"{SITE}/llm/sft.py", 305, "llm_sft"), (f"{SITE}/llm/utils/template.py", 1212, "_encode")]) +
     "AssertionError: The model includes at most one media per round. However, this round contains 2 media_tags. "
     "query: <image><image>Compare them, response: The left one.\n", "swift/llm/utils/template.py"),
    # swift/llm/utils/dataset.py (2.x): a row whose query is not a string, dumped with its index
    ("query-dump", "dataset_error", "[INFO:swift] Downloading the dataset from ModelScope, dataset_id: local\n" +
     _tb([(f"{SITE}/llm/sft.py", 230, "llm_sft"), (f"{SITE}/llm/utils/dataset.py", 2410, "_check_dataset")]) +
     "ValueError: d['query']: None, i: 1837\n", "swift/llm/utils/dataset.py"),
    # swift/llm/model/register.py (3.12): a local checkpoint whose architecture ms-swift cannot map to a model_type
    ("auto-model-type", "unrecognized_model_type_adapter", "[INFO:swift] Downloading the model from ModelScope Hub\n" +
     _tb(SFT + [(f"{SITE}/llm/model/register.py", 612, "get_model_info_meta")]) +
     "ValueError: Failed to automatically match `model_type`. Please explicitly pass the `model_type` for "
     "`/models/custom-arch`. Recommended `model_types` include: ['qwen2', 'llama'].\n", "swift/llm/model/register.py"),
    # swift/megatron/trainers/rollout_mixin.py (4.x): the rollout's tensor parallel size against the world size
    ("vllm-tp-world", "config_error", HEAD + _tb(SFT, "[rank3]: ") +
     "[rank3]: ValueError: vllm_tensor_parallel_size (3) must divide world size (8) evenly.\n",
     "swift/megatron/trainers/rollout_mixin.py"),
    # swift/rlhf_trainers/grpo_trainer.py (4.x): one plugin per reward model
    ("reward-plugins", "config_error", HEAD + _tb(SFT) +
     "AssertionError: The number of 'reward_model_plugin' (1) does not match the number of 'reward_model' (2). "
     "Please provide a corresponding 'reward_model_plugin' for each 'reward_model'.\n",
     "swift/rlhf_trainers/grpo_trainer.py"),
]


@pytest.mark.parametrize("name,family,text,source", CASES, ids=[c[0] for c in CASES])
def test_swift_raise_family(tmp_path, name, family, text, source):
    d = _explain(tmp_path, text)
    assert d.family == family, (name, d.family, d.code, d.fix)


@pytest.mark.parametrize("name,family,text,source", CASES, ids=[c[0] for c in CASES])
def test_swift_raise_names_its_site(name, family, text, source):
    line = [ln for ln in text.splitlines() if "Error: " in ln][-1]
    got = raise_of(line)
    assert got is not None and got[0] == family
    assert got[1].rsplit("/", 1)[-1] == source.rsplit("/", 1)[-1]


def test_keyerror_quotes_and_class_of_short_dump():
    # a short dump matches only under its own class and from the message's start
    assert raise_of("[rank0]: AssertionError: messages: []") == ("dataset_error", "swift/dataset/preprocessor/core.py")
    assert raise_of("ValueError: messages: []") is None
    assert raise_of("AssertionError: the messages: []") is None
    assert raise_of("ValueError: something else entirely happened here") is None


def test_config_fix_names_the_file(tmp_path):
    d = _explain(tmp_path, next(c[2] for c in CASES if c[0] == "vllm-tp-world"))
    assert "rollout_mixin.py" in d.fix


def test_only_in_a_log_of_ms_swift():
    # ms-swift's template refusal in a log without ms-swift's marks (another runner's copy of the words) is left to the
    # other rules; with its logger's record, its frames or its CLI it is read as ms-swift's
    from rocm_tune.core.runs.diagnose.diagnose import _swift_raise

    line = "AssertionError: Number of media: 3, number of media_tags: 1"
    assert _swift_raise(line, ("[INFO|trainer.py:2128] >> ***** Running training *****\n",)) is None
    for mark in ("[INFO:swift] Setting template_type: qwen2_vl", f'  File "{SITE}/llm/template/base.py", line 9',
                 "$ swift sft --model Qwen/Qwen2-VL-2B-Instruct", "+ megatron sft --load /ckpt"):
        got = _swift_raise(line, (mark,))
        assert got is not None and got[0] == "dataset_error" and "base.py" in got[1]


def test_generator_reads_raise_sites_and_their_families():
    # tools/build_swift_raises.py on code written the way ms-swift writes it (not read from the mirror)
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[1] / "tools" / "build_swift_raises.py"
    spec = importlib.util.spec_from_file_location("build_swift_raises", path)
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    _family, _messages, _usable = tool._family, tool._messages, tool._usable

    src = ("def encode(self, inputs):\n"
           "    msg = f'Number of media: {len(images)}, number of media_tags: {n}'\n"
           "    assert len(images) == n, msg\n"
           "    if vllm_version < '0.6':\n"
           "        raise ValueError(f'router_replay_mode=R3 requires vLLM>=0.14.0 to return {x}.')\n"
           "    raise ImportError('ring-flash-attn is required. Please install it with: pip install ring-flash-attn')\n")
    got = _messages(src)
    assert ("AssertionError", "Number of media: \x00, number of media_tags: \x00") in got
    assert _family("swift/template/base.py", *got[0]) == "dataset_error"
    fam = {m: _family("swift/rlhf_trainers/x.py", e, m) for e, m in got}
    assert fam["router_replay_mode=R3 requires vLLM>=0.14.0 to return \x00."] == "version_check"
    assert fam["ring-flash-attn is required. Please install it with: pip install ring-flash-attn"] == "missing_package"
    # a model's name with a dot or a value compared is no release; a short dump is kept for the data code only
    assert _family("swift/megatron/trainers/x.py", "AssertionError", "num_iters_per_step=\x00 <= 0. No prompts") == \
        "config_error"
    assert _usable("messages: \x00", "dataset_error") and not _usable("messages: \x00", "config_error")
