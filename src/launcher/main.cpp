// fabric-broker: what users and MCP clients run. A small launcher without Qt: when an MCP
// client spawns `fabric-broker --stdio` and the user's app already runs, it hands the client's
// stdin and stdout to the app over the per-user socket (FastRelayWire.h) and only waits for
// the session's exit status, so a spawn costs about what a pipe costs and the relay adds no hop.
// Everything else (and a --stdio with no app running) runs a Qt application binary in this same
// process (execv: same pid, same arguments): fabric-broker-server, the application without the
// desktop UI, for every command line that never shows a window (core/WindowModes.h), else
// fabric-broker-app.
#include "core/WindowModes.h"
#include "transport/socket/FastRelayWire.h"
#include "transport/socket/SocketRules.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

namespace rules = fb::socketrules;
namespace wire = fb::fastrelay;

void say(const std::string &line)
{
    const std::string text = "fabric-broker: " + line + "\n";
    [[maybe_unused]] const ssize_t n = ::write(2, text.data(), text.size());
}

std::string selfDirectory()
{
    char buf[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return {};
    return rules::dirName(std::string(buf, size_t(n)));
}

// name next to the launcher (the build tree), else in the installation's libexec directory
// (FB_APP_FROM_BINDIR: the relative path from bindir, set by CMake); "" when neither exists.
std::string appBinary(const char *name)
{
    const std::string dir = selfDirectory();
    for (const std::string &candidate :
         {dir + "/" + name, rules::cleanPath(dir + "/" FB_APP_FROM_BINDIR "/" + name)}) {
        if (::access(candidate.c_str(), X_OK) == 0)
            return candidate;
    }
    return {};
}

// A command line that never shows a window runs fabric-broker-server (no Qt Gui or Widgets),
// when the build has it (a build without the GUI has only fabric-broker-app, itself GUI-free).
[[noreturn]] void runApp(int argc, char *argv[])
{
    std::string app;
    if (!fb::windowmodes::mayShowWindows(argc, argv))
        app = appBinary("fabric-broker-server");
    if (app.empty())
        app = appBinary("fabric-broker-app");
    if (app.empty())
        app = rules::cleanPath(selfDirectory() + "/" FB_APP_FROM_BINDIR "/fabric-broker-app");
    ::execv(app.c_str(), argv);
    say("cannot run " + app + ": " + std::strerror(errno));
    std::_Exit(127);
}

// What the launcher needs of the command line; the app parses it for real (and answers "exec"
// when it disagrees). --stdio without --headless is a relay candidate; subcommands, help and
// version never are.
struct Launch {
    bool relayCandidate = false;
    std::string socket; // --socket's value
};

Launch classify(int argc, char *argv[])
{
    Launch launch;
    if (argc > 1 && argv[1][0] != '-')
        return launch; // a subcommand (audit, team, …) or a stray word: the app decides
    bool stdio = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--")
            break;
        if (arg == "--stdio")
            stdio = true;
        else if (arg == "--headless" || arg == "--listen" || arg == "--sandbox-only" ||
                 arg == "--print-estate" || arg == "--help" || arg == "-h" || arg == "--help-all" ||
                 arg == "--version" || arg == "-v")
            return launch;
        else if (arg == "--socket" && i + 1 < argc)
            launch.socket = argv[++i];
        else if (arg.rfind("--socket=", 0) == 0)
            launch.socket = arg.substr(9);
    }
    launch.relayCandidate = stdio;
    return launch;
}

enum class Relay { NoApp, NotTaken, Done };

bool sendDescriptors(int sock)
{
    int fds[wire::kDescriptors] = {0, 1};
    char control[CMSG_SPACE(sizeof fds)] = {};
    iovec iov{const_cast<char *>(wire::kHello), wire::kHelloSize};
    msghdr msg{};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(sizeof fds);
    std::memcpy(CMSG_DATA(cmsg), fds, sizeof fds);
    ssize_t n;
    do {
        n = ::sendmsg(sock, &msg, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    return n == ssize_t(wire::kHelloSize);
}

// One line from the app (without its '\n'); false at end of stream, on a line too long, or when
// waitMs (> 0) passes without one.
bool readLine(int sock, std::string *buffer, std::string *line, int waitMs = 0)
{
    for (;;) {
        const size_t nl = buffer->find('\n');
        if (nl != std::string::npos) {
            *line = buffer->substr(0, nl);
            buffer->erase(0, nl + 1);
            return true;
        }
        if (buffer->size() > wire::kMaxLine)
            return false;
        if (waitMs > 0) {
            pollfd p{sock, POLLIN, 0};
            const int ready = ::poll(&p, 1, waitMs);
            if (ready < 0 && errno == EINTR)
                continue;
            if (ready <= 0)
                return false;
        }
        char chunk[4096];
        const ssize_t n = ::read(sock, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        buffer->append(chunk, size_t(n));
    }
}

// Replaces fd with /dev/null (the app holds the client's pipe now; only its copy may remain,
// so that the client sees end of file when the app closes it).
void detach(int fd)
{
    const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        ::dup2(null, fd);
        ::close(null);
    }
}

Relay relay(const std::string &socketOption, int *exitCode)
{
    const uid_t uid = ::getuid();
    const char *xdg = std::getenv("XDG_RUNTIME_DIR");
    const rules::Directory dir = rules::resolveDirectory(xdg ? xdg : "", uid);
    const std::string path = rules::resolveSocketPath(socketOption, dir.path);
    std::string why;
    // In the shared /tmp fallback the directory itself must be private before anything in it is
    // trusted; a missing one means no instance has started yet.
    if (dir.source == rules::Source::Fallback && rules::dirName(path) == dir.path) {
        if (::access(dir.path.c_str(), F_OK) != 0)
            return Relay::NoApp;
        if (!rules::checkPrivateDirectory(dir.path, uid, false, &why)) {
            say("refusing to relay to " + path + ": " + why);
            *exitCode = 1;
            return Relay::Done;
        }
    }
    switch (rules::checkSocketFile(path, uid, &why)) {
    case rules::Check::Absent:
        return Relay::NoApp;
    case rules::Check::Refused:
        say("refusing to relay to " + path + ": " + why);
        *exitCode = 1;
        return Relay::Done;
    case rules::Check::Trusted:
        break;
    }
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof addr.sun_path)
        return Relay::NoApp; // no server can listen on it either
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    const int sock = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (sock < 0)
        return Relay::NoApp;
    if (::connect(sock, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
        ::close(sock);
        return Relay::NoApp; // a stale socket file: nobody listens
    }
    // The file may have been replaced between the check and the connect: what counts is who is
    // listening on the connection we got.
    if (!rules::peerRunsAs(sock, uid, &why)) {
        ::close(sock);
        say("refusing to relay to " + path + ": " + why);
        *exitCode = 1;
        return Relay::Done;
    }
    if (!sendDescriptors(sock)) {
        ::close(sock);
        return Relay::NoApp;
    }
    std::string buffer, line;
    bool taken = false;
    // The app answers at once; one that does not within this time is stuck, and the client
    // should hear so rather than wait forever. Once it took the session, the wait is the
    // session's.
    constexpr int kFirstAnswerMs = 15000;
    while (readLine(sock, &buffer, &line, taken ? 0 : kFirstAnswerMs)) {
        if (line == "exec" && !taken) {
            ::close(sock);
            return Relay::NotTaken;
        }
        if (line == "ok" && !taken) {
            taken = true;
            detach(0);
            detach(1);
        } else if (line.rfind("stderr ", 0) == 0) {
            const std::string text = line.substr(7) + "\n";
            [[maybe_unused]] const ssize_t n = ::write(2, text.data(), text.size());
        } else if (line.rfind("exit ", 0) == 0) {
            char *end = nullptr;
            const long code = std::strtol(line.c_str() + 5, &end, 10);
            *exitCode = (end && *end == '\0' && code >= 0 && code <= 255) ? int(code) : 1;
            ::close(sock);
            return Relay::Done;
        } else if (!taken) {
            // Not this wire: an app from before it (restart it after an upgrade) or something
            // else listening as this user.
            say("the process listening on " + path +
                " does not speak this relay's protocol; if it is an older Fabric Broker, quit "
                "it and start it again");
            ::close(sock);
            *exitCode = 1;
            return Relay::Done;
        }
    }
    ::close(sock);
    if (!taken) {
        say("the running Fabric Broker at " + path +
            " closed the connection or did not answer within 15 s");
        *exitCode = 1;
    } else {
        say("the running Fabric Broker ended this session");
        *exitCode = 1;
    }
    return Relay::Done;
}

} // namespace

int main(int argc, char *argv[])
{
    const Launch launch = classify(argc, argv);
    if (launch.relayCandidate) {
        std::signal(SIGPIPE, SIG_IGN);
        int code = 0;
        if (relay(launch.socket, &code) == Relay::Done)
            return code;
        std::signal(SIGPIPE, SIG_DFL); // the app sets its own
    }
    runApp(argc, argv);
}
