// mcp_bench: the one benchmark client for every server of the side-by-side benchmarks
// (fabric-broker, the TypeScript SDK reference server, the bare floor). Plain C++/POSIX, no Qt, no
// JSON library on any timed path: it speaks raw NDJSON JSON-RPC over a child's stdio or a Unix
// socket, and treats every server the same way (same request bytes, same framing code, a response
// is recognised by one full scan of the line for its "id", whatever the server's key order).
//
//   mcp_bench dump-tools --out FILE -- CMD ARGS...
//       spawn CMD (stdio), initialize, tools/list; write the result object to FILE.
//   mcp_bench compare --out FILE.jsonl [options] (--stdio NAME CMDLINE | --socket NAME PATH
//   CMDLINE)...
//       cold phase: --cold N times, servers interleaved A B A B: spawn -> initialize result,
//         first tools/call fabric_list_metros, stdin EOF -> exit (stdio servers only);
//       warm phase: --rounds R times, servers interleaved: one session each with sequential
//         round trips (--warmup W then --iters N of ping and tools/list, --call-iters of
//         tools/call fabric_list_metros for stdio servers), pipelined ping throughput
//         (--pipeline P pings, at most --window K in flight), server CPU per request
//         (/proc/PID/stat utime+stime deltas) and peak RSS (VmHWM).
//   mcp_bench compare ... --http NAME PORT CMDLINE [--connections C]
//       an MCP server over Streamable HTTP on 127.0.0.1:PORT (the bearer token in
//       FB_BENCH_HTTP_TOKEN, or on a 401 the one in FB_BENCH_HTTP_TOKEN_FILE): warm phase only,
//       each round one 2025-06-18 session: sequential ping, tools/list, tools/call
//       fabric_list_metros, then --pipeline pings over C keep-alive connections with one request in
//       flight on each (HTTP/1.1 clients do not pipeline).
//   mcp_bench broker --out FILE.jsonl --sandbox URL [options] -- CMD ARGS...
//       fabric-broker's own figures: propose/confirm round trips interleaved with the equivalent
//       direct HTTP requests to the sandbox (same bytes, keep-alive), proposals per second, and
//       --cycles propose/expire cycles sampling VmRSS every --sample cycles (run CMD with a small
//       EQUINIX_MCP_PROPOSAL_TTL_MS for that; --cycles 0 skips it).
//   mcp_bench hold --out FILE.jsonl --socket NAME PATH '' --pid PID [--count N --seconds S]
//       the desktop figure: propose N changes on a running app's socket (N live countdowns),
//       then the app's CPU (utime+stime of PID) over S seconds of idling.
// CMDLINE is split on spaces. Every result is one JSON object per line in --out.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace {

using Clock = std::chrono::steady_clock;

double usSince(Clock::time_point t0)
{
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

[[noreturn]] void fail(const std::string &what)
{
    throw std::runtime_error(what);
}

std::vector<std::string> splitSpaces(const std::string &s)
{
    std::vector<std::string> out;
    std::istringstream in(s);
    std::string w;
    while (in >> w)
        out.push_back(w);
    return out;
}

// ------------------------------------------------------------------------------------ /proc

struct ProcStat {
    double cpuUs = 0; // utime + stime
};

std::optional<ProcStat> procStat(pid_t pid)
{
    std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
    std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    const size_t rp = s.rfind(')');
    if (rp == std::string::npos)
        return std::nullopt;
    std::istringstream in(s.substr(rp + 2));
    std::string field;
    std::vector<std::string> fields;
    while (in >> field)
        fields.push_back(field);
    // fields[0] is state (field 3); utime is field 14, stime field 15.
    if (fields.size() < 13)
        return std::nullopt;
    static const double tick = 1e6 / static_cast<double>(sysconf(_SC_CLK_TCK));
    ProcStat st;
    st.cpuUs = (std::stod(fields[11]) + std::stod(fields[12])) * tick;
    return st;
}

long procStatusKb(pid_t pid, const char *key)
{
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    const std::string k = std::string(key) + ":";
    while (std::getline(f, line))
        if (line.rfind(k, 0) == 0)
            return std::strtol(line.c_str() + k.size(), nullptr, 10);
    return -1;
}

// ------------------------------------------------------------------------------------ children

struct Child {
    pid_t pid = -1;
    int in = -1;  // our end of its stdin
    int out = -1; // our end of its stdout
};

std::string g_stderrPath = "/dev/null";

Child spawnChild(const std::vector<std::string> &argv, bool pipes)
{
    int inPipe[2] = {-1, -1}, outPipe[2] = {-1, -1};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (pipes) {
        if (::pipe2(inPipe, O_CLOEXEC) != 0 || ::pipe2(outPipe, O_CLOEXEC) != 0)
            fail("pipe2 failed");
        posix_spawn_file_actions_adddup2(&fa, inPipe[0], 0);
        posix_spawn_file_actions_adddup2(&fa, outPipe[1], 1);
    } else {
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    }
    posix_spawn_file_actions_addopen(&fa, 2, g_stderrPath.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                     0644);
    std::vector<char *> args;
    for (const std::string &a : argv)
        args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    Child c;
    const int rc = posix_spawnp(&c.pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0)
        fail("cannot spawn " + argv[0] + ": " + std::strerror(rc));
    if (pipes) {
        ::close(inPipe[0]);
        ::close(outPipe[1]);
        c.in = inPipe[1];
        c.out = outPipe[0];
        ::fcntl(c.in, F_SETFL, O_NONBLOCK);
        ::fcntl(c.out, F_SETFL, O_NONBLOCK);
    }
    return c;
}

int waitExit(pid_t pid)
{
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

void killAndReap(Child &c)
{
    if (c.in >= 0)
        ::close(c.in);
    if (c.out >= 0)
        ::close(c.out);
    c.in = c.out = -1;
    if (c.pid > 0) {
        ::kill(c.pid, SIGTERM);
        waitExit(c.pid);
        c.pid = -1;
    }
}

// ------------------------------------------------------------------------------------ NDJSON

// True when line is the response to request `id`: one full scan for every "id": occurrence, so
// the cost does not depend on where a server puts its "id" key.
bool isResponseTo(std::string_view line, long long id)
{
    char needle[32];
    const int n = std::snprintf(needle, sizeof needle, "\"id\":%lld", id);
    bool hit = false;
    size_t pos = 0;
    while ((pos = line.find("\"id\":", pos)) != std::string_view::npos) {
        if (line.compare(pos, static_cast<size_t>(n), needle) == 0) {
            const size_t after = pos + static_cast<size_t>(n);
            if (after >= line.size() || line[after] < '0' || line[after] > '9')
                hit = true;
        }
        pos += 5;
    }
    return hit;
}

// The raw first "id" token of a line (for answering a server's own requests).
std::string rawId(std::string_view line)
{
    const size_t p = line.find("\"id\":");
    if (p == std::string_view::npos)
        return {};
    size_t b = p + 5, e = b;
    if (e < line.size() && line[e] == '"') {
        e = line.find('"', e + 1);
        return std::string(line.substr(b, e + 1 - b));
    }
    while (e < line.size() && line[e] != ',' && line[e] != '}')
        ++e;
    return std::string(line.substr(b, e - b));
}

struct Conn {
    int rfd = -1, wfd = -1;
    std::string buf;
    size_t start = 0; // first unconsumed byte in buf
    size_t scan = 0;  // where to resume the newline search
    int elicitations = 0;

    void sendRaw(const char *p, size_t n)
    {
        while (n > 0) {
            const ssize_t w = ::write(wfd, p, n);
            if (w < 0) {
                if (errno == EINTR)
                    continue;
                if (errno == EAGAIN) {
                    pollfd pfd{wfd, POLLOUT, 0};
                    ::poll(&pfd, 1, 10000);
                    continue;
                }
                fail(std::string("write to server failed: ") + std::strerror(errno));
            }
            p += w;
            n -= static_cast<size_t>(w);
        }
    }
    void send(const std::string &line) { sendRaw(line.data(), line.size()); }

    // Reads more bytes; false on EOF or timeout.
    bool fill(int timeoutMs)
    {
        if (start > 0 && start >= buf.size() / 2) {
            buf.erase(0, start);
            scan -= start;
            start = 0;
        }
        for (;;) {
            char tmp[65536];
            const ssize_t r = ::read(rfd, tmp, sizeof tmp);
            if (r > 0) {
                buf.append(tmp, static_cast<size_t>(r));
                return true;
            }
            if (r == 0)
                return false;
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN)
                return false;
            pollfd pfd{rfd, POLLIN, 0};
            const int pr = ::poll(&pfd, 1, timeoutMs);
            if (pr == 0)
                return false;
        }
    }

    // The next complete line (valid until the next call), or nullopt on EOF/timeout.
    std::optional<std::string_view> readLine(int timeoutMs = 30000)
    {
        for (;;) {
            const size_t nl = buf.find('\n', scan);
            if (nl != std::string::npos) {
                std::string_view line(buf.data() + start, nl - start);
                start = scan = nl + 1;
                return line;
            }
            scan = buf.size();
            if (!fill(timeoutMs))
                return std::nullopt;
        }
    }

    // A line that is not the awaited response: answer the server's own requests.
    void handleOther(std::string_view line)
    {
        if (line.find("\"method\":\"elicitation/create\"") != std::string_view::npos) {
            ++elicitations;
            send(R"({"jsonrpc":"2.0","id":)" + rawId(line) +
                 R"(,"result":{"action":"accept","content":{"confirm":true}}})"
                 "\n");
        } else if (line.find("\"method\":\"ping\"") != std::string_view::npos &&
                   line.find("\"id\":") != std::string_view::npos) {
            send(R"({"jsonrpc":"2.0","id":)" + rawId(line) +
                 R"(,"result":{}})"
                 "\n");
        }
    }

    // Reads until the response to id arrives; returns it (a copy) or throws.
    std::string_view await(long long id, int timeoutMs = 30000)
    {
        for (;;) {
            auto line = readLine(timeoutMs);
            if (!line)
                fail("no response to request " + std::to_string(id) + " (EOF or timeout)");
            if (isResponseTo(*line, id))
                return *line;
            handleOther(*line);
        }
    }
};

long long g_nextId = 1000000;

std::string request(long long id, std::string_view method, std::string_view params = {})
{
    std::string s = R"({"jsonrpc":"2.0","id":)";
    s += std::to_string(id);
    s += R"(,"method":")";
    s += method;
    s += '"';
    if (!params.empty()) {
        s += R"(,"params":)";
        s += params;
    }
    s += "}\n";
    return s;
}

const std::string kInitialized = R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
                                 "\n";

std::string initParams(bool elicitation)
{
    return std::string(R"({"protocolVersion":"2025-06-18","capabilities":)") +
           (elicitation ? R"({"elicitation":{}})" : "{}") +
           R"(,"clientInfo":{"name":"mcp-bench","version":"1"}})";
}

const std::string kMetrosCall = R"({"name":"fabric_list_metros","arguments":{}})";

double roundTrip(Conn &c, std::string_view method, std::string_view params = {},
                 std::string *responseOut = nullptr)
{
    const long long id = g_nextId++;
    const std::string req = request(id, method, params);
    const auto t0 = Clock::now();
    c.send(req);
    const std::string_view resp = c.await(id);
    const double us = usSince(t0);
    if (responseOut)
        *responseOut = std::string(resp);
    return us;
}

void checkNoError(std::string_view resp, const char *what)
{
    if (resp.find("\"error\":{\"code\"") != std::string_view::npos ||
        resp.find("\"isError\":true") != std::string_view::npos)
        fail(std::string(what) + " failed: " + std::string(resp.substr(0, 600)));
}

// ------------------------------------------------------------------------------------ stats

struct Summary {
    double p50 = 0, p90 = 0, p99 = 0, mean = 0;
    size_t n = 0;
};

Summary summarize(std::vector<double> v)
{
    Summary s;
    s.n = v.size();
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    auto q = [&](double p) {
        size_t i = static_cast<size_t>(std::floor(p * static_cast<double>(v.size())));
        return v[std::min(i, v.size() - 1)];
    };
    s.p50 = q(0.50);
    s.p90 = q(0.90);
    s.p99 = q(0.99);
    double sum = 0;
    for (double x : v)
        sum += x;
    s.mean = sum / static_cast<double>(v.size());
    return s;
}

std::string jnum(double v)
{
    char b[64];
    std::snprintf(b, sizeof b, "%.3f", v);
    return b;
}

std::string jstr(const std::string &s)
{
    std::string o = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\')
            o += '\\';
        o += ch;
    }
    return o + "\"";
}

std::string summaryJson(const Summary &s, double cpuUsPerReq)
{
    return "{\"p50_us\":" + jnum(s.p50) + ",\"p90_us\":" + jnum(s.p90) +
           ",\"p99_us\":" + jnum(s.p99) + ",\"mean_us\":" + jnum(s.mean) +
           ",\"n\":" + std::to_string(s.n) + ",\"server_cpu_us_per_req\":" + jnum(cpuUsPerReq) +
           "}";
}

std::ofstream g_out;

void emit(const std::string &json)
{
    g_out << json << '\n';
    g_out.flush();
    std::fprintf(stderr, "%s\n", json.c_str());
}

// ------------------------------------------------------------------------------------ servers

struct ServerSpec {
    std::string name;
    bool socket = false;
    std::string socketPath;
    std::vector<std::string> argv;
    bool http = false;
    int port = 0; // http: the port CMDLINE listens on
};

// A live session: the child and the connection to it.
struct Session {
    Child child;
    Conn conn;
    int sockFd = -1;

    ~Session() { close(); }
    void close()
    {
        if (sockFd >= 0)
            ::close(sockFd);
        sockFd = -1;
        killAndReap(child);
    }
};

int connectUnix(const std::string &path, int timeoutMs)
{
    const auto t0 = Clock::now();
    for (;;) {
        const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", path.c_str());
        if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0) {
            ::fcntl(fd, F_SETFL, O_NONBLOCK);
            return fd;
        }
        ::close(fd);
        if (usSince(t0) > timeoutMs * 1000.0)
            fail("cannot connect to " + path);
        ::usleep(2000);
    }
}

// Starts the server and runs initialize (+ initialized); returns the initialize round trip
// measured from just before the spawn (stdio) or the connect (socket).
std::unique_ptr<Session> startSession(const ServerSpec &spec, bool elicitation,
                                      double *spawnToInitUs)
{
    auto s = std::make_unique<Session>();
    const long long id = g_nextId++;
    const std::string init = request(id, "initialize", initParams(elicitation));
    const auto t0 = Clock::now();
    if (spec.socket) {
        ::unlink(spec.socketPath.c_str());
        s->child = spawnChild(spec.argv, false);
        s->sockFd = connectUnix(spec.socketPath, 20000);
        s->conn.rfd = s->conn.wfd = s->sockFd;
    } else {
        s->child = spawnChild(spec.argv, true);
        s->conn.rfd = s->child.out;
        s->conn.wfd = s->child.in;
    }
    s->conn.send(init);
    const std::string_view resp = s->conn.await(id, 60000);
    if (spawnToInitUs)
        *spawnToInitUs = usSince(t0);
    checkNoError(resp, "initialize");
    s->conn.send(kInitialized);
    return s;
}

double cpuUs(pid_t pid)
{
    auto st = procStat(pid);
    return st ? st->cpuUs : 0.0;
}

struct Options {
    int rounds = 5, cold = 10, warmup = 2000, iters = 5000, callIters = 2000, callWarmup = 200;
    int pipeline = 20000, window = 256;
    int httpConnections = 16;
    int confirmIters = 200, cycles = 100000, sample = 10000;
    std::string sandboxUrl;
    std::string cyclesTtlMs = "5";
    std::string label = "default";
    int vlanBase = 1000; // confirms use VLANs from here, direct creates from here + 1500
    pid_t holdPid = 0;
    int holdCount = 20, holdSeconds = 60;
    std::string phases = "ping,tools_list,tools_call,pipelined"; // warm phases to run (profiling)
    bool has(const char *phase) const { return phases.find(phase) != std::string::npos; }
};

// Sequential round trips of one method; returns the summary and server CPU per request.
std::pair<Summary, double> sequential(Session &s, std::string_view method, std::string_view params,
                                      int warmup, int iters)
{
    std::string first;
    roundTrip(s.conn, method, params, &first);
    checkNoError(first, std::string(method).c_str());
    for (int i = 0; i < warmup; ++i)
        roundTrip(s.conn, method, params);
    std::vector<double> v;
    v.reserve(static_cast<size_t>(iters));
    const double cpu0 = cpuUs(s.child.pid);
    for (int i = 0; i < iters; ++i)
        v.push_back(roundTrip(s.conn, method, params));
    const double cpu1 = cpuUs(s.child.pid);
    return {summarize(std::move(v)), (cpu1 - cpu0) / std::max(1, iters)};
}

// P pings, at most `window` in flight; returns {pings per second, server CPU us per ping}.
std::pair<double, double> pipelined(Session &s, int total, int window)
{
    Conn &c = s.conn;
    std::vector<std::string> reqs;
    const long long firstId = g_nextId;
    reqs.reserve(static_cast<size_t>(total));
    for (int i = 0; i < total; ++i)
        reqs.push_back(request(g_nextId++, "ping"));
    const double cpu0 = cpuUs(s.child.pid);
    const auto t0 = Clock::now();
    int sent = 0, received = 0;
    size_t partial = 0; // bytes of reqs[sent] already written
    while (received < total) {
        const bool wantWrite = sent < total && sent - received < window;
        pollfd pfds[2] = {{c.rfd, POLLIN, 0},
                          {c.wfd, static_cast<short>(wantWrite ? POLLOUT : 0), 0}};
        const nfds_t n = (c.rfd == c.wfd) ? 1 : 2;
        if (c.rfd == c.wfd && wantWrite)
            pfds[0].events |= POLLOUT;
        if (::poll(pfds, n, 30000) <= 0)
            fail("pipelined ping stalled");
        const bool canWrite = (n == 2 ? pfds[1].revents : pfds[0].revents) & POLLOUT;
        if (wantWrite && canWrite) {
            // Write as many queued requests as the window allows in one go.
            std::string batch;
            int k = sent;
            batch.append(reqs[static_cast<size_t>(k)], partial);
            ++k;
            while (k < total && k - received < window && batch.size() < 65536)
                batch += reqs[static_cast<size_t>(k++)];
            const ssize_t w = ::write(c.wfd, batch.data(), batch.size());
            if (w > 0) {
                size_t left = static_cast<size_t>(w);
                // Advance sent/partial by w bytes.
                size_t firstRest = reqs[static_cast<size_t>(sent)].size() - partial;
                if (left < firstRest) {
                    partial += left;
                } else {
                    left -= firstRest;
                    ++sent;
                    partial = 0;
                    while (left > 0 && left >= reqs[static_cast<size_t>(sent)].size()) {
                        left -= reqs[static_cast<size_t>(sent)].size();
                        ++sent;
                    }
                    partial = left;
                }
            }
        }
        if (pfds[0].revents & (POLLIN | POLLHUP)) {
            if (!c.fill(0) && (pfds[0].revents & POLLHUP))
                fail("server closed during pipelined ping");
            for (;;) {
                const size_t nl = c.buf.find('\n', c.scan);
                if (nl == std::string::npos) {
                    c.scan = c.buf.size();
                    break;
                }
                std::string_view line(c.buf.data() + c.start, nl - c.start);
                c.start = c.scan = nl + 1;
                if (isResponseTo(line, firstId + received))
                    ++received;
                else
                    c.handleOther(line);
            }
        }
    }
    const double secs = usSince(t0) / 1e6;
    const double cpu1 = cpuUs(s.child.pid);
    return {total / secs, (cpu1 - cpu0) / total};
}

// ------------------------------------------------------------------------------------ compare

void coldOnce(const ServerSpec &spec, int round)
{
    double spawnInit = 0;
    auto s = startSession(spec, false, &spawnInit);
    std::string resp;
    double firstCall = -1;
    if (!spec.socket) {
        firstCall = roundTrip(s->conn, "tools/call", kMetrosCall, &resp);
        checkNoError(resp, "first tools/call");
    }
    double eofExit = -1;
    if (!spec.socket) {
        const auto t0 = Clock::now();
        ::close(s->child.in);
        s->child.in = -1;
        waitExit(s->child.pid);
        eofExit = usSince(t0);
        s->child.pid = -1;
    }
    s->close();
    emit("{\"kind\":\"cold\",\"server\":" + jstr(spec.name) + ",\"transport\":\"" +
         (spec.socket ? "socket" : "stdio") + "\",\"round\":" + std::to_string(round) +
         ",\"spawn_to_initialize_us\":" + jnum(spawnInit) +
         ",\"first_call_us\":" + jnum(firstCall) + ",\"eof_to_exit_us\":" + jnum(eofExit) + "}");
}

void warmOnce(const ServerSpec &spec, int round, const Options &o)
{
    auto s = startSession(spec, false, nullptr);
    std::pair<Summary, double> ping{}, list{};
    if (o.has("ping"))
        ping = sequential(*s, "ping", {}, o.warmup, o.iters);
    if (o.has("tools_list"))
        list = sequential(*s, "tools/list", {}, o.warmup, o.iters);
    std::string callJson = "null";
    if (!spec.socket && o.has("tools_call")) {
        auto [call, callCpu] = sequential(*s, "tools/call", kMetrosCall, o.callWarmup, o.callIters);
        callJson = summaryJson(call, callCpu);
    }
    std::pair<double, double> pipe{0, 0};
    if (o.has("pipelined"))
        pipe = pipelined(*s, o.pipeline, o.window);
    auto [rate, pipeCpu] = pipe;
    const long hwm = procStatusKb(s->child.pid, "VmHWM");
    const long rss = procStatusKb(s->child.pid, "VmRSS");
    s->close();
    emit("{\"kind\":\"warm\",\"server\":" + jstr(spec.name) + ",\"transport\":\"" +
         (spec.socket ? "socket" : "stdio") + "\",\"round\":" + std::to_string(round) +
         ",\"ping\":" + summaryJson(ping.first, ping.second) +
         ",\"tools_list\":" + summaryJson(list.first, list.second) +
         ",\"tools_call_metros\":" + callJson + ",\"pipelined_ping_per_s\":" + jnum(rate) +
         ",\"pipelined_server_cpu_us_per_req\":" + jnum(pipeCpu) +
         ",\"vmhwm_kb\":" + std::to_string(hwm) + ",\"vmrss_kb\":" + std::to_string(rss) + "}");
}

// ------------------------------------------------------------------------------------ JSON
// (untimed)

// A small JSON reader for the untimed setup of the broker figures (reading the sandbox's request
// log and the OAuth token). Never used on a timed path.
struct J {
    enum T { Null, Bool, Num, Str, Arr, Obj } t = Null;
    double n = 0;
    bool b = false;
    std::string s;
    std::vector<J> a;
    std::vector<std::pair<std::string, J>> o;
    const J *get(const std::string &k) const
    {
        for (const auto &[key, v] : o)
            if (key == k)
                return &v;
        return nullptr;
    }
};

struct JParser {
    std::string_view in;
    size_t p = 0;
    void ws()
    {
        while (p < in.size() && std::strchr(" \t\r\n", in[p]))
            ++p;
    }
    std::string str()
    {
        std::string out;
        ++p; // opening quote
        while (p < in.size() && in[p] != '"') {
            char ch = in[p++];
            if (ch != '\\') {
                out += ch;
                continue;
            }
            ch = in[p++];
            switch (ch) {
            case 'n':
                out += '\n';
                break;
            case 't':
                out += '\t';
                break;
            case 'r':
                out += '\r';
                break;
            case 'b':
                out += '\b';
                break;
            case 'f':
                out += '\f';
                break;
            case 'u': {
                unsigned cp =
                    static_cast<unsigned>(std::stoul(std::string(in.substr(p, 4)), nullptr, 16));
                p += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && in.substr(p, 2) == "\\u") {
                    const unsigned lo = static_cast<unsigned>(
                        std::stoul(std::string(in.substr(p + 2, 4)), nullptr, 16));
                    p += 6;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                }
                if (cp < 0x80) {
                    out += static_cast<char>(cp);
                } else if (cp < 0x800) {
                    out += static_cast<char>(0xC0 | (cp >> 6));
                    out += static_cast<char>(0x80 | (cp & 0x3F));
                } else if (cp < 0x10000) {
                    out += static_cast<char>(0xE0 | (cp >> 12));
                    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                    out += static_cast<char>(0x80 | (cp & 0x3F));
                } else {
                    out += static_cast<char>(0xF0 | (cp >> 18));
                    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
                    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                    out += static_cast<char>(0x80 | (cp & 0x3F));
                }
                break;
            }
            default:
                out += ch;
            }
        }
        ++p;
        return out;
    }
    J value()
    {
        ws();
        J v;
        if (p >= in.size())
            fail("bad JSON");
        const char ch = in[p];
        if (ch == '{') {
            v.t = J::Obj;
            ++p;
            ws();
            if (in[p] == '}') {
                ++p;
                return v;
            }
            for (;;) {
                ws();
                std::string k = str();
                ws();
                ++p; // ':'
                v.o.emplace_back(std::move(k), value());
                ws();
                if (in[p++] == '}')
                    return v;
            }
        }
        if (ch == '[') {
            v.t = J::Arr;
            ++p;
            ws();
            if (in[p] == ']') {
                ++p;
                return v;
            }
            for (;;) {
                v.a.push_back(value());
                ws();
                if (in[p++] == ']')
                    return v;
            }
        }
        if (ch == '"') {
            v.t = J::Str;
            v.s = str();
            return v;
        }
        if (in.substr(p, 4) == "true") {
            v.t = J::Bool;
            v.b = true;
            p += 4;
            return v;
        }
        if (in.substr(p, 5) == "false") {
            v.t = J::Bool;
            p += 5;
            return v;
        }
        if (in.substr(p, 4) == "null") {
            p += 4;
            return v;
        }
        v.t = J::Num;
        size_t used = 0;
        v.n = std::stod(std::string(in.substr(p, 64)), &used);
        p += used;
        return v;
    }
};

J parseJson(std::string_view s)
{
    JParser jp{s};
    return jp.value();
}

// The raw text of the "result" member of a response line (brace matching, string aware).
std::string rawResult(std::string_view line)
{
    const size_t k = line.find("\"result\":");
    if (k == std::string_view::npos)
        fail("no result in: " + std::string(line.substr(0, 300)));
    size_t b = k + 9;
    int depth = 0;
    bool inStr = false;
    for (size_t i = b; i < line.size(); ++i) {
        const char ch = line[i];
        if (inStr) {
            if (ch == '\\')
                ++i;
            else if (ch == '"')
                inStr = false;
            continue;
        }
        if (ch == '"')
            inStr = true;
        else if (ch == '{' || ch == '[')
            ++depth;
        else if (ch == '}' || ch == ']') {
            if (--depth == 0)
                return std::string(line.substr(b, i + 1 - b));
        }
    }
    fail("unterminated result");
}

// ------------------------------------------------------------------------------------ HTTP

// A minimal HTTP/1.1 keep-alive client for the direct sandbox requests: the same headers
// fabric-broker's FabricClient sends.
struct Http {
    std::string host;
    int port = 0;
    int fd = -1;
    std::string buf;
    std::string token;
    unsigned long long serial = 0;

    void connectNow()
    {
        if (fd >= 0)
            ::close(fd);
        fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port));
        ::inet_pton(AF_INET, host.c_str(), &a.sin_addr);
        if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0)
            fail("cannot connect to the sandbox");
        int one = 1;
        ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        buf.clear();
    }

    void send(const std::string &method, const std::string &target, const std::string &body)
    {
        if (fd < 0)
            connectNow();
        char corr[64];
        std::snprintf(corr, sizeof corr, "b0000000-0000-4000-8000-%012llx", ++serial);
        std::string req = method + " " + target + " HTTP/1.1\r\nHost: " + host + ":" +
                          std::to_string(port) +
                          "\r\nAccept: application/json\r\nUser-Agent: fabric-broker/0.1.0\r\n"
                          "X-CORRELATION-ID: " +
                          corr + "\r\nConnection: keep-alive\r\n";
        if (!token.empty())
            req += "Authorization: Bearer " + token + "\r\n";
        if (method != "GET")
            req +=
                "Content-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                "\r\n";
        req += "\r\n";
        req += body;
        size_t off = 0;
        while (off < req.size()) {
            const ssize_t w = ::write(fd, req.data() + off, req.size() - off);
            if (w <= 0)
                fail("HTTP write failed");
            off += static_cast<size_t>(w);
        }
    }

    bool more()
    {
        char tmp[65536];
        const ssize_t r = ::read(fd, tmp, sizeof tmp);
        if (r <= 0)
            return false;
        buf.append(tmp, static_cast<size_t>(r));
        return true;
    }

    // Reads one response; returns the status, body in *out.
    int receive(std::string *out)
    {
        size_t he;
        while ((he = buf.find("\r\n\r\n")) == std::string::npos)
            if (!more())
                fail("HTTP connection closed");
        const std::string head = buf.substr(0, he);
        std::string lower = head;
        std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
        const int status = std::atoi(head.c_str() + 9);
        size_t pos = he + 4;
        std::string body;
        const size_t cl = lower.find("\r\ncontent-length:");
        if (cl != std::string::npos) {
            const size_t len = std::strtoul(lower.c_str() + cl + 17, nullptr, 10);
            while (buf.size() < pos + len)
                if (!more())
                    fail("HTTP body truncated");
            body = buf.substr(pos, len);
            pos += len;
        } else if (lower.find("transfer-encoding: chunked") != std::string::npos) {
            for (;;) {
                size_t le;
                while ((le = buf.find("\r\n", pos)) == std::string::npos)
                    if (!more())
                        fail("HTTP chunk truncated");
                const size_t len = std::strtoul(buf.c_str() + pos, nullptr, 16);
                while (buf.size() < le + 2 + len + 2)
                    if (!more())
                        fail("HTTP chunk truncated");
                body.append(buf, le + 2, len);
                pos = le + 2 + len + 2;
                if (len == 0)
                    break;
            }
        }
        buf.erase(0, pos);
        if (lower.find("connection: close") != std::string::npos) {
            ::close(fd);
            fd = -1;
        }
        if (out)
            *out = std::move(body);
        return status;
    }

    int exchange(const std::string &method, const std::string &target, const std::string &body,
                 std::string *out = nullptr)
    {
        send(method, target, body);
        return receive(out);
    }
};

void parseUrl(const std::string &url, std::string *host, int *port)
{
    const size_t s = url.find("://");
    const std::string rest = url.substr(s == std::string::npos ? 0 : s + 3);
    const size_t c = rest.find(':');
    *host = rest.substr(0, c);
    *port = std::atoi(rest.c_str() + c + 1);
}

// ------------------------------------------------------------------------------------ http
// MCP over Streamable HTTP (fabric-broker --http, the SDK's reference HTTP server): the same
// request bytes for both, keep-alive connections, JSON responses (Content-Length or chunked),
// the bearer token from FB_BENCH_HTTP_TOKEN on every request, one 2025-06-18 session.

// One complete response at the front of buf: its status, body and Mcp-Session-Id; false while
// incomplete. *consumed = its size.
bool parseHttpResponse(const std::string &buf, size_t *consumed, int *status, std::string *body,
                       std::string *sessionId)
{
    const size_t he = buf.find("\r\n\r\n");
    if (he == std::string::npos)
        return false;
    std::string lower = buf.substr(0, he);
    std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
    size_t pos = he + 4;
    body->clear();
    const size_t cl = lower.find("\r\ncontent-length:");
    if (cl != std::string::npos) {
        const size_t len = std::strtoul(lower.c_str() + cl + 17, nullptr, 10);
        if (buf.size() < pos + len)
            return false;
        body->assign(buf, pos, len);
        pos += len;
    } else if (lower.find("transfer-encoding: chunked") != std::string::npos) {
        for (;;) {
            const size_t le = buf.find("\r\n", pos);
            if (le == std::string::npos)
                return false;
            const size_t len = std::strtoul(buf.c_str() + pos, nullptr, 16);
            if (buf.size() < le + 2 + len + 2)
                return false;
            body->append(buf, le + 2, len);
            pos = le + 2 + len + 2;
            if (len == 0)
                break;
        }
    }
    *status = std::atoi(buf.c_str() + 9);
    if (sessionId) {
        const size_t sid = lower.find("\r\nmcp-session-id:");
        if (sid != std::string::npos) {
            size_t b = sid + 17;
            while (b < he && buf[b] == ' ')
                ++b;
            *sessionId = buf.substr(b, buf.find("\r\n", b) - b);
        }
    }
    *consumed = pos;
    return true;
}

struct McpHttp {
    int port = 0;
    std::string token, session;
    int fd = -1;
    std::string buf;

    static int connectTcp(int port, int timeoutMs)
    {
        const auto t0 = Clock::now();
        for (;;) {
            const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in a{};
            a.sin_family = AF_INET;
            a.sin_port = htons(static_cast<uint16_t>(port));
            a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            if (::connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0) {
                int one = 1;
                ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
                return fd;
            }
            ::close(fd);
            if (usSince(t0) > timeoutMs * 1000.0)
                fail("cannot connect to 127.0.0.1:" + std::to_string(port));
            ::usleep(2000);
        }
    }
    std::string frame(const std::string &json) const
    {
        std::string req = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                          "\r\nAuthorization: Bearer " + token +
                          "\r\nContent-Type: application/json\r\nAccept: application/json, "
                          "text/event-stream\r\nMCP-Protocol-Version: 2025-06-18\r\n";
        if (!session.empty())
            req += "Mcp-Session-Id: " + session + "\r\n";
        req += "Content-Length: " + std::to_string(json.size()) + "\r\n\r\n" + json;
        return req;
    }
    // One POST; returns the status and the body in *out.
    int post(const std::string &json, std::string *out, std::string *sessionOut = nullptr)
    {
        if (fd < 0)
            fd = connectTcp(port, 20000);
        const std::string req = frame(json);
        for (size_t off = 0; off < req.size();) {
            const ssize_t w = ::write(fd, req.data() + off, req.size() - off);
            if (w <= 0)
                fail("HTTP write failed");
            off += static_cast<size_t>(w);
        }
        for (;;) {
            size_t used = 0;
            int status = 0;
            if (parseHttpResponse(buf, &used, &status, out, sessionOut)) {
                buf.erase(0, used);
                return status;
            }
            char tmp[65536];
            const ssize_t r = ::read(fd, tmp, sizeof tmp);
            if (r <= 0)
                fail("HTTP connection closed");
            buf.append(tmp, static_cast<size_t>(r));
        }
    }
    ~McpHttp()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

std::string jsonLine(long long id, std::string_view method, std::string_view params = {})
{
    std::string s = request(id, method, params);
    s.pop_back(); // no newline on HTTP
    return s;
}

double httpRoundTrip(McpHttp &h, std::string_view method, std::string_view params = {},
                     std::string *responseOut = nullptr)
{
    const long long id = g_nextId++;
    const std::string body = jsonLine(id, method, params);
    std::string resp;
    const auto t0 = Clock::now();
    const int status = h.post(body, &resp);
    const double us = usSince(t0);
    if (status != 200 || !isResponseTo(resp, id))
        fail("HTTP " + std::string(method) + ": status " + std::to_string(status) + " " +
             resp.substr(0, 300));
    if (responseOut)
        *responseOut = resp;
    return us;
}

std::pair<Summary, double> httpSequential(McpHttp &h, pid_t pid, std::string_view method,
                                          std::string_view params, int warmup, int iters)
{
    std::string first;
    httpRoundTrip(h, method, params, &first);
    checkNoError(first, std::string(method).c_str());
    for (int i = 0; i < warmup; ++i)
        httpRoundTrip(h, method, params);
    std::vector<double> v;
    v.reserve(static_cast<size_t>(iters));
    const double cpu0 = cpuUs(pid);
    for (int i = 0; i < iters; ++i)
        v.push_back(httpRoundTrip(h, method, params));
    const double cpu1 = cpuUs(pid);
    return {summarize(std::move(v)), (cpu1 - cpu0) / std::max(1, iters)};
}

// `total` pings over `conns` keep-alive connections of the session, one request in flight on
// each (what HTTP/1.1 clients do instead of pipelining); {pings per second, server CPU us/ping}.
std::pair<double, double> httpConcurrent(const McpHttp &proto, pid_t pid, int total, int conns)
{
    struct C {
        int fd;
        std::string buf;
        long long id = -1;
    };
    std::vector<C> cs;
    for (int i = 0; i < conns; ++i)
        cs.push_back({McpHttp::connectTcp(proto.port, 5000), {}, -1});
    const double cpu0 = cpuUs(pid);
    const auto t0 = Clock::now();
    int sent = 0, received = 0;
    const auto sendNext = [&](C &c) {
        c.id = g_nextId++;
        const std::string req = proto.frame(jsonLine(c.id, "ping"));
        for (size_t off = 0; off < req.size();) {
            const ssize_t w = ::write(c.fd, req.data() + off, req.size() - off);
            if (w <= 0)
                fail("HTTP write failed");
            off += static_cast<size_t>(w);
        }
        ++sent;
    };
    for (C &c : cs)
        if (sent < total)
            sendNext(c);
    std::vector<pollfd> pfds(cs.size());
    std::string body;
    while (received < total) {
        for (size_t i = 0; i < cs.size(); ++i)
            pfds[i] = {cs[i].fd, static_cast<short>(cs[i].id >= 0 ? POLLIN : 0), 0};
        if (::poll(pfds.data(), pfds.size(), 30000) <= 0)
            fail("concurrent HTTP ping stalled");
        for (size_t i = 0; i < cs.size(); ++i) {
            if (!(pfds[i].revents & (POLLIN | POLLHUP)))
                continue;
            C &c = cs[i];
            char tmp[65536];
            const ssize_t r = ::read(c.fd, tmp, sizeof tmp);
            if (r <= 0)
                fail("server closed during concurrent HTTP ping");
            c.buf.append(tmp, static_cast<size_t>(r));
            size_t used = 0;
            int status = 0;
            if (!parseHttpResponse(c.buf, &used, &status, &body, nullptr))
                continue;
            c.buf.erase(0, used);
            if (status != 200 || !isResponseTo(body, c.id))
                fail("concurrent HTTP ping: status " + std::to_string(status));
            ++received;
            c.id = -1;
            if (sent < total)
                sendNext(c);
        }
    }
    const double secs = usSince(t0) / 1e6;
    const double cpu1 = cpuUs(pid);
    for (C &c : cs)
        ::close(c.fd);
    return {total / secs, (cpu1 - cpu0) / total};
}

void warmHttpOnce(const ServerSpec &spec, int round, const Options &o)
{
    const char *token = std::getenv("FB_BENCH_HTTP_TOKEN");
    if (!token || !*token)
        fail("FB_BENCH_HTTP_TOKEN is not set");
    Child child = spawnChild(spec.argv, false);
    McpHttp h;
    h.port = spec.port;
    h.token = token;
    std::string resp;
    long long initId = g_nextId++;
    int st = h.post(jsonLine(initId, "initialize", initParams(false)), &resp, &h.session);
    // fabric-broker writes a new token at every start (before it listens): on 401, the token is
    // the one in the file it wrote.
    const char *tokenFile = std::getenv("FB_BENCH_HTTP_TOKEN_FILE");
    if (st == 401 && tokenFile && *tokenFile) {
        std::ifstream in(tokenFile);
        std::string fresh;
        std::getline(in, fresh);
        if (!fresh.empty()) {
            h.token = fresh;
            ::close(h.fd); // the server closes a refused connection: start a new one
            h.fd = -1;
            h.buf.clear();
            initId = g_nextId++;
            st = h.post(jsonLine(initId, "initialize", initParams(false)), &resp, &h.session);
        }
    }
    if (st != 200 || h.session.empty())
        fail(spec.name + ": HTTP initialize: status " + std::to_string(st) + " " +
             resp.substr(0, 300));
    std::string kInit = kInitialized;
    kInit.pop_back();
    h.post(kInit, &resp);
    std::pair<Summary, double> ping{}, list{}, call{};
    if (o.has("ping"))
        ping = httpSequential(h, child.pid, "ping", {}, o.warmup, o.iters);
    if (o.has("tools_list"))
        list = httpSequential(h, child.pid, "tools/list", {}, o.warmup, o.iters);
    if (o.has("tools_call"))
        call = httpSequential(h, child.pid, "tools/call", kMetrosCall, o.callWarmup, o.callIters);
    std::pair<double, double> conc{0, 0};
    if (o.has("pipelined"))
        conc = httpConcurrent(h, child.pid, o.pipeline, o.httpConnections);
    const long hwm = procStatusKb(child.pid, "VmHWM");
    killAndReap(child);
    emit("{\"kind\":\"warm\",\"server\":" + jstr(spec.name) + ",\"transport\":\"http\",\"round\":" +
         std::to_string(round) + ",\"ping\":" + summaryJson(ping.first, ping.second) +
         ",\"tools_list\":" + summaryJson(list.first, list.second) + ",\"tools_call_metros\":" +
         summaryJson(call.first, call.second) + ",\"concurrent_ping_per_s\":" + jnum(conc.first) +
         ",\"concurrent_server_cpu_us_per_req\":" + jnum(conc.second) + ",\"connections\":" +
         std::to_string(o.httpConnections) + ",\"vmhwm_kb\":" + std::to_string(hwm) + "}");
}

// ------------------------------------------------------------------------------------ broker

// Canonical (RFC 8785: sorted keys, compact) bodies, so the broker's compiled bytes equal ours.
std::string networkSpec()
{
    return R"({"name":"bench-net","notifications":[{"emails":["netops@example.com"],"type":"ALL"}],)"
           R"("scope":"GLOBAL","type":"EVPLAN"})";
}

std::string connectionSpec(int vlan)
{
    return R"({"aSide":{"accessPoint":{"linkProtocol":{"type":"DOT1Q","vlanTag":)" +
           std::to_string(vlan) +
           R"(},"port":{"uuid":"50000000-0000-4000-8000-000000000001"},"type":"COLO"}},)"
           R"("bandwidth":50,"name":"bench-conn-)" +
           std::to_string(vlan) +
           R"(","notifications":[{"emails":["netops@example.com"],"type":"ALL"}],"type":"EVPL_VC",)"
           R"("zSide":{"accessPoint":{"authenticationKey":"123456789012","location":{"metroCode":"SV"},)"
           R"("profile":{"type":"L2_PROFILE","uuid":"5e000000-0000-4000-8000-000000000001"},)"
           R"("sellerRegion":"us-west-1","type":"SP"}}})";
}

std::string proposeParams(const std::string &changeType, const std::string &spec)
{
    return R"({"name":"fabric_propose_change","arguments":{"change_type":")" + changeType +
           R"(","spec":)" + spec + "}}";
}

std::string tokenOf(std::string_view resp)
{
    const size_t p = resp.find("chg-");
    if (p == std::string_view::npos)
        fail("no confirm token in: " + std::string(resp.substr(0, 600)));
    return std::string(resp.substr(p, 36));
}

struct Logged {
    std::string method, path, query, body;
};

// The sandbox's request log (admin endpoint), oldest first.
std::vector<Logged> sandboxLog(Http &admin)
{
    std::string body;
    admin.exchange("GET", "/sandbox/v1/requests", {}, &body);
    const J j = parseJson(body);
    std::vector<Logged> out;
    if (const J *d = j.get("data"))
        for (const J &e : d->a)
            out.push_back(
                {e.get("method")->s, e.get("path")->s, e.get("query")->s, e.get("body")->s});
    return out;
}

void runBroker(const std::vector<std::string> &argv, const Options &o)
{
    ServerSpec spec{"fabric-broker", false, {}, argv};
    std::string host;
    int port = 0;
    parseUrl(o.sandboxUrl, &host, &port);
    Http admin, dry, price;
    for (Http *h : {&admin, &dry, &price}) {
        h->host = host;
        h->port = port;
    }

    // Same OAuth token fetch as the broker (client credentials, JSON body).
    {
        const char *id = std::getenv("EQUINIX_API_CLIENTID");
        const char *secret = std::getenv("EQUINIX_API_CLIENTSECRET");
        std::string body;
        const int st = dry.exchange(
            "POST", "/oauth2/v1/token",
            std::string(R"({"client_id":")") + (id ? id : "bench") + R"(","client_secret":")" +
                (secret ? secret : "bench-secret") + R"(","grant_type":"client_credentials"})",
            &body);
        if (st != 200)
            fail("token request failed: " + body);
        dry.token = price.token = parseJson(body).get("access_token")->s;
    }

    auto s = startSession(spec, true, nullptr);
    const int n = o.iters;

    // Capture the exact bytes the broker sends for each propose (the sandbox logs them).
    admin.exchange("POST", "/sandbox/v1/requests/clear", "{}");
    std::string resp;
    roundTrip(s->conn, "tools/call", proposeParams("network_create", networkSpec()), &resp);
    checkNoError(resp, "propose network_create");
    roundTrip(s->conn, "tools/call", proposeParams("connection_create", connectionSpec(3900)),
              &resp);
    checkNoError(resp, "propose connection_create");
    const std::vector<Logged> log = sandboxLog(admin);
    std::optional<Logged> netDry, connDry, connPrice;
    for (const Logged &l : log) {
        if (l.path == "/fabric/v4/networks" && l.query.find("dryRun=true") != std::string::npos)
            netDry = l;
        if (l.path == "/fabric/v4/connections" && l.query.find("dryRun=true") != std::string::npos)
            connDry = l;
        if (l.path == "/fabric/v4/prices/search")
            connPrice = l;
    }
    if (!netDry || !connDry)
        fail("the sandbox log has no dry runs; is --sandbox pointing at the broker's Fabric?");
    std::fprintf(stderr,
                 "captured: network dry run %zu bytes, connection dry run %zu bytes, price %s\n",
                 netDry->body.size(), connDry->body.size(), connPrice ? "yes" : "no");
    if (netDry->body != networkSpec())
        std::fprintf(stderr, "note: the broker's compiled network body differs from ours; using "
                             "the broker's bytes\n");

    auto direct = [&](const Logged &l, Http &h) {
        const auto t0 = Clock::now();
        std::string body;
        const int st = h.exchange(l.method, l.path + "?" + l.query, l.body, &body);
        const double us = usSince(t0);
        if (st >= 300)
            fail("direct " + l.path + " answered " + std::to_string(st) + ": " +
                 body.substr(0, 300));
        return us;
    };
    // Dry run and price search in parallel on two keep-alive connections, as the broker does.
    auto directPair = [&]() {
        const auto t0 = Clock::now();
        dry.send(connDry->method, connDry->path + "?" + connDry->query, connDry->body);
        if (connPrice)
            price.send(connPrice->method, connPrice->path, connPrice->body);
        if (dry.receive(nullptr) >= 300)
            fail("direct connection dry run failed");
        if (connPrice)
            price.receive(nullptr);
        return usSince(t0);
    };

    // tools/call fabric_list_metros against the same GET sent directly (Fabric time excluded).
    // A tools/call against the same request sent directly, interleaved after a warm-up.
    auto callVsDirect = [&](std::string_view call, const Logged &same, std::vector<double> &tool,
                            std::vector<double> &plain, std::vector<double> &diff) {
        for (int i = 0; i < std::min(300, n) + n; ++i) {
            const double a = roundTrip(s->conn, "tools/call", call);
            const double d = direct(same, dry);
            if (i >= std::min(300, n)) {
                tool.push_back(a);
                plain.push_back(d);
                diff.push_back(a - d);
            }
        }
    };
    const Logged metrosGet{"GET", "/fabric/v4/metros", "offset=0&limit=20", ""};
    std::vector<double> pMet, dMet, diffMet;
    callVsDirect(kMetrosCall, metrosGet, pMet, dMet, diffMet);

    // The same for a tool of the spec's read toolsets (one row of the read-operation table, one
    // generic handler: schema check, request, answer shaping): GET /fabric/v4/metros/SV.
    const std::string specCall =
        R"({"name":"fabric_get_metro_by_code","arguments":{"metroCode":"SV"}})";
    const Logged specGet{"GET", "/fabric/v4/metros/SV", "", ""};
    std::vector<double> pSpec, dSpec, diffSpec;
    {
        std::string resp;
        roundTrip(s->conn, "tools/call", specCall, &resp);
        checkNoError(resp, "tools/call fabric_get_metro_by_code");
    }
    callVsDirect(specCall, specGet, pSpec, dSpec, diffSpec);

    const std::string netParams = proposeParams("network_create", networkSpec());
    const std::string connParams = proposeParams("connection_create", connectionSpec(3900));
    // Warm-up of both sides.
    for (int i = 0; i < std::min(500, n); ++i) {
        roundTrip(s->conn, "tools/call", netParams);
        direct(*netDry, dry);
        roundTrip(s->conn, "tools/call", connParams);
        directPair();
    }
    // Interleaved: propose, direct, propose, direct ...
    std::vector<double> pNet, dNet, pConn, dConn, diffNet, diffConn;
    const double cpu0 = cpuUs(s->child.pid);
    for (int i = 0; i < n; ++i) {
        pNet.push_back(roundTrip(s->conn, "tools/call", netParams));
        dNet.push_back(direct(*netDry, dry));
        diffNet.push_back(pNet.back() - dNet.back());
    }
    const double cpu1 = cpuUs(s->child.pid);
    for (int i = 0; i < n; ++i) {
        pConn.push_back(roundTrip(s->conn, "tools/call", connParams));
        dConn.push_back(directPair());
        diffConn.push_back(pConn.back() - dConn.back());
    }
    const double cpu2 = cpuUs(s->child.pid);

    // Confirm: propose a unique connection (untimed), then time the confirm (which includes one
    // elicitation round trip through this client, answered at once) against a direct real create
    // of another unique connection.
    std::vector<double> pConf, dConf, diffConf;
    int vlanBroker = o.vlanBase, vlanDirect = o.vlanBase + 1500; // disjoint, unused in the estate
    for (int i = 0; i < o.confirmIters; ++i) {
        std::string pr;
        roundTrip(s->conn, "tools/call",
                  proposeParams("connection_create", connectionSpec(vlanBroker++)), &pr);
        checkNoError(pr, "propose for confirm");
        const std::string tok = tokenOf(pr);
        std::string cr;
        const double c = roundTrip(
            s->conn, "tools/call",
            R"({"name":"fabric_confirm_change","arguments":{"confirm_token":")" + tok + R"("}})",
            &cr);
        if (cr.find("\"executed\":true") == std::string::npos)
            fail("confirm did not execute: " + cr.substr(0, 800));
        Logged create{"POST", "/fabric/v4/connections", "", connectionSpec(vlanDirect++)};
        const auto t0 = Clock::now();
        std::string body;
        const int st = dry.exchange("POST", create.path, create.body, &body);
        const double d = usSince(t0);
        if (st >= 300)
            fail("direct create failed: " + body.substr(0, 300));
        if (i >= 10) { // the first few warm up
            pConf.push_back(c);
            dConf.push_back(d);
            diffConf.push_back(c - d);
        }
    }

    // Proposals per second: network_create proposes pipelined, 8 in flight.
    auto pipelinedProposes = [&](Session &sess, int total, int window, int sampleEvery,
                                 std::vector<long> *rssSamples) {
        Conn &c = sess.conn;
        const std::string params = proposeParams("network_create", networkSpec());
        const auto t0 = Clock::now();
        long long nextSend = g_nextId;
        const long long first = g_nextId;
        g_nextId += total;
        int sent = 0, done = 0;
        std::vector<bool> got(static_cast<size_t>(total), false);
        while (done < total) {
            while (sent < total && sent - done < window) {
                c.send(request(nextSend++, "tools/call", params));
                ++sent;
            }
            auto line = c.readLine(30000);
            if (!line)
                fail("propose pipeline stalled");
            const std::string id = rawId(*line);
            if (line->find("\"method\":") != std::string_view::npos &&
                line->find("\"result\":") == std::string_view::npos) {
                c.handleOther(*line);
                continue;
            }
            const long long k = std::atoll(id.c_str()) - first;
            if (k < 0 || k >= total || got[static_cast<size_t>(k)])
                continue;
            if (line->find("\"isError\":true") != std::string_view::npos)
                fail("propose failed: " + std::string(line->substr(0, 500)));
            got[static_cast<size_t>(k)] = true;
            ++done;
            if (rssSamples && done % sampleEvery == 0)
                rssSamples->push_back(procStatusKb(sess.child.pid, "VmRSS"));
        }
        return total / (usSince(t0) / 1e6);
    };
    const double rate = pipelinedProposes(*s, std::max(200, n / 2), 8, 0, nullptr);
    const long hwm = procStatusKb(s->child.pid, "VmHWM");
    const int elicitations = s->conn.elicitations;
    s->close();

    const Summary sPN = summarize(pNet), sDN = summarize(dNet), sPC = summarize(pConn),
                  sDC = summarize(dConn), sDfN = summarize(diffNet), sDfC = summarize(diffConn),
                  sCf = summarize(pConf), sDCf = summarize(dConf), sDfCf = summarize(diffConf);
    emit("{\"kind\":\"broker\",\"label\":" + jstr(o.label) +
         ",\"propose_network\":" + summaryJson(sPN, (cpu1 - cpu0) / n) +
         ",\"direct_network_dry_run\":" + summaryJson(sDN, 0) +
         ",\"propose_network_minus_direct\":" + summaryJson(sDfN, 0) +
         ",\"propose_connection\":" + summaryJson(sPC, (cpu2 - cpu1) / n) +
         ",\"direct_connection_dry_run_and_price\":" + summaryJson(sDC, 0) +
         ",\"propose_connection_minus_direct\":" + summaryJson(sDfC, 0) +
         ",\"confirm\":" + summaryJson(sCf, 0) + ",\"direct_create\":" + summaryJson(sDCf, 0) +
         ",\"confirm_minus_direct\":" + summaryJson(sDfCf, 0) +
         ",\"tools_call_metros\":" + summaryJson(summarize(pMet), 0) +
         ",\"direct_metros_get\":" + summaryJson(summarize(dMet), 0) +
         ",\"metros_minus_direct\":" + summaryJson(summarize(diffMet), 0) +
         ",\"tools_call_spec_read\":" + summaryJson(summarize(pSpec), 0) +
         ",\"direct_spec_read_get\":" + summaryJson(summarize(dSpec), 0) +
         ",\"spec_read_minus_direct\":" + summaryJson(summarize(diffSpec), 0) +
         ",\"elicitations\":" + std::to_string(elicitations) + ",\"proposals_per_s_pipelined8\":" +
         jnum(rate) + ",\"vmhwm_kb\":" + std::to_string(hwm) + "}");

    // Propose/expire cycles with a small TTL (the runner sets EQUINIX_MCP_PROPOSAL_TTL_MS).
    if (o.cycles > 0) {
        ServerSpec cyc = spec;
        cyc.argv.insert(cyc.argv.begin(), {"env", "EQUINIX_MCP_PROPOSAL_TTL_MS=" + o.cyclesTtlMs});
        auto m = startSession(cyc, true, nullptr);
        std::vector<long> rss{procStatusKb(m->child.pid, "VmRSS")};
        const double cyclesRate = pipelinedProposes(*m, o.cycles, 8, o.sample, &rss);
        const long mhwm = procStatusKb(m->child.pid, "VmHWM");
        m->close();
        std::string arr = "[";
        for (size_t i = 0; i < rss.size(); ++i)
            arr += (i ? "," : "") + std::to_string(rss[i]);
        arr += "]";
        emit("{\"kind\":\"cycles\",\"label\":" + jstr(o.label) + ",\"ttl_ms\":" + o.cyclesTtlMs +
             ",\"cycles\":" + std::to_string(o.cycles) +
             ",\"sample_every\":" + std::to_string(o.sample) + ",\"vmrss_kb\":" + arr +
             ",\"vmhwm_kb\":" + std::to_string(mhwm) + ",\"proposals_per_s\":" + jnum(cyclesRate) +
             "}");
    }
}

// ------------------------------------------------------------------------------------ desktop

// Connects to a running app's socket, proposes `count` network_create changes (so `count`
// countdowns are live in its window), then measures the app's CPU over `seconds` of idling.
void runHold(const std::string &socketPath, pid_t pid, int count, int seconds,
             const std::string &label)
{
    const int fd = connectUnix(socketPath, 20000);
    Conn c;
    c.rfd = c.wfd = fd;
    const long long id = g_nextId++;
    c.send(request(id, "initialize", initParams(false)));
    checkNoError(c.await(id, 60000), "initialize");
    c.send(kInitialized);
    for (int i = 0; i < count; ++i) {
        std::string resp;
        roundTrip(c, "tools/call", proposeParams("network_create", networkSpec()), &resp);
        checkNoError(resp, "propose");
    }
    ::usleep(2000000); // let the window settle after the last update
    const double cpu0 = cpuUs(pid);
    const auto t0 = Clock::now();
    // Idle, but keep reading so that notifications cannot fill the socket buffer.
    while (usSince(t0) < seconds * 1e6) {
        pollfd pfd{fd, POLLIN, 0};
        if (::poll(&pfd, 1, 200) > 0 && !c.fill(0))
            break;
    }
    const double wall = usSince(t0);
    const double cpu1 = cpuUs(pid);
    ::close(fd);
    emit("{\"kind\":\"desktop_idle\",\"label\":" + jstr(label) +
         ",\"proposals\":" + std::to_string(count) + ",\"seconds\":" + jnum(wall / 1e6) +
         ",\"cpu_us\":" + jnum(cpu1 - cpu0) +
         ",\"cpu_percent\":" + jnum(100.0 * (cpu1 - cpu0) / wall) +
         ",\"vmrss_kb\":" + std::to_string(procStatusKb(pid, "VmRSS")) + "}");
}

// ------------------------------------------------------------------------------------ main

int usage()
{
    std::fprintf(
        stderr,
        "usage: mcp_bench dump-tools --out FILE -- CMD...\n"
        "       mcp_bench compare --out FILE [--rounds R --cold N --warmup W --iters N\n"
        "                 --call-iters N --pipeline N --window K --phases LIST]\n"
        "                 (--stdio NAME CMDLINE | --socket NAME PATH CMDLINE | --http NAME PORT "
        "CMDLINE)...\n"
        "       mcp_bench broker --out FILE --sandbox URL [--iters N --confirm-iters N\n"
        "                 --cycles N --sample N --cycles-ttl-ms MS --label L --vlan-base N] -- "
        "CMD...\n"
        "       mcp_bench hold --out FILE --socket NAME PATH '' --pid PID [--count N --seconds S]\n"
        "                 (propose N changes on a running app's socket, then its CPU over S s)\n"
        "       (--stderr FILE: the servers' stderr, default /dev/null)\n");
    return 2;
}

} // namespace

int main(int argc, char **argv)
{
    std::signal(SIGPIPE, SIG_IGN);
    if (argc < 2)
        return usage();
    const std::string mode = argv[1];
    Options o;
    std::vector<ServerSpec> servers;
    std::vector<std::string> cmd;
    std::string outPath = "/dev/stdout";
    for (int i = 2; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc)
                throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        if (a == "--") {
            for (++i; i < argc; ++i)
                cmd.emplace_back(argv[i]);
        } else if (a == "--out")
            outPath = next();
        else if (a == "--stderr")
            g_stderrPath = next();
        else if (a == "--rounds")
            o.rounds = std::stoi(next());
        else if (a == "--cold")
            o.cold = std::stoi(next());
        else if (a == "--warmup")
            o.warmup = std::stoi(next());
        else if (a == "--iters")
            o.iters = std::stoi(next());
        else if (a == "--call-iters")
            o.callIters = std::stoi(next());
        else if (a == "--call-warmup")
            o.callWarmup = std::stoi(next());
        else if (a == "--pipeline")
            o.pipeline = std::stoi(next());
        else if (a == "--window")
            o.window = std::stoi(next());
        else if (a == "--confirm-iters")
            o.confirmIters = std::stoi(next());
        else if (a == "--cycles")
            o.cycles = std::stoi(next());
        else if (a == "--sample")
            o.sample = std::stoi(next());
        else if (a == "--sandbox")
            o.sandboxUrl = next();
        else if (a == "--phases")
            o.phases = next();
        else if (a == "--label")
            o.label = next();
        else if (a == "--vlan-base")
            o.vlanBase = std::stoi(next());
        else if (a == "--pid")
            o.holdPid = static_cast<pid_t>(std::stoi(next()));
        else if (a == "--count")
            o.holdCount = std::stoi(next());
        else if (a == "--seconds")
            o.holdSeconds = std::stoi(next());
        else if (a == "--cycles-ttl-ms")
            o.cyclesTtlMs = std::to_string(std::stoi(next()));
        else if (a == "--stdio") {
            ServerSpec s;
            s.name = next();
            s.argv = splitSpaces(next());
            servers.push_back(s);
        } else if (a == "--http") {
            ServerSpec s;
            s.name = next();
            s.http = true;
            s.port = std::stoi(next());
            s.argv = splitSpaces(next());
            servers.push_back(s);
        } else if (a == "--connections") {
            o.httpConnections = std::stoi(next());
        } else if (a == "--socket") {
            ServerSpec s;
            s.name = next();
            s.socket = true;
            s.socketPath = next();
            s.argv = splitSpaces(next());
            servers.push_back(s);
        } else {
            return usage();
        }
    }
    g_out.open(outPath, std::ios::app);
    try {
        if (mode == "dump-tools") {
            if (cmd.empty())
                return usage();
            auto s = startSession({"server", false, {}, cmd}, false, nullptr);
            std::string resp;
            roundTrip(s->conn, "tools/list", {}, &resp);
            checkNoError(resp, "tools/list");
            g_out << rawResult(resp) << '\n';
            return 0;
        }
        if (mode == "compare") {
            if (servers.empty())
                return usage();
            for (int r = 0; r < o.cold; ++r)
                for (const ServerSpec &s : servers)
                    if (!s.http)
                        coldOnce(s, r);
            for (int r = 0; r < o.rounds; ++r)
                for (const ServerSpec &s : servers) {
                    if (s.http)
                        warmHttpOnce(s, r, o);
                    else
                        warmOnce(s, r, o);
                }
            return 0;
        }
        if (mode == "hold") {
            if (servers.size() != 1 || !servers[0].socket || o.holdPid <= 0)
                return usage();
            runHold(servers[0].socketPath, o.holdPid, o.holdCount, o.holdSeconds, o.label);
            return 0;
        }
        if (mode == "broker") {
            if (cmd.empty() || o.sandboxUrl.empty())
                return usage();
            runBroker(cmd, o);
            return 0;
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "mcp_bench: %s\n", e.what());
        return 1;
    }
    return usage();
}
