"""e-g4 (issue 26): the readings and fixes explain gives a kernel that does not fit the GPU (Triton's
OutOfResources in an attention kernel), attention kernels that ZLUDA cannot run, and a CUDA build that sees no GPU
because of the visibility mask. Data only: the rules are in core/runs/diagnose/kernel_platform.py."""

from __future__ import annotations

# words of an attention kernel in a traceback's frames or source lines (flex_attention, flash-attention's Triton
# kernels and their ports: `_attn_fwd`, InfLLM's `fattn`, FlashT5/FAT5, xformers' Triton ops (fmha), SDPA)
ATTENTION_WORDS = (r"flex_attention|flex_attn|flash[\w-]*|fattn|xformers|\bf?mha\w*|\w+_mha\b|_attn_(?:fwd|bwd)\w*|\battn_fwd\w*|\w*attention\w*|"
                   r"\bsdpa\w*|scaled_dot_product|\w+_attn\b|[/\\]attn\w*\.py")
# words of a kernel that is not attention (Liger's and unsloth's fused ops, a matmul/GEMM, norms, losses, rotary)
OTHER_KERNEL_WORDS = (r"liger_kernel|unsloth[/\\]kernels|cross_entropy|fused_linear|rms_?norm|layer_?norm|"
                      r"\bmatmul\w*|\bgemm\w*|swiglu|geglu|\brope\b|rotary|moe_\w+|fused_moe|quantiz\w*")
# e-g6: a frame of an installed package (its Triton kernel: unsloth, Liger, vLLM, bitsandbytes...) and unsloth's code it
# generates into the user's directory (unsloth_compiled_cache); the frames of Triton and torch themselves (the launcher,
# inductor, autograd's Function.apply) are passed over to find the kernel's caller
LIBRARY_FRAME = r"[/\\](?:site|dist)-packages[/\\]([A-Za-z_][\w.-]*)|[/\\](unsloth)_compiled_cache[/\\]"
PASSED_FRAME = r"[/\\](?:site|dist)-packages[/\\](?:triton|torch|pytorch_triton\w*)[/\\]|^<[\w ]+>$"
OOR_NUMBERS = r"out of resource: (\w[\w ]*?), Required: (\d+), Hardware limit: (\d+)"
OOR_LINE = (r"\bOutOfResources\b|out of resource: \w|too many resources requested for launch|"
            r"Triton Error \[(?:CUDA|HIP)\]:.{0,40}too many resources")

ATTENTION_OOR_TITLE = ("the attention kernel does not fit this GPU: Triton's launch needs more shared memory (or "
                       "registers/threads) per block than the GPU has")
ATTENTION_OOR_FIX = ("run the attention with kernel settings that fit this GPU, or with another attention "
                     "implementation: smaller block sizes / num_stages for a Triton flash-attention kernel; for "
                     "flex_attention compile with options={'max_autotune': True} (inductor then tries smaller "
                     "BLOCK_M/BLOCK_N) or pass kernel_options with smaller blocks; else switch the model's attention "
                     "(attn_implementation='sdpa' or 'eager', the project's flag that turns its Triton/flash kernel "
                     "off), or run on a GPU with more shared memory per block (A100/H100: 163-227 KiB; RTX 30/40, "
                     "A10G, A40, L40S: 99 KiB)")
OTHER_OOR_FIX = ("the Triton kernel's launch config does not fit this GPU's shared memory/registers: use smaller "
                 "block sizes / num_stages (or num_warps) for that kernel, or turn the fused kernel off (Liger/"
                 "unsloth flags, torch.compile off) so the framework's own op runs")

ZLUDA_ATTENTION_TITLE = ("a CUDA attention kernel (xformers / flash-attention) that ZLUDA cannot run on the AMD GPU "
                         "failed")
ZLUDA_ATTENTION_FIX = ("ZLUDA translates CUDA for AMD GPUs but does not run xformers' or flash-attention's CUDA "
                       "kernels (nor cuDNN's flash SDPA): set the attention to PyTorch's SDP/Default in the trainer "
                       "or UI (OneTrainer: Training tab > Attention: SDP or Default; webuis: drop --xformers, "
                       "cross-attention optimization SDP), or uninstall xformers from the venv; for torch's own "
                       "flash SDPA kernel call torch.backends.cuda.enable_flash_sdp(False) (the math/mem-efficient "
                       "paths run)")

NO_CUDA_DEVICE_TITLE = ("no GPU visible to the CUDA build of PyTorch: the driver answered, but the devices the "
                        "process may see are none (CUDA_VISIBLE_DEVICES or a launcher's GPU list)")
NO_CUDA_DEVICE_FIX = ("check what hides the GPUs: CUDA_VISIBLE_DEVICES set to an index the machine does not have (a "
                      "script's os.environ['CUDA_VISIBLE_DEVICES']='1' on a one-GPU box, '' or -1), a --gpus / "
                      "--gpu_ids list naming a missing device, a container started without --gpus; set it to an "
                      "index `nvidia-smi -L` lists (or unset it)")

OOR_CAUSE = ("the Triton kernel's launch config (block sizes, num_stages, num_warps) needs more shared memory, "
             "registers or threads per block than this GPU has (Triton's OutOfResources: Required > Hardware limit); "
             "kernels tuned on A100/H100 (163-227 KiB of shared memory per block) do not fit 99 KiB consumer and "
             "Ada/Ampere-workstation GPUs or AMD's 64 KiB LDS")
ZLUDA_ATTENTION_CAUSE = ("ZLUDA runs CUDA programs on AMD GPUs by translating their kernels; xformers' and "
                         "flash-attention's hand-written CUDA kernels are outside what it translates, so their launch "
                         "fails (named symbol not found / invalid device function)")
NO_CUDA_DEVICE_CAUSE = ("PyTorch's CUDA build asked the driver for its devices and got none (cudaErrorNoDevice): "
                        "the driver is there, but CUDA_VISIBLE_DEVICES (or a launcher's GPU list) names no device "
                        "the machine has, or is empty")

# e-g6 (FAMILIES.md hip_error/cuda_error: "a ROCm library fail[s] on this GPU ... architecture not supported"; Rule 1,
# refined: a failure inside a component stays in its family, with the upgrade as its fix): a library's Triton kernel
# whose launch config the library itself picks (the user has no knob but turning the kernel off)
LIBRARY_OOR_TITLE = ("{lib}'s Triton kernel cannot run on this GPU: the launch config the library picks needs more "
                     "{resource} per block than the GPU has")
LIBRARY_OOR_CAUSE = ("the library chose num_warps / block sizes for another GPU: Triton refuses the launch when "
                     "num_warps x the warp size, the shared memory (LDS) or the registers per block exceed this GPU's limit; on "
                     "AMD a wavefront is 64 threads (num_warps=32 asks for 2048 threads, the limit is 1024) and LDS is "
                     "64 KiB (160 KiB on gfx950), so kernels tuned for NVIDIA (32-thread warps, up to 227 KiB of shared "
                     "memory) or for an older gfx can exceed it")
LIBRARY_OOR_FIX = ("the fix is in the library, not in your config: upgrade {lib} to a release that supports this GPU "
                   "(e.g. unsloth added gfx950 to its CDNA check so its kernels use num_warps=16 on MI355X), or turn "
                   "that fused kernel off so the framework's own op runs (Liger: use_liger_kernel false or the op's "
                   "flag; unsloth: the plain transformers/PEFT path), and report the kernel with the Required / "
                   "Hardware limit numbers to {lib} (a local patch: smaller num_warps / block sizes / num_stages "
                   "in that kernel's launch)")
