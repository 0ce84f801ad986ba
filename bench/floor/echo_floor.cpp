// echo_floor: the bare floor for the side-by-side benchmarks. No Qt, no JSON parser: it answers
// each newline-delimited JSON-RPC request line with a canned response, so its round trip is the
// cost of the pipe/socket, the kernel wake-ups and one scan of the line, nothing else.
//
//   echo_floor [--tools-list FILE]                 serve stdio (one session, exits on stdin EOF)
//   echo_floor --socket PATH [--tools-list FILE]   serve a Unix stream socket (bare socket echo)
//
// The response's id is the request's "id" token copied verbatim; lines without an id are
// notifications and get no answer. The result is picked by a prefix match of "method":
//   tools/list -> the contents of FILE (the tools/list result object dumped from fabric-broker,
//                 so the floor moves exactly the bytes our server moves), else {"tools":[]};
//   initialize -> a fixed InitializeResult; tools/call -> a small fixed CallToolResult;
//   anything else -> {}.
// Responses for everything read in one read() are written with one write(), as a good server
// would batch them.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace {

std::string g_toolsList = R"({"tools":[]})";
const std::string g_init =
    R"({"capabilities":{"tools":{"listChanged":false}},"protocolVersion":"2025-06-18",)"
    R"("serverInfo":{"name":"echo-floor","version":"0"}})";
const std::string g_call = R"({"content":[{"type":"text","text":"floor"}],"isError":false})";
const std::string g_empty = "{}";

bool writeAll(int fd, const char *p, size_t n)
{
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                pollfd pfd{fd, POLLOUT, 0};
                ::poll(&pfd, 1, -1);
                continue;
            }
            return false;
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

// Appends the answer to one request line (if it needs one) to out.
void answer(std::string_view line, std::string &out)
{
    const size_t idPos = line.find("\"id\":");
    if (idPos == std::string_view::npos)
        return; // a notification
    size_t b = idPos + 5;
    while (b < line.size() && line[b] == ' ')
        ++b;
    size_t e = b;
    if (e < line.size() && line[e] == '"') {
        e = line.find('"', e + 1);
        e = (e == std::string_view::npos) ? line.size() : e + 1;
    } else {
        while (e < line.size() && line[e] != ',' && line[e] != '}' && line[e] != ' ')
            ++e;
    }
    const std::string *result = &g_empty;
    const size_t m = line.find("\"method\":\"");
    if (m == std::string_view::npos)
        return; // a response to us (we never ask anything): ignore
    const std::string_view method = line.substr(m + 10);
    if (method.starts_with("tools/list\""))
        result = &g_toolsList;
    else if (method.starts_with("initialize\""))
        result = &g_init;
    else if (method.starts_with("tools/call\""))
        result = &g_call;
    out.append(R"({"jsonrpc":"2.0","id":)");
    out.append(line.substr(b, e - b));
    out.append(R"(,"result":)");
    out.append(*result);
    out.append("}\n");
}

// One connection's state: the partial line carried between reads.
struct Conn {
    int fd = -1;
    int outFd = -1;
    std::string partial;
};

// Reads what is available, answers every complete line; false on EOF/error.
bool serve(Conn &c, std::vector<char> &buf, std::string &out)
{
    const ssize_t n = ::read(c.fd, buf.data(), buf.size());
    if (n < 0)
        return errno == EINTR || errno == EAGAIN;
    if (n == 0)
        return false;
    out.clear();
    std::string_view chunk(buf.data(), static_cast<size_t>(n));
    while (!chunk.empty()) {
        const size_t nl = chunk.find('\n');
        if (nl == std::string_view::npos) {
            c.partial.append(chunk);
            break;
        }
        if (c.partial.empty()) {
            answer(chunk.substr(0, nl), out);
        } else {
            c.partial.append(chunk.substr(0, nl));
            answer(c.partial, out);
            c.partial.clear();
        }
        chunk.remove_prefix(nl + 1);
    }
    if (!out.empty() && !writeAll(c.outFd, out.data(), out.size()))
        return false;
    return true;
}

int serveStdio()
{
    std::vector<char> buf(1 << 16);
    std::string out;
    Conn c{0, 1, {}};
    while (serve(c, buf, out)) {
    }
    return 0;
}

int serveSocket(const std::string &path)
{
    const int lfd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path.size() >= sizeof(addr.sun_path)) {
        std::fprintf(stderr, "socket path too long\n");
        return 2;
    }
    std::memcpy(addr.sun_path, path.c_str(), path.size() + 1);
    ::unlink(path.c_str());
    if (::bind(lfd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0 ||
        ::listen(lfd, 16) != 0) {
        std::perror("echo_floor: listen");
        return 1;
    }
    std::signal(SIGPIPE, SIG_IGN);
    std::vector<char> buf(1 << 16);
    std::string out;
    std::vector<Conn> conns;
    for (;;) {
        std::vector<pollfd> pfds{{lfd, POLLIN, 0}};
        for (const Conn &c : conns)
            pfds.push_back({c.fd, POLLIN, 0});
        if (::poll(pfds.data(), pfds.size(), -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pfds[0].revents & POLLIN) {
            const int fd = ::accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC);
            if (fd >= 0)
                conns.push_back({fd, fd, {}});
        }
        for (size_t i = 1; i < pfds.size(); ++i) {
            if (!pfds[i].revents)
                continue;
            Conn &c = conns[i - 1];
            if (!serve(c, buf, out)) {
                ::close(c.fd);
                c.fd = -1;
            }
        }
        std::erase_if(conns, [](const Conn &c) { return c.fd < 0; });
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    std::string socketPath;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--socket" && i + 1 < argc) {
            socketPath = argv[++i];
        } else if (a == "--tools-list" && i + 1 < argc) {
            std::ifstream f(argv[++i], std::ios::binary);
            if (!f) {
                std::fprintf(stderr, "echo_floor: cannot read %s\n", argv[i]);
                return 2;
            }
            std::stringstream ss;
            ss << f.rdbuf();
            g_toolsList = ss.str();
            while (!g_toolsList.empty() &&
                   (g_toolsList.back() == '\n' || g_toolsList.back() == '\r'))
                g_toolsList.pop_back();
        } else {
            std::fprintf(stderr, "usage: echo_floor [--socket PATH] [--tools-list FILE]\n");
            return 2;
        }
    }
    return socketPath.empty() ? serveStdio() : serveSocket(socketPath);
}
