#pragma once
// SocketRules: the per-user socket's directory and the checks a client makes before it trusts
// what listens there, without Qt. One home for the rules, used by SocketDirectory (the Qt
// transport) and by the launcher (src/launcher: what MCP clients spawn), which links no Qt.
// The rules themselves are described in SocketDirectory.h.
#include <string>

#include <sys/types.h>

namespace fb::socketrules {

enum class Source { XdgRuntimeDir, RunUser, Fallback };
enum class Check { Absent, Trusted, Refused };

struct Directory {
    std::string path;
    Source source = Source::Fallback;
};

// xdgRuntimeDir: the environment's value ("" when unset).
Directory resolveDirectory(const std::string &xdgRuntimeDir, uid_t uid,
                           const std::string &runUserRoot = "/run/user",
                           const std::string &fallbackRoot = "/tmp");
bool checkPrivateDirectory(const std::string &dir, uid_t uid, bool create, std::string *error);
Check checkSocketFile(const std::string &path, uid_t uid, std::string *why);
bool peerRunsAs(int fd, uid_t uid, std::string *why);

// "fabric-broker.sock"; --socket NAME|PATH as LocalSocketServer::resolveSocketPath describes it.
const char *defaultSocketName();
std::string resolveSocketPath(const std::string &nameOrPath, const std::string &runtimeDirectory);

// Lexical clean-up of an absolute path ("//", "/./", "/x/.." and a trailing '/'), as
// QDir::cleanPath does for absolute paths.
std::string cleanPath(const std::string &path);
std::string dirName(const std::string &path);

} // namespace fb::socketrules
