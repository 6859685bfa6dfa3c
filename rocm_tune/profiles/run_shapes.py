"""e-new14 (issue 26): shapes of lines the tools' sources print, for core/runs/diagnose/run_shapes.py. Data only.

Sources (read, not guessed):
- pip's refusal of a Python it does not support: resolution/resolvelib/factory.py and the legacy resolver raise
  UnsupportedPythonVersion(`Package 'X' requires a different Python: 3.10.12 not in '>=3.11'`); for an index
  requirement _report_single_requirement_conflict logs `Ignored the following versions that require a different
  python version: 0.9.4 Requires-Python >=3.11; ...` before `Could not find a version that satisfies the
  requirement X` / `No matching distribution found for X`. uv's resolver: `Because the current Python version
  (3.10.12) does not satisfy Python>=3.11 and X==N depends on Python>=3.11, we can conclude that X==N cannot be
  used.` The package is then not installed: its CLI (`llamafactory-cli: command not found`) or module
  (`No module named 'llamafactory'`) missing later is that refusal's consequence.
- the rank argument a launcher adds to every worker's command line: DeepSpeed's launcher/launch.py
  `cmd.append(f"--local_rank={local_rank}")` (unless --no_local_rank), torch.distributed.launch before torch 2.0
  `--local_rank=N`, from torch 2.0 (run.py config_from_args) `--local-rank=N` unless --use-env. A script whose
  argparse rejects it prints `error: unrecognized arguments: --local_rank=0`.
- a program saying it substituted something and went on (a fallback): torchtune's `BF16 not supported on this
  hardware. Setting dtype to float32`, transformers' `... falling back to ...`, `Fallback to ...`, `... will use X
  instead`, `Defaulting to ...`.
- building the model in host RAM before it moves to the GPU: SwissArmyTransformer (CogVLM, VisualGLM) and Megatron's
  get_model / model_provider print `building <Class> model ...`; transformers' modeling_utils logs `Instantiating
  <Class> model under default dtype <dtype>.`
- a data row read by a key: a Dataset's __getitem__ (`self.data[index]['json_dialogue']`), a map/formatting
  function (`example['instruction']`, `row['label']`), datasets' LazyDict/LazyRow (`datasets/formatting/
  formatting.py ... __getitem__  value = self.data[key]`).
- Qwen2-VL / Qwen2.5-VL / Qwen3-VL's vision tower groups patches by its spatial merge unit
  (`hidden_states.reshape(seq_len // self.spatial_merge_unit, self.spatial_merge_unit, -1)`): an image or video
  frame smaller than one merge unit of patches gives `shape '[0, 4, -1]' is invalid for input of size N`.
"""

from __future__ import annotations

PIP_PYTHON_REFUSAL = (r"requires a different Python: [\d.]+ not in '[^']+'|"
                      r"Ignored the following versions that require a different python version|"
                      r"the current Python version \([\d.]+\) does not satisfy Python")
# the package a refusal names: pip's 'X' / `Could not find a version that satisfies the requirement X` / uv's `and
# X==N depends on Python`
REFUSED_PACKAGE = (r"Package '([\w.-]+)' requires a different Python|satisfies the requirement ([\w.-]+)|"
                   r"No matching distribution found for ([\w.-]+)|and ([\w.-]+)(?:[=<>!~]=?[\w.*]+)? depends on Python")
# what is missing later: a command (`x: command not found`) or a module (`No module named 'x'`)
MISSING_THING = r"([\w.-]+)\s*[:：] ?(?:command not found|not found)|command not found: ([\w.-]+)|No module named '([\w]+)"

# the launcher-injected rank argument in DeepSpeed's / torch<2.0's spelling, refused by the script's parser
INJECTED_UNDERSCORE = r"error: unrecognized arguments:(?:[^\n]* )? ?--local_rank=\d+\b"

FELL_BACK = (r"\b[Ss]etting (?:the )?(?:\w+ )?(?:dtype|precision) to (?:float32|fp32|float16|fp16)\b|"
             r"\b[Ff]all(?:ing|s)? ?back to\b|\b[Ff]allback to\b|\bwill (?:use|run with|be using) [\w.-]+ instead\b|"
             r"\b[Dd]efaulting to\b|\b[Uu]sing [\w.-]+ instead\b")

MODEL_BUILD = r"\bbuilding \w+ model \.\.\.|\bInstantiating \w+ model under default dtype\b"

DATA_ROW_BASES = (r"(?:self\.)?(?:data|dataset|raw_data|list_data_dict|examples?|samples?|items?|rows?|records?|"
                  r"lines?|elements?|element|instances?|batch|conv(?:ersation)?s?|dialog(?:ue)?s?|data_?point|entry|"
                  r"entries|sources?|features?|json_data|docs?|messages?|turns?)")
DATASETS_ROW_ACCESS = r"datasets[/\\]formatting[/\\]formatting\.py\"?, line \d+, in __getitem__"

VISION_CONTEXT = (r"(?i:qwen\d?(?:[._]\d)?[-_]?vl)|-VL-|(?i:llava|internvl)|\bpixel_values\b|\b(?:image|video)_grid_thw\b|"
                  r"[Vv]ision(?:Model|Transformer|Tower)|FastVisionModel|\bis_vision_model\b")
EMPTY_MERGE_RESHAPE = r"shape '\[0, (\d+), -1\]' is invalid for input of size [1-9]\d*"
