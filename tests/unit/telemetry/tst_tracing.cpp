// Tracing (src/telemetry): W3C traceparent in and out, spans and their parents, parent-based
// sampling, the bounded queue of finished spans, and the OTLP/HTTP JSON form of a span.
#include "TestEnvironment.h"
#include "telemetry/Tracing.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;
using namespace fb::telemetry;

namespace {

const QString ValidTraceparent = u"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"_s;

QJsonObject onlySpan(const QJsonObject &request)
{
    const QJsonArray spans =
        request.value(u"resourceSpans"_s)[0][u"scopeSpans"_s][0][u"spans"_s].toArray();
    return spans.size() == 1 ? spans.first().toObject() : QJsonObject();
}

// key -> AnyValue object of an OTLP attribute list.
QHash<QString, QJsonObject> attributeMap(const QJsonArray &attributes)
{
    QHash<QString, QJsonObject> map;
    for (const QJsonValue &a : attributes)
        map.insert(a[u"key"_s].toString(), a[u"value"_s].toObject());
    return map;
}

bool isLowerHex(const QString &text, int length)
{
    static const QRegularExpression hex(u"^[0-9a-f]*$"_s);
    return text.size() == length && hex.match(text).hasMatch();
}

} // namespace

class TestTracing : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void traceparentParse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<QByteArray>("traceId");
        QTest::addColumn<QByteArray>("spanId");
        QTest::addColumn<int>("flags");

        const QByteArray trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        const QByteArray span = "00f067aa0ba902b7";
        QTest::newRow("valid sampled") << ValidTraceparent << true << trace << span << 1;
        QTest::newRow("valid unsampled")
            << u"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"_s << true << trace << span
            << 0;
        QTest::newRow("future version, extra fields")
            << u"cc-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-what-ever"_s << true
            << trace << span << 1;
        QTest::newRow("future version, exact length")
            << u"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"_s << true << trace << span
            << 1;
        QTest::newRow("future version, no dash after")
            << u"01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01x"_s << false
            << QByteArray() << QByteArray() << 0;
        QTest::newRow("version 00 with extra fields")
            << u"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra"_s << false
            << QByteArray() << QByteArray() << 0;
        QTest::newRow("uppercase trace id")
            << u"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"_s << false << QByteArray()
            << QByteArray() << 0;
        QTest::newRow("uppercase span id")
            << u"00-4bf92f3577b34da6a3ce929d0e0e4736-00F067AA0BA902B7-01"_s << false << QByteArray()
            << QByteArray() << 0;
        QTest::newRow("uppercase version")
            << u"0A-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"_s << false << QByteArray()
            << QByteArray() << 0;
        QTest::newRow("all-zero trace id")
            << u"00-00000000000000000000000000000000-00f067aa0ba902b7-01"_s << false << QByteArray()
            << QByteArray() << 0;
        QTest::newRow("all-zero span id")
            << u"00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01"_s << false << QByteArray()
            << QByteArray() << 0;
        QTest::newRow("version ff") << u"ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"_s
                                    << false << QByteArray() << QByteArray() << 0;
        QTest::newRow("short trace id")
            << u"00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01"_s << false << QByteArray()
            << QByteArray() << 0;
        QTest::newRow("long span id")
            << u"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b71-01"_s << false
            << QByteArray() << QByteArray() << 0;
        QTest::newRow("one-digit flags")
            << u"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1"_s << false << QByteArray()
            << QByteArray() << 0;
        QTest::newRow("non-hex flags")
            << u"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g"_s << false << QByteArray()
            << QByteArray() << 0;
        QTest::newRow("wrong separator")
            << u"00_4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"_s << false << QByteArray()
            << QByteArray() << 0;
        QTest::newRow("empty") << QString() << false << QByteArray() << QByteArray() << 0;
        QTest::newRow("leading space")
            << u" "_s + ValidTraceparent << false << QByteArray() << QByteArray() << 0;
        QTest::newRow("trailing space")
            << ValidTraceparent + u" "_s << false << QByteArray() << QByteArray() << 0;
    }
    void traceparentParse()
    {
        QFETCH(QString, text);
        QFETCH(bool, valid);
        const std::optional<SpanContext> context = SpanContext::fromTraceparent(text);
        QCOMPARE(context.has_value(), valid);
        if (!valid)
            return;
        QFETCH(QByteArray, traceId);
        QFETCH(QByteArray, spanId);
        QFETCH(int, flags);
        QCOMPARE(context->traceId.toHex(), traceId);
        QCOMPARE(context->spanId.toHex(), spanId);
        QCOMPARE(int(context->flags), flags);
        QVERIFY(context->remote);
        QVERIFY(context->isValid());
        QCOMPARE(context->isSampled(), (flags & 1) != 0);
    }

    void traceparentRoundTrip()
    {
        const std::optional<SpanContext> context = SpanContext::fromTraceparent(ValidTraceparent);
        QVERIFY(context);
        QCOMPARE(context->traceparent(), ValidTraceparent);
        QCOMPARE(SpanContext().traceparent(), QString());

        Tracer tracer;
        tracer.setEnabled(true);
        Span span = tracer.startSpan(u"root"_s, SpanKind::Server);
        const QString text = span.context().traceparent();
        QCOMPARE(text.size(), 55);
        const std::optional<SpanContext> back = SpanContext::fromTraceparent(text);
        QVERIFY(back);
        QCOMPARE(back->traceId, span.context().traceId);
        QCOMPARE(back->spanId, span.context().spanId);
        QCOMPARE(back->flags, quint8(0x01));
    }

    void parentAndChildIds()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        const std::optional<SpanContext> remote = SpanContext::fromTraceparent(ValidTraceparent);
        QVERIFY(remote);
        Span server = tracer.startSpan(u"tools/call list_ports"_s, SpanKind::Server, *remote);
        QVERIFY(server.isRecording());
        QCOMPARE(server.context().traceId, remote->traceId);
        QVERIFY(server.context().spanId != remote->spanId);
        QVERIFY(!server.context().remote);
        Span child = tracer.startSpan(u"fabric GET"_s, SpanKind::Client, server.context());
        QCOMPARE(child.context().traceId, remote->traceId);
        QCOMPARE(child.context().flags, server.context().flags);
        QVERIFY(child.context().spanId != server.context().spanId);
        child.end();
        server.end();

        QCOMPARE(tracer.queued(), 2);
        const QList<SpanRecord> records = tracer.takeBatch(10);
        QCOMPARE(records.size(), 2);
        QCOMPARE(records[0].name, u"fabric GET"_s);
        QCOMPARE(records[0].parentSpanId, records[1].context.spanId);
        QVERIFY(!records[0].parentRemote);
        QCOMPARE(records[1].parentSpanId, remote->spanId);
        QVERIFY(records[1].parentRemote);
        QVERIFY(records[1].startUnixNano > 0);
        QVERIFY(records[1].endUnixNano >= records[1].startUnixNano);

        // Two roots: two different traces.
        Span a = tracer.startSpan(u"a"_s, SpanKind::Internal);
        Span b = tracer.startSpan(u"b"_s, SpanKind::Internal);
        QVERIFY(a.context().isValid());
        QVERIFY(a.context().traceId != b.context().traceId);
        QVERIFY(a.context().isSampled());
    }

    void unsampledRemoteParentRecordsNothing()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        const auto parent = SpanContext::fromTraceparent(
            u"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"_s);
        QVERIFY(parent);
        Span span = tracer.startSpan(u"x"_s, SpanKind::Server, *parent);
        QVERIFY(!span.isRecording());
        QVERIFY(!span.context().isValid());
        span.setAttribute(u"k"_s, u"v"_s);
        span.end();
        QCOMPARE(tracer.queued(), 0);
        QCOMPARE(tracer.dropped(), quint64(0));
    }

    void flagsInJsonRemoteAndLocalParent()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        const auto remote = SpanContext::fromTraceparent(ValidTraceparent);
        Span server = tracer.startSpan(u"server"_s, SpanKind::Server, *remote);
        Span child = tracer.startSpan(u"child"_s, SpanKind::Internal, server.context());
        child.end();
        server.end();
        Span root = tracer.startSpan(u"root"_s, SpanKind::Internal);
        root.end();
        const QList<SpanRecord> records = tracer.takeBatch(3);
        QCOMPARE(records.size(), 3);
        const auto flagsOf = [](const SpanRecord &r) {
            return onlySpan(Tracer::otlpJson({r}, {}, {})).value(u"flags"_s).toInt();
        };
        QCOMPARE(flagsOf(records[0]), 0x101); // child of a local parent
        QCOMPARE(flagsOf(records[1]), 0x301); // child of a remote parent
        QCOMPARE(flagsOf(records[2]), 0x101); // root
        QVERIFY(!onlySpan(Tracer::otlpJson({records[2]}, {}, {})).contains(u"parentSpanId"_s));
    }

    void disabledTracerRecordsNothing()
    {
        Tracer tracer;
        QVERIFY(!tracer.isEnabled());
        QSignalSpy ready(&tracer, &Tracer::batchReady);
        tracer.notifyAt(1);
        Span span = tracer.startSpan(u"x"_s, SpanKind::Server);
        QVERIFY(!span.isRecording());
        QVERIFY(!span.context().isValid());
        span.setAttribute(u"k"_s, qint64(1));
        span.addEvent(u"e"_s);
        span.setError(u"boom"_s, u"message"_s);
        span.end();
        Span def;
        QVERIFY(!def.isRecording());
        def.end();
        QCOMPARE(tracer.queued(), 0);
        QCOMPARE(tracer.dropped(), quint64(0));
        QCOMPARE(ready.count(), 0);
        QVERIFY(tracer.takeBatch(10).isEmpty());

        // Disabled after the span started: what ends then is not queued either.
        tracer.setEnabled(true);
        Span late = tracer.startSpan(u"late"_s, SpanKind::Server);
        QVERIFY(late.isRecording());
        tracer.setEnabled(false);
        late.end();
        QCOMPARE(tracer.queued(), 0);
    }

    void queueBoundCountsDrops()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        tracer.setMaxQueueSize(3);
        QCOMPARE(tracer.maxQueueSize(), 3);
        for (int i = 0; i < 5; ++i)
            tracer.startSpan(u"span %1"_s.arg(i), SpanKind::Internal).end();
        QCOMPARE(tracer.queued(), 3);
        QCOMPARE(tracer.dropped(), quint64(2));
        // The oldest stay; the new ones were dropped.
        const QList<SpanRecord> kept = tracer.takeBatch(10);
        QCOMPARE(kept.size(), 3);
        QCOMPARE(kept[0].name, u"span 0"_s);
        QCOMPARE(kept[2].name, u"span 2"_s);
        tracer.startSpan(u"again"_s, SpanKind::Internal).end();
        QCOMPARE(tracer.queued(), 1);
        QCOMPARE(tracer.dropped(), quint64(2));
    }

    void batchReadyAtTheBatchSize()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        tracer.notifyAt(3);
        QSignalSpy ready(&tracer, &Tracer::batchReady);
        tracer.startSpan(u"1"_s, SpanKind::Internal).end();
        tracer.startSpan(u"2"_s, SpanKind::Internal).end();
        QCOMPARE(ready.count(), 0);
        tracer.startSpan(u"3"_s, SpanKind::Internal).end();
        QCOMPARE(ready.count(), 1);
        QCOMPARE(tracer.queued(), 3);
        tracer.takeBatch(3);
        for (int i = 0; i < 3; ++i)
            tracer.startSpan(u"again"_s, SpanKind::Internal).end();
        QCOMPARE(ready.count(), 2);
    }

    void takeBatchOldestFirst()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        for (int i = 0; i < 5; ++i)
            tracer.startSpan(QString::number(i), SpanKind::Internal).end();
        QList<SpanRecord> first = tracer.takeBatch(2);
        QCOMPARE(first.size(), 2);
        QCOMPARE(first[0].name, u"0"_s);
        QCOMPARE(first[1].name, u"1"_s);
        QCOMPARE(tracer.queued(), 3);
        QList<SpanRecord> rest = tracer.takeBatch(100);
        QCOMPARE(rest.size(), 3);
        QCOMPARE(rest[0].name, u"2"_s);
        QCOMPARE(rest[2].name, u"4"_s);
        QCOMPARE(tracer.queued(), 0);
        QVERIFY(tracer.takeBatch(0).isEmpty());
        QVERIFY(tracer.takeBatch(5).isEmpty());
    }

    void otlpJsonShape()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        const auto remote = SpanContext::fromTraceparent(ValidTraceparent);
        const qint64 before = nowUnixNano();
        Span span = tracer.startSpan(u"tools/call list_ports"_s, SpanKind::Server, *remote);
        span.setAttribute(u"mcp.method.name"_s, u"tools/call"_s);
        span.setAttribute(u"fabric_broker.count"_s, qint64(9007199254740993));
        span.setAttribute(u"fabric_broker.ratio"_s, 0.25);
        span.setAttribute(u"fabric_broker.cached"_s, true);
        span.addEvent(u"fabric.request"_s, {{u"http.response.status_code"_s, qint64(200)}});
        span.setError(u"-32602"_s, u"Invalid params"_s);
        span.end();
        const qint64 after = nowUnixNano();
        const QList<SpanRecord> records = tracer.takeBatch(1);
        QCOMPARE(records.size(), 1);

        const QJsonObject request = Tracer::otlpJson(
            records, {{u"deployment.environment"_s, u"test"_s}, {u"service.name"_s, u"svc"_s}},
            u"0.2.0"_s);
        const QJsonObject resourceSpans = request[u"resourceSpans"_s][0].toObject();
        const QJsonArray resource = resourceSpans[u"resource"_s][u"attributes"_s].toArray();
        QCOMPARE(resource.size(), 2);
        QCOMPARE(resource[0][u"key"_s].toString(), u"service.name"_s);
        QCOMPARE(resource[0][u"value"_s][u"stringValue"_s].toString(), u"svc"_s);
        QCOMPARE(resource[1][u"key"_s].toString(), u"deployment.environment"_s);
        const QJsonObject scope = resourceSpans[u"scopeSpans"_s][0][u"scope"_s].toObject();
        QCOMPARE(scope[u"name"_s].toString(), u"fabric-broker"_s);
        QCOMPARE(scope[u"version"_s].toString(), u"0.2.0"_s);

        const QJsonObject s = onlySpan(request);
        QVERIFY(isLowerHex(s[u"traceId"_s].toString(), 32));
        QCOMPARE(s[u"traceId"_s].toString(), u"4bf92f3577b34da6a3ce929d0e0e4736"_s);
        QVERIFY(isLowerHex(s[u"spanId"_s].toString(), 16));
        QCOMPARE(s[u"spanId"_s].toString(), QString::fromLatin1(records[0].context.spanId.toHex()));
        QCOMPARE(s[u"parentSpanId"_s].toString(), u"00f067aa0ba902b7"_s);
        QCOMPARE(s[u"name"_s].toString(), u"tools/call list_ports"_s);
        QVERIFY(s[u"kind"_s].isDouble());
        QCOMPARE(s[u"kind"_s].toInt(), 2);
        QVERIFY(s[u"startTimeUnixNano"_s].isString());
        QVERIFY(s[u"endTimeUnixNano"_s].isString());
        const qint64 start = s[u"startTimeUnixNano"_s].toString().toLongLong();
        const qint64 end = s[u"endTimeUnixNano"_s].toString().toLongLong();
        QVERIFY(start >= before);
        QVERIFY(end >= start);
        QVERIFY(end <= after);
        QCOMPARE(s[u"flags"_s].toInt(), 0x301);
        QCOMPARE(s[u"status"_s][u"code"_s].toInt(), 2);
        QCOMPARE(s[u"status"_s][u"message"_s].toString(), u"Invalid params"_s);

        const QHash<QString, QJsonObject> attributes = attributeMap(s[u"attributes"_s].toArray());
        QCOMPARE(attributes.size(), 5);
        QCOMPARE(attributes[u"mcp.method.name"_s],
                 QJsonObject({{u"stringValue"_s, u"tools/call"_s}}));
        QCOMPARE(attributes[u"fabric_broker.count"_s],
                 QJsonObject({{u"intValue"_s, u"9007199254740993"_s}}));
        QCOMPARE(attributes[u"fabric_broker.ratio"_s], QJsonObject({{u"doubleValue"_s, 0.25}}));
        QCOMPARE(attributes[u"fabric_broker.cached"_s], QJsonObject({{u"boolValue"_s, true}}));
        QCOMPARE(attributes[u"error.type"_s], QJsonObject({{u"stringValue"_s, u"-32602"_s}}));

        const QJsonArray events = s[u"events"_s].toArray();
        QCOMPARE(events.size(), 1);
        QCOMPARE(events[0][u"name"_s].toString(), u"fabric.request"_s);
        QVERIFY(events[0][u"timeUnixNano"_s].isString());
        QCOMPARE(events[0][u"attributes"_s][0][u"value"_s][u"intValue"_s].toString(), u"200"_s);

        // A span without error: status code 0, no message; no service.name given: a default.
        tracer.startSpan(u"ok"_s, SpanKind::Client).end();
        const QJsonObject plain = Tracer::otlpJson(tracer.takeBatch(1), {}, {});
        QCOMPARE(onlySpan(plain)[u"status"_s].toObject(), QJsonObject({{u"code"_s, 0}}));
        QCOMPARE(onlySpan(plain)[u"kind"_s].toInt(), 3);
        QCOMPARE(
            plain[u"resourceSpans"_s][0][u"resource"_s][u"attributes"_s][0][u"key"_s].toString(),
            u"service.name"_s);
        QVERIFY(!plain[u"resourceSpans"_s][0][u"scopeSpans"_s][0][u"scope"_s].toObject().contains(
            u"version"_s));
    }

    // The exporter's byte writer and the QJsonObject form are the same document, whatever the
    // strings hold (quotes, backslashes, control characters, non-ASCII, surrogate pairs) and
    // whatever the values are (integers, doubles incl. NaN and infinities, booleans).
    void byteWriterMatchesTheDocument()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        const QString nasty = QStringLiteral("q\"b\\s\n\r\t\x01\x1f é \u2028 ") +
                              QString::fromUcs4(U"\U0001F600") + QStringLiteral("</script>");
        {
            Span root = tracer.startSpan(nasty, SpanKind::Server);
            root.setAttribute(QStringLiteral("s"), nasty);
            root.setAttribute(nasty, qint64(-9007199254740993LL));
            root.setAttribute(QStringLiteral("d"), 0.1);
            root.setAttribute(QStringLiteral("big"), 1e300);
            root.setAttribute(QStringLiteral("nan"), std::nan(""));
            root.setAttribute(QStringLiteral("inf"), -std::numeric_limits<double>::infinity());
            root.setAttribute(QStringLiteral("b"), true);
            root.addEvent(nasty, {{QStringLiteral("e"), false}});
            Span child =
                tracer.startSpan(QStringLiteral("child"), SpanKind::Internal, root.context());
            child.setError(QStringLiteral("-32602"), nasty);
            child.end();
            root.end();
        }
        const auto parent = SpanContext::fromTraceparent(
            u"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        QVERIFY(parent);
        tracer.startSpan(QStringLiteral("remote"), SpanKind::Server, *parent).end();
        const QList<SpanRecord> spans = tracer.takeBatch(10);
        QCOMPARE(spans.size(), 3);
        const QList<SpanAttribute> resource{{QStringLiteral("deployment"), nasty},
                                            {QStringLiteral("service.name"), QStringLiteral("x")}};
        const QByteArray bytes = Tracer::otlpJsonBytes(spans, resource, nasty);
        QJsonParseError error;
        const QJsonDocument parsed = QJsonDocument::fromJson(bytes, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(parsed.object(), Tracer::otlpJson(spans, resource, nasty));
        QVERIFY(!bytes.contains('\n'));
        QCOMPARE(Tracer::otlpJsonBytes({}, {}, QString()),
                 QJsonDocument(Tracer::otlpJson({}, {}, QString())).toJson(QJsonDocument::Compact));
    }

    // The writer's buffer starts at an estimate per span and doubles: spans far larger than the
    // estimate (attributes at the length bound) come out whole and equal to the document.
    void byteWriterGrowsPastItsEstimate()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        for (int i = 0; i < 3; ++i) {
            Span span = tracer.startSpan(QStringLiteral("big"), SpanKind::Server);
            for (int k = 0; k < 5; ++k)
                span.setAttribute(QStringLiteral("a%1").arg(k),
                                  QString(Span::MaxStringLength, QChar(u'a' + k)));
            span.setAttribute(QStringLiteral("quoted"),
                              QString(Span::MaxStringLength, QChar(u'"')));
        }
        const QList<SpanRecord> spans = tracer.takeBatch(10);
        QCOMPARE(spans.size(), 3);
        const QByteArray bytes = Tracer::otlpJsonBytes(spans, {}, QString());
        QVERIFY(bytes.size() > 3 * 7 * Span::MaxStringLength);
        QJsonParseError error;
        const QJsonDocument parsed = QJsonDocument::fromJson(bytes, &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        QCOMPARE(parsed.object(), Tracer::otlpJson(spans, {}, QString()));
    }

    void attributeAndEventBounds()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        Span span = tracer.startSpan(u"bounded"_s, SpanKind::Internal);
        span.setAttribute(u"long"_s, QString(10000, u'x'));
        span.setAttribute(u"long"_s, QString(5000, u'y')); // replaces, still bounded
        for (int i = 0; i < Span::MaxAttributes + 10; ++i)
            span.setAttribute(u"k%1"_s.arg(i), qint64(i));
        for (int i = 0; i < Span::MaxEvents + 5; ++i)
            span.addEvent(u"e"_s);
        span.end();
        const QList<SpanRecord> records = tracer.takeBatch(1);
        QCOMPARE(records.size(), 1);
        const SpanRecord &r = records[0];
        QCOMPARE(r.attributes.size(), Span::MaxAttributes);
        QCOMPARE(std::get<QString>(r.attributes[0].value), QString(Span::MaxStringLength, u'y'));
        QCOMPARE(r.droppedAttributes, quint32(11));
        QCOMPARE(r.events.size(), Span::MaxEvents);
        QCOMPARE(r.droppedEvents, quint32(5));
        const QJsonObject s = onlySpan(Tracer::otlpJson(records, {}, {}));
        QCOMPARE(s[u"droppedAttributesCount"_s].toInt(), 11);
        QCOMPARE(s[u"droppedEventsCount"_s].toInt(), 5);
    }

    void endTwiceRecordsOnce()
    {
        Tracer tracer;
        tracer.setEnabled(true);
        Span span = tracer.startSpan(u"once"_s, SpanKind::Internal);
        span.end();
        QVERIFY(!span.isRecording());
        span.end();
        span.setAttribute(u"after"_s, true);
        QCOMPARE(tracer.queued(), 1);
        {
            Span scoped = tracer.startSpan(u"scoped"_s, SpanKind::Internal);
        }
        QCOMPARE(tracer.queued(), 2);
        // A moved-from span records nothing; the moved-to one ends once.
        Span a = tracer.startSpan(u"moved"_s, SpanKind::Internal);
        Span b = std::move(a);
        a.end();
        QCOMPARE(tracer.queued(), 2);
        b.end();
        b.end();
        QCOMPARE(tracer.queued(), 3);
        // Assigning over a recording span ends it.
        Span c = tracer.startSpan(u"replaced"_s, SpanKind::Internal);
        c = tracer.startSpan(u"replacement"_s, SpanKind::Internal);
        QCOMPARE(tracer.queued(), 4);
        c.end();
        const QList<SpanRecord> all = tracer.takeBatch(10);
        QCOMPARE(all.size(), 5);
        QCOMPARE(all[3].name, u"replaced"_s);
        QCOMPARE(all[4].name, u"replacement"_s);
    }

    void spanOutlivesTracer()
    {
        auto *tracer = new Tracer;
        tracer->setEnabled(true);
        Span span = tracer->startSpan(u"orphan"_s, SpanKind::Server);
        QVERIFY(span.isRecording());
        delete tracer;
        span.setAttribute(u"k"_s, u"v"_s);
        span.addEvent(u"e"_s);
        span.end();
        QVERIFY(!span.isRecording());
        Span other;
        {
            auto *second = new Tracer;
            second->setEnabled(true);
            other = second->startSpan(u"destructor"_s, SpanKind::Server);
            delete second;
        }
        // other's destructor ends it with no tracer: nothing to check but that it does not crash.
    }

    void nowIsRealtime()
    {
        const qint64 now = nowUnixNano();
        const qint64 wall = QDateTime::currentMSecsSinceEpoch() * 1000000LL;
        QVERIFY(qAbs(now - wall) < 5LL * 1000000000LL);
    }
};

QTEST_GUILESS_MAIN(TestTracing)
#include "tst_tracing.moc"
