// WebhookNotifier (src/notify) against loopback receivers in this file (a QTcpServer that reads
// whole HTTP/1.1 requests and answers each with a scripted status, or never): nothing leaves
// before the event loop runs, every target that wants an event gets one POST, 5xx/429/network
// errors/hangs are tried again up to the bound and then fail, 4xx and redirects fail at once,
// the queue bound, cancelPending(), a target removed from the policy, one lane per target, and
// that no delivery report or log line quotes a URL.
#include "TestEnvironment.h"
#include "core/ProposalStore.h"
#include "notify/WebhookNotifier.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

using namespace fb;
using namespace fb::notify;

namespace {

const QString Token = QStringLiteral("chg-0123456789abcdef0123456789abcdef");
// The secret part of a webhook URL: no report, record or log line may hold it.
const QString SecretPath = QStringLiteral("/services/T0SECRET/B0SECRET/secretpart");

struct Received {
    QByteArray method;
    QByteArray path;
    QHash<QByteArray, QByteArray> headers; // lowercase names
    QByteArray body;
};

// The loopback receiver: POSTs are recorded and answered from script (in order), then with
// fallback; hang: never answered; extra headers go with every answer.
class Receiver {
public:
    Receiver()
    {
        QObject::connect(&m_server, &QTcpServer::newConnection, &m_server, [this] {
            while (QTcpSocket *socket = m_server.nextPendingConnection()) {
                socket->setParent(&m_server);
                QObject::connect(socket, &QTcpSocket::readyRead, socket,
                                 [this, socket] { readFrom(socket); });
                QObject::connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
            }
        });
    }
    bool listen() { return m_server.listen(QHostAddress::LocalHost, 0); }
    QString url(const QString &path = SecretPath) const
    {
        return QStringLiteral("http://127.0.0.1:%1%2").arg(m_server.serverPort()).arg(path);
    }
    QString origin() const
    {
        return QStringLiteral("http://127.0.0.1:%1").arg(m_server.serverPort());
    }

    QList<Received> requests;
    QList<int> script;
    int fallback = 200;
    bool hang = false;
    QList<std::pair<QByteArray, QByteArray>> headers;

private:
    void readFrom(QTcpSocket *socket)
    {
        QByteArray &buffer = m_buffers[socket];
        buffer += socket->readAll();
        for (;;) {
            const qsizetype end = buffer.indexOf("\r\n\r\n");
            if (end < 0)
                return;
            const QList<QByteArray> lines = buffer.first(end).split('\n');
            Received r;
            const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
            r.method = first.value(0);
            r.path = first.value(1);
            for (qsizetype i = 1; i < lines.size(); ++i) {
                const qsizetype colon = lines[i].indexOf(':');
                if (colon > 0)
                    r.headers.insert(lines[i].first(colon).trimmed().toLower(),
                                     lines[i].sliced(colon + 1).trimmed());
            }
            const qsizetype length = r.headers.value("content-length", "0").toLongLong();
            if (buffer.size() < end + 4 + length)
                return;
            r.body = buffer.sliced(end + 4, length);
            buffer.remove(0, end + 4 + length);
            requests.append(r);
            if (hang)
                continue;
            const int status = script.isEmpty() ? fallback : script.takeFirst();
            QByteArray out = "HTTP/1.1 " + QByteArray::number(status) + " Status\r\n";
            out += "Content-Length: 2\r\n";
            for (const auto &[name, value] : std::as_const(headers))
                out += name + ": " + value + "\r\n";
            out += "\r\nok";
            socket->write(out);
        }
    }

    QHash<QTcpSocket *, QByteArray> m_buffers;
    QTcpServer m_server; // last: destroyed (with its sockets) first
};

WebhookNotifier::Options fast()
{
    WebhookNotifier::Options o;
    o.attemptTimeoutMs = 300;
    o.firstBackoffMs = 20;
    return o;
}

QList<WebhookTarget> targets(const QJsonArray &entries)
{
    QStringList errors;
    const auto t = WebhookTarget::parse(entries, QStringLiteral("notify.webhooks"), &errors);
    if (!t)
        qWarning() << errors;
    return t.value_or(QList<WebhookTarget>{});
}

Proposal proposal()
{
    Proposal p;
    p.token = Token;
    p.requestSha256 = QString(64, 'd');
    p.target = QStringLiteral("EVPL_VC 50 Mbps port \"SV\" (SV)");
    p.spec = QJsonObject{{"name", "spec-value-never-sent"}};
    p.sequence = 3;
    return p;
}

WebhookMessage message(WebhookEvent event = WebhookEvent::NeedsApproval)
{
    return WebhookMessage::of(event, proposal(), 1767225600000);
}

WebhookDelivery deliveryAt(const QSignalSpy &spy, int i)
{
    return spy.at(i).at(0).value<WebhookDelivery>();
}

void verifyNoUrl(const WebhookDelivery &d)
{
    const QByteArray record = QJsonDocument(d.auditRecord()).toJson();
    QVERIFY2(!record.contains("SECRET") && !record.contains("secretpart") &&
                 !d.error.contains("SECRET") && !d.origin.contains("/services"),
             record.constData());
}

} // namespace

class TestWebhookNotifier : public QObject {
    Q_OBJECT
private slots:
    // A failed delivery is a warning by design ("webhook N at ORIGIN not notified of ...").
    void init()
    {
        fbtest::failOnWarnings(
            {QStringLiteral("^webhook \\d+ at http://127\\.0\\.0\\.1:\\d+ not notified of")});
    }

    void deliversToEveryTargetThatWantsTheEvent()
    {
        Receiver a, b;
        QVERIFY(a.listen() && b.listen());
        ManualClock clock;
        WebhookNotifier n(fast(), &clock);
        n.setTargets(targets(
            {QJsonObject{{"url", a.url()}}, QJsonObject{{"url", b.url("/hook")},
                                                        {"format", "slack"},
                                                        {"events", QJsonArray{"created"}}}}));
        QSignalSpy delivered(&n, &WebhookNotifier::delivered);
        QSignalSpy idle(&n, &WebhookNotifier::idle);
        n.notify(message(WebhookEvent::NeedsApproval));
        n.notify(message(WebhookEvent::Created));
        // Queued, and nothing has left: the caller never waits for a receiver.
        QCOMPARE(n.pending(), 3);
        QVERIFY(!n.isIdle());
        QVERIFY(a.requests.isEmpty() && b.requests.isEmpty() && delivered.isEmpty());
        QTRY_COMPARE(delivered.size(), 3);
        QTRY_COMPARE(idle.size(), 1);
        QVERIFY(n.isIdle());
        QCOMPARE(a.requests.size(), 2);
        QCOMPARE(b.requests.size(), 1);
        const Received &r = a.requests.first();
        QCOMPARE(r.method, QByteArray("POST"));
        QCOMPARE(r.path, SecretPath.toUtf8());
        QCOMPARE(r.headers.value("content-type"), QByteArray("application/json"));
        QVERIFY(r.headers.value("user-agent").startsWith("fabric-broker/"));
        QVERIFY(!r.headers.contains("authorization") && !r.headers.contains("cookie"));
        // In order, per target.
        QCOMPARE(QJsonDocument::fromJson(a.requests.at(0).body).object().value("event").toString(),
                 QStringLiteral("needs_approval"));
        QCOMPARE(QJsonDocument::fromJson(a.requests.at(1).body).object().value("event").toString(),
                 QStringLiteral("created"));
        QVERIFY(QJsonDocument::fromJson(b.requests.first().body).object().contains("blocks"));
        const WebhookDelivery d = deliveryAt(delivered, 0);
        QCOMPARE(d.target, 0);
        QCOMPARE(d.origin, a.origin());
        QCOMPARE(d.attempts, 1);
        QCOMPARE(d.httpStatus, 200);
        QVERIFY(d.error.isEmpty());
        const QJsonObject record = d.auditRecord();
        QCOMPARE(record.value("host").toString(), a.origin());
        QCOMPARE(record.value("event").toString(), QStringLiteral("needs_approval"));
        QCOMPARE(record.value("request_sha256").toString(), QString(64, 'd'));
        QCOMPARE(record.value("http_status").toInt(), 200);
        QCOMPARE(record.value("attempts").toInt(), 1);
        QVERIFY(!record.contains("error"));
        verifyNoUrl(d);
        // The token and the spec never leave.
        for (const Received &each : a.requests + b.requests)
            QVERIFY(!each.body.contains(Token.toUtf8()) &&
                    !each.body.contains("spec-value-never-sent"));
    }

    void fiveHundredIsTriedAgainThenFails()
    {
        Receiver a;
        QVERIFY(a.listen());
        a.fallback = 500;
        ManualClock clock;
        WebhookNotifier n(fast(), &clock);
        n.setTargets(targets({QJsonObject{{"url", a.url()}}}));
        QSignalSpy failed(&n, &WebhookNotifier::failed);
        QSignalSpy delivered(&n, &WebhookNotifier::delivered);
        n.notify(message());
        QTRY_COMPARE(failed.size(), 1);
        QCOMPARE(a.requests.size(), 3); // the bound: three attempts in all
        const WebhookDelivery d = deliveryAt(failed, 0);
        QCOMPARE(d.attempts, 3);
        QCOMPARE(d.httpStatus, 500);
        QCOMPARE(d.error, QStringLiteral("HTTP 500"));
        QCOMPARE(d.auditRecord().value("error").toString(), QStringLiteral("HTTP 500"));
        verifyNoUrl(d);
        QVERIFY(delivered.isEmpty());
        QVERIFY(n.isIdle());
        // No fourth attempt comes later.
        QTest::qWait(200);
        QCOMPARE(a.requests.size(), 3);
    }

    void tooManyRequestsAndUnavailableAreTriedAgain()
    {
        Receiver a;
        QVERIFY(a.listen());
        a.script = {429, 503};
        ManualClock clock;
        WebhookNotifier n(fast(), &clock);
        n.setTargets(targets({QJsonObject{{"url", a.url()}}}));
        QSignalSpy delivered(&n, &WebhookNotifier::delivered);
        n.notify(message());
        QTRY_COMPARE(delivered.size(), 1);
        QCOMPARE(deliveryAt(delivered, 0).attempts, 3);
        QCOMPARE(a.requests.size(), 3);
    }

    void clientErrorsAndRedirectsFailAtOnce_data()
    {
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("error");
        QTest::newRow("400") << 400 << "HTTP 400";
        QTest::newRow("404") << 404 << "HTTP 404";
        QTest::newRow("302") << 302 << "HTTP 302 (redirects are not followed)";
        QTest::newRow("307") << 307 << "HTTP 307 (redirects are not followed)";
    }

    void clientErrorsAndRedirectsFailAtOnce()
    {
        QFETCH(int, status);
        QFETCH(QString, error);
        Receiver a, elsewhere;
        QVERIFY(a.listen() && elsewhere.listen());
        a.fallback = status;
        a.headers = {{"Location", elsewhere.url("/stolen").toUtf8()}};
        ManualClock clock;
        WebhookNotifier n(fast(), &clock);
        n.setTargets(targets({QJsonObject{{"url", a.url()}}}));
        QSignalSpy failed(&n, &WebhookNotifier::failed);
        n.notify(message());
        QTRY_COMPARE(failed.size(), 1);
        QCOMPARE(deliveryAt(failed, 0).attempts, 1);
        QCOMPARE(deliveryAt(failed, 0).httpStatus, status);
        QCOMPARE(deliveryAt(failed, 0).error, error);
        QTest::qWait(100);
        QCOMPARE(a.requests.size(), 1);
        QVERIFY(elsewhere.requests.isEmpty()); // the redirect was not followed
    }

    void aReceiverThatHangsTimesOut()
    {
        Receiver a;
        QVERIFY(a.listen());
        a.hang = true;
        ManualClock clock;
        WebhookNotifier n(fast(), &clock);
        n.setTargets(targets({QJsonObject{{"url", a.url()}}}));
        QSignalSpy failed(&n, &WebhookNotifier::failed);
        QElapsedTimer took;
        took.start();
        n.notify(message());
        QVERIFY(took.elapsed() < 100); // notify() itself never waits
        QTRY_COMPARE_WITH_TIMEOUT(failed.size(), 1, 10000);
        const WebhookDelivery d = deliveryAt(failed, 0);
        QCOMPARE(d.attempts, 3);
        QCOMPARE(d.httpStatus, 0);
        QCOMPARE(d.error, QStringLiteral("no answer within 300 ms"));
        QCOMPARE(a.requests.size(), 3);
        QVERIFY(d.auditRecord().value("http_status").isNull());
        verifyNoUrl(d);
    }

    void nobodyListening()
    {
        QTcpServer probe;
        QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
        const quint16 port = probe.serverPort();
        probe.close();
        ManualClock clock;
        WebhookNotifier n(fast(), &clock);
        n.setTargets(targets({QJsonObject{
            {"url", QStringLiteral("http://127.0.0.1:%1%2").arg(port).arg(SecretPath)}}}));
        QSignalSpy failed(&n, &WebhookNotifier::failed);
        n.notify(message());
        QTRY_COMPARE(failed.size(), 1);
        QCOMPARE(deliveryAt(failed, 0).attempts, 3);
        QCOMPARE(deliveryAt(failed, 0).error, QStringLiteral("connection refused"));
        verifyNoUrl(deliveryAt(failed, 0));
    }

    void theQueueIsBounded()
    {
        Receiver a, b;
        QVERIFY(a.listen() && b.listen());
        a.hang = true;
        b.hang = true;
        WebhookNotifier::Options o = fast();
        o.maxQueued = 3;
        o.maxQueuedPerTarget = 2;
        ManualClock clock;
        WebhookNotifier n(o, &clock);
        n.setTargets(targets({QJsonObject{{"url", a.url()}}, QJsonObject{{"url", b.url()}}}));
        QSignalSpy failed(&n, &WebhookNotifier::failed);
        n.notify(message()); // a 1, b 1
        n.notify(message()); // a 2, b 2: the fourth is over the bound of 3
        n.notify(message()); // a and b are full
        QCOMPARE(n.pending(), 3);
        QCOMPARE(failed.size(), 3); // at once, never waiting for room
        for (int i = 0; i < failed.size(); ++i) {
            QVERIFY2(deliveryAt(failed, i).error.startsWith("queue full"),
                     qPrintable(deliveryAt(failed, i).error));
            QCOMPARE(deliveryAt(failed, i).attempts, 0);
        }
        n.cancelPending(QStringLiteral("test over"));
    }

    void cancelPendingEndsEveryDelivery()
    {
        Receiver a, b;
        QVERIFY(a.listen() && b.listen());
        a.hang = true;
        b.fallback = 503;
        WebhookNotifier::Options o = fast();
        o.firstBackoffMs = 60000; // b waits for its second attempt when the cancel comes
        ManualClock clock;
        WebhookNotifier n(o, &clock);
        n.setTargets(targets({QJsonObject{{"url", a.url()}}, QJsonObject{{"url", b.url()}}}));
        QSignalSpy failed(&n, &WebhookNotifier::failed);
        QSignalSpy idle(&n, &WebhookNotifier::idle);
        n.notify(message(WebhookEvent::Approved));
        n.notify(message(WebhookEvent::Created));
        QTRY_VERIFY(!a.requests.isEmpty() && !b.requests.isEmpty());
        QTRY_COMPARE(b.requests.size(), 1);
        QCOMPARE(n.pending(), 4);
        n.cancelPending(QStringLiteral("the broker exited before the receiver answered"));
        QCOMPARE(failed.size(), 4);
        QCOMPARE(idle.size(), 1);
        QVERIFY(n.isIdle());
        for (int i = 0; i < 4; ++i)
            QCOMPARE(deliveryAt(failed, i).error,
                     QStringLiteral("the broker exited before the receiver answered"));
        // Nothing is tried again afterwards, and a second cancel reports nothing.
        QTest::qWait(400);
        QCOMPARE(failed.size(), 4);
        QCOMPARE(a.requests.size(), 1);
        QCOMPARE(b.requests.size(), 1);
        n.cancelPending(QStringLiteral("again"));
        QCOMPARE(failed.size(), 4);
    }

    // A slow receiver holds up only its own lane.
    void oneLanePerTarget()
    {
        Receiver slow, quick;
        QVERIFY(slow.listen() && quick.listen());
        slow.hang = true;
        ManualClock clock;
        WebhookNotifier n(fast(), &clock);
        n.setTargets(
            targets({QJsonObject{{"url", slow.url()}}, QJsonObject{{"url", quick.url()}}}));
        QSignalSpy delivered(&n, &WebhookNotifier::delivered);
        for (const WebhookEvent e : allWebhookEvents())
            n.notify(message(e));
        QTRY_COMPARE(delivered.size(), 5);
        QCOMPARE(slow.requests.size(), 1); // still on its first
        QStringList events;
        for (const Received &r : std::as_const(quick.requests))
            events << QJsonDocument::fromJson(r.body).object().value("event").toString();
        QCOMPARE(events,
                 (QStringList{"needs_approval", "approved", "denied", "created", "unknown"}));
        n.cancelPending(QStringLiteral("test over"));
    }

    void aTargetRemovedFromThePolicyIsNotSent()
    {
        Receiver a;
        QVERIFY(a.listen());
        ManualClock clock;
        WebhookNotifier n(fast(), &clock);
        n.setTargets(targets({QJsonObject{{"url", a.url()}}}));
        QSignalSpy failed(&n, &WebhookNotifier::failed);
        n.notify(message());
        n.setTargets({});
        QTRY_COMPARE(failed.size(), 1);
        QVERIFY(deliveryAt(failed, 0).error.contains("no longer in notify.webhooks"));
        QCOMPARE(deliveryAt(failed, 0).attempts, 0);
        QVERIFY(a.requests.isEmpty());
    }

    // The broker's signals, through WebhookEvents: the token and the spec never leave.
    void theBrokersSignals()
    {
        Receiver a;
        QVERIFY(a.listen());
        ManualClock clock;
        WebhookNotifier n(fast(), &clock);
        QSignalSpy delivered(&n, &WebhookNotifier::delivered);
        n.approvalStarted(proposal(), QStringLiteral("client")); // no target: nothing at all
        QCOMPARE(n.pending(), 0);
        n.setTargets(targets({QJsonObject{{"url", a.url()}}}));
        n.approvalStarted(proposal(), QStringLiteral("client"));
        n.approvalFinished(proposal(), QStringLiteral("declined"));
        n.executionFinished(proposal(), false, QStringLiteral("not_approved"));
        QTRY_COMPARE(delivered.size(), 2);
        QCOMPARE(
            QJsonDocument::fromJson(a.requests.at(0).body).object().value("channel").toString(),
            QStringLiteral("client"));
        const QJsonObject denied = QJsonDocument::fromJson(a.requests.at(1).body).object();
        QCOMPARE(denied.value("event").toString(), QStringLiteral("denied"));
        QCOMPARE(denied.value("decision").toString(), QStringLiteral("declined"));
        QCOMPARE(denied.value("time").toString(), QStringLiteral("2026-01-01T00:00:00.000Z"));
        for (const Received &r : std::as_const(a.requests)) {
            QVERIFY(!r.body.contains(Token.toUtf8()) && !r.body.contains(Token.mid(4).toUtf8()));
            QVERIFY(!r.body.contains("spec-value-never-sent"));
        }
    }
};

QTEST_GUILESS_MAIN(TestWebhookNotifier)
#include "tst_webhooknotifier.moc"
