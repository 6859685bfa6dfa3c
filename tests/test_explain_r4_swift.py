"""explain (issue 26 item 5, r4-swift): ms-swift's own ways of logging and failing, read by their general shape — its
logger records (`[INFO:swift]`, `[WARNING:swift]`) are never a root, an exception it handled (a row it skipped:
its next record says `👆👆👆There are errors in ...`) is weak and no cause of a run that finished, its template's
length refusal is the data's, a model hub's host giving up is the download, and DeepSpeed's import-time op report
is harmless. The lines are as ms-swift's source words them (swift/llm/base.py, swift/llm/dataset/utils.py,
swift/llm/dataset/preprocessor/core.py, swift/llm/template/base.py, swift/llm/__init__.py)."""

from __future__ import annotations

import pytest

from helpers_explain import explain_text

SP = "/opt/conda/lib/python3.10/site-packages"
START = ("[INFO:swift] Successfully registered `" + SP + "/swift/llm/dataset/data/dataset_info.json`.\n"
         "[INFO:swift] rank: 0, local_rank: 0, world_size: 2, local_world_size: 2\n"
         "[INFO:swift] Start time of running main: 2025-03-01 10:00:00.000000\n")
FINISH = ("Train: 100%|██████████| 200/200 [20:00<00:00,  6.00s/it]\n"
          "[INFO:swift] last_model_checkpoint: /out/v0-20250301-100000/checkpoint-200\n"
          "[INFO:swift] End time of running main: 2025-03-01 10:21:00.000000\n")
HANDLED = ("[INFO:swift] Traceback (most recent call last):\n"
           f'  File "{SP}/swift/llm/dataset/utils.py", line 93, in __getitem__\n'
           "    return self.encode_func(data)\n"
           f'  File "{SP}/swift/llm/template/base.py", line 1100, in _encode\n'
           "    res_context_list, loss_scale_list = self._simplify_context_list(\n"
           'TypeError: can only concatenate str (not "NoneType") to str\n'
           "[WARNING:swift] 👆👆👆There are errors in the template.encode, and another piece of data will be randomly "
           "selected.\n")
OOM = ("[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity "
       "of 79.11 GiB of which 1.20 GiB is free. Of the allocated memory 75.10 GiB is allocated by PyTorch, and 1.31 GiB "
       "is reserved by PyTorch but unallocated.\n")


def _explain(tmp_path, text):
    return explain_text(tmp_path, text, "run/train.log")


# ms-swift's records that name a package, a version or an error yet report nothing failed
RECORDS = [
    "[INFO:swift] No vLLM installed, if you are using vLLM, you will get `ImportError: cannot import name "
    "'get_vllm_engine' from 'swift.llm'`",
    "[INFO:swift] No LMDeploy installed, if you are using LMDeploy, you will get `ImportError: cannot import name "
    "'prepare_lmdeploy_engine_template' from 'swift.llm'`",
    "[WARNING:swift] `--moe_permute_fusion` requires TE >= 2.1.0. Setting to False.",
    "[INFO:swift] Dataset filtered, origin length: 66317, filtered dataset length: 65990",
    "2025-05-10 13:53:19 [WARNING:swift] Please install the package: `pip install \"transformers>=4.49\"` to use "
    "this template.",
]


@pytest.mark.parametrize("record", RECORDS)
def test_an_ms_swift_logger_record_is_never_the_root_of_a_finished_run(tmp_path, record):
    exp, r = _explain(tmp_path, START + record + "\n" + FINISH)
    assert r is None or r.benign, (record, r and r.code)
    assert exp.status == "finished"


@pytest.mark.parametrize("record", RECORDS)
def test_an_ms_swift_logger_record_does_not_outrank_the_real_failure(tmp_path, record):
    _, r = _explain(tmp_path, START + record + "\nTrain:  10%|█         | 20/200 [02:00<18:00,  6.00s/it]\n" + OOM)
    assert r is not None and r.family == "gpu_oom"


@pytest.mark.parametrize("record", [
    "[WARNING:swift] No training was carried out, which may be due to the dataset being too small or incorrect usage "
    "of resume_from_checkpoint.",
    "[INFO:swift] Dataset filtered, origin length: 66317, filtered dataset length: 0",
])
def test_ms_swifts_records_that_say_nothing_was_trained_are_still_a_cause(tmp_path, record):
    _, r = _explain(tmp_path, START + record + "\n")
    assert r is not None and r.family == "dataset_error" and not r.benign


def test_a_row_ms_swift_handled_is_no_cause_of_a_run_that_finished(tmp_path):
    exp, r = _explain(tmp_path, START + HANDLED + HANDLED + FINISH)
    assert r is None and exp.status == "finished"


def test_rows_ms_swift_handled_are_the_datas_when_the_run_stopped_with_nothing_else(tmp_path):
    _, r = _explain(tmp_path, START + HANDLED + HANDLED + "Map:  40%|████      | 400/1000\n")
    assert r is not None and r.family == "dataset_error"


def test_a_handled_row_does_not_outrank_the_real_failure(tmp_path):
    _, r = _explain(tmp_path, START + HANDLED + "Train:  10%|█         | 20/200 [02:00<18:00,  6.00s/it]\n" + OOM)
    assert r is not None and r.family == "gpu_oom"


@pytest.mark.parametrize("line", [
    "[rank5]: swift.llm.template.base.MaxLengthError: Current length of row(7756) is larger than the max_length(4096).",
    "ValueError: Please check if the max_length is appropriate.",
])
def test_ms_swifts_template_length_refusal_is_the_data(tmp_path, line):
    tb = ("[rank5]: Traceback (most recent call last):\n"
          f'[rank5]:   File "{SP}/swift/cli/sft.py", line 5, in <module>\n[rank5]:     sft_main()\n'
          f'[rank5]:   File "{SP}/swift/llm/template/base.py", line 1220, in _encode_truncated\n'
          "[rank5]:     raise MaxLengthError(f'Current length of row({length}) is larger'\n")
    _, r = _explain(tmp_path, START + tb + line + "\n")
    assert r is not None and r.family == "dataset_error"


@pytest.mark.parametrize("host, why", [
    ("www.modelscope.cn", "ResponseError('too many 500 error responses')"),
    ("hf-mirror.com", "NewConnectionError('<urllib3.connection.HTTPSConnection object at 0x7f>: Failed to establish "
                      "a new connection: [Errno -2] Name or service not known')"),
])
def test_a_model_hubs_host_giving_up_is_the_download(tmp_path, host, why):
    line = (f"urllib3.exceptions.MaxRetryError: HTTPSConnectionPool(host='{host}', port=443): Max retries exceeded "
            f"with url: /api/v1/models/qwen/Qwen2-VL-7B-Instruct/revisions (Caused by {why})")
    _, r = _explain(tmp_path, START + "Downloading Model to directory: /root/.cache/modelscope/hub/qwen\n" + line + "\n")
    assert r is not None and r.family == "model_download"


def test_deepspeeds_import_time_op_report_is_harmless(tmp_path):
    report = (" [WARNING]  async_io requires the dev libaio .so object and headers but these were not found.\n"
              " [WARNING]  sparse_attn requires a torch version >= 1.5 and < 2.0 but detected 2.1\n"
              " [WARNING]  async_io: please install the libaio-dev package with apt\n")
    exp, r = _explain(tmp_path, START + report + FINISH)
    assert r is None and exp.status == "finished"


def test_another_ranks_failure_run_into_a_record_is_still_read(tmp_path):
    # two ranks writing at once: rank 1's OOM lands on the same line as rank 0's record
    _, r = _explain(tmp_path, START + "[INFO:swift] Saving model checkpoint to /out/checkpoint-20" + OOM)
    assert r is not None and r.family == "gpu_oom"
