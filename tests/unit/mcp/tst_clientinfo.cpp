// ClientInfo: who is on the other end of a session. The clientInfo strings are the client's
// (hostile): bounded and with invisible characters escaped before anything shows or stores them;
// form elicitation is read from both spellings of the capability; toJson carries what the GUI and
// the audit log show.
#include "TestEnvironment.h"
#include "mcp/ClientInfo.h"

#include <QJsonObject>
#include <QTest>

using fb::mcp::ClientInfo;
using namespace Qt::StringLiterals;

class TestClientInfo : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void clientStringsAreBoundedAndEscaped()
    {
        ClientInfo c;
        c.setFromInitialize(QJsonObject{{u"name"_s, u"claude\ncode\u202E"_s},
                                        {u"title"_s, QString(500, u'x')},
                                        {u"version"_s, 2}});
        QVERIFY2(!c.name.contains(u'\n') && !c.name.contains(QChar(0x202E)), qPrintable(c.name));
        QVERIFY(c.name.startsWith(u"claude"_s));
        QVERIFY(c.name.contains(u"\\n"_s));
        QCOMPARE(c.title, QString(ClientInfo::MaxTextLength, u'x') + QChar(0x2026));
        QCOMPARE(c.version, QString()); // not a string: nothing
        QCOMPARE(ClientInfo::untrustedText(QJsonValue(u"plain 1.0"_s)), u"plain 1.0"_s);
    }

    void formElicitation_data()
    {
        QTest::addColumn<QJsonObject>("capabilities");
        QTest::addColumn<bool>("form");
        QTest::newRow("none") << QJsonObject{} << false;
        QTest::newRow("2025-06-18 {}") << QJsonObject{{u"elicitation"_s, QJsonObject{}}} << true;
        QTest::newRow("form") << QJsonObject{{u"elicitation"_s,
                                              QJsonObject{{u"form"_s, QJsonObject{}}}}}
                              << true;
        QTest::newRow("url only") << QJsonObject{{u"elicitation"_s,
                                                  QJsonObject{{u"url"_s, QJsonObject{}}}}}
                                  << false;
        QTest::newRow("not an object") << QJsonObject{{u"elicitation"_s, true}} << false;
    }
    void formElicitation()
    {
        QFETCH(QJsonObject, capabilities);
        QFETCH(bool, form);
        ClientInfo c;
        c.capabilities = capabilities;
        QCOMPARE(c.supportsFormElicitation(), form);
    }

    void toJson()
    {
        ClientInfo c;
        c.sessionId = 18446744073709551615ull; // as a string: JSON numbers lose it
        c.setFromInitialize(QJsonObject{{u"name"_s, u"n"_s}, {u"version"_s, u"1"_s}});
        c.transport = u"socket"_s;
        c.initialized = true;
        const QJsonObject o = c.toJson();
        QCOMPARE(o.value(u"sessionId"_s).toString(), u"18446744073709551615"_s);
        QCOMPARE(o.value(u"name"_s).toString(), u"n"_s);
        QCOMPARE(o.value(u"version"_s).toString(), u"1"_s);
        QCOMPARE(o.value(u"transport"_s).toString(), u"socket"_s);
        QCOMPARE(o.value(u"initialized"_s).toBool(), true);
        QCOMPARE(o.keys().size(), 9);
    }
};

QTEST_GUILESS_MAIN(TestClientInfo)
#include "tst_clientinfo.moc"
