"""`explain` on ms-swift logs (issue 26, e-swift): rules read from ms-swift's source, checked on real lines.

ms-swift's parser refuses what the installed release's argument classes do not declare (swift/pipelines/base.py, 3.x
swift/llm/base.py: `ValueError: remaining_argv: [...]`); rocm_tune.profiles.swift_args.py holds every argument name
ms-swift declared at its v2.0-v4.5 tags. The quoted lines come from the public threads named next to them.
"""

from __future__ import annotations

from rocm_tune.core.runs.diagnose.diagnose import diagnose
from rocm_tune.profiles.swift_args import SWIFT_ARG_MAJORS

SP = "/opt/conda/lib/python3.10/site-packages"
PARSE_TB = (f'Traceback (most recent call last):\n  File "{SP}/swift/cli/rlhf.py", line 5, in <module>\n    rlhf_main()\n'
            f'  File "{SP}/swift/llm/base.py", line 19, in __init__\n    self.args = self._parse_args(args)\n'
            f'  File "{SP}/swift/llm/base.py", line 33, in _parse_args\n'
            "    raise ValueError(f'remaining_argv: {remaining_argv}')\n")


def _explain(tmp_path, text: str):
    log = tmp_path / "run.log"
    log.write_text(text)
    return diagnose([str(log)])


def test_the_name_table_is_read_from_the_releases():
    # 2.x spelled the method --sft_type, 3.x renamed it --train_type; --enable_dft_loss arrived in 3.x (ms-swift PR 5355)
    assert SWIFT_ARG_MAJORS["sft_type"] == "2"
    assert "2" not in SWIFT_ARG_MAJORS["train_type"] and "3" in SWIFT_ARG_MAJORS["train_type"]
    assert "3" in SWIFT_ARG_MAJORS["enable_dft_loss"]
    assert "lora_rnak" not in SWIFT_ARG_MAJORS


def test_an_option_of_another_release_is_version_skew(tmp_path):
    # modelscope/ms-swift#2713: swift 2.6.1 running the 3.x KTO example
    exp = _explain(tmp_path, PARSE_TB + "ValueError: remaining_argv: ['--train_type', 'sft']\n")
    assert exp.answer == "version_check"
    assert "train_type" in exp.diagnoses[exp.root].title


def test_an_option_no_release_knows_stays_the_configuration(tmp_path):
    # the same refusal with a misspelt option (swift's message template, swift/pipelines/base.py)
    exp = _explain(tmp_path, PARSE_TB + "ValueError: remaining_argv: ['--lora_rnak', '8']\n")
    assert exp.answer == "config_error"


def test_a_2x_command_on_3x_argument_classes_is_version_skew(tmp_path):
    # modelscope/ms-swift#2770: a swift 2.x command line; 3.x's ModelArguments then asks for --model
    text = (f"run sh: `/usr/bin/python {SP}/swift/cli/sft.py --model_type qwen2-vl-2b-instruct --model_id_or_path "
            "/home/nas01/Qwen2-VL-2B-Instruct --sft_type lora --dataset data1226.jsonl`\n"
            f'Traceback (most recent call last):\n  File "{SP}/swift/llm/argument/base_args/model_args.py", line 143, '
            "in __post_init__\n    raise ValueError(f'Please set --model <model_id_or_path>`, model: {self.model}')\n"
            "ValueError: Please set --model <model_id_or_path>`, model: None\n")
    assert _explain(tmp_path, text).answer == "version_check"


def test_a_3x_command_refused_by_3x_stays_the_configuration(tmp_path):
    # modelscope/ms-swift#5328: a 3.x command whose value the 3.x argument check refuses (no other release involved)
    text = (f"run sh: `/usr/bin/python {SP}/swift/cli/sft.py --model /data/model/InternVL2_5-4B --train_type full "
            "--freeze_vit true --max_length 8192 --deepspeed zero2 --num_train_epochs 3`\n"
            f'Traceback (most recent call last):\n  File "{SP}/swift/llm/argument/train_args.py", line 180, in '
            "_init_deepspeed\n    raise ValueError('DeepSpeed is not compatible with `device_map`. '\n"
            "ValueError: DeepSpeed is not compatible with `device_map`. n_gpu: 8, local_world_size: 1.\n")
    assert _explain(tmp_path, text).answer == "config_error"


def test_swift_start_up_records_and_its_teardown_are_not_the_cause(tmp_path):
    # modelscope/ms-swift#4963 (swift export start-up records) ending in the rank's OOM and swift's cli teardown
    text = ("[INFO:swift] swift.__version__: 3.5.1\n[INFO:swift] merge_device_map: None\n"
            "[INFO:swift] attn_impl: flash_attn\n[INFO:swift] model_kwargs: {'device_map': 'cuda:0'}\n"
            "[INFO:swift] Setting image_factor: 28. You can adjust this hyperparameter through the environment "
            "variable: `IMAGE_FACTOR`.\n[WARNING:swift] Failed to import `liger_kernel`\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.15 GiB. GPU 0 has a total capacity of "
            "79.35 GiB of which 188.75 MiB is free.\n"
            "subprocess.CalledProcessError: Command '['/usr/bin/python', '-m', 'torch.distributed.run', "
            f"'--nproc_per_node', '1', '{SP}/swift/cli/export.py']' returned non-zero exit status 1.\n")
    exp = _explain(tmp_path, text)
    assert exp.answer == "gpu_oom"
    assert "swift]" not in exp.diagnoses[exp.root].first.text
