"""explain (issue 26 item 5, e-ver): version_check read from the message families the tools themselves raise, not from
one thread's phrase. Each rule is written from the source of the message (named next to each line) and checked on the
verbatim line of a real log, and on the shape where the versions agree (the rule must not fire there).
"""

from __future__ import annotations

import pytest

from rocm_tune.core.runs import catalogue as cat
from rocm_tune.core.runs.diagnose.diagnose import diagnose


def _root(tmp_path, text):
    log = tmp_path / "train.log"
    log.write_text(text)
    exp = diagnose([str(log)])
    assert exp.root is not None, [d.code for d in exp.diagnoses]
    return exp.diagnoses[exp.root]


# (expected code, verbatim line, where the message comes from / the public log it was seen in)
SOURCE_SHAPES = [
    ("extension-abi-mismatch", "OSError: libtorch_cuda_cu.so: cannot open shared object file: No such file or "
     "directory", "torch 1.x's library an extension links, gone since torch 2.0 (pyg-team/pytorch_geometric#8365)"),
    ("extension-abi-mismatch", "OSError: libc10_hip.so: cannot open shared object file: No such file or directory",
     "the ROCm torch's library a torch-scatter ROCm wheel links, under another torch build (Looong01/pyg-rocm-build#1)"),
    ("version-check-failed", "ValueError: Unable to compare versions for packaging>=20.0: need=20.0 found=None. This "
     "is unusual. Consider reinstalling packaging.", "transformers utils/versions.py _compare_versions "
     "(hiyouga/LlamaFactory#6794)"),
    ("version-required", 'ValueError: Muon optimizer requires "megatron-core>=0.16".',
     "ms-swift: a requirement in double quotes"),
    ("version-required", "ImportError: DeepSpeed version must be >= 0.9.3. Please update DeepSpeed.",
     "accelerate utils/deepspeed: `<lib> version must be >= X`"),
    ("version-required", "RuntimeError: Torch version must be 2.5 or higher to use symmetric memory. ",
     "DeepSpeed: `version must be X or higher`"),
    ("version-required", "RuntimeError: Current torch version does not have device mesh",
     "DeepSpeed: `Current torch version does not have ...`"),
    ("version-required", "ValueError: rollout_importance_sampling_mode is not supported in vLLM version < 0.10.2, "
     "please upgrade vLLM", "ms-swift: `not supported in <lib> version < X`"),
    ("version-required", "ImportError: the version of vLLM is too old, please upgrade vLLM",
     "ms-swift: `the version of <lib> is too old`"),
    ("version-required", "ERROR: No matching distribution found for vllm==0.6.3+rocm624",
     "pip's resolver: a pinned version with no distribution on this index"),
    ("version-required", "ERROR: torch-2.6.0+rocm6.2.4-cp312-cp312-linux_x86_64.whl is not a supported wheel on this "
     "platform.", "pip: a wheel whose Python/ABI/platform tags are not this interpreter's"),
    ("version-required", "31.70 ERROR: Cannot install -r requirements.txt (line 4) and torch 2.6.0+rocm6.4.1.git1ded221d"
     " (from https://repo.radeon.com/rocm/manylinux/rocm-rel-6.4.1/torch-2.6.0%2Brocm6.4.1.git1ded221d-cp310-cp310-"
     "linux_x86_64.whl) because these package versions have conflicting dependencies.",
     "pip's resolver in a docker build (devnen/Chatterbox-TTS-Server#92)"),
    ("extension-abi-mismatch", "RuntimeError: Detected that PyTorch and torch_scatter were compiled with different "
     "CUDA versions. PyTorch has CUDA version 11.8 and torch_scatter has CUDA version 12.1. Please reinstall the "
     "torch_scatter that matches your PyTorch install.", "torch_scatter/__init__.py, the check torchvision's copies"),
    ("bnb-rocm-binary-mismatch", "No prebuilt binary for ROCm 6.1, loading ROCm 6.4 instead. Set BNB_ROCM_VERSION to "
     "override.", "bitsandbytes cextension.py get_cuda_bnb_library_path (unslothai/unsloth#10273)"),
]


@pytest.mark.parametrize("code,line,src", SOURCE_SHAPES, ids=[f"{c}-{i}" for i, (c, _, _) in enumerate(SOURCE_SHAPES)])
def test_message_families_from_the_tools_sources_are_version_check(code, line, src):
    hit = cat.best_match(line)
    assert hit is not None, src
    assert hit[0].code == code and hit[0].family == "version_check", (src, [s.code for s, _ in cat.match_line(line)])


XFORMERS_FAIL = """WARNING:xformers:WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:
    PyTorch {built} with CUDA 1201 (you have {have})
    Python  3.10.14 (you have 3.10.14)
  Please reinstall xformers (see https://github.com/facebookresearch/xformers#installing-xformers)
Traceback (most recent call last):
  File "/home/u/venv/lib/python3.10/site-packages/diffusers/models/attention_processor.py", line 260, in set_use_memory_efficient_attention_xformers
    _ = xformers.ops.memory_efficient_attention(
NotImplementedError: No operator found for `memory_efficient_attention_forward` with inputs:
"""


def test_an_extension_built_for_the_same_runtime_at_another_torch_is_the_wrong_build_too(tmp_path):
    """xformers' report with the same GPU runtime on both sides (+cu121 / +cu121) but another torch release: the fix
    is the matching wheel, so version_check (test expectation follows FAMILIES.md amended rule 1; it was the failing
    attention op's family under the old border). The same torch on both sides names no mismatch."""
    r = _root(tmp_path, XFORMERS_FAIL.format(built="2.3.0+cu121", have="2.1.0+cu121"))
    assert r.family == "version_check", (r.code, r.family)
    assert "another torch release" in r.title
    r = _root(tmp_path, XFORMERS_FAIL.format(built="2.3.0+cu121", have="2.3.0+cu121"))
    assert r.family == "flash_attn_error", (r.code, r.family)


def test_a_library_of_another_gpu_stack_is_not_torchs_own():
    """A CUDA/ROCm runtime library missing stays the runtime's reading (missing-shared-library / rocm-library-missing):
    only torch's own libraries (libtorch_*, libc10_*) name an extension built for another torch."""
    line = "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory"
    assert all(s.code != "extension-abi-mismatch" for s, _ in cat.match_line(line))


def test_xformers_wrong_runtime_is_the_cause_of_the_missing_attention_op(tmp_path):
    """facebookresearch/xformers#1070 (RX 7900 GRE): a CUDA wheel under a ROCm torch; the missing operator after the
    note is read as the versions. The note alone before another failure stays a note (test_explain_r3_ver)."""
    r = _root(tmp_path, XFORMERS_FAIL.format(built="2.3.1+cu121", have="2.3.1+rocm6.0"))
    assert r.family == "version_check", (r.code, r.family)
    assert "another GPU runtime" in r.title


def test_a_requirement_not_found_while_the_package_is_in_use_is_its_version(tmp_path):
    """pkg_resources' DistributionNotFound for a versioned requirement whose package the same log shows installed and
    running (its frames under site-packages): the range, not a missing package (hiyouga/LlamaFactory#6884's shape)."""
    r = _root(tmp_path, """Traceback (most recent call last):
  File "/root/miniconda3/envs/lf/bin/llamafactory-cli", line 5, in <module>
    from llamafactory.cli import main
  File "/root/miniconda3/envs/lf/lib/python3.10/site-packages/transformers/modeling_utils.py", line 41, in <module>
    import pkg_resources
  File "/root/miniconda3/envs/lf/lib/python3.10/site-packages/pkg_resources/__init__.py", line 869, in resolve
    raise DistributionNotFound(req, requirers)
pkg_resources.DistributionNotFound: The 'transformers!=4.46.*,!=4.47.*,!=4.48.0,<=4.48.3,>=4.41.2' distribution was not found and is required by llamafactory
""")
    assert r.family == "version_check", (r.code, r.family)
    assert "transformers" in r.title and "<=4.48.3" in r.title


def test_a_requirement_not_found_and_not_installed_stays_a_missing_package(tmp_path):
    """The same message with nothing in the log showing the package: it is not installed (transformers' versions.py,
    pkg_resources for a plain requirement)."""
    r = _root(tmp_path, "pkg_resources.DistributionNotFound: The 'tqdm>=4.27' distribution was not found and is "
                        "required by the application\n")
    assert r.family == "missing_package", (r.code, r.family)


def test_a_model_component_lacking_an_attribute_is_another_transformers_release(tmp_path):
    """transformers' modeling files name their blocks after the model (<Model>Attention, <Model>DecoderLayer, ...);
    an attribute of one missing is code written for another release (4.48 moved rotary_emb out of the attention)."""
    r = _root(tmp_path, "AttributeError: 'LlamaAttention' object has no attribute 'rotary_emb'\n")
    assert r.family == "version_check", (r.code, r.family)
    r = _root(tmp_path, "AttributeError: 'Qwen2DecoderLayer' object has no attribute 'self_attn_layer_norm'\n")
    assert r.family == "version_check", (r.code, r.family)
    # a plain tensor/None/list is the calling code's own bug, not a release's internals: the message rule says nothing
    ver_rules = [rx for rx, fam, _ in cat.MESSAGE_RULES if fam == "version_check"]
    for msg in ("'NoneType' object has no attribute 'shape'", "'Tensor' object has no attribute 'get'",
                "'list' object has no attribute 'items'"):
        assert not any(rx.search(msg) for rx in ver_rules), msg
    assert any(rx.search("'MixtralSparseMoeBlock' object has no attribute 'jitter_noise'") for rx in ver_rules)


def test_an_attribute_missing_inside_an_editable_runner_checkout_is_installed_code(tmp_path):
    """LLaMA-Factory / ms-swift installed with `pip install -e .` run from their checkout, not site-packages: an
    attribute their code expects of another library's object is that library's other release."""
    text = """Traceback (most recent call last):
  File "/root/LLaMA-Factory/src/llamafactory/launcher.py", line 23, in <module>
    launch()
  File "/root/LLaMA-Factory/src/llamafactory/train/sft/trainer.py", line 91, in create_optimizer
    self.optimizer.train()
AttributeError: 'AcceleratedOptimizer' object has no attribute 'train'
"""
    r = _root(tmp_path, text)
    assert r.family == "version_check", (r.code, r.family)
    # the same in the user's own script is the script's bug
    own = text.replace("/root/LLaMA-Factory/src/llamafactory/launcher.py", "/home/u/my_train.py").replace(
        "/root/LLaMA-Factory/src/llamafactory/train/sft/trainer.py", "/home/u/my_trainer.py")
    r = _root(tmp_path, own)
    assert r.family != "version_check", (r.code, r.family)


def test_bitsandbytes_loading_another_runtimes_library_is_the_cause_only_at_the_end(tmp_path):
    """bitsandbytes' fallback to another ROCm/CUDA build is a sign when the log ends there; a run that goes on past it
    is not explained by it."""
    r = _root(tmp_path, "No prebuilt binary for ROCm 6.1, loading ROCm 6.4 instead. Set BNB_ROCM_VERSION to override.\n")
    assert (r.code, r.family) == ("bnb-rocm-binary-mismatch", "version_check")
    log = tmp_path / "ok.log"
    log.write_text("No prebuilt binary for ROCm 6.1, loading ROCm 6.4 instead. Set BNB_ROCM_VERSION to override.\n"
                   "{'loss': 1.2, 'grad_norm': 0.8, 'learning_rate': 2e-05, 'epoch': 0.1}\n"
                   "{'train_runtime': 812.4, 'train_loss': 1.05, 'epoch': 1.0}\n")
    exp = diagnose([str(log)])
    assert exp.root is None or exp.diagnoses[exp.root].code != "bnb-rocm-binary-mismatch"


def test_an_unpack_of_another_arity_in_installed_or_remote_code_is_another_release(tmp_path):
    """zai-org/GLM-4#301: the model's remote code unpacks the cache as transformers' older release returned it;
    facebookresearch/xformers#1188: xformers unpacks another flash-attn build's result. The same in the user's own
    script is the script's bug."""
    remote = """Traceback (most recent call last):
  File "/home/xxx/.cache/huggingface/modules/transformers_modules/glm-4v-9b/modeling_chatglm.py", line 790, in forward
    layer_ret = layer(
  File "/home/xxx/.conda/envs/llm310/lib/python3.10/site-packages/accelerate/hooks.py", line 169, in new_forward
    output = module._old_forward(*args, **kwargs)
  File "/home/xxx/.cache/huggingface/modules/transformers_modules/glm-4v-9b/modeling_chatglm.py", line 562, in forward
    cache_k, cache_v = kv_cache
ValueError: too many values to unpack (expected 2)
"""
    r = _root(tmp_path, remote)
    assert r.family == "version_check", (r.code, r.family)
    lib = """Traceback (most recent call last):
  File "C:\\\\ComfyUI\\\\python310\\\\lib\\\\site-packages\\\\xformers\\\\ops\\\\fmha\\\\flash.py", line 139, in _flash_fwd
    out, softmax_lse, p, rng_state = _C_flashattention.fwd(
ValueError: too many values to unpack (expected 4)
"""
    r = _root(tmp_path, lib)
    assert r.family == "version_check", (r.code, r.family)
    own = """Traceback (most recent call last):
  File "/home/u/project/train.py", line 73, in step
    x, y = batch
ValueError: not enough values to unpack (expected 2, got 1)
"""
    r = _root(tmp_path, own)
    assert r.family != "version_check", (r.code, r.family)
