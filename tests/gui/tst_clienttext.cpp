// ClientText: how the GUI names an MCP client from the broker's ClientInfo JSON or a live
// ClientInfo: name and version, the session id however it was serialised, the transport, and
// "unknown client" when the client said nothing.
#include "TestEnvironment.h"
#include "gui/ClientText.h"
#include "mcp/ClientInfo.h"

#include <QJsonObject>
#include <QTest>

using namespace fb;

class TestClientText : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void sessionIdAsStringOrNumber()
    {
        QCOMPARE(ClientText::sessionId(QJsonObject{{"sessionId", "42"}}), quint64(42));
        QCOMPARE(ClientText::sessionId(QJsonObject{{"sessionId", 7}}), quint64(7));
        QCOMPARE(ClientText::sessionId(QJsonObject{}), quint64(0));
        QCOMPARE(ClientText::sessionId(QJsonObject{{"sessionId", "not a number"}}), quint64(0));
    }

    void nameAndVersion()
    {
        QCOMPARE(
            ClientText::nameAndVersion(QJsonObject{{"name", "Claude Code"}, {"version", "2.1.0"}}),
            QStringLiteral("Claude Code 2.1.0"));
        QCOMPARE(ClientText::nameAndVersion(QJsonObject{{"name", "Zed"}}), QStringLiteral("Zed"));
        // A version without a name names nobody.
        QCOMPARE(ClientText::nameAndVersion(QJsonObject{{"version", "1.0"}}),
                 QStringLiteral("unknown client"));
    }

    void summaryOfJson()
    {
        const QJsonObject full{{"name", "Claude Code"},
                               {"version", "2.1.0"},
                               {"sessionId", "3"},
                               {"transport", "stdio"}};
        QCOMPARE(ClientText::summary(full), QStringLiteral("Claude Code 2.1.0 (session 3, stdio)"));
        QCOMPARE(ClientText::summary(QJsonObject{{"name", "Zed"}, {"transport", "socket"}}),
                 QStringLiteral("Zed (socket)"));
        QCOMPARE(ClientText::summary(QJsonObject{{"name", "Zed"}, {"sessionId", 5}}),
                 QStringLiteral("Zed (session 5)"));
        // Session 0 is no session.
        QCOMPARE(ClientText::summary(QJsonObject{{"name", "Zed"}, {"sessionId", "0"}}),
                 QStringLiteral("Zed"));
        QCOMPARE(ClientText::summary(QJsonObject{}), QStringLiteral("unknown client"));
        QCOMPARE(ClientText::summary(QJsonObject{{"sessionId", "9"}}),
                 QStringLiteral("unknown client (session 9)"));
    }

    void summaryOfClientInfo()
    {
        mcp::ClientInfo info;
        QCOMPARE(ClientText::summary(info), QStringLiteral("unknown client"));
        info.sessionId = 12;
        info.transport = QStringLiteral("socket");
        QCOMPARE(ClientText::summary(info), QStringLiteral("unknown client (session 12, socket)"));
        info.name = QStringLiteral("Cursor");
        info.version = QStringLiteral("0.9");
        QCOMPARE(ClientText::summary(info), QStringLiteral("Cursor 0.9 (session 12, socket)"));
    }
};

QTEST_GUILESS_MAIN(TestClientText)
#include "tst_clienttext.moc"
