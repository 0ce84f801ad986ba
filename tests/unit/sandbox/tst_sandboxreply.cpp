// SandboxReply: the sandbox's answers in Fabric's shapes. A JSON body (compact), a real create's
// 201 marked as one, the ErrorList of one Fabric Error (errorCode, errorMessage, correlationId;
// details and additionalInfo only when given, their empty parts left out), and the reason
// phrases of the statuses the sandbox sends.
#include "TestEnvironment.h"
#include "sandbox/SandboxReply.h"

#include <QJsonDocument>
#include <QTest>

using namespace fb;

namespace {

QJsonObject onlyError(const SandboxReply &r)
{
    const QJsonArray list = QJsonDocument::fromJson(r.body).array();
    if (list.size() != 1)
        return {};
    return list.first().toObject();
}

} // namespace

class TestSandboxReply : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void jsonAndCreated()
    {
        const SandboxReply o = SandboxReply::json(200, QJsonObject{{"a", 1}});
        QCOMPARE(o.status, 200);
        QCOMPARE(o.body, QByteArray(R"({"a":1})"));
        QCOMPARE(o.contentType, QByteArray("application/json"));
        QVERIFY(!o.realCreate);
        QCOMPARE(SandboxReply::json(207, QJsonArray{1, 2}).body, QByteArray("[1,2]"));
        const SandboxReply c = SandboxReply::created(QJsonObject{{"uuid", "x"}});
        QCOMPARE(c.status, 201);
        QCOMPARE(c.body, QByteArray(R"({"uuid":"x"})"));
        QVERIFY(c.realCreate);
        QVERIFY(!SandboxReply::errors(400, QJsonArray{}).realCreate);
    }

    void errorList()
    {
        const SandboxReply plain = SandboxReply::error(401, SandboxErrors::Unauthorized,
                                                       SandboxErrors::UnauthorizedMessage, "c-1");
        QCOMPARE(plain.status, 401);
        QVERIFY(!plain.realCreate);
        const QJsonObject e = onlyError(plain);
        QCOMPARE(e.value("errorCode").toString(), QStringLiteral("EQ-3000039"));
        QCOMPARE(e.value("errorMessage").toString(),
                 QStringLiteral("User not found in request or invalid."));
        QCOMPARE(e.value("correlationId").toString(), QStringLiteral("c-1"));
        QVERIFY(!e.contains("details"));
        QVERIFY(!e.contains("additionalInfo"));

        const QJsonObject full = onlyError(SandboxReply::error(
            400, SandboxErrors::InvalidArgument, SandboxErrors::InvalidArgumentMessage, "c-2",
            "bad port", "aSide.accessPoint.port.uuid", "must be a uuid"));
        QCOMPARE(full.value("details").toString(), QStringLiteral("bad port"));
        QCOMPARE(full.value("additionalInfo").toArray(),
                 QJsonArray({QJsonObject{{"property", "aSide.accessPoint.port.uuid"},
                                         {"reason", "must be a uuid"}}}));
        // A reason without a property: the property left out, not empty.
        const QJsonObject reasonOnly =
            onlyError(SandboxReply::error(400, "EQ-1", "m", "c-3", {}, {}, QStringLiteral("why")));
        QCOMPARE(reasonOnly.value("additionalInfo").toArray(),
                 QJsonArray({QJsonObject{{"reason", "why"}}}));
    }

    void fabricErrorWithSeveralReasons()
    {
        const QJsonObject e =
            fabricError("EQ-3142501", "m", "c", {}, {{"a", "r1"}, {"b", {}}, {{}, "r3"}});
        QCOMPARE(e.value("additionalInfo").toArray(),
                 QJsonArray({QJsonObject{{"property", "a"}, {"reason", "r1"}},
                             QJsonObject{{"property", "b"}}, QJsonObject{{"reason", "r3"}}}));
    }
};

QTEST_GUILESS_MAIN(TestSandboxReply)
#include "tst_sandboxreply.moc"
