"""e-peer2 (issue 26): how a Python traceback ends, as CPython prints it, and what a rank's exception says when no rule
read it. Data only: read by core/runs/diagnose/rank_exceptions.py.

Sources (read, not guessed):
- CPython Lib/traceback.py (TracebackException.format / format_exception_only): `Traceback (most recent call last):`,
  then per frame `  File "<path>", line N, in <func>` and its indented source line (3.11+: a `~~~^^^` marker line
  under it), then the exception line, ALWAYS unindented: `<module>.<qualname>: <message>` (the module left out for
  builtins and __main__), or the bare qualified class name when the message is empty (`AssertionError`,
  `torch._dynamo.exc.Unsupported`). Chained exceptions print `During handling of the above exception, another
  exception occurred:` / `The above exception was the direct cause of the following exception:` and a new
  `Traceback` after it. Any class may be raised: `Exception: msg`, `torch._dynamo.exc.Unsupported: ...`,
  `triton.runtime.errors.OutOfResources: ...`, `hydra.errors.InstantiationException`, a user's own class.
- The launchers' and loggers' line prefixes around each rank's lines (the prefix the traceback's first line has is on
  each of its lines): torchrun `--tee`/`--redirects` (`[default3]:`), torch 2.2+ `[rank3]:`, DeepSpeed's pdsh runner
  (`worker-1: `, `10.0.0.2: `), mpirun `--tag-output` (`[1,3]<stderr>:`), Ray's worker prefix (`(WorkerDict
  pid=7712, ip=10.0.0.2) `), srun `--label` (`3: `).
- torch/distributed/elastic/multiprocessing/errors (ChildFailedError's `traceback :` row), torch.multiprocessing
  spawn.py (`-- Process 1 terminated with the following error:` + the child's traceback): the child's exception line
  printed by its launcher, unindented or indented under the table row.
"""

from __future__ import annotations

TRACEBACK_HEAD = b"Traceback (most recent call last):"
# at most this many tracebacks read per file, and this many lines / bytes after each head
MAX_TRACEBACKS = 200
MAX_LINES_AFTER = 400
MAX_BYTES_AFTER = 64 * 1024
# other lines of the log interleaved into the traceback (another rank's, a progress bar) skipped before giving up
MAX_FOREIGN_LINES = 40

# another stream's prefix on a line (a rank's, a worker's, a node's): a line carrying one that is not the
# traceback's own is another rank's, interleaved
# (a node's name has a digit in it - `worker-1`, `gpu-12`, an IP - so an exception's `ValueError: ` is never one)
STREAM_PREFIX = (r"^(?:\[(?:rank|default)\d+\]:|\[\d+,\d+\]<std(?:out|err)>:|\([\w.]+ pid=\d+[^)]{0,80}\) |"
                 r"(?:[A-Za-z_-]*\d[\w-]*|\d+(?:\.\d+){3}): (?:\[(?:rank|default)\d+\]:)?)")
# what lies between frames: the frame itself (indented, or unindented after a launcher that strips the margin), its
# source line, 3.11's position markers, a `...` elision, CPython's `[Previous line repeated N more times]`
FRAME_LINE = r"^(?:\s|File \"|File /|\.\.\.\s*$|\[Previous line repeated)"
# the exception line: a dotted class name whose last part is a CamelCase name (a class), then `: message` or nothing
EXCEPTION_LINE = r"^((?:[A-Za-z_]\w*\.)*([A-Z]\w*[a-z]\w*))(?:\([\w.]*\))?(?::(?: (.*))?)?\s*$"
# a Python exception line anywhere in a line (behind any prefix): a class named ...Error/...Exception/...Exit/
# ...Interrupt, or the base class `Exception` itself, then its message or nothing (a bare `AssertionError`)
OWN_EXCEPTION = (r"(?:^|[\s:\]>)])(?:[\w.]+\.)?(?:[A-Z]\w*(?:Error|Exception|Exit|Interrupt)|Exception)"
                 r"(?:: |:?\s*$)")
# torch/multiprocessing/spawn.py's ProcessRaisedException: the child (its process index is the rank) whose
# traceback follows
SPAWN_CHILD = r"-- Process (\d+) terminated with the following error:"
# CPython's chaining sentences: the traceback above ended in an exception that another one followed
CHAINING = r"^(?:During handling of the above exception|The above exception was the direct cause)"
# exception classes that are no failure of the run's own: a user's Ctrl-C, an interpreter exit, a generator's end,
# a warning turned into an exception by a filter is still only the warning's
NOT_A_FAILURE = r"^(?:KeyboardInterrupt|SystemExit|GeneratorExit|StopIteration|StopAsyncIteration|\w*Warning)$"

# Where no rule read a rank's exception, its family from its class (its name as printed, module-qualified or not:
# each regex is searched in it) and who raised it
# (traceback_anatomy's owner of the last frame). Each row: (class regex, raised by: "user" | "user-data" | "any",
# family, what to do); "user-data": the user's own raise with a message about the data. The class names come from the raising code: the config libraries' own classes (omegaconf
# errors.py ConfigAttributeError/ConfigKeyError/ValidationError..., hydra errors.py InstantiationException /
# ConfigCompositionException, pydantic ValidationError, yaml ScannerError/ParserError/ConstructorError, argparse
# ArgumentError, jsonschema ValidationError, DeepSpeed's DeepSpeedConfigError, simple_parsing's), Python's own
# errors for a value or a name used wrongly in the user's script (the user's next step is editing what they wrote),
# and the data readers' (datasets' DatasetGenerationError / SchemaInferenceError / CastError, pyarrow's
# ArrowInvalid, pandas' ParserError; before the config row: their names hold its words).
CLASS_FAMILIES: tuple[tuple[str, str, str, str], ...] = (
    (r"(?:^|\.)(?:DatasetGenerationError|DatasetGenerationCastError|SchemaInferenceError|CastError|ArrowInvalid|"
     r"ArrowTypeError|DataFilesNotFoundError|EmptyDatasetError|DatasetNotFoundError)$|^pandas\.errors\.ParserError$",
     "any", "dataset_error",
     "the dataset could not be read or converted (the message names the file, column or type): fix the data files "
     "or the columns the config maps"),
    (r"(?:^|\.)\w*(?:Config|Configuration|Argument|Arguments|Validation|Instantiation|Composition|Scanner|Parser|"
     r"Constructor|Composer|Interpolation|MissingMandatoryValue|ReadonlyConfig|Hparams?)\w*(?:Error|"
     r"Exception)$", "any", "config_error",
     "the run's configuration was refused by its parser or validator (the message names the key and what it must "
     "be): correct that key in the config or command line"),
    # torch.compile's own classes (torch/_dynamo/exc.py: Unsupported, InternalTorchDynamoError, TorchRuntimeError,
    # BackendCompilerFailed; torch/_inductor/exc.py: LoweringException, InductorError ...): the compiler could not
    # trace or compile the model; as the catalogue's torch-compile-error, the step is to run without compilation
    (r"^torch\._(?:dynamo|inductor)\.exc\.\w+$", "any", "config_error",
     "torch.compile could not trace or compile the model (the message names the operation): run without "
     "compilation (torch_compile: false / drop --torch_compile; TORCHDYNAMO_DISABLE=1), or mark the function it "
     "names with torch._dynamo.disable"),
    # the user's own check (`raise ValueError(...)` / `assert ...` as the last statement of the user's frame): a
    # refusal of the input it was given - the data's when the message names data, else the settings'. Not a
    # RuntimeError: a wrapper script re-raising a command's failure (`raise RuntimeError(message)`) says nothing
    (r"^(?:Exception|ValueError|TypeError|AssertionError|KeyError|NotImplementedError)$", "user-data",
     "dataset_error", "the run's own script refused a sample of the data (the message names it): fix or drop those "
     "rows, or map the columns the script expects"),
    (r"^(?:Exception|ValueError|TypeError|AssertionError|KeyError|NotImplementedError)$", "user", "config_error",
     "the run's own script refused its settings (its own `raise`/`assert`; the message names what it expects): "
     "change that setting in the script's arguments or config"),
)

# a message about the data (the words the data rows and their columns go by)
DATA_WORDS = (r"\b(?:dataset|sample|example|row|column|input_ids|labels|attention_mask|messages|conversations|"
              r"instruction|prompt|response|chosen|rejected|images?|shard|jsonl?|parquet|csv)\b")
