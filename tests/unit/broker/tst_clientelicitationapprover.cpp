// ClientElicitationApprover (src/broker/ClientElicitationApprover): the client channel's
// elicitation/create (a required boolean "confirm" that defaults to false, the broker's own
// approval text, form mode named from 2025-11-25 on), what each answer means (only accept with
// confirm = true approves), a client without form elicitation is never asked, and the one name
// table of the human statuses.
#include "TestEnvironment.h"
#include "broker/ClientElicitationApprover.h"
#include "broker/ProposalView.h"

#include <QJsonArray>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

namespace {

ApprovalContext sampleContext(const QString &protocolVersion)
{
    ApprovalContext c;
    c.proposal.changeType = ChangeType::NetworkCreate;
    c.proposal.token = u"chg-0123456789abcdef0123456789abcdef"_s;
    c.proposal.target = u"network lab-net"_s;
    c.proposal.proposedAtMs = 1767225600000;
    c.proposal.expiresAtMs = c.proposal.proposedAtMs + 600000;
    c.request.changeType = ChangeType::NetworkCreate;
    c.request.path = u"/fabric/v4/networks"_s;
    c.request.body = "{\"name\":\"lab-net\"}";
    c.proposal.requestSha256 = c.request.sha256Hex();
    c.client.protocolVersion = protocolVersion;
    return c;
}

} // namespace

class TestClientElicitationApprover : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void elicitationAsksForOneConfirm()
    {
        const ApprovalContext c = sampleContext(u"2025-11-25"_s);
        const qint64 now = c.proposal.proposedAtMs + 1000;
        const QJsonObject params = ClientElicitationApprover::elicitationParams(c, now);
        QCOMPARE(params.value("message").toString(),
                 ProposalView::approvalText(c.proposal, c.request, now));
        QCOMPARE(params.value("mode").toString(), "form");
        const QJsonObject schema = params.value("requestedSchema").toObject();
        QCOMPARE(schema.value("type").toString(), "object");
        QCOMPARE(schema.value("required").toArray(), QJsonArray({"confirm"}));
        const QJsonObject properties = schema.value("properties").toObject();
        QCOMPARE(properties.keys(), QStringList({"confirm"}));
        const QJsonObject confirm = properties.value("confirm").toObject();
        QCOMPARE(confirm.value("type").toString(), "boolean");
        QCOMPARE(confirm.value("default"), QJsonValue(false));
        QCOMPARE(confirm.value("title").toString(), "Create this network");
    }

    void formModeOnlyWhereTheProtocolHasIt()
    {
        const ApprovalContext c = sampleContext(u"2025-06-18"_s);
        QVERIFY(!ClientElicitationApprover::elicitationParams(c, 0).contains("mode"));
    }

    void answers_data()
    {
        QTest::addColumn<QJsonObject>("result");
        QTest::addColumn<HumanStatus>("status");
        QTest::addColumn<QString>("detail");
        const auto accept = [](const QJsonValue &content) {
            return QJsonObject{{"action", "accept"}, {"content", content}};
        };
        QTest::newRow("accept, confirm true")
            << accept(QJsonObject{{"confirm", true}}) << HumanStatus::Accepted << "ticked confirm";
        QTest::newRow("accept, confirm false") << accept(QJsonObject{{"confirm", false}})
                                               << HumanStatus::Declined << "without confirm = true";
        QTest::newRow("accept, no confirm")
            << accept(QJsonObject{}) << HumanStatus::Declined << "without confirm = true";
        QTest::newRow("accept, confirm \"true\"")
            << accept(QJsonObject{{"confirm", "true"}}) << HumanStatus::Declined << "not a boolean";
        QTest::newRow("accept, confirm 1")
            << accept(QJsonObject{{"confirm", 1}}) << HumanStatus::Declined << "not a boolean";
        QTest::newRow("accept without content")
            << QJsonObject{{"action", "accept"}} << HumanStatus::Declined << "without content";
        QTest::newRow("accept, content not an object")
            << accept(QJsonArray{true}) << HumanStatus::Declined << "without content";
        QTest::newRow("decline") << QJsonObject{{"action", "decline"}} << HumanStatus::Declined
                                 << "declined";
        QTest::newRow("cancel") << QJsonObject{{"action", "cancel"}} << HumanStatus::Cancelled
                                << "dismissed";
        QTest::newRow("Accept") << QJsonObject{{"action", "Accept"}, {"content", QJsonObject{}}}
                                << HumanStatus::Failed << "without a valid action";
        QTest::newRow("no action")
            << QJsonObject{} << HumanStatus::Failed << "without a valid action";
    }

    void answers()
    {
        QFETCH(QJsonObject, result);
        QFETCH(HumanStatus, status);
        QFETCH(QString, detail);
        QString said;
        QCOMPARE(ClientElicitationApprover::statusForResult(result, &said), status);
        QVERIFY2(said.contains(detail), qPrintable(said));
    }

    void clientWithoutFormElicitationIsNotAsked()
    {
        ClientElicitationApprover approver;
        QCOMPARE(approver.channel(), "client");
        ApprovalContext c = sampleContext(u"2025-11-25"_s);
        c.client.capabilities = QJsonObject{{"elicitation", QJsonObject{{"url", QJsonObject{}}}}};
        QList<HumanDecision> decisions;
        approver.requestApproval(nullptr, c, [&](const HumanDecision &d) { decisions << d; });
        QCOMPARE(decisions.size(), 1); // at once, without a request to the client
        QCOMPARE(decisions.first().status, HumanStatus::UnsupportedByClient);
        QCOMPARE(decisions.first().channel, "client");
        QVERIFY(decisions.first().detail.contains("did not declare form elicitation"));
    }

    void everyStatusHasItsOwnName()
    {
        QCOMPARE(humanStatusNames(),
                 QStringList({"accepted", "declined", "cancelled", "timed_out", "failed",
                              "call_cancelled", "unsupported_by_client"}));
        QCOMPARE(humanStatusName(HumanStatus::CallCancelled), "call_cancelled");
        QCOMPARE(humanStatusName(HumanStatus::UnsupportedByClient), "unsupported_by_client");
    }
};

QTEST_APPLESS_MAIN(TestClientElicitationApprover)
#include "tst_clientelicitationapprover.moc"
