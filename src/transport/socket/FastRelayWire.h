#pragma once
// The wire of the fd-passing relay between `fabric-broker --stdio` (the launcher, src/launcher,
// no Qt) and the running app's per-user socket (LocalSocketServer). docs/architecture.md.
//
// Relay -> app: one sendmsg() of kHello with SCM_RIGHTS carrying exactly two descriptors, the
// relay's stdin and stdout. Its first byte is NUL, which no JSON-RPC client sends first, so the
// app tells a relay from an MCP client by peeking one byte; nothing else is ever sent.
// App -> relay: lines, at most kMaxLine bytes each:
//   "exec"          not taken (the app's own parse of the relay's command line says it is not a
//                   relay, or names another socket): the relay runs the app binary itself;
//   "ok"            taken: the app reads the client's stdin and writes its stdout directly, the
//                   relay closes its copies and only waits;
//   "stderr TEXT"   a line for the relay's stderr (the person reading the client's server log);
//   "exit N"        the session ended: the relay exits with status N.
// The app learns the relay's command line and environment from /proc/<pid>/cmdline and
// /proc/<pid>/environ of the peer (SO_PEERCRED), so no secret crosses the socket, and decides
// the session with the same code as for any relayed session (RelayHello.h).
namespace fb::fastrelay {

inline constexpr char kHello[] = "\0fabric-broker fd-relay 1\n";
inline constexpr unsigned kHelloSize = sizeof kHello - 1; // without the terminating NUL
inline constexpr int kDescriptors = 2;
inline constexpr unsigned kMaxLine = 16 * 1024;
// The relay's exit status when the app refused the session (EX_CONFIG): the client reports a
// failed server, and stderr says why.
inline constexpr int kRefusedExitCode = 78;

} // namespace fb::fastrelay
