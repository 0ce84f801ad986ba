// HttpPeer: who is on the other end of an accepted loopback TCP connection, asked of the kernel's
// socket table over real sockets (IPv4 and IPv6 loopback): this process's own client is this
// user's; another uid is refused naming the client's; a socket that is not a connected TCP one
// says why. A client of another user: tests/integration/hardening.
#include "TestEnvironment.h"
#include "transport/http/HttpPeer.h"

#include <QTcpServer>
#include <QTcpSocket>
#include <QTest>

#include <sys/socket.h>
#include <unistd.h>

using namespace fb::transport;

class TestHttpPeer : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void ownClientIsThisUser_data()
    {
        QTest::addColumn<QHostAddress>("address");
        QTest::newRow("127.0.0.1") << QHostAddress(QHostAddress::LocalHost);
        QTest::newRow("::1") << QHostAddress(QHostAddress::LocalHostIPv6);
    }

    void ownClientIsThisUser()
    {
        QFETCH(QHostAddress, address);
        QTcpServer server;
        if (!server.listen(address))
            QSKIP(qPrintable(QStringLiteral("cannot listen on %1: %2")
                                 .arg(address.toString(), server.errorString())));
        QTcpSocket client;
        client.connectToHost(address, server.serverPort());
        QVERIFY(client.waitForConnected(5000));
        QVERIFY(server.waitForNewConnection(5000));
        QTcpSocket *accepted = server.nextPendingConnection();
        QVERIFY(accepted);
        const qintptr fd = accepted->socketDescriptor();
        QString why;
        const std::optional<uid_t> uid = HttpPeer::clientUid(int(fd), &why);
        QVERIFY2(uid, qPrintable(why));
        QCOMPARE(*uid, ::getuid());
        QVERIFY2(HttpPeer::runsAs(fd, ::getuid(), &why), qPrintable(why));
        why.clear();
        QVERIFY(!HttpPeer::runsAs(fd, ::getuid() + 1, &why));
        QVERIFY2(why.contains(QStringLiteral("runs as uid %1").arg(::getuid())), qPrintable(why));
    }

    void notAConnectedTcpSocket()
    {
        int pair[2];
        QCOMPARE(::socketpair(AF_UNIX, SOCK_STREAM, 0, pair), 0);
        QString why;
        QVERIFY(!HttpPeer::clientUid(pair[0], &why));
        QVERIFY2(why.contains(QStringLiteral("not a TCP connection")), qPrintable(why));
        ::close(pair[0]);
        ::close(pair[1]);
        const int unconnected = ::socket(AF_INET, SOCK_STREAM, 0);
        QVERIFY(unconnected >= 0);
        why.clear();
        QVERIFY(!HttpPeer::runsAs(unconnected, ::getuid(), &why));
        QVERIFY2(why.contains(QStringLiteral("no peer address")), qPrintable(why));
        ::close(unconnected);
    }
};

QTEST_GUILESS_MAIN(TestHttpPeer)
#include "tst_httppeer.moc"
