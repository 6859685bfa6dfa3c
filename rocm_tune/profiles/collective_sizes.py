"""e-new15 (issue 26): how torch's process groups print one collective, so that the ranks' lines for the SAME
collective can be compared (FAMILIES.md, ddp_error: "mismatched shapes across ranks"). Data only: read by
core/runs/diagnose/collective_sizes.py.

Sources (read, not guessed):
- torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (2.0 .. 2.9; RCCL builds the same), `operator<<(WorkNCCL)`:
  `WorkNCCL(SeqNum=<seq_>, OpType=<opTypeToString>, NumelIn=<numelIn_>, NumelOut=<numelOut_>, Timeout(ms)=<ms>)`,
  printed by WorkNCCL::checkTimeout (`Watchdog caught collective operation timeout: <work> ran for N milliseconds
  before timing out.`) and repeated by the watchdog's `Process group watchdog thread terminated with exception: `;
  the same shape from the out-of-tree backends built on it (oneCCL's `WorkCCL(`, MUSA's `WorkMCCL(`, torchft's
  `WorkNCCLFT(`). The prefix names the rank, and from 2.3 the process group: `[Rank 3] `, `[PG 0 Rank 3] `,
  `[PG 0 (default_pg) Rank 3] `, `[PG ID 0 PG GUID 0(default_pg) Rank 3] ` (logPrefix()); where the watchdog line
  keeps `[Rank N]` alone its next line names the group (`[PG ID 0 PG GUID 0(default_pg) Rank 3]  failure detected
  by watchdog at work sequence id: 7219`). Sequence numbers count per process group: two groups' SeqNum=N are two
  collectives.
- c10d/Types.hpp opTypeToString: BROADCAST ALLREDUCE ALLREDUCE_COALESCED REDUCE ALLGATHER _ALLGATHER_BASE
  ALLGATHER_COALESCED GATHER SCATTER REDUCE_SCATTER ALLTOALL_BASE ALLTOALL SEND RECV RECVANYSOURCE BARRIER
  _REDUCE_SCATTER_BASE COALESCED _ALLREDUCE_SPARSE UNKNOWN.
- torch/distributed/flight_recorder/components/types.py (Op.match, the flight recorder's analyzer `fr_trace`):
  every rank passes the same input sizes except to all_to_all and scatter (and the same output sizes except for
  all_to_all and gather); its verdicts `Expected input sizes: '...' does not match found input sizes: '...'`,
  `Expected output sizes: ... does not match found output sizes: ...`, `Expected collective type: '...' does not
  match found collective type: '...'`.
"""

from __future__ import annotations

# one collective as the watchdog prints it: (seq, op, numel in, numel out)
WORK = r"\bWork[A-Z]*CCL[A-Z]*\(SeqNum=(\d+), OpType=(\w+), NumelIn=(\d+), NumelOut=(\d+)"
# the process group a line names (logPrefix(), 2.3+)
PG = r"\[PG (?:ID )?(\d+)\b"
# the rank a line names inside torch's own prefix
RANK = r"\bRank (\d+)\]"

# ops not compared at all: point-to-point ops (and a coalesced group, often of them) count on their own sequence
# counter in torch 2.2+ (seqP2P_), so their SeqNum=N is no collective the other ranks' SeqNum=N names
NOT_COMPARED = frozenset({"SEND", "RECV", "RECVANYSOURCE", "COALESCED", "UNKNOWN"})
# ops whose input size may differ across ranks by design (fr_trace: all_to_all, scatter), or is no tensor shape
UNEQUAL_BY_DESIGN = frozenset({"ALLTOALL", "ALLTOALL_BASE", "SCATTER", "BARRIER", "_ALLREDUCE_SPARSE"})

# the flight recorder analyzer's verdicts on one collective across ranks
FR_MISMATCH = (r"Expected input sizes: .{0,400}? does not match found input sizes",
               r"Expected output sizes: .{0,400}? does not match found output sizes",
               r"Expected collective type: .{0,200}? does not match found collective type")
