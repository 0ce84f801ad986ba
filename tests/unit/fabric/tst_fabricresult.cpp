// The status -> outcome decision for a real create (decideCreateOutcome / createOutcome), row by
// row: only a 4xx carrying a Fabric ErrorList is a rejection; every other answer once the
// request left is "unknown", because Fabric may have committed before it failed.
#include "TestEnvironment.h"
#include "fabric/FabricResult.h"

#include <QTest>

using fb::CreateOutcome;
using fb::FabricResult;
using Kind = FabricResult::Kind;

Q_DECLARE_METATYPE(fb::CreateOutcome)

class TestFabricResult : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    // The wire names come from tables (core/NameTable.h): every value has its own.
    void everyValueHasItsOwnName()
    {
        QSet<QString> kinds;
        for (int k = int(FabricResult::Kind::Ok); k <= int(FabricResult::Kind::Cancelled); ++k)
            kinds.insert(FabricResult::kindName(FabricResult::Kind(k)));
        QCOMPARE(kinds.size(), int(FabricResult::Kind::Cancelled) + 1);
        QVERIFY(!kinds.contains(QString()) && !kinds.contains(QStringLiteral("unknown")));
        QCOMPARE(FabricResult::kindName(FabricResult::Kind::OutcomeUnknown),
                 QStringLiteral("outcome_unknown"));
        QSet<QString> outcomes;
        for (int o = int(CreateOutcome::Created); o <= int(CreateOutcome::NotSent); ++o)
            outcomes.insert(createOutcomeName(CreateOutcome(o)));
        QCOMPARE(outcomes, (QSet<QString>{QStringLiteral("created"), QStringLiteral("rejected"),
                                          QStringLiteral("unknown"), QStringLiteral("not_sent")}));
    }
    void decide_data()
    {
        QTest::addColumn<bool>("sent");
        QTest::addColumn<int>("status");
        QTest::addColumn<bool>("errorList");
        QTest::addColumn<bool>("uuid");
        QTest::addColumn<CreateOutcome>("expected");
        const auto U = CreateOutcome::Unknown;
        const auto R = CreateOutcome::Rejected;
        const auto C = CreateOutcome::Created;
        const auto N = CreateOutcome::NotSent;
        // Nothing left: nothing was created, whatever else is known.
        QTest::newRow("not sent") << false << 0 << false << false << N;
        QTest::newRow("not sent, stale 400") << false << 400 << true << false << N;
        // Sent, no answer: timeout, reset, connection closed, cancelled after the first byte.
        QTest::newRow("no answer") << true << 0 << false << false << U;
        // 2xx: created only with a uuid.
        QTest::newRow("201 uuid") << true << 201 << false << true << C;
        QTest::newRow("200 uuid") << true << 200 << false << true << C;
        QTest::newRow("202 uuid") << true << 202 << false << true << C;
        QTest::newRow("201 no uuid") << true << 201 << false << false << U;
        QTest::newRow("204 empty") << true << 204 << false << false << U;
        QTest::newRow("201 errorlist, no uuid") << true << 201 << true << false << U;
        // 1xx/3xx: never a documented answer to a create.
        QTest::newRow("100") << true << 100 << false << false << U;
        QTest::newRow("302") << true << 302 << false << false << U;
        QTest::newRow("307 errorlist") << true << 307 << true << false << U;
        // 4xx: a rejection only with Fabric's ErrorList.
        QTest::newRow("400 errorlist") << true << 400 << true << false << R;
        QTest::newRow("401 errorlist") << true << 401 << true << false << R;
        QTest::newRow("403 errorlist") << true << 403 << true << false << R;
        QTest::newRow("404 errorlist") << true << 404 << true << false << R;
        QTest::newRow("409 errorlist") << true << 409 << true << false << R;
        QTest::newRow("422 errorlist") << true << 422 << true << false << R;
        QTest::newRow("429 errorlist") << true << 429 << true << false << R;
        QTest::newRow("499 errorlist") << true << 499 << true << false << R;
        QTest::newRow("400 plain") << true << 400 << false << false << U;
        QTest::newRow("401 plain") << true << 401 << false << false << U;
        QTest::newRow("404 html") << true << 404 << false << false << U;
        QTest::newRow("400 uuid, no errorlist") << true << 400 << false << true << U;
        // 5xx: unknown even with an ErrorList (Fabric may have committed, then failed).
        QTest::newRow("500 errorlist") << true << 500 << true << false << U;
        QTest::newRow("500 plain") << true << 500 << false << false << U;
        QTest::newRow("502 plain") << true << 502 << false << false << U;
        QTest::newRow("503 errorlist") << true << 503 << true << false << U;
        QTest::newRow("504 plain") << true << 504 << false << false << U;
        QTest::newRow("500 uuid") << true << 500 << false << true << U;
        QTest::newRow("599") << true << 599 << false << false << U;
    }
    void decide()
    {
        QFETCH(bool, sent);
        QFETCH(int, status);
        QFETCH(bool, errorList);
        QFETCH(bool, uuid);
        QFETCH(CreateOutcome, expected);
        QCOMPARE(fb::decideCreateOutcome(sent, status, errorList, uuid), expected);
    }

    void names()
    {
        QCOMPARE(fb::createOutcomeName(CreateOutcome::Created), QStringLiteral("created"));
        QCOMPARE(fb::createOutcomeName(CreateOutcome::Rejected), QStringLiteral("rejected"));
        QCOMPARE(fb::createOutcomeName(CreateOutcome::Unknown), QStringLiteral("unknown"));
        QCOMPARE(fb::createOutcomeName(CreateOutcome::NotSent), QStringLiteral("not_sent"));
    }

    // The same decision from a finished call's FabricResult.
    void fromResult()
    {
        FabricResult r;
        r.requestSent = false;
        r.kind = Kind::Cancelled;
        QCOMPARE(fb::createOutcome(r), CreateOutcome::NotSent);

        r = {};
        r.requestSent = true;
        r.kind = Kind::Ok;
        r.httpStatus = 201;
        r.body = QJsonObject{{"uuid", "abc"}};
        QCOMPARE(fb::createOutcome(r), CreateOutcome::Created);
        r.body = QJsonObject{{"uuid", ""}};
        QCOMPARE(fb::createOutcome(r), CreateOutcome::Unknown);
        r.body = QJsonObject{{"uuid", 12}};
        QCOMPARE(fb::createOutcome(r), CreateOutcome::Unknown);
        r.body = QJsonArray{};
        QCOMPARE(fb::createOutcome(r), CreateOutcome::Unknown);

        r = {};
        r.requestSent = true;
        r.kind = Kind::FabricError;
        r.httpStatus = 400;
        r.errors = {fb::FabricError{"EQ-3142306", "bad", {}, {}, {}}};
        QCOMPARE(fb::createOutcome(r), CreateOutcome::Rejected);
        r.httpStatus = 500;
        QCOMPARE(fb::createOutcome(r), CreateOutcome::Unknown);
        r.httpStatus = 400;
        r.errors.clear();
        QCOMPARE(fb::createOutcome(r), CreateOutcome::Unknown);

        // An OutcomeUnknown result stays unknown whatever status it carries.
        r = {};
        r.requestSent = true;
        r.kind = Kind::OutcomeUnknown;
        r.httpStatus = 201;
        r.body = QJsonObject{{"uuid", "abc"}};
        QCOMPARE(fb::createOutcome(r), CreateOutcome::Unknown);
    }
};

QTEST_APPLESS_MAIN(TestFabricResult)
#include "tst_fabricresult.moc"
