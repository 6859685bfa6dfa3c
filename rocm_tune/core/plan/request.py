"""The planner's input: `PlanRequest` (model, hardware, goal and the values the user insists on), validated.

Its own module so that the planner's parts (planner, plan_search, plan_explain) and the answers translation
(core.plan.answers) import it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from rocm_tune.core import vocabulary as V
from rocm_tune.core.errors import UserError
from rocm_tune.core.vocabulary import ATTNS, METHODS, OFFLOADS, PRECISIONS, PRIORITIES, STAGES

if TYPE_CHECKING:
    from rocm_tune.core.data.dataset import DatasetStats
    from rocm_tune.core.model.architecture import ModelSpec
    from rocm_tune.profiles.gpu_profiles import GpuProfile


@dataclass(frozen=True)
class PlanRequest:
    model: ModelSpec
    gpu: GpuProfile
    gpus: int = 1                          # per node
    nodes: int = 1
    cpu_ram_bytes: int | None = None       # per node; None = unknown
    method: str = "lora"
    stage: str = "sft"
    effective_batch: int | None = None     # None = vocabulary.DEFAULT_EFFECTIVE_BATCH
    priority: str = "stability"
    # values the user insists on (None = the planner chooses)
    cutoff_len: int | None = None
    precision: str | None = None
    micro_batch: int | None = None
    zero_stage: int | None = None
    offload: str | None = None
    attn: str | None = None
    gradient_checkpointing: bool | None = None
    optim: str | None = None
    lora_rank: int | None = None
    lora_alpha: int | None = None
    lora_targets: tuple[str, ...] | None = None
    dora: bool = False
    quant_bits: int | None = None
    double_quant: bool | None = None
    freeze_trainable_layers: int | None = None
    # data and time
    dataset: DatasetStats | None = None
    percentile: float = V.DEFAULT_PERCENTILE
    hours: float | None = None
    epochs: float | None = None
    headroom: float = V.DEFAULT_HEADROOM
    iommu: str = "unknown"                 # doctor.iommu_state() for local GPUs, else unknown
    model_ref: str | None = None
    runner: str = V.DEFAULT_RUNNER         # what runs the training loop (vocabulary.RUNNERS)
    vram_in_use_bytes: int = 0             # used by other processes on a detected local GPU
    disk_free: tuple[str, int] | None = None  # (where the run writes, its free bytes) when planned for this machine

    def validate(self) -> None:
        """UserError naming the first bad value (limits and choices from core.vocabulary)."""
        for name in ("gpus", "nodes", "effective_batch", "cutoff_len", "micro_batch", "lora_rank", "lora_alpha",
                     "freeze_trainable_layers", "hours", "epochs"):
            value = getattr(self, name)
            if value is not None:
                V.check_number(name, value)
        V.check_number("headroom", self.headroom)
        V.check_number("percentile", self.percentile)
        V.check_choice("method", self.method, METHODS)
        V.check_choice("stage", self.stage, STAGES)
        V.check_choice("priority", self.priority, PRIORITIES)
        V.check_choice("runner", self.runner, V.RUNNERS)
        for name, allowed in (("precision", PRECISIONS), ("attn", ATTNS), ("offload", OFFLOADS),
                              ("zero_stage", V.ZERO_STAGES), ("optim", V.OPTIMS), ("quant_bits", V.QUANT_BITS)):
            value = getattr(self, name)
            if value is not None:
                V.check_choice(name, value, allowed)
        problem = V.offload_problem(self.offload, self.zero_stage)
        if problem:
            raise UserError(problem)
        if self.precision == "pure_bf16" and self.zero_stage == 3 and self.runner == "llamafactory":
            # LLaMA-Factory hparams/parser.py: "`pure_bf16` is incompatible with DeepSpeed ZeRO-3."
            raise UserError("precision pure_bf16 with zero_stage 3: LLaMA-Factory refuses this combination; use "
                            "precision bf16 with ZeRO-3, or pure_bf16 with ZeRO-2")
        if self.cpu_ram_bytes is not None and self.cpu_ram_bytes <= 0:
            raise UserError(f"cpu_ram_bytes must be positive, got {self.cpu_ram_bytes}")
        if self.vram_in_use_bytes < 0:
            raise UserError(f"vram_in_use_bytes must be 0 or more, got {self.vram_in_use_bytes}")
        if self.method not in V.LORA_METHODS and (self.lora_rank is not None or self.lora_alpha is not None):
            raise UserError(f"lora_rank/lora_alpha apply to --method lora or qlora, not {self.method!r}")
        if self.micro_batch is not None and self.effective_batch is not None:
            world = self.gpus * self.nodes
            if self.micro_batch * world > self.effective_batch:
                raise UserError(
                    f"micro_batch {self.micro_batch} x {world} GPUs = {self.micro_batch * world} is more than "
                    f"effective_batch {self.effective_batch}")

    @property
    def world(self) -> int:
        return self.gpus * self.nodes
