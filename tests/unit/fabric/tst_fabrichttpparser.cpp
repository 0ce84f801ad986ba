// HttpResponseParser: a response parsed whole, split at every byte boundary and fed one byte at
// a time gives the same result; Content-Length and chunked framing (extensions, trailers), read
// to the end only with Connection: close; malformed status lines, fields, lengths and chunk
// sizes refused; the head and the body bounded; whether the connection may be reused.
#include "TestEnvironment.h"
#include "fabric/FabricHttpParser.h"

#include <QtTest>

using fb::HttpResponseParser;
using Result = HttpResponseParser::Result;

namespace {

struct Parsed {
    Result result = Result::NeedMore;
    int status = 0;
    QByteArray body;
    QString error;
    bool tooLarge = false;
    bool reusable = false;
};

Parsed parse(const QList<QByteArray> &pieces, bool eof = false, qint64 maxBody = 1 << 20)
{
    HttpResponseParser p(maxBody);
    for (const QByteArray &piece : pieces)
        p.feed(piece);
    if (eof)
        p.finishAtEof();
    return {p.result(), p.status(), p.body(), p.error(), p.tooLarge(), p.reusable()};
}

Parsed parseWhole(const QByteArray &bytes, bool eof = false, qint64 maxBody = 1 << 20)
{
    return parse({bytes}, eof, maxBody);
}

const QByteArray kChunked = "HTTP/1.1 200 OK\r\n"
                            "Content-Type: application/json\r\n"
                            "Transfer-Encoding: chunked\r\n"
                            "\r\n"
                            "4;name=value;other=\"quoted\"\r\n"
                            "{\"a\"\r\n"
                            "A\r\n"
                            ":[1,2,3]}\n\r\n"
                            "0\r\n"
                            "X-Trailer: yes\r\n"
                            "Another: one\r\n"
                            "\r\n";

} // namespace

class TestFabricHttpParser : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void contentLengthExact()
    {
        const Parsed p =
            parseWhole("HTTP/1.1 201 Created\r\nContent-Length: 5\r\nX-A:  v  \r\n\r\nhello");
        QCOMPARE(p.result, Result::Done);
        QCOMPARE(p.status, 201);
        QCOMPARE(p.body, QByteArray("hello"));
        QVERIFY(p.reusable);
        HttpResponseParser h(100);
        h.feed("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A:  v \t\r\n\r\nab");
        QCOMPARE(h.header("x-a"), QByteArray("v"));
        QCOMPARE(h.header("content-length"), QByteArray("2"));
        // Other control characters in a value are kept as sent (shown sanitized by the caller).
        HttpResponseParser esc(100);
        QCOMPARE(esc.feed("HTTP/1.1 200 OK\r\nContent-Type: image/png; x=\x1b[31m\x07\x7f\r\n"
                          "Content-Length: 0\r\n\r\n"),
                 Result::Done);
        QCOMPARE(esc.header("content-type"), QByteArray("image/png; x=\x1b[31m\x07\x7f"));
        // One byte short is not done; the close then fails it.
        const Parsed shortBody =
            parseWhole("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nhello", true);
        QCOMPARE(shortBody.result, Result::Failed);
        QVERIFY2(shortBody.error.contains(QStringLiteral("closed")), qPrintable(shortBody.error));
    }

    void chunkedWithExtensionsAndTrailers()
    {
        const Parsed p = parseWhole(kChunked);
        QCOMPARE(p.result, Result::Done);
        QCOMPARE(p.body, QByteArray("{\"a\":[1,2,3]}\n"));
        QVERIFY(p.reusable);
        HttpResponseParser h(100);
        h.feed(kChunked);
        QCOMPARE(h.header("x-trailer"), QByteArray()); // trailers are read and dropped
    }

    void everySplitGivesTheSameResult_data()
    {
        QTest::addColumn<QByteArray>("response");
        QTest::addColumn<bool>("eof");
        QTest::newRow("content-length")
            << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\n{\"x\":\"yz\"}\n") << false;
        QTest::newRow("chunked") << kChunked << false;
        QTest::newRow("interim-100")
            << QByteArray("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: "
                          "2\r\n\r\n{}")
            << false;
        QTest::newRow("until-eof")
            << QByteArray("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"eof\":true}") << true;
        QTest::newRow("bare-lf") << QByteArray("HTTP/1.1 200 OK\nContent-Length: 2\n\n{}") << false;
    }
    void everySplitGivesTheSameResult()
    {
        QFETCH(QByteArray, response);
        QFETCH(bool, eof);
        const Parsed whole = parseWhole(response, eof);
        QCOMPARE(whole.result, Result::Done);
        QVERIFY(!whole.body.isEmpty());
        for (qsizetype i = 0; i <= response.size(); ++i) {
            const Parsed split = parse({response.left(i), response.mid(i)}, eof);
            QCOMPARE(split.result, whole.result);
            QCOMPARE(split.status, whole.status);
            QCOMPARE(split.body, whole.body);
            QCOMPARE(split.reusable, whole.reusable);
        }
        QList<QByteArray> bytes;
        for (const char c : response)
            bytes.append(QByteArray(1, c));
        const Parsed single = parse(bytes, eof);
        QCOMPARE(single.result, whole.result);
        QCOMPARE(single.body, whole.body);
        // Nothing is done before the last byte (except a body that only the close ends).
        if (!eof) {
            HttpResponseParser p(1 << 20);
            for (qsizetype i = 0; i + 1 < response.size(); ++i)
                QCOMPARE(p.feed(response.mid(i, 1)), Result::NeedMore);
            QCOMPARE(p.feed(response.right(1)), Result::Done);
        }
    }

    void malformedIsRefused_data()
    {
        QTest::addColumn<QByteArray>("response");
        QTest::addColumn<QString>("why");
        const QByteArray ok = "HTTP/1.1 200 OK\r\n";
        QTest::newRow("not-http") << QByteArray("SSH-2.0-OpenSSH\r\n\r\n") << "status line";
        QTest::newRow("http2") << QByteArray("HTTP/2 200\r\n\r\n") << "status line";
        QTest::newRow("http1.2") << QByteArray("HTTP/1.2 200 OK\r\n\r\n") << "status line";
        QTest::newRow("two-digit") << QByteArray("HTTP/1.1 20 OK\r\n\r\n") << "status line";
        QTest::newRow("status-600") << QByteArray("HTTP/1.1 600 X\r\n\r\n") << "status line";
        QTest::newRow("status-letters") << QByteArray("HTTP/1.1 2x0 OK\r\n\r\n") << "status line";
        QTest::newRow("no-space") << QByteArray("HTTP/1.1 200OK\r\n\r\n") << "status line";
        QTest::newRow("nul-in-reason")
            << QByteArray("HTTP/1.1 200 O\0K\r\n\r\n", 20) << "status line";
        QTest::newRow("bare-cr") << QByteArray(ok + "A: b\rc\r\nContent-Length: 0\r\n\r\n")
                                 << "bare CR";
        QTest::newRow("obs-fold") << QByteArray(ok + "A: b\r\n  c\r\nContent-Length: 0\r\n\r\n")
                                  << "obs-fold";
        QTest::newRow("space-before-colon")
            << QByteArray(ok + "Content-Length : 0\r\n\r\n") << "field name";
        QTest::newRow("no-colon") << QByteArray(ok + "Content-Length 0\r\n\r\n") << "malformed";
        QTest::newRow("nul-in-value")
            << QByteArray(ok + "A: b" + QByteArray(1, '\0') + "\r\nContent-Length: 0\r\n\r\n")
            << "NUL";
        QTest::newRow("conflicting-length")
            << QByteArray(ok + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}") << "conflicting";
        QTest::newRow("conflicting-length-list")
            << QByteArray(ok + "Content-Length: 2, 3\r\n\r\n{}") << "conflicting";
        QTest::newRow("negative-length")
            << QByteArray(ok + "Content-Length: -1\r\n\r\n") << "invalid Content-Length";
        QTest::newRow("plus-length")
            << QByteArray(ok + "Content-Length: +2\r\n\r\n{}") << "invalid Content-Length";
        QTest::newRow("huge-length")
            << QByteArray(ok + "Content-Length: 99999999999999999999999\r\n\r\n")
            << "invalid Content-Length";
        QTest::newRow("length-and-chunked")
            << QByteArray(ok + "Content-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n") << "both";
        QTest::newRow("gzip-coding")
            << QByteArray(ok + "Transfer-Encoding: gzip\r\n\r\n") << "transfer coding";
        QTest::newRow("gzip-chunked")
            << QByteArray(ok + "Transfer-Encoding: gzip, chunked\r\n\r\n") << "transfer coding";
        QTest::newRow("chunk-size-letters")
            << QByteArray(ok + "Transfer-Encoding: chunked\r\n\r\nxyz\r\n") << "chunk size";
        QTest::newRow("chunk-size-negative")
            << QByteArray(ok + "Transfer-Encoding: chunked\r\n\r\n-1\r\n") << "chunk size";
        QTest::newRow("chunk-size-empty")
            << QByteArray(ok + "Transfer-Encoding: chunked\r\n\r\n\r\n") << "chunk size";
        QTest::newRow("chunk-size-two-numbers")
            << QByteArray(ok + "Transfer-Encoding: chunked\r\n\r\n1 2\r\n") << "chunk size";
        QTest::newRow("chunk-size-0x")
            << QByteArray(ok + "Transfer-Encoding: chunked\r\n\r\n0x1\r\n") << "chunk size";
        QTest::newRow("chunk-size-overflow")
            << QByteArray(ok + "Transfer-Encoding: chunked\r\n\r\n10000000000000000\r\n")
            << "too long";
        QTest::newRow("chunk-without-crlf")
            << QByteArray(ok + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}xx\r\n0\r\n\r\n")
            << "CRLF";
        QTest::newRow("no-length-keep-alive") << QByteArray(ok + "\r\n{}") << "neither";
        QTest::newRow("switching-protocols")
            << QByteArray("HTTP/1.1 101 Switching Protocols\r\n\r\n") << "switch";
    }
    void malformedIsRefused()
    {
        QFETCH(QByteArray, response);
        QFETCH(QString, why);
        const Parsed p = parseWhole(response);
        QCOMPARE(p.result, Result::Failed);
        QVERIFY2(p.error.contains(why), qPrintable(p.error));
        QVERIFY(!p.tooLarge);
        QVERIFY(p.body.isEmpty());
    }

    void headIsBounded()
    {
        // 64 KiB of fields: refused before the end of the head arrives.
        HttpResponseParser big(1 << 20);
        big.feed("HTTP/1.1 200 OK\r\n");
        Result r = Result::NeedMore;
        for (int i = 0; i < 20 && r == Result::NeedMore; ++i)
            r = big.feed(QByteArray("X-Filler: " + QByteArray(4000, 'a') + "\r\n"));
        QCOMPARE(r, Result::Failed);
        QVERIFY2(big.error().contains(QStringLiteral("65536")), qPrintable(big.error()));
        // One endless line: refused too, without a newline ever arriving.
        HttpResponseParser line(1 << 20);
        line.feed("HTTP/1.1 200 OK\r\nX: ");
        r = Result::NeedMore;
        for (int i = 0; i < 20 && r == Result::NeedMore; ++i)
            r = line.feed(QByteArray(8000, 'b'));
        QCOMPARE(r, Result::Failed);
        // 101 small fields: refused; 100 are fine.
        QByteArray fields;
        for (int i = 0; i < 99; ++i)
            fields += "X-" + QByteArray::number(i) + ": v\r\n";
        QCOMPARE(parseWhole("HTTP/1.1 200 OK\r\n" + fields + "Content-Length: 0\r\n\r\n").result,
                 Result::Done);
        const Parsed many =
            parseWhole("HTTP/1.1 200 OK\r\n" + fields + "A: 1\r\nContent-Length: 0\r\n\r\n");
        QCOMPARE(many.result, Result::Failed);
        QVERIFY2(many.error.contains(QStringLiteral("100")), qPrintable(many.error));
        // Endless interim responses: refused.
        QByteArray interim;
        for (int i = 0; i < 9; ++i)
            interim += "HTTP/1.1 102 Processing\r\n\r\n";
        QCOMPARE(parseWhole(interim).result, Result::Failed);
        // Trailers are bounded as well.
        HttpResponseParser trailers(1 << 20);
        trailers.feed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n");
        r = Result::NeedMore;
        for (int i = 0; i < 20 && r == Result::NeedMore; ++i)
            r = trailers.feed(QByteArray("T: " + QByteArray(4000, 'c') + "\r\n"));
        QCOMPARE(r, Result::Failed);
    }

    void bodyIsBounded()
    {
        // Announced: refused before a body byte is read.
        const Parsed announced =
            parseWhole("HTTP/1.1 200 OK\r\nContent-Length: 1025\r\n\r\n", false, 1024);
        QCOMPARE(announced.result, Result::Failed);
        QVERIFY(announced.tooLarge);
        QCOMPARE(
            parseWhole("HTTP/1.1 200 OK\r\nContent-Length: 1024\r\n\r\n" + QByteArray(1024, 'x'),
                       false, 1024)
                .result,
            Result::Done);
        // Chunked: counted over the chunks.
        const Parsed chunked = parseWhole("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                                          "200\r\n" +
                                              QByteArray(512, 'x') + "\r\n201\r\n",
                                          false, 1024);
        QCOMPARE(chunked.result, Result::Failed);
        QVERIFY(chunked.tooLarge);
        // Until the close: counted as it arrives.
        HttpResponseParser eof(1024);
        eof.feed("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n");
        QCOMPARE(eof.feed(QByteArray(1000, 'x')), Result::NeedMore);
        QCOMPARE(eof.feed(QByteArray(100, 'x')), Result::Failed);
        QVERIFY(eof.tooLarge());
        QVERIFY(eof.body().isEmpty());
    }

    void chunkFramingCountsAgainstTheBound()
    {
        const QByteArray head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
        // One body byte per chunk behind a 1000-byte extension: the wire, not the 1-byte-a-chunk
        // body, reaches the 64 KiB bound (after about 65 chunks, not 65,536).
        HttpResponseParser ext(64 * 1024);
        ext.feed(head);
        const QByteArray chunk = "1;" + QByteArray(1000, 'e') + "\r\nx\r\n";
        Result r = Result::NeedMore;
        int chunks = 0;
        while (r == Result::NeedMore && chunks < 1000) {
            r = ext.feed(chunk);
            ++chunks;
        }
        QCOMPARE(r, Result::Failed);
        QVERIFY(ext.tooLarge());
        QVERIFY2(chunks > 60 && chunks <= 66, qPrintable(QString::number(chunks)));
        QVERIFY(ext.body().isEmpty());
        // A chunk-size line of 1 KiB (extensions and CRLF included) is the most; one byte more
        // is refused, whether its end arrives or not.
        const QByteArray longest = "2;" + QByteArray(1024 - 4, 'e') + "\r\n";
        QCOMPARE(longest.size(), HttpResponseParser::kMaxChunkLine);
        const Parsed fits = parseWhole(head + longest + "{}\r\n0\r\n\r\n");
        QCOMPARE(fits.result, Result::Done);
        QCOMPARE(fits.body, QByteArray("{}"));
        const QByteArray tooLong = "2;" + QByteArray(1024 - 3, 'e') + "\r\n";
        const Parsed refused = parseWhole(head + tooLong + "{}\r\n0\r\n\r\n");
        QCOMPARE(refused.result, Result::Failed);
        QVERIFY(!refused.tooLarge);
        QVERIFY2(refused.error.contains(QStringLiteral("1024")), qPrintable(refused.error));
        HttpResponseParser endless(1 << 20);
        endless.feed(QByteArray(head + "2;"));
        QCOMPARE(endless.feed(QByteArray(1100, 'e')), Result::Failed);
        // The framing of an otherwise small answer counts: 100 body bytes in chunks of one
        // (6 bytes of wire each) do not fit a 512-byte bound; nor do 600 bytes of trailers.
        QByteArray small;
        for (int i = 0; i < 100; ++i)
            small += "1\r\nx\r\n";
        QCOMPARE(parseWhole(head + small + "0\r\n\r\n", false, 1024).result, Result::Done);
        const Parsed framed = parseWhole(head + small + "0\r\n\r\n", false, 512);
        QCOMPARE(framed.result, Result::Failed);
        QVERIFY(framed.tooLarge);
        const Parsed trailers = parseWhole(
            head + "2\r\n{}\r\n0\r\nX-T: " + QByteArray(600, 't') + "\r\n\r\n", false, 512);
        QCOMPARE(trailers.result, Result::Failed);
        QVERIFY(trailers.tooLarge);
        // Content-Length: exactly the bound still fits (no framing).
        QCOMPARE(parseWhole("HTTP/1.1 200 OK\r\nContent-Length: 512\r\n\r\n" + QByteArray(512, 'x'),
                            false, 512)
                     .result,
                 Result::Done);
    }

    void reuse()
    {
        QVERIFY(parseWhole("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n").reusable);
        QVERIFY(!parseWhole("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
                     .reusable);
        QVERIFY(!parseWhole("HTTP/1.1 200 OK\r\nConnection: keep-alive, Close\r\nContent-Length: "
                            "0\r\n\r\n")
                     .reusable);
        QVERIFY(!parseWhole("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").reusable);
        // A byte after the response: the connection is out of step, not reused.
        const Parsed extra = parseWhole("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}X");
        QCOMPARE(extra.result, Result::Done);
        QVERIFY(!extra.reusable);
        HttpResponseParser later(100);
        QCOMPARE(later.feed("HTTP/1.1 204 No Content\r\n\r\n"), Result::Done);
        QVERIFY(later.reusable());
        later.feed("H");
        QVERIFY(!later.reusable());
        // The close ends a body without a length, only when announced.
        const Parsed eof =
            parseWhole("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n{\"a\":1}", true);
        QCOMPARE(eof.result, Result::Done);
        QCOMPARE(eof.body, QByteArray("{\"a\":1}"));
        QVERIFY(!eof.reusable);
        const Parsed nothing = parseWhole(QByteArray(), true);
        QCOMPARE(nothing.result, Result::Failed);
        QVERIFY2(nothing.error.contains(QStringLiteral("before a response")),
                 qPrintable(nothing.error));
    }
};

QTEST_APPLESS_MAIN(TestFabricHttpParser)
#include "tst_fabrichttpparser.moc"
