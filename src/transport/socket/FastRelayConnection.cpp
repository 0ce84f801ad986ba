#include "transport/socket/FastRelayConnection.h"

#include "mcp/Logging.h"
#include "transport/socket/FastRelayWire.h"
#include "transport/stdio/StdioDevices.h"

#include <QSocketNotifier>

#include <cerrno>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace fb::transport {

using mcp::lcMcpTransport;

namespace {

constexpr qsizetype kMaxCmdline = 256 * 1024;
constexpr qsizetype kMaxEnviron = 1024 * 1024;

// The whole of a /proc file (their size reads as 0), at most max bytes; false beyond it.
bool readProcFile(const QByteArray &path, qsizetype max, QByteArray *out, QString *why)
{
    const int fd = ::open(path.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *why = u"cannot read %1: %2"_s.arg(QString::fromLatin1(path),
                                           QString::fromLocal8Bit(strerror(errno)));
        return false;
    }
    QByteArray data;
    char chunk[16384];
    for (;;) {
        const ssize_t n = ::read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *why = u"cannot read %1: %2"_s.arg(QString::fromLatin1(path),
                                               QString::fromLocal8Bit(strerror(errno)));
            ::close(fd);
            return false;
        }
        if (n == 0)
            break;
        data.append(chunk, n);
        if (data.size() > max) {
            ::close(fd);
            *why = u"%1 is larger than %2 bytes"_s.arg(QString::fromLatin1(path)).arg(max);
            return false;
        }
    }
    ::close(fd);
    *out = data;
    return true;
}

QList<QByteArray> nulSeparated(const QByteArray &data)
{
    QList<QByteArray> parts = data.split('\0');
    if (!parts.isEmpty() && parts.constLast().isEmpty())
        parts.removeLast();
    return parts;
}

} // namespace

bool RelayLaunch::read(qint64 pid, RelayLaunch *out, QString *why)
{
    if (pid <= 0) {
        *why = u"the relay's process id is not visible here (another PID namespace?)"_s;
        return false;
    }
    const QByteArray base = "/proc/" + QByteArray::number(pid);
    QByteArray cmdline, env;
    if (!readProcFile(base + "/cmdline", kMaxCmdline, &cmdline, why) ||
        !readProcFile(base + "/environ", kMaxEnviron, &env, why))
        return false;
    RelayLaunch launch;
    launch.pid = pid;
    for (const QByteArray &arg : nulSeparated(cmdline))
        launch.arguments << QString::fromLocal8Bit(arg);
    if (launch.arguments.isEmpty()) {
        *why = u"the relay (pid %1) has no command line (it has ended)"_s.arg(pid);
        return false;
    }
    for (const QByteArray &entry : nulSeparated(env)) {
        const qsizetype eq = entry.indexOf('=');
        if (eq <= 0)
            continue;
        launch.environment.insert(QString::fromLocal8Bit(entry.left(eq)),
                                  QString::fromLocal8Bit(entry.mid(eq + 1)));
    }
    *out = std::move(launch);
    return true;
}

FastRelayConnection::FastRelayConnection(int controlFd, int inFd, int outFd, RelayLaunch launch,
                                         QObject *parent)
    : QObject(parent)
    , m_control(controlFd)
    , m_in(inFd)
    , m_out(outFd)
    , m_launch(std::move(launch))
{
    m_notifier = new QSocketNotifier(m_control, QSocketNotifier::Read, this);
    connect(m_notifier, &QSocketNotifier::activated, this, &FastRelayConnection::onControlReadable);
}

FastRelayConnection::~FastRelayConnection()
{
    delete m_devices; // before the descriptors it reads and writes are closed
    m_devices = nullptr;
    closeControl();
    if (m_in >= 0)
        ::close(m_in);
    if (m_out >= 0)
        ::close(m_out);
}

void FastRelayConnection::notTaken()
{
    send("exec\n");
    closeControl();
}

StdioDevices *FastRelayConnection::take()
{
    if (m_devices || m_control < 0)
        return m_devices;
    m_devices = new StdioDevices(m_in, m_out, this);
    send("ok\n");
    return m_devices;
}

void FastRelayConnection::say(const QString &line)
{
    QByteArray text = line.left(8192).toUtf8();
    for (char &c : text) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            c = ' ';
    }
    send("stderr " + text + '\n');
}

void FastRelayConnection::finish(int exitCode)
{
    if (m_control < 0)
        return;
    // What the session wrote reaches the client before the relay exits.
    if (m_devices)
        m_devices->output()->waitForBytesWritten(1000);
    send("exit " + QByteArray::number(exitCode) + '\n');
    closeControl();
}

void FastRelayConnection::send(const QByteArray &line)
{
    if (m_control < 0)
        return;
    // A few short lines on a connection whose peer only reads them: the socket buffer has room.
    // Never block the event loop for it, though: a relay that stopped reading loses its lines.
    const ssize_t n =
        ::send(m_control, line.constData(), size_t(line.size()), MSG_DONTWAIT | MSG_NOSIGNAL);
    // A relay that is gone (EPIPE, ECONNRESET) has nobody left to tell.
    if (n != line.size() && !(n < 0 && (errno == EPIPE || errno == ECONNRESET)))
        qCWarning(lcMcpTransport) << "relay control line not sent whole to pid" << m_launch.pid;
}

void FastRelayConnection::onControlReadable()
{
    char buf[512];
    const ssize_t n = ::recv(m_control, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)))
        return; // the relay sends nothing after its hello; whatever it is, it is dropped
    closeControl();
    emit relayGone();
}

void FastRelayConnection::closeControl()
{
    if (m_notifier) {
        m_notifier->setEnabled(false);
        m_notifier->deleteLater();
        m_notifier = nullptr;
    }
    if (m_control >= 0) {
        ::close(m_control);
        m_control = -1;
    }
}

} // namespace fb::transport
