"""e-rank (issue 26): how a rank says it is WAITING FOR A PEER - a collective, a store key or a socket that never
completed because another rank stopped taking part. Such a line says nothing of why the peer stopped: when the log
also shows a rank's own exception or a rank killed, the wait is that one's consequence, whatever the text order
(the watchdog fires `timeout` seconds after the peer left; ranks' streams are interleaved and buffered, so the cause's
traceback is often printed after the others' timeouts). Data only: read by core/runs/diagnose/peer_waits.py.

Sources (read, not guessed), one spelling a line:
- torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp (1.9 .. 2.6; RCCL builds print the same, `NCCL` in the names):
  WorkNCCL::checkTimeout `Watchdog caught collective operation timeout: WorkNCCL(SeqNum=N, OpType=..., ...) ran for
  N milliseconds before timing out.` (1.9-1.11: `Caught collective operation timeout`); the watchdog's
  `Exception (either an error or timeout) detected by watchdog at work: N, last enqueued NCCL work: N, last completed
  NCCL work: N.`, `Timeout at NCCL work: N, last enqueued NCCL work: ...`, `Some NCCL operations have failed or timed
  out. Due to the asynchronous nature of CUDA kernels, ...`, `To avoid data inconsistency, we are taking the entire
  process down.`, `Process group watchdog thread terminated with exception: ` + what it caught;
  HeartbeatMonitor `Heartbeat monitor timed out! Process will be terminated after dumping debug info.` and
  `ProcessGroupNCCL's watchdog got stuck for N seconds without making progress in monitoring enqueued collectives.`;
  the flight recorder's `Received a dump signal due to a collective timeout from rank N` / `from this local rank`;
  `NCCL communicator was aborted on rank N.`; checkForNCCLErrors' `remote process exited or there was a network
  error` with NCCL's own `ncclRemoteError: A call failed possibly due to a network error or a remote process exiting
  prematurely.`
- torch/csrc/distributed/c10d/TCPStore.cpp, socket.cpp, Utils.hpp, ProcessGroupNCCL.cpp (broadcastUniqueNCCLID):
  `Socket Timeout`, `wait timeout after Nms, keys: ...` (older: `doWait timeout after ...`), `Timeout waiting for
  key: `, `store->get('0') got error: `,
  `Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?`;
  torch/distributed/distributed_c10d.py `Waiting in store based barrier to initialize process group for rank: N` and
  `Timed out initializing process group in store based barrier`; `monitoredBarrier` (ProcessGroupGloo.cpp:
  `Ranks 1 failed to pass monitoredBarrier in N ms`).
- gloo/transport/tcp/pair.cc: `Connection closed by peer [ip]:port`, `Connection reset by peer`, `Timed out waiting
  Nms for recv operation to complete`, `Application timeout caused pair closure`.
- NVIDIA/nccl src/misc/socket.cc, transport/net_socket.cc (RCCL the same): `socketProgress: Connection closed by
  remote peer host<port>`, `socketProgressOpt: Call to recv from host<port> failed : Connection reset by peer`,
  `Net : Call to recv from ... failed : Broken pipe`, `NET/Socket : socket progress error`; src/proxy.cc's proxy
  service once a peer's connection broke (below).
- torch ProcessGroupNCCL.cpp (2.3+): `Terminating the process after attempting to dump debug info, due to collective
  timeout or exception.` (or `due to ProcessGroupNCCL watchdog hang.`),
  `Future for ProcessGroup abort timed out after N ms`.
"""

from __future__ import annotations

# one regex a spelling; any of them makes a line a wait on a peer
PEER_WAIT: tuple[str, ...] = (
    r"Watchdog caught collective operation timeout", r"[Cc]aught collective operation timeout",
    r"Terminating the process after attempting to dump debug info, due to (?:collective timeout|"
    r"ProcessGroupNCCL watchdog hang)",
    r"Future for ProcessGroup abort timed out",
    r"ran for \d+ milliseconds before timing out",
    r"Exception \(either an error or timeout\) detected by watchdog",
    r"Timeout at NCCL work", r"Some NCCL operations have failed or timed out",
    r"we are taking the entire process down",
    r"[Pp]rocess group watchdog thread terminated with exception: .{0,80}(?:[Tt]imeout|timed out|remote process|"
    r"Connection (?:reset|closed))",
    r"Heartbeat monitor timed out", r"watchdog got stuck for \d+ seconds",
    r"[Rr]eceived a dump signal due to a collective timeout", r"flight recorder dump signal from another rank",
    r"NCCL communicator was aborted on rank",
    r"remote process exited or there was a network error", r"ncclRemoteError",
    r"Socket Timeout", r"(?:do)?[Ww]ait timeout after \d+ ?ms, keys", r"Timeout waiting for key",
    r"store->get\(\S*\) got (?:error|exception)", r"Failed to recv, got 0 bytes", r"Connection was likely closed",
    r"Waiting in store based barrier",
    # a rank that cannot reach the store its peer (rank 0 under mp.spawn / tcp:// init, the other node's agent) should
    # serve: socket.cpp's SocketConnectOp::throwTimeoutError; the agent's store barrier (`Timed out after N seconds
    # waiting for clients. 1/2 clients joined.`). Alone they stay the rendezvous (a wrong MASTER_ADDR/port)
    r"The client socket has timed out after \S+ while trying to connect to",
    r"waiting for clients\. \d+/\d+ clients joined", r"Timed out initializing process group in store based barrier",
    r"failed to pass monitoredBarrier", r"received errors while waiting for send/recv from rank",
    r"Connection closed by (?:remote )?peer", r"Connection reset by peer",
    r"Timed out waiting \d+ ?ms for (?:send|recv) operation", r"Application timeout caused pair closure",
    r"socketProgress\w*: .{0,120}(?:Connection|Broken pipe)", r"Call to recv from \S+ failed : (?:Broken pipe|"
    r"Connection)", r"NET/Socket : socket progress error",
    # NCCL's proxy thread once a peer's connection broke (src/proxy.cc: `[Proxy Service %d] Failed to execute
    # operation %s from rank %d, retcode %d`, `[Service thread] Error encountered progressing operation=%s, res=%d,
    # closing connection`); retcode/res 3 is ncclSystemError (a socket call), 6 ncclRemoteError
    r"\[Proxy Service \d+\] Failed to execute operation \w+ from rank \d+, retcode [36]\b",
    r"\[Service thread\] Error encountered progressing operation=\w+, res=[36]\b",
    # a rank connecting to a peer that is no longer there (NCCL misc/socket.cc, os/linux.cc: `socketPollConnect:
    # connect returned Connection refused, exceeded error retry count (35)`, 2.23+: `connect to <addr> returned
    # Connection refused, exceeded error retry count after 35 attempts`). Alone it stays the network (a wrong interface)
    r"connect(?: to \S+)? returned Connection refused, exceeded error retry count",
    # the rank's own Python view of the same waits (torch raises them as these classes, with one of the texts above
    # on the same line or the next): a class name alone on its line, what follows the colon being a wait
    r"DistStoreError: (?:Socket Timeout|wait timeout|Timeout waiting)",
    r"DistBackendError: .{0,200}(?:remote process exited|Socket Timeout|store->get|Watchdog caught|"
    r"before timing out)",
)

# NCCL/RCCL's return-code text that names no cause of its own (src/misc/utils.cc ncclGetErrorString / torch's
# getNcclErrorDetailStr: `unhandled system error`, `ncclSystemError: System call (e.g. socket, malloc) or external
# library call failed or device error.`): before NCCL 2.19 a peer's socket closing came back as ncclSystemError.
# Such a line is a wait when the lines right after it (NCCL's `Last error:`) are one
STATUS_ONLY: tuple[str, ...] = (
    r"unhandled system error", r"ncclSystemError: System call \(e\.g\. socket, malloc\) or external library call "
    r"failed or device error", r"^(?:\[\w+\]:\s*)?Last error:\s*$",
)

# what makes a rank's exception a collective failure itself (never the cause of the others' waits): the collective
# library's or the process group's words, or a timeout / lost connection of its own
COLLECTIVE_OWN = (r"[NnRr]ccl|NCCL|RCCL|gloo|Gloo|c10d|ProcessGroup|DistBackend|DistNetwork|DistStore|Rendezvous|"
                  r"[Tt]imed? ?out|[Tt]imeout|Connection (?:reset|closed|refused)|Broken pipe|by (?:remote )?peer|"
                  r"[Ww]atchdog|collective")

# hang advisories of the collective library (catalogue codes): a warning that collectives MAY hang here (RCCL's
# `NCCL WARN Missing "iommu=pt" from kernel command line which can lead to system instability or hang!`, printed by
# every RCCL run on such a host, src/init.cc). With a rank's own failure or a rank killed in the log, the warning did
# not stop the run: read as the waits are
HANG_ADVISORIES: frozenset[str] = frozenset({"iommu-p2p-hang"})

# a rank's own line may print some seconds after the wait it caused (buffered streams, one-second stamps): the
# cause's own timestamp may come this many seconds after the first wait line's and still be the cause
TIME_SLACK_S = 5.0
