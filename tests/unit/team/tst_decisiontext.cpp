// The text an approver decides on (issue #37; src/team/DecisionText), the one the Team approvals
// dialog and `fabric-broker team show/approve/deny` both show: its exact lines for a plain row,
// the strings an agent will try (control characters, ANSI escapes, bidi overrides, line
// separators, lone surrogates, NUL, 10,000 characters) shown inert and bounded, each value on its
// own line, and isInert, the check the terminal applies to what it prints. The dialog's use of it:
// tests/gui/tst_teamapprovalsdialog*; the terminal's: tests/e2e/team-terminal.test.mjs.
#include "TestEnvironment.h"
#include "core/Sha256.h"
#include "team/ApproverDecision.h"
#include "team/DecisionText.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

using namespace fb;
using namespace fb::team;
using namespace Qt::StringLiterals;

namespace {

const qint64 kExpiresMs = 1796188500123; // 2026-12-02T05:15:00.123Z

TeamProposal proposal()
{
    TeamProposal p;
    p.id = "0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69";
    p.changeType = u"connection_create"_s;
    p.request = "{\"bandwidth\":50,\"name\":\"vc-1\"}";
    p.requestSha256 = Sha256::hash(p.request).toHex();
    p.dryRun = "{}";
    p.proposer = u"carol"_s;
    p.osUser = u"carol"_s;
    p.host = u"ws-carol"_s;
    p.mcpClient = u"claude-code 1.0"_s;
    p.price = QJsonObject{{u"currency"_s, u"USD"_s}, {u"monthly_recurring"_s, 150}};
    p.binding = QJsonObject{{u"fabric_endpoint"_s, u"http://127.0.0.1:8080"_s},
                            {u"credential_identity"_s, u"client id e2e-client"_s}};
    p.tokenSha256 = Sha256::hash("t").toHex();
    p.state = u"consumed"_s;
    p.expiresMs = kExpiresMs;
    return p;
}

// The strings an agent will try, and more that a terminal would act on.
const QStringList kHostile{
    u"x\nPrice: USD 0.00"_s,
    u"\r"_s,
    u"a\u2028b\u2029c"_s,
    u"\u202Eevil"_s,
    u"\u2066isolated\u2069"_s,
    u"\x1b[2J\x1b[H\x1b]0;title\x07"_s, // clear screen, home, window title
    QString(QChar(0x9B)) + u"31m"_s,    // C1 CSI
    u"<b>html</b><img src=x>"_s,
    QString(10000, u'A'),
    QString(QChar(0xD800)) + u"lone"_s,
    QString(QChar(0)) + u"nul"_s,
    u"zero\u200Bwidth"_s,
};

} // namespace

class TestDecisionText : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void thePlainRowsText()
    {
        const TeamProposal p = proposal();
        const QString expected =
            u"Change: connection_create\n"
            "Proposed by role carol (OS user carol on ws-carol)\n"
            "MCP client: claude-code 1.0\n"
            "Price: USD 150.00 monthly recurring\n"
            "Fabric: Sandbox, endpoint http://127.0.0.1:8080 (loopback, on the proposing "
            "workstation: nothing is billed)\n"
            "Fabric credentials: client id e2e-client\n"
            "State: consumed\n"
            "Expires: 2026-12-02T05:15:00+00:00\n"
            "Request SHA-256: "_s +
            QString::fromLatin1(
                Sha256::hash(QByteArray("connection_create\n").append(p.request)).toHex()) +
            u"\nRequest:\n"
            "  {\n"
            "      \"bandwidth\": 50,\n"
            "      \"name\": \"vc-1\"\n"
            "  }"_s;
        QCOMPARE(decisionText(p), expected);
        QVERIFY(isInert(expected));
        QVERIFY(refusalText(p).isEmpty());
        QCOMPARE(summaryLine(p), u"connection_create by carol (USD 150.00 monthly recurring), "
                                 "consumed"_s);
        // The same row, the same text and hash (what the dialog and the terminal both record);
        // any change shown, another hash.
        QCOMPARE(shownTextSha256(decisionText(proposal())), shownTextSha256(expected));
        TeamProposal pending = proposal();
        pending.state = u"pending"_s;
        QVERIFY(shownTextSha256(decisionText(pending)) != shownTextSha256(expected));
    }

    void productionUnpricedAndResolved()
    {
        TeamProposal p = proposal();
        p.binding = {};
        p.price.reset();
        p.resolution = TeamResolution{};
        p.resolution->resolver = u"bob"_s;
        p.resolution->osUser = u"bob"_s;
        p.resolution->host = u"ws-bob"_s;
        p.resolution->outcome = u"not_created"_s;
        p.resolution->resolvedMs = kExpiresMs;
        const QString text = decisionText(p);
        QVERIFY2(text.contains(u"\nPrice: unpriced\n"_s), qPrintable(text));
        QVERIFY2(text.contains(u"\nFabric: Production, endpoint (none given) (billable)\n"
                               "Fabric credentials: (none given)\n"_s),
                 qPrintable(text));
        QVERIFY2(text.endsWith(u"\nOutcome resolved by role bob (OS user bob on ws-bob) at "
                               "2026-12-02T05:15:00+00:00: not_created"_s),
                 qPrintable(text));
    }

    void everyHostileValueIsOneInertBoundedLine()
    {
        const int plainLines = int(decisionText(proposal()).count(u'\n'));
        for (const QString &evil : kHostile) {
            TeamProposal p = proposal();
            p.proposer = evil;
            p.osUser = evil;
            p.host = evil;
            p.mcpClient = evil;
            p.state = evil;
            p.binding = QJsonObject{{u"fabric_endpoint"_s, evil}, {u"credential_identity"_s, evil}};
            p.price = QJsonObject{{u"currency"_s, evil}, {u"monthly_recurring"_s, 1}};
            const QString text = decisionText(p);
            const QString what = evil.left(20).toHtmlEscaped();
            QVERIFY2(isInert(text), qPrintable(what));
            // No value adds a line or starts one.
            QCOMPARE(int(text.count(u'\n')), plainLines);
            for (const QString &line : text.split(u'\n'))
                QVERIFY2(!line.startsWith(u"Price: USD 0.00"_s), qPrintable(line));
            // Nothing a terminal acts on, no reordering, nothing invisible.
            for (const QChar c : text) {
                const char16_t u = c.unicode();
                QVERIFY2(u == u'\n' || (u >= 0x20 && u != 0x7F && !(u >= 0x80 && u <= 0x9F)),
                         qPrintable(what));
                QVERIFY2(u != 0x202E && u != 0x2066 && u != 0x2028 && u != 0x200B,
                         qPrintable(what));
            }
            // Bounded: 10,000 characters become at most a line's worth.
            for (const QString &line : text.split(u'\n'))
                QVERIFY2(line.size() < 2000, qPrintable(what));
            QVERIFY(isInert(summaryLine(p)));
            QVERIFY(!summaryLine(p).contains(u'\n'));
        }
        // In the body too: the JSON's own escapes, and what JSON leaves raw is escaped.
        TeamProposal p = proposal();
        p.request = QJsonDocument(QJsonObject{{u"name"_s, u"vc\u202E\x1b[2J\nPrice: 0"_s}})
                        .toJson(QJsonDocument::Compact);
        p.requestSha256 = Sha256::hash(p.request).toHex();
        const QString text = decisionText(p);
        QVERIFY2(isInert(text), qPrintable(text));
        QVERIFY2(text.contains(u"\\u202E"_s), qPrintable(text));
        QVERIFY(!text.contains(QChar(0x1B)));
    }

    void aCurrencyWithPlaceholdersStaysText()
    {
        TeamProposal p = proposal();
        p.price = QJsonObject{{u"currency"_s, u"%2%1"_s}, {u"monthly_recurring"_s, 5}};
        QCOMPARE(priceText(p), u"%2%1 5.00 monthly recurring"_s);
    }

    void aRefusedRowIsOneLine()
    {
        TeamProposal p = proposal();
        p.request = "{\"bandwidth\":5000}"; // the stored hash is no longer the body's
        const QString refusal = refusalText(p);
        QVERIFY2(refusal.startsWith(u"Refused: this proposal is not shown and cannot be approved "
                                    "here: "_s),
                 qPrintable(refusal));
        QVERIFY(!refusal.contains(u'\n'));
        QVERIFY(isInert(refusal));
    }

    void inertMeansNothingChangesUnderEscaping()
    {
        QVERIFY(isInert(u"a\nb"_s));
        QVERIFY(isInert(u"\\u202E escaped already"_s));
        QVERIFY(!isInert(u"\x1b[2J"_s));
        QVERIFY(!isInert(u"a\rb"_s));
        QVERIFY(!isInert(u"\u202Eevil"_s));
        QVERIFY(!isInert(u"tab\there"_s));
        QVERIFY(!isInert(QString(QChar(0x9B))));
        QCOMPARE(inertLine(u"\x1b[31mred"_s), u"\\u001B[31mred"_s);
        QCOMPARE(inertLine(u"abcdef"_s, 3), u"abc\u2026"_s);
    }
};

QTEST_GUILESS_MAIN(TestDecisionText)
#include "tst_decisiontext.moc"
