// SseStream, pure: the framing of events and their ids, the resumption buffer (the missed events
// once, an id never sent refused), the backlog cap failing the stream, and bounded retention.
// Over real HTTP: tst_httpchannel.
#include "HttpStreamsFixture.h"
#include "TestEnvironment.h"

class TestSseStream : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void framing();
    void resumeBuffer();
    void backlogCapFailsTheStream();
    void retentionIsBounded();
};

void TestSseStream::framing()
{
    QCOMPARE(SseStream::frame("p1.3", R"({"a":1})"), QByteArray("id: p1.3\ndata: {\"a\":1}\n\n"));
    QCOMPARE(SseStream::frame("p1.0", {}, 1000), QByteArray("id: p1.0\nretry: 1000\ndata: \n\n"));
    // A line break in the data never ends the event early: each line is a data field.
    QCOMPARE(SseStream::frame("g2.1", "a\nb\r\nc\rd"),
             QByteArray("id: g2.1\ndata: a\ndata: b\ndata: c\ndata: d\n\n"));
    const auto id = SseStream::parseId("p12.34");
    QVERIFY(id);
    QCOMPARE(id->first, QByteArray("p12"));
    QCOMPARE(id->second, 34u);
    for (const char *bad : {"", "p1", ".3", "p1.", "p1.x", "p1.-1", "p1.99999999999999999999999"})
        QVERIFY2(!SseStream::parseId(bad), bad);
}

void TestSseStream::resumeBuffer()
{
    SseStream s("p1");
    QString why;
    const quint64 first = s.attach(std::nullopt, &why);
    QVERIFY(first);
    s.prime();
    for (int i = 1; i <= 3; ++i)
        QVERIFY(s.push(QByteArray("{\"n\":") + QByteArray::number(i) + '}'));
    SseStream::Read last;
    QList<Event> events = parse(drain(s, first, &last));
    QCOMPARE(last, SseStream::Read::Wait);
    QCOMPARE(events.size(), 4);
    QCOMPARE(events[0].id, QByteArray("p1.0"));
    QCOMPARE(events[0].retry, 1000);
    QCOMPARE(events[0].data, QByteArray());
    QCOMPARE(events[3].id, QByteArray("p1.3"));
    // The client saw up to p1.1 and reconnects: p1.2 and p1.3 again, nothing before, once.
    const quint64 second = s.attach(1, &why);
    QVERIFY(second && second != first);
    QCOMPARE(drain(s, first, &last), QByteArray()); // the old connection lost the stream
    QCOMPARE(last, SseStream::Read::End);
    events = parse(drain(s, second, &last));
    QCOMPARE(events.size(), 2);
    QCOMPARE(events[0].id, QByteArray("p1.2"));
    QCOMPARE(events[1].json().value("n").toInt(), 3);
    QCOMPARE(drain(s, second), QByteArray());
    // A wake when there is more, once per wait.
    int woken = 0;
    s.setWake([&] { ++woken; });
    s.push("{}");
    s.push("{}");
    QCOMPARE(woken, 1);
    QCOMPARE(parse(drain(s, second)).size(), 2);
    // An id never sent is refused.
    QVERIFY(!s.attach(99, &why));
    QVERIFY(why.contains("never sent"));
    s.finish();
    QVERIFY(!s.push("{}"));
    drain(s, second, &last);
    QCOMPARE(last, SseStream::Read::End);
    s.detach(second);
    QVERIFY(!s.isAttached());
}

void TestSseStream::backlogCapFailsTheStream()
{
    SseLimits limits;
    limits.maxBacklogBytes = 1000;
    SseStream s("p1", limits);
    QString why;
    const quint64 epoch = s.attach(std::nullopt, &why);
    const QByteArray event(100, 'x');
    int pushed = 0;
    while (s.push(event))
        ++pushed;
    QVERIFY(pushed >= 8 && pushed <= 10);
    QVERIFY(s.hasFailed());
    QVERIFY2(s.failure().contains("too slowly"), qPrintable(s.failure()));
    QCOMPARE(s.backlogBytes(), 0); // the memory is released
    QCOMPARE(s.retainedBytes(), 0);
    SseStream::Read last;
    drain(s, epoch, &last);
    QCOMPARE(last, SseStream::Read::Error);
    QVERIFY(!s.attach(0, &why)); // cannot be resumed: the client learns why
    QVERIFY(why.contains("too slowly"));
    QVERIFY(!s.push("{}"));
}

void TestSseStream::retentionIsBounded()
{
    SseLimits limits;
    limits.maxRetainedBytes = 300;
    SseStream s("p1", limits);
    QString why;
    const quint64 epoch = s.attach(std::nullopt, &why);
    for (int i = 0; i < 20; ++i) {
        QVERIFY(s.push(QByteArray(40, 'a')));
        drain(s, epoch);
        QVERIFY(s.retainedBytes() <= 300);
    }
    QVERIFY(!s.attach(0, &why)); // the early events are gone
    QVERIFY(why.contains("no longer kept"));
    const quint64 again = s.attach(s.lastSeq() - 1, &why);
    QVERIFY(again);
    QCOMPARE(parse(drain(s, again)).size(), 1);
}

QTEST_GUILESS_MAIN(TestSseStream)
#include "tst_ssestream.moc"
