"""Where users name their model when the model field does not (issue 26, helper c-unk2): data only.

``check`` reads the model from ``model_name_or_path`` (or the runner's own flag). Where that is missing, a
placeholder, a shell variable no file sets or a local folder whose name says no size, core/model/clues.py looks
for the model the user names elsewhere in the same files, in the order of ``CLUE_ORDER``.

``LF_TEMPLATE_MODELS``: LLaMA-Factory's ``template`` -> the models its model registry registers with that
template (hiyouga/LLaMA-Factory src/llamafactory/extras/constants.py ``register_model_group(models=...,
template=...)``, commit ff6d4d12e; one name per family and size, quantized re-uploads left out). A template names
a family (often several: ``qwen2_vl`` serves Qwen2-VL and Qwen2.5-VL), never a size: the answer is then bounded
over these sizes.
"""

from __future__ import annotations

# a model field that names no model: an example's placeholder (LLaMA-Factory's PATH_TO_MODEL, the READMEs'
# /path/to/model, <model>, YOUR_MODEL_PATH). Matched against the whole value, case-insensitive.
PLACEHOLDERS = (
    r"<[^<>]*>",
    r"\{[^{}]*\}",
    r"(?:/)?path/to/[\w./-]*",
    r"path[_-]?to[_-]?(?:the[_-]?)?(?:your[_-]?)?(?:base[_-]?|pretrained[_-]?)?model(?:[_-]?(?:path|dir))?",
    r"(?:your|my)[_-]?(?:own[_-]?)?(?:base[_-]?|pretrained[_-]?|local[_-]?|hf[_-]?)?model(?:[_-]?(?:name|path|dir|id))?",
    r"(?:base[_-]?|pretrained[_-]?)?model[_-]?(?:name[_-]?or[_-]?path|path|dir|name|id)",
    r"x+|\.{3}|todo|tbd|changeme|none|null",
)

# the settings that name the tokenizer (HF Trainer's --tokenizer_name, TRL/LLaMA-Factory's tokenizer_name_or_path,
# axolotl's tokenizer_config): a fine-tune keeps its base's tokenizer, so a tokenizer named by hub id names the base.
# Read first: it names the model itself where the run names only name the run.
TOKENIZER_KEYS = ("tokenizer_name_or_path", "tokenizer_name", "tokenizer_path", "tokenizer_config", "tokenizer")

# a download of the model in the same files names it by hub id (read after the tokenizer, before the run names):
# the huggingface_hub CLI (`huggingface-cli download REPO_ID [FILES] --local-dir DIR`, `hf download REPO_ID`), the
# ModelScope CLI (`modelscope download --model REPO_ID --local_dir DIR`), `snapshot_download(repo_id=...)` of
# huggingface_hub and modelscope, and `git clone` of a Hugging Face / hf-mirror / ModelScope model repository
DOWNLOAD_PATTERNS = (
    r"\b(?:huggingface-cli|hf)\s+download\s+(?:--?[\w-]+(?:[= ]\S+)?\s+)*([\w.-]+/[\w.-]+)",
    r"\bmodelscope\s+download\b.*?--model[= ]\s*[\"']?([\w.-]+/[\w.-]+)",
    r"\bsnapshot_download\(\s*(?:(?:repo_id|model_id)\s*=\s*)?[\"']([\w.-]+/[\w.-]+)[\"']",
    r"\bgit\s+clone\s+(?:--?\S+\s+)*https?://(?:huggingface\.co|hf-mirror\.com|(?:www\.)?modelscope\.cn/models)/"
    r"([\w.-]+/[\w.-]+?)(?:\.git)?(?:[\s\"']|$)",
)

# the settings (canonical or native keys) that name the run, in the order they are read
RUN_NAME_KEYS = ("output_dir", "run_name", "wandb_project", "wandb_name", "wandb_run_name", "project",
                 "hub_model_id", "logging_dir", "exp_name", "experiment_name", "save_dir")

# the sources, in the order check reads them (the answer says which one named the model)
CLUE_ORDER = ("template", "tokenizer", "downloads", "run names", "file name", "comments", "script variables and echo lines", "dataset names")

LF_TEMPLATE_MODELS: dict[str, tuple[str, ...]] = {
    'breeze': ('Breeze-7B',),
    'chatglm3': ('ChatGLM3-6B-Base',),
    'cohere': ('Aya-23-8B-Chat', 'Aya-23-35B-Chat', 'CommandR-35B-Chat', 'CommandR-Plus-104B-Chat',),
    'cpm4': ('MiniCPM4-0.5B-Chat', 'MiniCPM4-8B-Chat', 'MiniCPM4.1-8B-Chat',),
    'dbrx': ('DBRX-132B-Base',),
    'deepseek': ('DeepSeek-LLM-7B-Base', 'DeepSeek-LLM-67B-Base', 'DeepSeek-Math-7B-Base',
        'DeepSeek-MoE-16B-Base', 'DeepSeek-V2-16B-Base', 'DeepSeek-V2-236B-Base',
        'DeepSeek-Coder-V2-16B-Base', 'DeepSeek-Coder-V2-236B-Base',),
    'deepseek3': ('DeepSeek-V2-0628-236B-Chat', 'DeepSeek-V2.5-236B-Chat', 'DeepSeek-V3-671B-Base',),
    'deepseekcoder': ('DeepSeek-Coder-6.7B-Base', 'DeepSeek-Coder-7B-Base', 'DeepSeek-Coder-33B-Base',),
    'deepseekr1': ('DeepSeek-R1-1.5B-Distill', 'DeepSeek-R1-7B-Distill', 'DeepSeek-R1-8B-Distill',
        'DeepSeek-R1-14B-Distill', 'DeepSeek-R1-32B-Distill', 'DeepSeek-R1-70B-Distill',
        'DeepSeek-R1-671B-Chat-Zero',),
    'empty': ('MiniCPM5-1B-Chat',),
    'ernie': ('ERNIE-4.5-21B-A3B-Thinking',),
    'ernie_nothink': ('ERNIE-4.5-0.3B-Instruct', 'ERNIE-4.5-21B-A3B-Instruct',
        'ERNIE-4.5-300B-A47B-Instruct',),
    'ernie_vl': ('ERNIE-4.5-VL-28B-A3B-Instruct', 'ERNIE-4.5-VL-424B-A47B-Instruct',),
    'exaone': ('EXAONE-3.0-7.8B-Instruct',),
    'falcon': ('Falcon-7B', 'Falcon-11B', 'Falcon-40B', 'Falcon-180B',),
    'falcon_h1': ('Falcon-H1-0.5B-Base', 'Falcon-H1-1.5B-Base', 'Falcon-H1-3B-Base',
        'Falcon-H1-7B-Base', 'Falcon-H1-34B-Base',),
    'gemma': ('CodeGemma-7B', 'CodeGemma-1.1-2B', 'CodeGemma-1.1-7B-Instruct', 'Gemma-2B', 'Gemma-7B',
        'Gemma-1.1-2B-Instruct', 'Gemma-1.1-7B-Instruct',),
    'gemma2': ('Gemma-2-2B', 'Gemma-2-9B', 'Gemma-2-27B', 'Gemma-3-270M', 'Gemma-3-1B',
        'MedGemma-27B-Instruct',),
    'gemma3': ('Gemma-3-4B', 'Gemma-3-12B', 'Gemma-3-27B', 'MedGemma-4B', 'MedGemma-27B-Instruct',),
    'gemma3n': ('Gemma-3n-E2B', 'Gemma-3n-E4B',),
    'gemma4': ('Gemma-4-26B-A4B-Thinking', 'Gemma-4-31B-Thinking',),
    'gemma4n': ('Gemma-4-E2B-Thinking', 'Gemma-4-E4B-Thinking', 'Gemma-4-12B-Thinking',),
    'glm4': ('GLM-4-9B', 'GLM-4-0414-32B-Base',),
    'glm4v': ('GLM-4.1V-9B-Base',),
    'glmz1': ('GLM-Z1-0414-9B-Chat', 'GLM-Z1-0414-32B-Chat',),
    'gpt_oss': ('GPT-OSS-20B-Thinking', 'GPT-OSS-120B-Thinking',),
    'granite3': ('Granite-3.0-1B-A400M-Base', 'Granite-3.0-3B-A800M-Base', 'Granite-3.0-2B-Base',
        'Granite-3.0-8B-Base', 'Granite-3.1-1B-A400M-Base', 'Granite-3.1-3B-A800M-Base',
        'Granite-3.1-2B-Base', 'Granite-3.1-8B-Base', 'Granite-3.2-2B-Instruct',
        'Granite-3.2-8B-Instruct', 'Granite-3.3-2B-Base', 'Granite-3.3-8B-Base',),
    'granite3_vision': ('Granite-Vision-3.2-2B',),
    'hunyuan': ('Hunyuan-0.5B-Instruct', 'Hunyuan-1.8B-Instruct', 'Hunyuan-4B-Instruct',
        'Hunyuan-7B-Instruct', 'Hunyuan-MT-7B-Instruct', 'HY-MT1.5-7B-Instruct',),
    'hunyuan_small': ('HY-MT1.5-1.8B-Instruct',),
    'hy_dense_1_8b': ('Hy-MT2-1.8B-Instruct',),
    'hy_dense_7b': ('Hy-MT2-7B-Instruct',),
    'index': ('Index-1.9B-Base',),
    'intern2': ('InternLM2-7B', 'InternLM2-20B', 'InternLM2.5-1.8B', 'InternLM2.5-7B',
        'InternLM2.5-20B', 'InternLM3-8B-Chat',),
    'intern_vl': ('InternVL2.5-2B-MPO', 'InternVL2.5-8B-MPO', 'InternVL3-1B-hf', 'InternVL3-2B-hf',
        'InternVL3-8B-hf', 'InternVL3-14B-hf', 'InternVL3-38B-hf', 'InternVL3-78B-hf',
        'InternVL3.5-1B-hf', 'InternVL3.5-2B-hf', 'InternVL3.5-4B-hf', 'InternVL3.5-8B-hf',
        'InternVL3.5-14B-hf', 'InternVL3.5-30B-A3B-hf', 'InternVL3.5-38B-hf',),
    'keye_vl': ('Keye-VL-8B-Chat',),
    'lfm2': ('LFM2.5-1.2B',),
    'lfm2_vl': ('LFM2.5-VL-1.6B',),
    'llama2': ('Llama-2-7B', 'Llama-2-13B', 'Llama-2-70B',),
    'llama2_zh': ('Chinese-Llama-2-1.3B', 'Chinese-Llama-2-7B', 'Chinese-Llama-2-13B',
        'Chinese-Alpaca-2-1.3B-Chat', 'Chinese-Alpaca-2-7B-Chat', 'Chinese-Alpaca-2-13B-Chat',),
    'llama3': ('Llama-3-8B', 'Llama-3-70B', 'Llama-3.1-8B', 'Llama-3.1-70B', 'Llama-3.1-405B',
        'Llama-3.2-1B', 'Llama-3.2-3B', 'Llama-3.3-70B-Instruct', 'MobileLLM-R1-140M-Base',
        'MobileLLM-R1-360M-Base', 'MobileLLM-R1-950M-Base',),
    'llama4': ('Llama-4-Scout-17B-16E', 'Llama-4-Maverick-17B-128E',),
    'llava': ('LLaVA-1.5-7B-Chat', 'LLaVA-1.5-13B-Chat',),
    'llava_next': ('LLaVA-NeXT-7B-Chat', 'LLaVA-NeXT-13B-Chat',),
    'llava_next_llama3': ('LLaVA-NeXT-Llama3-8B-Chat',),
    'llava_next_mistral': ('LLaVA-NeXT-Mistral-7B-Chat',),
    'llava_next_qwen': ('LLaVA-NeXT-72B-Chat', 'LLaVA-NeXT-110B-Chat',),
    'llava_next_video': ('LLaVA-NeXT-Video-7B-Chat',),
    'llava_next_video_mistral': ('LLaVA-NeXT-Video-7B-32k-Chat',),
    'llava_next_video_yi': ('LLaVA-NeXT-Video-34B-Chat',),
    'llava_next_yi': ('LLaVA-NeXT-34B-Chat',),
    'mimo': ('MiMo-7B-Base',),
    'mimo_vl': ('MiMo-7B-VL-RL', 'MiMo-VL-7B-RL-2508',),
    'ministral': ('Ministral-8B-Instruct-2410',),
    'ministral3': ('Ministral-3-3B-Base-2512', 'Ministral-3-8B-Base-2512', 'Ministral-3-14B-Base-2512',),
    'mistral': ('Codestral-22B-v0.1-Chat', 'Mistral-7B-v0.1', 'Mixtral-8x7B-v0.1', 'Mixtral-8x22B-v0.1',),
    'mistral_small': ('Mistral-Small-24B-Base-2501', 'Mistral-Small-3.1-24B-Base',
        'Mistral-Small-3.2-24B-Instruct',),
    'mllama': ('Llama-3.2-11B-Vision', 'Llama-3.2-90B-Vision',),
    'moonlight': ('Moonlight-16B-A3B',),
    'openchat': ('OpenChat3.5-7B-Chat',),
    'openchat-3.6': ('OpenChat3.6-8B-Chat',),
    'opencoder': ('OpenCoder-1.5B-Base', 'OpenCoder-8B-Base',),
    'paligemma': ('PaliGemma-3B-pt-224', 'PaliGemma2-3B-pt-224', 'PaliGemma2-10B-pt-224',
        'PaliGemma2-28B-pt-224',),
    'phi': ('Phi-3-4B-4k-Instruct', 'Phi-3-14B-8k-Instruct', 'Phi-3.5-4B-instruct',
        'Phi-3.5-MoE-42B-A6.6B-instruct',),
    'phi4': ('Phi-4-14B-Instruct',),
    'phi4_mini': ('Phi-4-3.8B-instruct',),
    'phi_small': ('Phi-3-7B-8k-Instruct',),
    'pixtral': ('Pixtral-12B',),
    'qwen': ('Kimi-Dev-72B-Instruct', 'Qwen2-0.5B', 'Qwen2-1.5B', 'Qwen2-7B', 'Qwen2-72B',
        'Qwen2-MoE-57B-A14B', 'Qwen2-Math-1.5B', 'Qwen2-Math-7B', 'Qwen2-Math-72B', 'Qwen2.5-0.5B',
        'Qwen2.5-1.5B', 'Qwen2.5-3B', 'Qwen2.5-7B', 'Qwen2.5-14B', 'Qwen2.5-32B', 'Qwen2.5-72B',
        'Qwen2.5-Coder-0.5B', 'Qwen2.5-Coder-1.5B', 'Qwen2.5-Coder-3B', 'Qwen2.5-Coder-7B',
        'Qwen2.5-Coder-14B', 'Qwen2.5-Coder-32B', 'Qwen2.5-Math-1.5B', 'Qwen2.5-Math-7B',
        'Qwen2.5-Math-72B', 'QwQ-32B-Preview-Instruct',),
    'qwen2_audio': ('Qwen2-Audio-7B',),
    'qwen2_omni': ('Qwen2.5-Omni-3B', 'Qwen2.5-Omni-7B',),
    'qwen2_vl': ('MiMo-7B-VL-Instruct', 'MiMo-VL-7B-SFT-2508', 'Qwen2-VL-2B', 'Qwen2-VL-7B',
        'Qwen2-VL-72B', 'QVQ-72B-Preview', 'Qwen2.5-VL-3B-Instruct', 'Qwen2.5-VL-7B-Instruct',
        'Qwen2.5-VL-32B-Instruct', 'Qwen2.5-VL-72B-Instruct',),
    'qwen3': ('Qwen3-0.6B-Base', 'Qwen3-1.7B-Base', 'Qwen3-4B-Base', 'Qwen3-8B-Base', 'Qwen3-14B-Base',
        'Qwen3-30B-A3B-Base', 'Qwen3-32B-Thinking', 'Qwen3-235B-A22B-Thinking',
        'Qwen3-Next-80B-A3B-Thinking', 'VibeThinker-1.5B', 'Qwen-AgentWorld-35B-A3B-Thinking',),
    'qwen3_5': ('Qwen3.5-0.8B-Base', 'Qwen3.5-2B-Base', 'Qwen3.5-4B-Base', 'Qwen3.5-9B-Base',
        'Qwen3.5-35B-A3B-Base', 'Qwen3.5-27B-Thinking', 'Qwen3.5-122B-A10B-Thinking',
        'Qwen3.5-397B-A17B-Thinking',),
    'qwen3_nothink': ('Qwen3-4B-Instruct-2507', 'Qwen3-30B-A3B-Instruct-2507',
        'Qwen3-235B-A22B-Instruct-2507', 'Qwen3-Next-80B-A3B-Instruct',),
    'qwen3_omni': ('Qwen3-Omni-30B-A3B-Thinking',),
    'qwen3_omni_nothink': ('Qwen3-Omni-30B-A3B-Captioner',),
    'qwen3_vl': ('Qwen3-VL-2B-Thinking', 'Qwen3-VL-4B-Thinking', 'Qwen3-VL-8B-Thinking',
        'Qwen3-VL-32B-Thinking', 'Qwen3-VL-30B-A3B-Thinking', 'Qwen3-VL-235B-A22B-Thinking',),
    'qwen3_vl_nothink': ('Qwen3-VL-2B-Instruct', 'Qwen3-VL-4B-Instruct', 'Qwen3-VL-8B-Instruct',
        'Qwen3-VL-32B-Instruct', 'Qwen3-VL-30B-A3B-Instruct', 'Qwen3-VL-235B-A22B-Instruct',),
    'seed_coder': ('Seed-Coder-8B-Base',),
    'seed_oss': ('Seed-OSS-36B-Base',),
    'smollm': ('SmolLM-135M', 'SmolLM-360M', 'SmolLM-1.7B',),
    'smollm2': ('SmolLM2-135M', 'SmolLM2-360M', 'SmolLM2-1.7B',),
    'solar': ('SOLAR-10.7B-v1.0',),
    'telechat2': ('TeleChat2-3B-Chat', 'TeleChat2-7B-Chat', 'TeleChat2-115B-Chat',
        'TeleChat2.5-35B-Chat',),
    'vicuna': ('Vicuna-v1.5-7B-Chat', 'Vicuna-v1.5-13B-Chat',),
    'video_llava': ('Video-LLaVA-7B-Chat',),
    'xuanyuan': ('XuanYuan-6B', 'XuanYuan-70B', 'XuanYuan2-70B',),
    'yi': ('Yi-6B', 'Yi-9B', 'Yi-34B', 'Yi-1.5-6B', 'Yi-1.5-9B', 'Yi-1.5-34B', 'Yi-Coder-1.5B',
        'Yi-Coder-9B',),
    'yi_vl': ('Yi-VL-6B-Chat', 'Yi-VL-34B-Chat',),
    'youtu': ('Youtu-LLM-2B-Instruct',),
    'youtu_vl': ('Youtu-VL-4B-Instruct',),
    'yuan': ('Yuan2-2B-Chat', 'Yuan2-51B-Chat', 'Yuan2-102B-Chat',),
    'zephyr': ('Zephyr-7B-Alpha-Chat', 'Zephyr-141B-ORPO-Chat',),
}
