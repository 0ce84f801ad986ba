#include "transport/socket/SocketRules.h"

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace fb::socketrules {

namespace {

std::string errnoText()
{
    return std::strerror(errno);
}

std::string modeText(mode_t mode)
{
    char text[8];
    std::snprintf(text, sizeof text, "0%03o", unsigned(mode & 07777));
    return text;
}

bool isAbsolute(const std::string &p)
{
    return !p.empty() && p.front() == '/';
}

bool isDirectory(const std::string &p)
{
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

} // namespace

std::string cleanPath(const std::string &path)
{
    if (!isAbsolute(path))
        return path;
    std::vector<std::string> parts;
    size_t i = 0;
    while (i < path.size()) {
        const size_t slash = path.find('/', i);
        const size_t end = slash == std::string::npos ? path.size() : slash;
        const std::string part = path.substr(i, end - i);
        if (part == "..") {
            if (!parts.empty())
                parts.pop_back();
        } else if (!part.empty() && part != ".") {
            parts.push_back(part);
        }
        i = end + 1;
    }
    std::string out;
    for (const std::string &part : parts)
        out += '/' + part;
    return out.empty() ? std::string("/") : out;
}

std::string dirName(const std::string &path)
{
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? std::string("/") : path.substr(0, slash);
}

Directory resolveDirectory(const std::string &xdgRuntimeDir, uid_t uid,
                           const std::string &runUserRoot, const std::string &fallbackRoot)
{
    if (!xdgRuntimeDir.empty() && isAbsolute(xdgRuntimeDir) && isDirectory(xdgRuntimeDir))
        return {cleanPath(xdgRuntimeDir), Source::XdgRuntimeDir};
    // What systemd-logind (and elogind) create for a user session; a short client environment
    // loses XDG_RUNTIME_DIR but never the uid.
    const std::string runUser = cleanPath(runUserRoot + '/' + std::to_string(uid));
    struct stat st {};
    if (::lstat(runUser.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == uid &&
        (st.st_mode & 07777) == 0700)
        return {runUser, Source::RunUser};
    return {cleanPath(fallbackRoot + "/fabric-broker-" + std::to_string(uid)), Source::Fallback};
}

bool checkPrivateDirectory(const std::string &dir, uid_t uid, bool create, std::string *error)
{
    if (create && ::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
        *error = "cannot create the socket directory " + dir + ": " + errnoText();
        return false;
    }
    struct stat st {};
    if (::lstat(dir.c_str(), &st) != 0) {
        *error = "the socket directory " + dir + " does not exist";
        return false;
    }
    const std::string fix = " Remove it (or fix it) yourself; Fabric Broker never uses or changes "
                            "it as it is.";
    if (S_ISLNK(st.st_mode)) {
        *error = "refusing the socket directory " + dir + ": it is a symbolic link." + fix;
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        *error = "refusing the socket directory " + dir + ": it is not a directory." + fix;
        return false;
    }
    if (st.st_uid != uid) {
        *error = "refusing the socket directory " + dir + ": it belongs to uid " +
                 std::to_string(st.st_uid) + ", not to uid " + std::to_string(uid) + "." + fix;
        return false;
    }
    if ((st.st_mode & 077) != 0) {
        *error = "refusing the socket directory " + dir + ": its mode " + modeText(st.st_mode) +
                 " lets other users in (it must be 0700)." + fix;
        return false;
    }
    return true;
}

Check checkSocketFile(const std::string &path, uid_t uid, std::string *why)
{
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT)
            return Check::Absent;
        *why = "cannot inspect " + path + ": " + errnoText();
        return Check::Refused;
    }
    if (!S_ISSOCK(st.st_mode)) {
        *why = path + " is not a socket";
        return Check::Refused;
    }
    if (st.st_uid != uid) {
        *why = "the socket " + path + " belongs to uid " + std::to_string(st.st_uid) +
               ", not to uid " + std::to_string(uid);
        return Check::Refused;
    }
    return Check::Trusted;
}

bool peerRunsAs(int fd, uid_t uid, std::string *why)
{
    struct ucred cred {};
    socklen_t len = sizeof cred;
    if (fd < 0 || ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) {
        *why = "cannot read the peer credentials: " + errnoText();
        return false;
    }
    if (cred.uid != uid) {
        *why = "the peer process (pid " + std::to_string(cred.pid) + ") runs as uid " +
               std::to_string(cred.uid) + ", not as uid " + std::to_string(uid);
        return false;
    }
    return true;
}

const char *defaultSocketName()
{
    return "fabric-broker.sock";
}

std::string resolveSocketPath(const std::string &nameOrPath, const std::string &runtimeDirectory)
{
    size_t b = 0, e = nameOrPath.size();
    while (b < e && std::isspace(static_cast<unsigned char>(nameOrPath[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(nameOrPath[e - 1])))
        --e;
    const std::string value = nameOrPath.substr(b, e - b);
    if (value.empty())
        return runtimeDirectory + '/' + defaultSocketName();
    if (value.find('/') != std::string::npos) {
        if (isAbsolute(value))
            return cleanPath(value);
        char cwd[PATH_MAX];
        if (!::getcwd(cwd, sizeof cwd))
            return value;
        return cleanPath(std::string(cwd) + '/' + value);
    }
    return runtimeDirectory + '/' + value;
}

} // namespace fb::socketrules
