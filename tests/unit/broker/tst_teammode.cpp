// TeamMode (src/broker/TeamMode): the comparison of a consumed team row with this broker's own
// proposal. The row must hold the same change type, the bytes under the binding, the Fabric
// binding, Fabric's dry-run response and the price (compared in canonical form); the first
// difference is named. Also the row's binding object and the bounded client label.
#include "TestEnvironment.h"
#include "broker/TeamMode.h"
#include "mcp/ClientInfo.h"
#include "team/ApprovalStatement.h"

#include <QJsonDocument>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

const QByteArray kBody = R"({"name":"lab-net","type":"EVPLAN"})";

Proposal proposal()
{
    Proposal p;
    p.changeType = ChangeType::NetworkCreate;
    p.requestSha256 = requestSha256(ChangeType::NetworkCreate, kBody);
    p.fabricEndpoint = u"https://api.equinix.com"_s;
    p.credentialIdentity = u"client id abc"_s;
    p.context = QJsonObject{
        {"validated", QJsonObject{{"uuid", "x"}, {"name", "lab-net"}}},
        {"price", QJsonObject{{"priced", true}, {"currency", "USD"}, {"monthly_recurring", 10}}}};
    return p;
}

// The row this broker published for proposal(), keys in another order as jsonb returns them.
team::TeamProposal row()
{
    team::TeamProposal r;
    r.changeType = u"network_create"_s;
    r.request = kBody;
    r.binding = teamBindingJson(u"https://api.equinix.com"_s, u"client id abc"_s);
    r.dryRun = R"({ "name": "lab-net", "uuid": "x" })";
    r.price = QJsonObject{{"monthly_recurring", 10}, {"currency", "USD"}, {"priced", true}};
    return r;
}

} // namespace

class TestTeamMode : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void bindingJson()
    {
        QCOMPARE(teamBindingJson(u"https://e"_s, u"none"_s),
                 QJsonObject({{"fabric_endpoint", "https://e"}, {"credential_identity", "none"}}));
    }

    void theSameRowMatches() { QCOMPARE(teamRowMismatch(row(), proposal()), QString()); }

    void everyDifferenceIsNamed_data()
    {
        QTest::addColumn<int>("field");
        QTest::addColumn<QString>("words");
        QTest::newRow("change type") << 0 << "the team's row is a connection_create";
        QTest::newRow("request bytes") << 1 << "the team's row holds request ";
        QTest::newRow("endpoint") << 2 << "another Fabric endpoint or credentials";
        QTest::newRow("credentials") << 3 << "another Fabric endpoint or credentials";
        QTest::newRow("dry run") << 4 << "another dry-run response";
        QTest::newRow("no dry run") << 5 << "another dry-run response";
        QTest::newRow("price") << 6 << "another price";
        QTest::newRow("unpriced row") << 7 << "another price";
    }

    void everyDifferenceIsNamed()
    {
        QFETCH(int, field);
        QFETCH(QString, words);
        team::TeamProposal r = row();
        switch (field) {
        case 0:
            r.changeType = u"connection_create"_s;
            break;
        case 1:
            r.request = R"({"name":"lab-net2","type":"EVPLAN"})";
            break;
        case 2:
            r.binding = teamBindingJson(u"https://other"_s, u"client id abc"_s);
            break;
        case 3:
            r.binding = teamBindingJson(u"https://api.equinix.com"_s, u"none"_s);
            break;
        case 4:
            r.dryRun = R"({"name":"lab-net","uuid":"y"})";
            break;
        case 5:
            r.dryRun.clear();
            break;
        case 6:
            r.price->insert(u"monthly_recurring"_s, 11);
            break;
        case 7:
            r.price.reset();
            break;
        }
        const QString mismatch = teamRowMismatch(r, proposal());
        QVERIFY2(mismatch.contains(words), qPrintable(mismatch));
    }

    void unpricedOnBothSidesMatches()
    {
        Proposal p = proposal();
        p.context.insert(u"price"_s, QJsonObject{{"priced", false}, {"reason", "no rate card"}});
        team::TeamProposal r = row();
        r.price.reset();
        QCOMPARE(teamRowMismatch(r, p), QString());
    }

    void clientLabelIsBounded()
    {
        mcp::ClientInfo c;
        c.name = u"claude-code"_s;
        QCOMPARE(teamClientLabel(c), "claude-code");
        c.version = u"2.1"_s;
        QCOMPARE(teamClientLabel(c), "claude-code 2.1");
        c.name = QString(300, u'n');
        QCOMPARE(teamClientLabel(c).size(), 200);
    }
};

QTEST_APPLESS_MAIN(TestTeamMode)
#include "tst_teammode.moc"
