#include "telemetry/SyslogSink.h"

#include <QCoreApplication>
#include <QDate>
#include <QDir>
#include <QElapsedTimer>
#include <QHostAddress>
#include <QLoggingCategory>
#include <QRegularExpression>
#include <QSslCertificate>
#include <QSslConfiguration>
#include <QSslError>
#include <QSslSocket>
#include <QSysInfo>
#include <QTcpSocket>
#include <QUrl>

#include <algorithm>

Q_LOGGING_CATEGORY(lcAuditExport, "fabricbroker.audit.export")

using namespace Qt::StringLiterals;

namespace fb::telemetry {

namespace {

constexpr int MaxBackoffMs = 30000;
constexpr int ConnectTimeoutMs = 10000;
constexpr qint64 GapLogIntervalMs = 60000;
// Records are written only while Qt's buffer for the socket holds less than this; the rest wait
// in the queue, where the bound and the gap reporting apply.
constexpr qint64 HighWaterBytes = 256 * 1024;
constexpr int HostnameMax = 255;
constexpr int AppNameMax = 48;
constexpr int MsgIdMax = 32;
const QByteArray Bom = "\xEF\xBB\xBF";
const QByteArray Ellipsis = "\xE2\x80\xA6"; // U+2026

qint64 nowMs()
{
    static QElapsedTimer clock;
    if (!clock.isValid())
        clock.start();
    return clock.elapsed();
}

// RFC 5424 header fields: PRINTUSASCII (33..126) only, at most max characters, "-" when empty.
// Anything else becomes '_' (a surrogate pair is one character).
QByteArray printableAscii(const QString &text, int max)
{
    QByteArray out;
    out.reserve(std::min<qsizetype>(text.size(), max));
    for (qsizetype i = 0; i < text.size() && out.size() < max; ++i) {
        const char16_t c = text.at(i).unicode();
        if (QChar::isHighSurrogate(c) && i + 1 < text.size() && text.at(i + 1).isLowSurrogate())
            ++i;
        out.append(c >= 33 && c <= 126 ? static_cast<char>(c) : '_');
    }
    return out.isEmpty() ? QByteArray("-") : out;
}

// RFC 3339 as RFC 5424 restricts it: uppercase T and Z, at most 6 fraction digits, no leap
// second, a real calendar date.
bool isSyslogTimestamp(const QString &time)
{
    static const QRegularExpression re(QRegularExpression::anchoredPattern(
        u"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(\\.[0-9]{1,6})?"
        "(Z|[+-]([0-9]{2}):([0-9]{2}))"_s));
    const QRegularExpressionMatch m = re.match(time);
    if (!m.hasMatch())
        return false;
    const auto n = [&m](int group) { return m.captured(group).toInt(); };
    if (!QDate(n(1), n(2), n(3)).isValid() || n(4) > 23 || n(5) > 59 || n(6) > 59)
        return false;
    return !m.hasCaptured(9) || (n(9) <= 23 && n(10) <= 59);
}

QByteArray sdEscape(const QString &value)
{
    QByteArray out;
    const QByteArray utf8 = value.toUtf8();
    out.reserve(utf8.size());
    for (const char c : utf8) {
        if (c == '"' || c == '\\' || c == ']')
            out.append('\\');
        out.append(c);
    }
    return out;
}

// The first `budget` bytes of a UTF-8 line or fewer, never ending inside a character, plus "…".
QByteArray cutUtf8(const QByteArray &line, qint64 budget)
{
    qsizetype cut = static_cast<qsizetype>(std::max<qint64>(0, budget - Ellipsis.size()));
    while (cut > 0 && (static_cast<unsigned char>(line.at(cut)) & 0xC0) == 0x80)
        --cut;
    return line.left(cut) + Ellipsis;
}

bool isHostChar(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9') ||
           c == u'-' || c == u'.' || c == u'_';
}

} // namespace

// ---------------------------------------------------------------------------------------------
// SyslogConfig

std::optional<SyslogConfig> SyslogConfig::parse(const QString &target, QString *error)
{
    const auto fail = [&](const QString &why) -> std::optional<SyslogConfig> {
        if (error)
            *error = u"syslog target \"%1\": %2"_s.arg(target, why);
        return std::nullopt;
    };
    const qsizetype sep = target.indexOf(u"://"_s);
    if (sep < 0)
        return fail(u"no scheme; use tcp://host:port or tls://host:port"_s);
    const QString scheme = target.left(sep).toLower();
    SyslogConfig config;
    if (scheme == u"tls")
        config.tls = true;
    else if (scheme != u"tcp")
        return fail(u"unsupported scheme \"%1\"; use tcp:// or tls:// (UDP is not offered: it "
                    "loses records without a trace)"_s.arg(target.left(sep)));

    QString rest = target.mid(sep + 3);
    if (rest.contains(u'#'))
        return fail(u"a fragment (#...) is not allowed"_s);
    QString query;
    const qsizetype q = rest.indexOf(u'?');
    const bool hasQuery = q >= 0;
    if (hasQuery) {
        query = rest.mid(q + 1);
        rest.truncate(q);
    }
    if (rest.contains(u'@'))
        return fail(u"user information (user@) is not allowed"_s);
    if (const qsizetype slash = rest.indexOf(u'/'); slash >= 0)
        return fail(u"a path (\"%1\") is not allowed"_s.arg(rest.mid(slash)));
    if (rest.isEmpty())
        return fail(u"no host"_s);

    QString host;
    QString portText;
    if (rest.startsWith(u'[')) {
        const qsizetype close = rest.indexOf(u']');
        if (close < 0)
            return fail(u"unterminated [IPv6] address"_s);
        host = rest.mid(1, close - 1);
        QHostAddress address;
        if (!address.setAddress(host) || address.protocol() != QAbstractSocket::IPv6Protocol)
            return fail(u"\"[%1]\" is not an IPv6 address"_s.arg(host));
        const QString after = rest.mid(close + 1);
        if (!after.startsWith(u':'))
            return fail(u"no port (host:port is required)"_s);
        portText = after.mid(1);
    } else {
        const qsizetype colon = rest.lastIndexOf(u':');
        if (colon < 0)
            return fail(u"no port (host:port is required)"_s);
        host = rest.left(colon);
        portText = rest.mid(colon + 1);
        if (host.contains(u':'))
            return fail(u"an IPv6 address must be in brackets, e.g. [::1]:6514"_s);
        if (host.isEmpty())
            return fail(u"no host"_s);
        if (host.size() > 253 || !std::all_of(host.cbegin(), host.cend(), isHostChar))
            return fail(u"\"%1\" is not a host name or IPv4 address"_s.arg(host));
    }
    if (portText.isEmpty())
        return fail(u"no port (host:port is required)"_s);
    bool ok = std::all_of(portText.cbegin(), portText.cend(),
                          [](QChar c) { return c >= u'0' && c <= u'9'; });
    const uint port = ok ? portText.toUInt(&ok) : 0;
    if (!ok || port < 1 || port > 65535)
        return fail(u"port \"%1\" is not a number from 1 to 65535"_s.arg(portText));
    config.host = host;
    config.port = static_cast<quint16>(port);

    if (hasQuery) {
        if (query.isEmpty())
            return fail(u"empty query after \"?\""_s);
        bool seenCa = false;
        for (const QString &part : query.split(u'&')) {
            const qsizetype eq = part.indexOf(u'=');
            const QString key = eq < 0 ? part : part.left(eq);
            if (key != u"ca")
                return fail(u"unknown parameter \"%1\"; only ca=/path/ca.pem is accepted (peer "
                            "verification cannot be turned off)"_s.arg(key));
            if (!config.tls)
                return fail(u"ca= applies to tls:// only"_s);
            if (seenCa)
                return fail(u"ca= given twice"_s);
            seenCa = true;
            const QString path = QUrl::fromPercentEncoding(part.mid(eq + 1).toUtf8());
            if (eq < 0 || path.isEmpty())
                return fail(u"ca= needs the path of a PEM file"_s);
            if (!QDir::isAbsolutePath(path))
                return fail(u"ca= must be an absolute path, not \"%1\""_s.arg(path));
            config.caFile = path;
        }
    }
    return config;
}

QString SyslogConfig::describe() const
{
    const QString shownHost = host.contains(u':') ? u'[' + host + u']' : host;
    return (tls ? u"tls://"_s : u"tcp://"_s) + shownHost + u':' + QString::number(port);
}

// ---------------------------------------------------------------------------------------------
// Formatting

QByteArray SyslogSink::formatMessage(const AuditExportRecord &record, const SyslogConfig &config,
                                     const QString &hostname, qint64 pid)
{
    // Out-of-range values (the struct is public) fall back to the defaults: log audit, info.
    const int facility = config.facility >= 0 && config.facility <= 23 ? config.facility : 13;
    const int severity = config.severity >= 0 && config.severity <= 7 ? config.severity : 6;
    const QString time = isSyslogTimestamp(record.time)
                             ? record.time
                             : QDateTime::currentDateTimeUtc().toString(Qt::ISODateWithMs);

    QByteArray head;
    head.reserve(256);
    head += '<' + QByteArray::number(facility * 8 + severity) + ">1 ";
    head += time.toLatin1() + ' ';
    head += printableAscii(hostname, HostnameMax) + ' ';
    head += printableAscii(config.appName, AppNameMax) + ' ';
    head += (pid > 0 ? QByteArray::number(pid) : QByteArray("-")) + ' ';
    head += printableAscii(record.type, MsgIdMax) + ' ';
    head += "[fb@32473 seq=\"" + QByteArray::number(record.seq) + "\" prev=\"" +
            sdEscape(record.prev) + "\" hash=\"" + sdEscape(record.sha256) + "\"] ";
    head += Bom;

    // MSG starts with a BOM, so it must be UTF-8: an invalid line is carried with U+FFFD.
    const QByteArray line =
        record.line.isValidUtf8() ? record.line : QString::fromUtf8(record.line).toUtf8();
    const qint64 budget = MaxMessageBytes - head.size();
    if (line.size() <= budget)
        return head + line;
    return head + cutUtf8(line, budget);
}

QByteArray SyslogSink::frame(const QByteArray &message)
{
    return QByteArray::number(message.size()) + ' ' + message;
}

// ---------------------------------------------------------------------------------------------
// The sink
//
// States: idle (nothing submitted yet), connecting (m_socket set, not m_connected), connected,
// waiting (m_reconnect running). submit() never does I/O: it queues and starts m_kick, a zero
// timer, so writes and gap reports happen on the next turn of the event loop. Dropped records
// (queue full, oldest first) are coalesced into runs of consecutive seq and each run is reported
// by one gap() on that next turn: everything one burst of submit() calls dropped arrives as one
// gap(from, to) after the burst.

SyslogSink::SyslogSink(SyslogConfig config, QObject *parent)
    : QObject(parent)
    , m_config(std::move(config))
    , m_pid(QCoreApplication::applicationPid())
{
    m_config.maxQueue = std::max(1, m_config.maxQueue);
    m_config.minBackoffMs = std::clamp(m_config.minBackoffMs, 1, MaxBackoffMs);
    m_backoffMs = m_config.minBackoffMs;
    const QString host =
        m_config.hostname.isEmpty() ? QSysInfo::machineHostName() : m_config.hostname;
    m_hostname = QString::fromLatin1(printableAscii(host, HostnameMax));
    m_reconnect.setSingleShot(true);
    connect(&m_reconnect, &QTimer::timeout, this, &SyslogSink::connectNow);
    m_connectTimeout.setSingleShot(true);
    connect(&m_connectTimeout, &QTimer::timeout, this,
            [this] { onError(u"no connection within %1 s"_s.arg(ConnectTimeoutMs / 1000)); });
    m_gapTimer.setSingleShot(true);
    connect(&m_gapTimer, &QTimer::timeout, this, &SyslogSink::emitGaps);
    m_kick.setSingleShot(true);
    m_kick.setInterval(0);
    connect(&m_kick, &QTimer::timeout, this, [this] {
        emitGaps();
        writeSome();
    });
}

SyslogSink::~SyslogSink()
{
    m_reconnect.stop();
    m_connectTimeout.stop();
    m_kick.stop();
    m_gapTimer.stop();
    if (m_socket) {
        m_socket->disconnect(this);
        m_socket->abort();
        delete m_socket.data();
    }
}

bool SyslogSink::isConnected() const
{
    return m_connected;
}

void SyslogSink::submit(const AuditExportRecord &record)
{
    m_queue.push_back(
        {record.seq, frame(formatMessage(record, m_config, m_hostname, m_pid)), false});
    while (m_queue.size() > static_cast<std::size_t>(m_config.maxQueue))
        dropOldest();
    if (!m_socket && !m_reconnect.isActive())
        m_reconnect.start(0); // first use
    kick();
}

void SyslogSink::kick()
{
    if (!m_kick.isActive())
        m_kick.start();
}

void SyslogSink::dropOldest()
{
    const qint64 seq = m_queue.front().seq;
    m_queue.pop_front();
    ++m_dropped;
    if (!m_gaps.empty() && m_gaps.back().second + 1 == seq)
        m_gaps.back().second = seq;
    else
        m_gaps.emplace_back(seq, seq);
    kick();
}

void SyslogSink::emitGaps()
{
    if (m_gaps.empty())
        return;
    const qint64 sinceReport = nowMs() - m_gapReportedAtMs;
    if (m_config.gapReportIntervalMs > 0 && m_gapReportedAtMs >= 0 &&
        sinceReport < m_config.gapReportIntervalMs) {
        if (!m_gapTimer.isActive())
            m_gapTimer.start(int(m_config.gapReportIntervalMs - sinceReport));
        return;
    }
    m_gapReportedAtMs = nowMs();
    const std::vector<std::pair<qint64, qint64>> gaps = std::exchange(m_gaps, {});
    // One info line a minute at most (a full queue under a steady stream drops on every turn);
    // each says how many records were dropped since the previous one. Every run still gets its
    // gap() signal.
    const qint64 now = nowMs();
    const bool logNow = m_gapLoggedAtMs < 0 || now - m_gapLoggedAtMs >= GapLogIntervalMs;
    for (const auto &[from, to] : gaps) {
        const QString text =
            u"audit export to %1: queue full (%2 records), records %3..%4 "
            "dropped"_s.arg(m_config.describe(), QString::number(m_config.maxQueue),
                            QString::number(from), QString::number(to));
        if (logNow && from == gaps.front().first)
            qCInfo(lcAuditExport).noquote() << text + u"; %1 dropped since the last report"_s.arg(
                                                          m_dropped - m_droppedAtGapLog);
        else
            qCDebug(lcAuditExport).noquote() << text;
        emit gap(from, to, u"queue full"_s);
    }
    if (logNow) {
        m_gapLoggedAtMs = now;
        m_droppedAtGapLog = m_dropped;
    }
    emit stateChanged();
}

void SyslogSink::connectNow()
{
    if (m_socket)
        return;
    m_sslErrors.clear();
    QTcpSocket *socket = nullptr;
    if (m_config.tls) {
        if (!QSslSocket::supportsSsl()) {
            onError(u"TLS is not available (no TLS backend)"_s);
            return;
        }
        QSslConfiguration tls = QSslConfiguration::defaultConfiguration();
        tls.setProtocol(QSsl::TlsV1_2OrLater);
        tls.setPeerVerifyMode(m_config.verifyPeer ? QSslSocket::VerifyPeer
                                                  : QSslSocket::VerifyNone);
        if (!m_config.caFile.isEmpty()) {
            const QList<QSslCertificate> cas = QSslCertificate::fromPath(
                m_config.caFile, QSsl::Pem, QSslCertificate::PatternSyntax::FixedString);
            if (cas.isEmpty()) {
                onError(u"no PEM certificate in the CA file %1"_s.arg(m_config.caFile));
                return;
            }
            tls.setCaCertificates(cas);
        }
        auto *ssl = new QSslSocket(this);
        ssl->setSslConfiguration(tls);
        connect(ssl, &QSslSocket::encrypted, this, &SyslogSink::onConnected);
        connect(ssl, &QSslSocket::sslErrors, this, [this](const QList<QSslError> &errors) {
            for (const QSslError &e : errors)
                m_sslErrors.append(e.errorString());
        });
        connect(ssl, &QSslSocket::encryptedBytesWritten, this, &SyslogSink::onBytesWritten);
        socket = ssl;
    } else {
        socket = new QTcpSocket(this);
        connect(socket, &QTcpSocket::connected, this, &SyslogSink::onConnected);
    }
    connect(socket, &QTcpSocket::bytesWritten, this, &SyslogSink::onBytesWritten);
    connect(socket, &QTcpSocket::readyRead, socket, [socket] { socket->readAll(); });
    connect(socket, &QTcpSocket::errorOccurred, this, [this, socket] {
        QString reason = socket->errorString();
        if (!m_sslErrors.isEmpty())
            reason = u"TLS handshake failed: "_s + m_sslErrors.join(u"; "_s);
        onError(reason);
    });
    connect(socket, &QTcpSocket::disconnected, this,
            [this] { onError(u"the connection was closed"_s); });
    m_socket = socket;
    m_written = 0;
    m_connectTimeout.start(ConnectTimeoutMs);
    emit stateChanged();
    // An immediate failure calls onError() from in here, which clears m_socket.
    if (auto *ssl = qobject_cast<QSslSocket *>(socket))
        ssl->connectToHostEncrypted(m_config.host, m_config.port);
    else
        socket->connectToHost(m_config.host, m_config.port);
}

void SyslogSink::onConnected()
{
    m_connectTimeout.stop();
    m_connected = true;
    m_backoffMs = m_config.minBackoffMs;
    m_lastError.clear();
    if (m_interrupted) {
        m_interrupted = false;
        const qint64 from = m_queue.empty() ? m_lastSentSeq + 1 : m_queue.front().seq;
        qCInfo(lcAuditExport).noquote() << u"audit export to %1 resumed from record %2"_s.arg(
            m_config.describe(), QString::number(from));
        emit resumed(from);
    }
    emit stateChanged();
    writeSome();
}

void SyslogSink::onError(const QString &reason)
{
    m_connectTimeout.stop();
    m_connected = false;
    if (m_socket) {
        QTcpSocket *socket = m_socket.data();
        m_socket = nullptr;
        socket->disconnect(this);
        socket->abort();
        socket->deleteLater();
    }
    requeueRecent();
    m_written = 0;
    m_lastError = reason;
    if (!m_interrupted) {
        m_interrupted = true;
        qCInfo(lcAuditExport).noquote()
            << u"audit export to %1 interrupted: %2 (last record sent %3, %4 pending); "
               "retrying"_s.arg(m_config.describe(), reason, QString::number(m_lastSentSeq),
                                QString::number(queued()));
        emit interrupted(reason, m_lastSentSeq, queued());
    } else {
        qCDebug(lcAuditExport).noquote()
            << u"audit export to %1: still failing: %2; next attempt in %3 ms"_s.arg(
                   m_config.describe(), reason, QString::number(m_backoffMs));
    }
    m_reconnect.start(m_backoffMs);
    m_backoffMs = std::min(m_backoffMs * 2, MaxBackoffMs);
    emit stateChanged();
}

// Records of the failed connection that may not have arrived (still in Qt's buffer, or flushed
// within ResendWindowMs) go back to the front of the queue, in their order.
void SyslogSink::requeueRecent()
{
    const qint64 now = nowMs();
    for (auto it = m_recent.rbegin(); it != m_recent.rend(); ++it) {
        if (it->flushedAtMs >= 0 && now - it->flushedAtMs > ResendWindowMs)
            break; // this one and all before it were flushed earlier still
        m_queue.push_front({it->seq, std::move(it->framed), true});
    }
    m_recent.clear();
    m_flushedCount = 0;
    // Over the bound, the oldest go first, resent copies included: they may not have arrived,
    // so they are reported in the gap as well.
    while (m_queue.size() > static_cast<std::size_t>(m_config.maxQueue))
        dropOldest();
}

qint64 SyslogSink::outstandingBytes() const
{
    if (!m_socket)
        return 0;
    qint64 bytes = m_socket->bytesToWrite();
    if (auto *ssl = qobject_cast<QSslSocket *>(m_socket.data()))
        bytes += ssl->encryptedBytesToWrite(); // over-counts the plain bytes: conservative
    return bytes;
}

void SyslogSink::onBytesWritten()
{
    const qint64 flushed = m_written - outstandingBytes();
    const qint64 now = nowMs();
    while (m_flushedCount < m_recent.size() && m_recent[m_flushedCount].endOffset <= flushed) {
        m_recent[m_flushedCount].flushedAtMs = now;
        ++m_flushedCount;
    }
    writeSome();
}

void SyslogSink::writeSome()
{
    if (!m_connected || !m_socket)
        return;
    const qint64 now = nowMs();
    while (m_flushedCount > 0 && now - m_recent.front().flushedAtMs > ResendWindowMs) {
        m_recent.pop_front();
        --m_flushedCount;
    }
    while (!m_queue.empty() && outstandingBytes() < HighWaterBytes) {
        Pending next = std::move(m_queue.front());
        m_queue.pop_front();
        if (m_socket->write(next.framed) != next.framed.size()) {
            m_queue.push_front(std::move(next));
            onError(m_socket ? m_socket->errorString() : u"write failed"_s);
            return;
        }
        m_written += next.framed.size();
        m_recent.push_back({next.seq, m_written, -1, std::move(next.framed)});
        if (!next.resend) {
            ++m_sent;
            m_lastSentSeq = next.seq;
        }
    }
}

} // namespace fb::telemetry
