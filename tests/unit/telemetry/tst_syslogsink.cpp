// SyslogSink (src/telemetry): audit records as RFC 5424 messages, octet-counted (RFC 6587) over
// TCP or TLS (RFC 5425), against loopback receivers in this process: the exact bytes, the
// bounds, the target syntax, order, flow control, reconnection, resending and gap reporting.
#include "TestEnvironment.h"
#include "telemetry/SyslogSink.h"

#include <QElapsedTimer>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QSslCertificate>
#include <QSslKey>
#include <QSslSocket>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <memory>

using namespace Qt::StringLiterals;
using fb::telemetry::AuditExportRecord;
using fb::telemetry::SyslogConfig;
using fb::telemetry::SyslogSink;

namespace {

const QByteArray Bom = "\xEF\xBB\xBF";
const QByteArray Ellipsis = "\xE2\x80\xA6";

qint64 seqOf(const QByteArray &message)
{
    static const QRegularExpression re(u"\\[fb@32473 seq=\"([0-9]+)\""_s);
    const QRegularExpressionMatch m = re.match(QString::fromLatin1(message.left(600)));
    return m.hasMatch() ? m.captured(1).toLongLong() : -1;
}

AuditExportRecord record(qint64 seq, const QByteArray &line = {})
{
    AuditExportRecord r;
    r.seq = seq;
    r.type = u"proposal_created"_s;
    r.time = u"2026-12-06T05:18:01.123Z"_s;
    r.prev = QString::number(seq - 1, 16).rightJustified(64, u'0');
    r.sha256 = QString::number(seq, 16).rightJustified(64, u'0');
    r.line = line.isEmpty() ? QByteArray("{\"seq\":" + QByteArray::number(seq) + ",\"type\":\"x\"}")
                            : line;
    return r;
}

SyslogConfig tcpConfig(quint16 port)
{
    SyslogConfig c;
    c.host = u"127.0.0.1"_s;
    c.port = port;
    c.hostname = u"broker-7"_s;
    c.minBackoffMs = 50;
    return c;
}

QList<QByteArray> fieldsOf(const QByteArray &message)
{
    return message.split(' ');
}

// A port nobody listens on (it was free a moment ago).
quint16 freePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost))
        return 0;
    return probe.serverPort();
}

// Waits until value() has not changed for quietMs; false after timeoutMs.
template <typename F> bool settles(F value, int quietMs, int timeoutMs)
{
    QElapsedTimer total;
    total.start();
    QElapsedTimer quiet;
    quiet.start();
    auto last = value();
    while (total.elapsed() < timeoutMs) {
        QTest::qWait(20);
        const auto now = value();
        if (now != last) {
            last = now;
            quiet.restart();
        } else if (quiet.elapsed() >= quietMs) {
            return true;
        }
    }
    return false;
}

// A loopback syslog receiver: octet-counted frames over TCP, or over TLS when certFile is set.
class Receiver : public QTcpServer {
public:
    QString certFile;
    QString keyFile;
    bool paused = false; // read nothing (the kernel's buffers fill up)
    QList<QByteArray> messages;
    QList<qint64> seqs;
    int connections = 0;
    int closed = 0;
    int badFrames = 0;

    bool start(quint16 port = 0) { return listen(QHostAddress::LocalHost, port); }
    // The server dies: no more listening, every connection gone.
    void kill()
    {
        close();
        for (const QPointer<QTcpSocket> &s : std::as_const(m_sockets))
            if (s)
                s->abort();
    }
    void resume()
    {
        paused = false;
        for (const QPointer<QTcpSocket> &s : std::as_const(m_sockets)) {
            if (s) {
                s->setReadBufferSize(0);
                take(s);
            }
        }
    }

protected:
    void incomingConnection(qintptr fd) override
    {
        QTcpSocket *s = nullptr;
        if (!certFile.isEmpty()) {
            auto *ssl = new QSslSocket(this);
            ssl->setSocketDescriptor(fd);
            ssl->setLocalCertificate(certFile);
            ssl->setPrivateKey(keyFile, QSsl::Ec);
            ssl->setPeerVerifyMode(QSslSocket::VerifyNone);
            ssl->startServerEncryption();
            s = ssl;
        } else {
            s = new QTcpSocket(this);
            s->setSocketDescriptor(fd);
        }
        ++connections;
        if (paused) {
            s->setSocketOption(QAbstractSocket::ReceiveBufferSizeSocketOption, 64 * 1024);
            s->setReadBufferSize(16 * 1024);
        }
        connect(s, &QTcpSocket::readyRead, this, [this, s] { take(s); });
        connect(s, &QTcpSocket::disconnected, this, [this] { ++closed; });
        m_sockets.append(s);
    }

private:
    void take(QTcpSocket *s)
    {
        if (paused)
            return;
        QByteArray &buffer = m_buffers[s];
        buffer += s->readAll();
        for (;;) {
            const qsizetype space = buffer.indexOf(' ');
            if (space < 0) {
                if (buffer.size() > 10)
                    ++badFrames;
                return;
            }
            const QByteArray length = buffer.left(space);
            bool ok = !length.isEmpty() && length.size() <= 9 && length.at(0) != '0';
            for (const char c : length)
                ok = ok && c >= '0' && c <= '9';
            if (!ok) {
                ++badFrames;
                buffer.clear();
                return;
            }
            const qsizetype size = length.toLongLong();
            if (buffer.size() < space + 1 + size)
                return;
            const QByteArray message = buffer.mid(space + 1, size);
            buffer.remove(0, space + 1 + size);
            messages.append(message);
            seqs.append(seqOf(message));
        }
    }

    QList<QPointer<QTcpSocket>> m_sockets;
    QHash<QTcpSocket *, QByteArray> m_buffers;
};

bool openssl(const QString &dir, const QString &name, const QString &san)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(u"openssl"_s,
            {u"req"_s, u"-x509"_s, u"-newkey"_s, u"ec"_s, u"-pkeyopt"_s,
             u"ec_paramgen_curve:P-256"_s, u"-nodes"_s, u"-days"_s, u"2"_s, u"-keyout"_s,
             dir + u'/' + name + u".key"_s, u"-out"_s, dir + u'/' + name + u".pem"_s, u"-subj"_s,
             u"/CN="_s + name, u"-addext"_s, u"subjectAltName="_s + san});
    if (!p.waitForFinished(30000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qInfo("openssl failed: %s", p.readAll().constData());
        return false;
    }
    return true;
}

bool nonDecreasingExceptOneStepBack(const QList<qint64> &seqs, int *stepsBack)
{
    *stepsBack = 0;
    for (qsizetype i = 1; i < seqs.size(); ++i)
        if (seqs[i] <= seqs[i - 1])
            ++*stepsBack;
    return *stepsBack <= 1;
}

} // namespace

class TestSyslogSink : public QObject {
    Q_OBJECT

    std::unique_ptr<QTemporaryDir> m_pki;
    bool m_havePki = false;

    QString pki(const QString &file) const { return m_pki->filePath(file); }

private slots:
    void initTestCase()
    {
        m_pki = std::make_unique<QTemporaryDir>();
        QVERIFY(m_pki->isValid());
        m_havePki = QSslSocket::supportsSsl() &&
                    !QStandardPaths::findExecutable(u"openssl"_s).isEmpty() &&
                    openssl(m_pki->path(), u"localhost"_s, u"IP:127.0.0.1,DNS:localhost"_s) &&
                    openssl(m_pki->path(), u"elsewhere"_s, u"DNS:elsewhere.example"_s);
    }

    void init() { fbtest::failOnWarnings(); }

    // -----------------------------------------------------------------------------------------
    // The message

    void formatsOneRecordExactly()
    {
        AuditExportRecord r;
        r.seq = 41;
        r.type = u"proposal_created"_s;
        r.time = u"2026-12-06T05:18:01.123Z"_s;
        r.prev = u"ab\"c\\d]e"_s; // not hex, but the SD escaping must hold for any value
        r.sha256 = QString(64, u'f');
        r.line = "{\"action\":\"caf\xC3\xA9\",\"n\":1}";
        SyslogConfig c;
        const QByteArray message = SyslogSink::formatMessage(r, c, u"broker-7"_s, 4242);
        const QByteArray expected = "<110>1 2026-12-06T05:18:01.123Z broker-7 fabric-broker 4242 "
                                    "proposal_created [fb@32473 seq=\"41\" "
                                    "prev=\"ab\\\"c\\\\d\\]e\" hash=\"" +
                                    QByteArray(64, 'f') + "\"] " + Bom +
                                    "{\"action\":\"caf\xC3\xA9\",\"n\":1}";
        QCOMPARE(message, expected);

        c.facility = 10; // authpriv
        c.severity = 6;
        QVERIFY(SyslogSink::formatMessage(r, c, u"h"_s, 1).startsWith("<86>1 "));
        c.facility = 23;
        c.severity = 7;
        QVERIFY(SyslogSink::formatMessage(r, c, u"h"_s, 1).startsWith("<191>1 "));
        c.facility = 24; // out of range: the defaults, log audit / info
        c.severity = 8;
        QVERIFY(SyslogSink::formatMessage(r, c, u"h"_s, 1).startsWith("<110>1 "));

        // A line that is not UTF-8 is carried with U+FFFD, as the BOM promises UTF-8.
        r.line = "{\"x\":\"\xFF\"}";
        const QByteArray repaired = SyslogSink::formatMessage(r, SyslogConfig(), u"h"_s, 1);
        QVERIFY(repaired.endsWith(QByteArray(Bom + "{\"x\":\"\xEF\xBF\xBD\"}")));
        QVERIFY(repaired.isValidUtf8());
    }

    void framesWithTheOctetCount()
    {
        QCOMPARE(SyslogSink::frame("abc"), QByteArray("3 abc"));
        QCOMPARE(SyslogSink::frame("\xC3\xA9"), QByteArray("2 \xC3\xA9"));
        const QByteArray message = SyslogSink::formatMessage(record(5), SyslogConfig(), u"h"_s, 9);
        const QByteArray framed = SyslogSink::frame(message);
        const qsizetype space = framed.indexOf(' ');
        QCOMPARE(framed.left(space).toLongLong(), message.size());
        QCOMPARE(framed.mid(space + 1), message);
    }

    void boundsTheHeaderFields()
    {
        AuditExportRecord r = record(1);
        SyslogConfig c;
        r.type = u"proposal_created_with_a_very_long_type_name"_s; // 43 characters
        QList<QByteArray> f = fieldsOf(SyslogSink::formatMessage(r, c, u"höst name"_s, 7));
        QCOMPARE(f.at(5), QByteArray("proposal_created_with_a_very_lon"));
        QCOMPARE(f.at(5).size(), 32);
        QCOMPARE(f.at(2), QByteArray("h_st_name"));

        r.type = u"a\nb c\u00e9\U0001F600"_s;
        f = fieldsOf(SyslogSink::formatMessage(r, c, u"a\U0001F600b"_s, 7));
        QCOMPARE(f.at(5), QByteArray("a_b_c__"));
        QCOMPARE(f.at(2), QByteArray("a_b"));

        r.type.clear();
        c.appName = QString(60, u'x');
        f = fieldsOf(SyslogSink::formatMessage(r, c, QString(300, u'h'), 0));
        QCOMPARE(f.at(2), QByteArray(255, 'h'));
        QCOMPARE(f.at(3), QByteArray(48, 'x'));
        QCOMPARE(f.at(4), QByteArray("-")); // no PROCID
        QCOMPARE(f.at(5), QByteArray("-")); // no MSGID

        c.appName.clear();
        f = fieldsOf(SyslogSink::formatMessage(r, c, QString(), 12));
        QCOMPARE(f.at(2), QByteArray("-"));
        QCOMPARE(f.at(3), QByteArray("-"));
        QCOMPARE(f.at(4), QByteArray("12"));
    }

    void takesTheRecordTimeOnlyWhenItIsAValidTimestamp_data()
    {
        QTest::addColumn<QString>("time");
        QTest::addColumn<bool>("kept");
        QTest::newRow("milliseconds Z") << u"2026-12-06T05:18:01.123Z"_s << true;
        QTest::newRow("no fraction") << u"2026-12-06T05:18:01Z"_s << true;
        QTest::newRow("microseconds offset") << u"2026-12-06T05:18:01.123456+01:00"_s << true;
        QTest::newRow("7 fraction digits") << u"2026-12-06T05:18:01.1234567Z"_s << false;
        QTest::newRow("lowercase t") << u"2026-12-06t05:18:01Z"_s << false;
        QTest::newRow("lowercase z") << u"2026-12-06T05:18:01z"_s << false;
        QTest::newRow("space") << u"2026-12-06 05:18:01Z"_s << false;
        QTest::newRow("no zone") << u"2026-12-06T05:18:01"_s << false;
        QTest::newRow("30 February") << u"2026-02-30T05:18:01Z"_s << false;
        QTest::newRow("hour 24") << u"2026-12-06T24:00:00Z"_s << false;
        QTest::newRow("leap second") << u"2026-12-31T23:59:60Z"_s << false;
        QTest::newRow("trailing newline") << u"2026-12-06T05:18:01Z\n"_s << false;
        QTest::newRow("arabic digits") << u"\u0662026-12-06T05:18:01Z"_s << false;
        QTest::newRow("empty") << QString() << false;
    }
    void takesTheRecordTimeOnlyWhenItIsAValidTimestamp()
    {
        QFETCH(QString, time);
        QFETCH(bool, kept);
        AuditExportRecord r = record(1);
        r.time = time;
        const QByteArray stamp =
            fieldsOf(SyslogSink::formatMessage(r, SyslogConfig(), u"h"_s, 1)).at(1);
        if (kept) {
            QCOMPARE(stamp, time.toLatin1());
            return;
        }
        const QDateTime parsed =
            QDateTime::fromString(QString::fromLatin1(stamp), Qt::ISODateWithMs);
        QVERIFY2(parsed.isValid() && stamp.endsWith('Z') && stamp.contains('T'), stamp.constData());
        QVERIFY2(qAbs(parsed.secsTo(QDateTime::currentDateTimeUtc())) < 60, stamp.constData());
    }

    void cutsAHugeLineAtACharacterBoundary_data()
    {
        QTest::addColumn<int>("offset");
        QTest::newRow("even") << 0;
        QTest::newRow("odd") << 1;
    }
    void cutsAHugeLineAtACharacterBoundary()
    {
        QFETCH(int, offset);
        QByteArray line = "{\"x\":\"" + QByteArray(offset, 'o');
        for (qint64 i = 0; i < SyslogSink::MaxMessageBytes / 2 + 100; ++i)
            line += "\xC3\xA9";
        line += "\"}";
        const AuditExportRecord r = record(3, line);
        SyslogConfig c;
        const QByteArray message = SyslogSink::formatMessage(r, c, u"h"_s, 1);
        QVERIFY(message.size() <= SyslogSink::MaxMessageBytes);
        QVERIFY(message.size() >= SyslogSink::MaxMessageBytes - 1);
        QVERIFY(message.endsWith(Ellipsis));
        QVERIFY(message.isValidUtf8());
        const QByteArray body = message.mid(message.indexOf(Bom) + Bom.size());
        QVERIFY(line.startsWith(body.chopped(Ellipsis.size())));
        // A line that fits is not touched.
        QVERIFY(SyslogSink::formatMessage(record(3), c, u"h"_s, 1)
                    .endsWith(QByteArray(Bom + record(3).line)));

        // And delivered as cut, in one frame.
        Receiver server;
        QVERIFY(server.start());
        SyslogConfig config = tcpConfig(server.serverPort());
        SyslogSink sink(config);
        sink.submit(r);
        sink.submit(record(4));
        QTRY_COMPARE_WITH_TIMEOUT(server.messages.size(), 2, 10000);
        QCOMPARE(server.badFrames, 0);
        QCOMPARE(server.messages.at(0),
                 SyslogSink::formatMessage(r, config, config.hostname,
                                           QCoreApplication::applicationPid()));
        QCOMPARE(server.seqs, (QList<qint64>{3, 4}));
    }

    // -----------------------------------------------------------------------------------------
    // The target

    void parsesTheTarget_data()
    {
        QTest::addColumn<QString>("target");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<bool>("tls");
        QTest::addColumn<QString>("host");
        QTest::addColumn<int>("port");
        QTest::addColumn<QString>("ca");
        QTest::addColumn<QString>("described"); // or, when not ok, a part of the error

        QTest::newRow("tcp IPv4") << u"tcp://127.0.0.1:514"_s << true << false << u"127.0.0.1"_s
                                  << 514 << QString() << u"tcp://127.0.0.1:514"_s;
        QTest::newRow("tls name") << u"tls://siem.example.com:6514"_s << true << true
                                  << u"siem.example.com"_s << 6514 << QString()
                                  << u"tls://siem.example.com:6514"_s;
        QTest::newRow("tls IPv6 with CA")
            << u"tls://[::1]:6514?ca=/etc/ssl/siem.pem"_s << true << true << u"::1"_s << 6514
            << u"/etc/ssl/siem.pem"_s << u"tls://[::1]:6514"_s;
        QTest::newRow("uppercase scheme, highest port")
            << u"TLS://Siem-1.example:65535?ca=/a%20b.pem"_s << true << true << u"Siem-1.example"_s
            << 65535 << u"/a b.pem"_s << u"tls://Siem-1.example:65535"_s;
        QTest::newRow("port 1") << u"tcp://h:1"_s << true << false << u"h"_s << 1 << QString()
                                << u"tcp://h:1"_s;

        const auto bad = [](const char *row, const QString &target, const QString &why) {
            QTest::newRow(row) << target << false << false << QString() << 0 << QString() << why;
        };
        bad("empty", QString(), u"no scheme"_s);
        bad("no scheme", u"siem:514"_s, u"no scheme"_s);
        bad("udp", u"udp://siem:514"_s, u"unsupported scheme \"udp\""_s);
        bad("https", u"https://siem:443"_s, u"unsupported scheme"_s);
        bad("no port", u"tcp://siem"_s, u"no port"_s);
        bad("empty port", u"tcp://siem:"_s, u"no port"_s);
        bad("port 0", u"tcp://siem:0"_s, u"from 1 to 65535"_s);
        bad("port 65536", u"tcp://siem:65536"_s, u"from 1 to 65535"_s);
        bad("signed port", u"tcp://siem:+514"_s, u"from 1 to 65535"_s);
        bad("port name", u"tcp://siem:syslog"_s, u"from 1 to 65535"_s);
        bad("userinfo", u"tcp://audit@siem:514"_s, u"user information"_s);
        bad("path", u"tcp://siem:514/audit"_s, u"a path (\"/audit\")"_s);
        bad("trailing slash", u"tcp://siem:514/"_s, u"a path"_s);
        bad("fragment", u"tcp://siem:514#x"_s, u"fragment"_s);
        bad("verify off", u"tls://siem:6514?verify=false"_s, u"unknown parameter \"verify\""_s);
        bad("verify off after ca", u"tls://siem:6514?ca=/ca.pem&verify=false"_s,
            u"unknown parameter \"verify\""_s);
        bad("ca twice", u"tls://siem:6514?ca=/a.pem&ca=/b.pem"_s, u"twice"_s);
        bad("ca on tcp", u"tcp://siem:514?ca=/ca.pem"_s, u"tls:// only"_s);
        bad("relative ca", u"tls://siem:6514?ca=ca.pem"_s, u"absolute path"_s);
        bad("empty ca", u"tls://siem:6514?ca="_s, u"needs the path"_s);
        bad("empty query", u"tls://siem:6514?"_s, u"empty query"_s);
        bad("bare IPv6", u"tcp://::1:514"_s, u"in brackets"_s);
        bad("unterminated IPv6", u"tcp://[::1:514"_s, u"unterminated"_s);
        bad("not IPv6", u"tcp://[siem]:514"_s, u"not an IPv6 address"_s);
        bad("IPv4 in brackets", u"tcp://[127.0.0.1]:514"_s, u"not an IPv6 address"_s);
        bad("IPv6 without port", u"tcp://[::1]514"_s, u"no port"_s);
        bad("no host", u"tcp://:514"_s, u"no host"_s);
        bad("space in host", u"tcp://si em:514"_s, u"not a host name"_s);
        bad("non-ASCII host", u"tcp://sïem:514"_s, u"not a host name"_s);
    }
    void parsesTheTarget()
    {
        QFETCH(QString, target);
        QFETCH(bool, ok);
        QFETCH(bool, tls);
        QFETCH(QString, host);
        QFETCH(int, port);
        QFETCH(QString, ca);
        QFETCH(QString, described);
        QString error = u"untouched"_s;
        const std::optional<SyslogConfig> c = SyslogConfig::parse(target, &error);
        QCOMPARE(c.has_value(), ok);
        if (!ok) {
            QVERIFY2(error.contains(described), qPrintable(error));
            QVERIFY2(error.contains(target), qPrintable(error));
            QVERIFY(!SyslogConfig::parse(target, nullptr));
            return;
        }
        QCOMPARE(c->tls, tls);
        QCOMPARE(c->host, host);
        QCOMPARE(int(c->port), port);
        QCOMPARE(c->caFile, ca);
        QVERIFY(c->verifyPeer);
        QCOMPARE(c->describe(), described);
    }

    // -----------------------------------------------------------------------------------------
    // Delivery

    void deliversInOrderOverTcp()
    {
        Receiver server;
        QVERIFY(server.start());
        SyslogSink sink(tcpConfig(server.serverPort()));
        QSignalSpy interrupted(&sink, &SyslogSink::interrupted);
        QVERIFY(!sink.isConnected());
        for (qint64 seq = 1; seq <= 100; ++seq)
            sink.submit(record(seq));
        QCOMPARE(sink.queued(), 100); // submit() only queues
        QTRY_COMPARE_WITH_TIMEOUT(server.seqs.size(), 100, 10000);
        for (qsizetype i = 0; i < server.seqs.size(); ++i)
            QCOMPARE(server.seqs.at(i), i + 1);
        QCOMPARE(server.badFrames, 0);
        QCOMPARE(server.connections, 1);
        QVERIFY(sink.isConnected());
        QCOMPARE(sink.sent(), 100u);
        QCOMPARE(sink.lastSentSeq(), 100);
        QCOMPARE(sink.queued(), 0);
        QCOMPARE(sink.dropped(), 0u);
        QCOMPARE(interrupted.count(), 0);
        QVERIFY(sink.lastError().isEmpty());
    }

    void writesOnlyAsTheSocketDrains()
    {
        // The receiver reads nothing: once the kernel's buffers are full the sink must stop
        // writing and keep the rest queued, rather than hand everything to Qt at once.
        Receiver server;
        server.paused = true;
        QVERIFY(server.start());
        SyslogSink sink(tcpConfig(server.serverPort()));
        const qint64 total = 3000; // 4 KiB lines, 12 MB
        for (qint64 seq = 1; seq <= total; ++seq)
            sink.submit(record(seq, "{\"pad\":\"" + QByteArray(4096, 'p') + "\"}"));
        QTRY_VERIFY_WITH_TIMEOUT(sink.sent() > 0, 10000);
        QVERIFY(settles([&] { return sink.sent(); }, 500, 10000));
        QVERIFY2(sink.sent() < quint64(total), qPrintable(QString::number(sink.sent())));
        QCOMPARE(sink.queued() + qint64(sink.sent()), total);
        QCOMPARE(sink.dropped(), 0u);

        server.resume();
        QTRY_COMPARE_WITH_TIMEOUT(server.seqs.size(), total, 15000);
        for (qsizetype i = 0; i < server.seqs.size(); ++i)
            QCOMPARE(server.seqs.at(i), i + 1);
        QCOMPARE(sink.queued(), 0);
        QCOMPARE(server.badFrames, 0);
    }

    void deliversOverTlsWithTheRightCa()
    {
        if (!m_havePki) {
            QVERIFY2(qEnvironmentVariable("CI") != u"true", "CI lacks Qt's TLS backend or openssl");
            QSKIP("TLS needs Qt's OpenSSL backend and openssl(1) for the test certificates");
        }
        Receiver server;
        server.certFile = pki(u"localhost.pem"_s);
        server.keyFile = pki(u"localhost.key"_s);
        QVERIFY(server.start());
        QString error;
        std::optional<SyslogConfig> config = SyslogConfig::parse(
            u"tls://127.0.0.1:%1?ca=%2"_s.arg(server.serverPort()).arg(pki(u"localhost.pem"_s)),
            &error);
        QVERIFY2(config, qPrintable(error));
        config->hostname = u"broker-7"_s;
        config->minBackoffMs = 50;
        SyslogSink sink(*config);
        QSignalSpy interrupted(&sink, &SyslogSink::interrupted);
        for (qint64 seq = 1; seq <= 100; ++seq)
            sink.submit(record(seq));
        QTRY_COMPARE_WITH_TIMEOUT(server.seqs.size(), 100, 10000);
        for (qsizetype i = 0; i < server.seqs.size(); ++i)
            QCOMPARE(server.seqs.at(i), i + 1);
        QCOMPARE(server.messages.at(0),
                 SyslogSink::formatMessage(record(1), *config, u"broker-7"_s,
                                           QCoreApplication::applicationPid()));
        QCOMPARE(server.connections, 1);
        QCOMPARE(interrupted.count(), 0);
        QVERIFY(sink.isConnected());
        QCOMPARE(sink.queued(), 0);
    }

    void refusesATlsServerItCannotVerify_data()
    {
        QTest::addColumn<QString>("serverCert");
        QTest::addColumn<QString>("ca");
        QTest::newRow("another CA") << u"localhost"_s << u"elsewhere"_s;
        QTest::newRow("another name") << u"elsewhere"_s << u"elsewhere"_s;
    }
    void refusesATlsServerItCannotVerify()
    {
        QFETCH(QString, serverCert);
        QFETCH(QString, ca);
        if (!m_havePki) {
            QVERIFY2(qEnvironmentVariable("CI") != u"true", "CI lacks Qt's TLS backend or openssl");
            QSKIP("TLS needs Qt's OpenSSL backend and openssl(1) for the test certificates");
        }
        Receiver server;
        server.certFile = pki(serverCert + u".pem"_s);
        server.keyFile = pki(serverCert + u".key"_s);
        QVERIFY(server.start());
        SyslogConfig config = tcpConfig(server.serverPort());
        config.tls = true;
        config.caFile = pki(ca + u".pem"_s);
        SyslogSink sink(config);
        QSignalSpy interrupted(&sink, &SyslogSink::interrupted);
        QSignalSpy state(&sink, &SyslogSink::stateChanged);
        for (qint64 seq = 1; seq <= 5; ++seq)
            sink.submit(record(seq));
        QTRY_COMPARE_WITH_TIMEOUT(interrupted.count(), 1, 10000);
        QVERIFY2(sink.lastError().startsWith(u"TLS handshake failed: "_s),
                 qPrintable(sink.lastError()));
        QCOMPARE(interrupted.at(0).at(0).toString(), sink.lastError());
        QCOMPARE(interrupted.at(0).at(2).toLongLong(), 5);
        // It keeps trying (a second and third handshake fail too), one interruption in all.
        QTRY_VERIFY_WITH_TIMEOUT(server.connections >= 3, 10000);
        QTRY_VERIFY(!sink.isConnected() && state.count() >= 6);
        QCOMPARE(interrupted.count(), 1);
        QVERIFY(server.messages.isEmpty());
        QCOMPARE(sink.queued(), 5);
        QCOMPARE(sink.sent(), 0u);
        QCOMPARE(sink.dropped(), 0u);
    }

    void connectsWhenTheServerAppearsLater()
    {
        const quint16 port = freePort();
        QVERIFY(port != 0);
        SyslogSink sink(tcpConfig(port));
        QSignalSpy interrupted(&sink, &SyslogSink::interrupted);
        QSignalSpy resumed(&sink, &SyslogSink::resumed);
        for (qint64 seq = 1; seq <= 10; ++seq)
            sink.submit(record(seq));
        QTRY_COMPARE(interrupted.count(), 1);
        QVERIFY(!sink.lastError().isEmpty());
        QCOMPARE(interrupted.at(0).at(1).toLongLong(), 0); // nothing sent yet
        QCOMPARE(interrupted.at(0).at(2).toLongLong(), 10);
        QCOMPARE(sink.queued(), 10);

        Receiver server;
        QVERIFY(server.start(port));
        QTRY_COMPARE_WITH_TIMEOUT(server.seqs.size(), 10, 10000);
        for (qsizetype i = 0; i < server.seqs.size(); ++i)
            QCOMPARE(server.seqs.at(i), i + 1);
        QCOMPARE(interrupted.count(), 1);
        QCOMPARE(resumed.count(), 1);
        QCOMPARE(resumed.at(0).at(0).toLongLong(), 1);
        QCOMPARE(server.connections, 1);
        QVERIFY(sink.isConnected());
        QVERIFY(sink.lastError().isEmpty());
    }

    void resendsRecentRecordsAfterTheServerDies()
    {
        auto first = std::make_unique<Receiver>();
        QVERIFY(first->start());
        const quint16 port = first->serverPort();
        SyslogSink sink(tcpConfig(port));
        QSignalSpy interrupted(&sink, &SyslogSink::interrupted);
        QSignalSpy resumed(&sink, &SyslogSink::resumed);
        QSignalSpy state(&sink, &SyslogSink::stateChanged);
        for (qint64 seq = 1; seq <= 50; ++seq)
            sink.submit(record(seq));
        QTRY_COMPARE_WITH_TIMEOUT(first->seqs.size(), 50, 10000);
        QElapsedTimer sinceDelivery;
        sinceDelivery.start();

        first->kill();
        QTRY_COMPARE_WITH_TIMEOUT(interrupted.count(), 1, 5000);
        // Everything arrived well within the resend window, so all 50 go back to the queue.
        const bool inWindow = sinceDelivery.elapsed() < SyslogSink::ResendWindowMs - 500;
        QCOMPARE(interrupted.at(0).at(1).toLongLong(), 50);
        if (inWindow)
            QCOMPARE(interrupted.at(0).at(2).toLongLong(), 50);
        QVERIFY(!sink.lastError().isEmpty());
        QVERIFY(!sink.isConnected());

        for (qint64 seq = 51; seq <= 100; ++seq)
            sink.submit(record(seq));
        const qsizetype before = state.count();
        QTRY_VERIFY_WITH_TIMEOUT(state.count() >= before + 6, 5000); // three refused attempts
        QCOMPARE(interrupted.count(), 1);
        QCOMPARE(resumed.count(), 0);

        Receiver second;
        QVERIFY(second.start(port));
        QTRY_VERIFY_WITH_TIMEOUT(second.seqs.contains(100), 10000);
        QCOMPARE(resumed.count(), 1);
        const qint64 from = resumed.at(0).at(0).toLongLong();
        if (inWindow)
            QCOMPARE(from, 1);
        QVERIFY(from <= 51);
        // The new connection: the resent block then the rest, in order, nothing skipped.
        QCOMPARE(second.seqs.size(), 100 - from + 1);
        for (qsizetype i = 0; i < second.seqs.size(); ++i)
            QCOMPARE(second.seqs.at(i), from + i);
        // Across both connections every record at least once, one step back (the resend).
        const QList<qint64> all = first->seqs + second.seqs;
        for (qint64 seq = 1; seq <= 100; ++seq)
            QVERIFY2(all.contains(seq), qPrintable(QString::number(seq)));
        int stepsBack = 0;
        QVERIFY(nonDecreasingExceptOneStepBack(all, &stepsBack));
        QCOMPARE(stepsBack, from <= 50 ? 1 : 0);
        QCOMPARE(sink.sent(), 100u); // resends are not counted again
        QCOMPARE(sink.lastSentSeq(), 100);
        QCOMPARE(sink.queued(), 0);
        QCOMPARE(interrupted.count(), 1);
        QCOMPARE(second.badFrames, 0);
    }

    void reportsDroppedRecordsAsOneGap()
    {
        Receiver server;
        QVERIFY(server.start());
        SyslogConfig config = tcpConfig(server.serverPort());
        config.maxQueue = 3;
        config.gapReportIntervalMs = 0; // every run reported at once (the interval: below)
        SyslogSink sink(config);
        QSignalSpy gaps(&sink, &SyslogSink::gap);
        for (qint64 seq = 1; seq <= 10; ++seq)
            sink.submit(record(seq));
        QCOMPARE(sink.queued(), 3);
        QCOMPARE(sink.dropped(), 7u);
        QCOMPARE(gaps.count(), 0); // reported once the burst is over
        QTRY_COMPARE_WITH_TIMEOUT(server.seqs.size(), 3, 10000);
        QCOMPARE(server.seqs, (QList<qint64>{8, 9, 10}));
        QCOMPARE(gaps.count(), 1);
        QCOMPARE(gaps.at(0).at(0).toLongLong(), 1);
        QCOMPARE(gaps.at(0).at(1).toLongLong(), 7);
        QCOMPARE(gaps.at(0).at(2).toString(), u"queue full"_s);

        // Connected now; another burst in one turn of the event loop: 11..17 dropped, then 30
        // pushes out 18, which continues the run.
        QVERIFY(sink.isConnected());
        for (qint64 seq = 11; seq <= 20; ++seq)
            sink.submit(record(seq));
        sink.submit(record(30));
        QCOMPARE(sink.dropped(), 15u);
        QTRY_COMPARE_WITH_TIMEOUT(server.seqs.size(), 6, 10000);
        QCOMPARE(server.seqs, (QList<qint64>{8, 9, 10, 19, 20, 30}));
        QCOMPARE(gaps.count(), 2);
        QCOMPARE(gaps.at(1).at(0).toLongLong(), 11);
        QCOMPARE(gaps.at(1).at(1).toLongLong(), 18);
        QCOMPARE(sink.sent(), 6u);

        // Drops that do not follow each other are separate gaps.
        for (const qint64 seq : {40, 50, 60, 70, 80})
            sink.submit(record(seq));
        QTRY_COMPARE_WITH_TIMEOUT(server.seqs.size(), 9, 10000);
        QCOMPARE(server.seqs.mid(6), (QList<qint64>{60, 70, 80}));
        QCOMPARE(gaps.count(), 4);
        QCOMPARE(gaps.at(2).at(0).toLongLong(), 40);
        QCOMPARE(gaps.at(2).at(1).toLongLong(), 40);
        QCOMPARE(gaps.at(3).at(0).toLongLong(), 50);
        QCOMPARE(gaps.at(3).at(1).toLongLong(), 50);
        QCOMPARE(sink.dropped(), 17u);
    }

    // The broker records each gap in the audit log, and the observer submits that record: on a
    // full queue it pushes out the next one. The report interval keeps that from repeating on
    // every turn of the event loop (found by the non-author review).
    void aGapRecordDoesNotFeedTheNextGap()
    {
        SyslogConfig config = tcpConfig(freePort()); // nobody listens
        config.maxQueue = 3;
        config.gapReportIntervalMs = 400;
        SyslogSink sink(config);
        qint64 nextSeq = 1;
        QList<std::pair<qint64, qint64>> gaps;
        connect(&sink, &SyslogSink::gap, &sink, [&](qint64 from, qint64 to, const QString &) {
            gaps.append({from, to});
            sink.submit(record(nextSeq++)); // what ServerHost's export_gap record does
        });
        for (int i = 0; i < 5; ++i)
            sink.submit(record(nextSeq++));
        QTRY_COMPARE(gaps.size(), 1);
        QCOMPARE(gaps.first(), (std::pair<qint64, qint64>{1, 2}));
        QTest::qWait(600); // one interval: at most one more report, never one per turn
        QVERIFY2(gaps.size() <= 2, qPrintable(u"%1 gap reports in 600 ms"_s.arg(gaps.size())));
        QCOMPARE(sink.queued(), 3);
        // Every record dropped is in exactly one reported or pending run.
        qint64 reported = 0;
        for (const auto &[from, to] : std::as_const(gaps))
            reported += to - from + 1;
        QVERIFY(reported <= qint64(sink.dropped()));
        QVERIFY(qint64(sink.dropped()) - reported <= 1);
    }

    void staysSilentOnceDestroyed()
    {
        Receiver server;
        QVERIFY(server.start());
        int signalsAfter = 0;
        QObject watcher;
        {
            auto connected = std::make_unique<SyslogSink>(tcpConfig(server.serverPort()));
            auto waiting = std::make_unique<SyslogSink>(tcpConfig(freePort()));
            for (SyslogSink *s : {connected.get(), waiting.get()}) {
                connect(s, &SyslogSink::interrupted, &watcher, [&] { ++signalsAfter; });
                connect(s, &SyslogSink::stateChanged, &watcher, [&] { ++signalsAfter; });
                connect(s, &SyslogSink::gap, &watcher, [&] { ++signalsAfter; });
                connect(s, &SyslogSink::resumed, &watcher, [&] { ++signalsAfter; });
            }
            connected->submit(record(1));
            waiting->submit(record(1));
            QTRY_COMPARE_WITH_TIMEOUT(server.seqs.size(), 1, 10000);
            QTRY_VERIFY(!waiting->lastError().isEmpty());
            for (qint64 seq = 2; seq <= 200; ++seq) {
                connected->submit(record(seq));
                waiting->submit(record(seq));
            }
            signalsAfter = 0;
        }
        QTRY_COMPARE(server.closed, 1);
        QTest::qWait(100);
        QCOMPARE(signalsAfter, 0);
    }
};

QTEST_GUILESS_MAIN(TestSyslogSink)
#include "tst_syslogsink.moc"
