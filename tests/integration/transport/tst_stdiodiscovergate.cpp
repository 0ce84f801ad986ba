// StdioDiscoverGate over real pipes: the server/discover requests that come first are answered
// before anything starts; the gate opens at the first other line (left in the device for the
// session), at end of input after anything else, or after the idle time; at end of input after
// discover requests only nothing is opened and finishedEarly() is emitted.
#include "StdioFixture.h"
#include "TestEnvironment.h"
#include "mcp/McpServer.h"
#include "mcp/ModernEra.h"
#include "transport/stdio/StdioDevices.h"
#include "transport/stdio/StdioDiscoverGate.h"

#include <QSignalSpy>

#include <fcntl.h>
#include <unistd.h>

using namespace fb::mcp;
using namespace fb::transport;

namespace {

// stdin and stdout of a gate as pipes; the test writes `in` and reads `out`.
struct Pipes {
    int in[2] = {-1, -1};
    int out[2] = {-1, -1};
    Pipes()
    {
        if (::pipe(in) != 0 || ::pipe(out) != 0)
            qFatal("pipe");
        ::fcntl(out[0], F_SETFL, O_NONBLOCK);
    }
    ~Pipes()
    {
        for (int fd : {in[0], in[1], out[0], out[1]})
            if (fd >= 0)
                ::close(fd);
    }
    void write(const QByteArray &bytes) const
    {
        QCOMPARE(::write(in[1], bytes.constData(), size_t(bytes.size())), ssize_t(bytes.size()));
    }
    void endInput()
    {
        ::close(in[1]);
        in[1] = -1;
    }
};

QByteArray discover(const QJsonValue &id, const QJsonValue &params = QJsonObject{})
{
    QJsonObject m{{"jsonrpc", "2.0"}, {"id", id}, {"method", "server/discover"}};
    if (!params.isUndefined())
        m.insert("params", params);
    return QJsonDocument(m).toJson(QJsonDocument::Compact) + '\n';
}

} // namespace

class TestStdioDiscoverGate : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void discoverAnsweredThenOpensAtTheFirstOtherLine()
    {
        Pipes p;
        StdioDevices io(p.in[0], p.out[1]);
        const ServerOptions options;
        StdioDiscoverGate gate(&io, options);
        int opened = 0;
        p.write(discover(1) + "\n" + discover("b") + initFrames());
        gate.start(60000, [&] { ++opened; });
        QTRY_COMPARE_WITH_TIMEOUT(opened, 1, 5000);
        QCOMPARE(gate.answered(), 2);
        const QList<QByteArray> lines = readLines(p.out[0], 2);
        QCOMPARE(lines.size(), 2);
        const QJsonObject first = QJsonDocument::fromJson(lines.at(0)).object();
        QCOMPARE(first.value("id"), QJsonValue(1));
        QCOMPARE(first.value("result").toObject(), modern::discoverResult(options));
        QCOMPARE(QJsonDocument::fromJson(lines.at(1)).object().value("id"), QJsonValue("b"));
        // What it did not answer is the session's, from its first byte.
        QTRY_VERIFY_WITH_TIMEOUT(io.input()->bytesAvailable() > 0, 5000);
        QCOMPARE(io.input()->readAll(), initFrames());
    }

    void notADiscoverRequestOpensAtOnce_data()
    {
        QTest::addColumn<QByteArray>("line");
        QTest::newRow("not json") << QByteArray("not json\n");
        QTest::newRow("params an array") << discover(1, QJsonArray{1});
        QTest::newRow("object id") << discover(QJsonObject{});
        QTest::newRow("another method") << frame(1, "tools/list");
    }

    void notADiscoverRequestOpensAtOnce()
    {
        QFETCH(QByteArray, line);
        Pipes p;
        StdioDevices io(p.in[0], p.out[1]);
        StdioDiscoverGate gate(&io, ServerOptions{});
        int opened = 0;
        p.write(line);
        gate.start(60000, [&] { ++opened; });
        QTRY_COMPARE_WITH_TIMEOUT(opened, 1, 5000);
        QCOMPARE(gate.answered(), 0);
        QTRY_VERIFY_WITH_TIMEOUT(io.input()->bytesAvailable() > 0, 5000);
        QCOMPARE(io.input()->readAll(), line);
    }

    void endOfInputAfterDiscoverOnlyStartsNothing()
    {
        Pipes p;
        StdioDevices io(p.in[0], p.out[1]);
        StdioDiscoverGate gate(&io, ServerOptions{});
        QSignalSpy early(&gate, &StdioDiscoverGate::finishedEarly);
        int opened = 0;
        p.write(discover(7));
        p.endInput();
        gate.start(60000, [&] { ++opened; });
        QTRY_COMPARE_WITH_TIMEOUT(early.count(), 1, 5000);
        QCOMPARE(gate.answered(), 1);
        QCOMPARE(opened, 0);
    }

    void endOfInputWithoutDiscoverOpens()
    {
        Pipes p;
        StdioDevices io(p.in[0], p.out[1]);
        StdioDiscoverGate gate(&io, ServerOptions{});
        QSignalSpy early(&gate, &StdioDiscoverGate::finishedEarly);
        int opened = 0;
        p.endInput();
        gate.start(60000, [&] { ++opened; });
        QTRY_COMPARE_WITH_TIMEOUT(opened, 1, 5000);
        QCOMPARE(early.count(), 0);
    }

    void idleOpens()
    {
        Pipes p;
        StdioDevices io(p.in[0], p.out[1]);
        StdioDiscoverGate gate(&io, ServerOptions{});
        int opened = 0;
        gate.start(1, [&] { ++opened; }); // nothing arrives: the host starts
        QTRY_COMPARE_WITH_TIMEOUT(opened, 1, 5000);
        p.write(discover(1)); // too late: the session's
        QTRY_VERIFY_WITH_TIMEOUT(io.input()->bytesAvailable() > 0, 5000);
        QCOMPARE(gate.answered(), 0);
        QCOMPARE(opened, 1);
    }
};

QTEST_GUILESS_MAIN(TestStdioDiscoverGate)
#include "tst_stdiodiscovergate.moc"
