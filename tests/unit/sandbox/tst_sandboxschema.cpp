// SandboxSchema: the request-body checks the sandbox's create validators share, each violation
// one EQ-3142501 error naming the field's path and what it must be: required and typed members,
// allowed values, integer ranges, notifications (type, e-mails, E.164 phones), additionalInfo
// and linkProtocol (tags 2-4092); nothing reported for a body that is fine.
#include "TestEnvironment.h"
#include "sandbox/SandboxEstate.h"
#include "sandbox/SandboxSchema.h"
#include "sandbox/SandboxValidator.h"

#include <QJsonDocument>
#include <QTest>

using namespace fb;

namespace {

QJsonObject parse(const char *text)
{
    return QJsonDocument::fromJson(QByteArray(text)).object();
}

// "<property>: <reason>" of every error collected, in order.
QStringList violations(const QJsonArray &errors)
{
    QStringList out;
    for (const QJsonValue &e : errors) {
        const QJsonObject error = e.toObject();
        const QJsonObject info = error.value("additionalInfo").toArray().first().toObject();
        out << info.value("property").toString() + u": " + info.value("reason").toString();
    }
    return out;
}

} // namespace

class TestSandboxSchema : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void errorsAreFabricInvalidArguments()
    {
        SandboxEstate estate;
        const SandboxValidator validator(estate, QStringLiteral("corr-1"));
        QJsonArray errors;
        SandboxSchema schema(validator, &errors);
        schema.string(QJsonObject{}, "name", QStringLiteral("aSide.accessPoint"), true);
        QCOMPARE(errors.size(), 1);
        const QJsonObject e = errors.first().toObject();
        QCOMPARE(e.value("errorCode").toString(), QStringLiteral("EQ-3142501"));
        QCOMPARE(e.value("correlationId").toString(), QStringLiteral("corr-1"));
        QCOMPARE(violations(errors), QStringList({"aSide.accessPoint.name: is required"}));
    }

    void membersAndTypes()
    {
        SandboxEstate estate;
        const SandboxValidator validator(estate, QStringLiteral("c"));
        QJsonArray errors;
        SandboxSchema s(validator, &errors);
        const QJsonObject o = parse(R"({"obj":{"a":1},"str":"x","num":5,"empty":"","arr":[]})");
        QCOMPARE(s.object(o, "obj", {}, true), parse(R"({"a":1})"));
        QCOMPARE(s.string(o, "str", QStringLiteral("p"), true, SandboxSchema::list({"x", "y"})),
                 QStringLiteral("x"));
        QVERIFY(s.has(o, "num") && !s.has(o, "absent"));
        s.integer(o, "num", QStringLiteral("p"), true, 1, 10);
        s.object(o, "absent", {}, false); // optional and absent: fine
        s.string(o, "absent", {}, false);
        s.integer(o, "absent", {}, false, 1, 2);
        QVERIFY2(errors.isEmpty(), qPrintable(violations(errors).join(u'\n')));

        QCOMPARE(s.object(o, "str", QStringLiteral("p"), true), QJsonObject());
        QCOMPARE(s.string(o, "num", QStringLiteral("p"), true), QString());
        s.string(o, "empty", QStringLiteral("p"), true);
        s.string(o, "str", QStringLiteral("p"), true, SandboxSchema::list({"A", "B"}));
        s.integer(o, "num", QStringLiteral("p"), true, 6, 10);
        s.integer(parse(R"({"n":2.5})"), "n", QStringLiteral("p"), true, 1, 10);
        s.integer(o, "str", QStringLiteral("p"), true, 1, 10);
        s.object(o, "absent", QStringLiteral("p"), true);
        QCOMPARE(
            violations(errors),
            QStringList({"p.str: must be an object", "p.num: must be a non-empty string",
                         "p.empty: must be a non-empty string", "p.str: must be one of A, B",
                         "p.num: must be an integer between 6 and 10",
                         "p.n: must be an integer between 1 and 10",
                         "p.str: must be an integer between 1 and 10", "p.absent: is required"}));
    }

    void notifications()
    {
        SandboxEstate estate;
        const SandboxValidator validator(estate, QStringLiteral("c"));
        QJsonArray errors;
        SandboxSchema s(validator, &errors);
        s.notifications(parse(R"({"notifications":[{"type":"ALL","emails":["a@b.c"],)"
                              R"("phone":[{"type":"MOBILE","number":"+14155550100"}]}]})"),
                        {}, true);
        QVERIFY2(errors.isEmpty(), qPrintable(violations(errors).join(u'\n')));
        s.notifications(QJsonObject{}, QStringLiteral("x"), true);
        s.notifications(QJsonObject{}, QStringLiteral("x"), false); // optional: fine
        s.notifications(parse(R"({"notifications":{}})"), {}, true);
        s.notifications(parse(R"({"notifications":[1,{"type":"SMS","emails":"a@b.c"},)"
                              R"({"type":"ALL","emails":["nobody",3]},)"
                              R"({"type":"ALL","emails":["a@b"],"phone":[{"type":"FAX",)"
                              R"("number":"4155550100"}]}]})"),
                        {}, true);
        QCOMPARE(violations(errors),
                 QStringList({"x.notifications: is required", "notifications: must be an array",
                              "notifications[0]: must be an object",
                              "notifications[1].type: must be one of NOTIFICATION, "
                              "BANDWIDTH_ALERT, CONNECTION_APPROVAL, PROFILE_LIFECYCLE, ALL, "
                              "SALES_REP_NOTIFICATIONS, TECHNICAL, ORDERING, QUOTE_NOTIFICATIONS",
                              "notifications[1].emails: must be an array",
                              "notifications[2].emails[0]: must be an e-mail address",
                              "notifications[2].emails[1]: must be an e-mail address",
                              "notifications[3].phone[0].type: must be one of MOBILE, OFFICE",
                              "notifications[3].phone[0].number: must be an E.164 phone number "
                              "string, e.g. +14155550100"}));
    }

    void additionalInfoAndLinkProtocol()
    {
        SandboxEstate estate;
        const SandboxValidator validator(estate, QStringLiteral("c"));
        QJsonArray errors;
        SandboxSchema s(validator, &errors);
        s.additionalInfo(parse(R"({"additionalInfo":[{"key":"k","value":"v"}]})"), {});
        s.linkProtocol(parse(R"({"linkProtocol":{"type":"QINQ","vlanSTag":2,"vlanCTag":4092}})"),
                       {});
        s.linkProtocol(QJsonObject{}, {}); // nothing is required
        QVERIFY2(errors.isEmpty(), qPrintable(violations(errors).join(u'\n')));
        s.additionalInfo(parse(R"({"additionalInfo":{}})"), QStringLiteral("aSide"));
        s.additionalInfo(parse(R"({"additionalInfo":["x",{"key":1,"value":true}]})"), {});
        s.linkProtocol(parse(R"({"linkProtocol":{"type":"MPLS","vlanTag":1,"vlanCTag":4093}})"),
                       QStringLiteral("zSide.accessPoint"));
        QCOMPARE(violations(errors),
                 QStringList({"aSide.additionalInfo: must be an array",
                              "additionalInfo[0]: must be an object",
                              "additionalInfo[1].key: must be a string",
                              "additionalInfo[1].value: must be a string",
                              "zSide.accessPoint.linkProtocol.type: must be one of UNTAGGED, "
                              "DOT1Q, QINQ, EVPN_VXLAN, VXLAN",
                              "zSide.accessPoint.linkProtocol.vlanTag: must be an integer "
                              "between 2 and 4092",
                              "zSide.accessPoint.linkProtocol.vlanCTag: must be an integer "
                              "between 2 and 4092"}));
        QCOMPARE(SandboxSchema::join({}, "a"), QStringLiteral("a"));
        QCOMPARE(SandboxSchema::join(QStringLiteral("p"), "a"), QStringLiteral("p.a"));
    }
};

QTEST_GUILESS_MAIN(TestSandboxSchema)
#include "tst_sandboxschema.moc"
