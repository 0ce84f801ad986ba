// FrameReader: newline framing, CRLF, blank lines, oversized frames.
#include "TestEnvironment.h"
#include "mcp/FrameReader.h"

#include <QTest>

using fb::mcp::FrameReader;

namespace {
struct Collected {
    QList<QByteArray> frames;
    int oversized = 0;
    QList<QByteArray> order; // "F:<frame>" / "O"
};

void feed(FrameReader &r, const QByteArray &chunk, Collected &c)
{
    r.feed(chunk, [&c](FrameReader::Event e, const QByteArray &f) {
        if (e == FrameReader::Event::Frame) {
            c.frames.append(QByteArray(f.constData(), f.size())); // deep copy
            c.order.append("F:" + f);
        } else {
            ++c.oversized;
            c.order.append("O");
        }
    });
}
} // namespace

class TestFrameReader : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }
    void splitsLines()
    {
        FrameReader r(100);
        Collected c;
        feed(r, "a\nbb\nccc", c);
        QCOMPARE(c.frames, (QList<QByteArray>{"a", "bb"}));
        QCOMPARE(r.bufferedBytes(), 3);
        feed(r, "c\n", c);
        QCOMPARE(c.frames.last(), QByteArray("cccc"));
        QCOMPARE(r.bufferedBytes(), 0);
    }
    void byteByByte()
    {
        FrameReader r(100);
        Collected c;
        const QByteArray text = "{\"a\":1}\r\n{\"b\":2}\n";
        for (char ch : text)
            feed(r, QByteArray(1, ch), c);
        QCOMPARE(c.frames, (QList<QByteArray>{"{\"a\":1}", "{\"b\":2}"}));
    }
    void crlfAndBlankLines()
    {
        FrameReader r(100);
        Collected c;
        feed(r, "\n\r\n \t \nx\r\n\r", c);
        feed(r, "\ny\n", c);
        QCOMPARE(c.frames, (QList<QByteArray>{"x", "y"}));
        QCOMPARE(c.oversized, 0);
    }
    void oversizedInOneChunkThenValid()
    {
        FrameReader r(10);
        Collected c;
        feed(r, QByteArray(11, 'x') + "\nok\n" + QByteArray(10, 'y') + "\r\n", c);
        QCOMPARE(c.order, (QList<QByteArray>{"O", "F:ok", "F:" + QByteArray(10, 'y')}));
    }
    void oversizedAcrossChunksIsNotBuffered()
    {
        FrameReader r(10);
        Collected c;
        feed(r, "12345", c);
        feed(r, "6789012", c); // 12 bytes (> max + a possible CR), no newline: reported now
        QCOMPARE(c.oversized, 1);
        QVERIFY(r.isDiscarding());
        for (int i = 0; i < 100; ++i) {
            feed(r, QByteArray(1000, 'z'), c);
            QCOMPARE(r.bufferedBytes(), 0);
        }
        feed(r, "zz\nnext\n", c);
        QCOMPARE(c.oversized, 1);
        QCOMPARE(c.frames, (QList<QByteArray>{"next"}));
        QVERIFY(!r.isDiscarding());
    }
    void finishFlushesUnterminatedLine()
    {
        FrameReader r(100);
        Collected c;
        feed(r, "a\nlast", c);
        r.finish([&c](FrameReader::Event, const QByteArray &f) { c.frames.append(f); });
        QCOMPARE(c.frames, (QList<QByteArray>{"a", "last"}));
        FrameReader r2(3);
        Collected c2;
        feed(r2, "toolong", c2);
        r2.finish([&c2](FrameReader::Event, const QByteArray &f) { c2.frames.append(f); });
        QCOMPARE(c2.frames.size(), 0);
        QCOMPARE(c2.oversized, 1);
    }
};

QTEST_GUILESS_MAIN(TestFrameReader)
#include "tst_framereader.moc"
