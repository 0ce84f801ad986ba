// BrokerEvents (src/broker/BrokerEvents): forwardBrokerEvents passes every signal the GUI
// follows from one object (the context) to another (the facade), each with its arguments, once.
#include "TestEnvironment.h"
#include "broker/BrokerEvents.h"

#include <QSignalSpy>
#include <QTest>

using namespace fb;
using namespace Qt::StringLiterals;

class TestBrokerEvents : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void everySignalIsForwarded()
    {
        BrokerEvents from;
        BrokerEvents to;
        forwardBrokerEvents(&from, &to);
        QSignalSpy audit(&to, &BrokerEvents::auditEvent);
        QSignalSpy started(&to, &BrokerEvents::approvalStarted);
        QSignalSpy finished(&to, &BrokerEvents::approvalFinished);
        QSignalSpy executed(&to, &BrokerEvents::executionFinished);
        QSignalSpy inFlight(&to, &BrokerEvents::createsInFlightChanged);
        QSignalSpy stage(&to, &BrokerEvents::confirmStage);

        Proposal p;
        p.requestSha256 = QString(64, u'a');
        emit from.auditEvent(AuditEventType::Sending, QJsonObject{{"n", 1}});
        emit from.approvalStarted(p, u"desktop"_s);
        emit from.approvalFinished(p, u"accepted"_s);
        emit from.executionFinished(p, true, u"created"_s);
        emit from.createsInFlightChanged(3);
        emit from.confirmStage(p.requestSha256, ConfirmStage::Sending);

        QCOMPARE(audit.size(), 1);
        QCOMPARE(audit.at(0).at(0).value<AuditEventType>(), AuditEventType::Sending);
        QCOMPARE(audit.at(0).at(1).toJsonObject(), QJsonObject({{"n", 1}}));
        QCOMPARE(started.size(), 1);
        QCOMPARE(started.at(0).at(0).value<Proposal>().requestSha256, p.requestSha256);
        QCOMPARE(started.at(0).at(1).toString(), "desktop");
        QCOMPARE(finished.size(), 1);
        QCOMPARE(finished.at(0).at(1).toString(), "accepted");
        QCOMPARE(executed.size(), 1);
        QCOMPARE(executed.at(0).at(1).toBool(), true);
        QCOMPARE(executed.at(0).at(2).toString(), "created");
        QCOMPARE(inFlight.size(), 1);
        QCOMPARE(inFlight.at(0).at(0).toInt(), 3);
        QCOMPARE(stage.size(), 1);
        QCOMPARE(stage.at(0).at(0).toString(), p.requestSha256);
        QCOMPARE(stage.at(0).at(1).value<ConfirmStage>(), ConfirmStage::Sending);
    }

    void onlyFromTheSourceToTheTarget()
    {
        BrokerEvents from;
        BrokerEvents to;
        forwardBrokerEvents(&from, &to);
        QSignalSpy back(&from, &BrokerEvents::createsInFlightChanged);
        QSignalSpy forward(&to, &BrokerEvents::createsInFlightChanged);
        emit to.createsInFlightChanged(1);
        QCOMPARE(back.size(), 0);
        QCOMPARE(forward.size(), 1); // its own emission only
    }
};

QTEST_GUILESS_MAIN(TestBrokerEvents)
#include "tst_brokerevents.moc"
