// CreateLookup (issue #26, requirement 5) against the embedded sandbox through the real
// FabricClient: the name search finds the one resource a create made (its uuid), finds nothing
// for a name never created, notes other names that contain it, refuses to search at another
// endpoint than the one the create was sent to, says so when the credentials differ, and always
// answers once, later.
#include "BrokerHarness.h"
#include "TestEnvironment.h"
#include "broker/BrokerContext.h"
#include "broker/CreateLookup.h"
#include "core/CompiledRequest.h"

#include <QJsonDocument>
#include <QTest>

using namespace fbtest;
using namespace Qt::StringLiterals;

class TstCreateLookup : public QObject {
    Q_OBJECT

    static QByteArray requestNamed(const QString &name, int vlan)
    {
        QJsonObject spec = BrokerHarness::connectionSpec(vlan);
        spec.insert(u"name"_s, name);
        return QJsonDocument(spec).toJson(QJsonDocument::Compact);
    }

    // A real create in the sandbox; its uuid.
    static QString create(BrokerHarness &h, const QString &name, int vlan)
    {
        fb::CompiledRequest r;
        r.changeType = fb::ChangeType::ConnectionCreate;
        r.path = u"/fabric/v4/connections"_s;
        r.body = requestNamed(name, vlan);
        std::optional<fb::FabricResult> result;
        fb::FabricCall *call = h.fabric->create(r);
        QObject::connect(call, &fb::FabricCall::finished,
                         [&](const fb::FabricResult &res) { result = res; });
        if (!QTest::qWaitFor([&] { return result.has_value(); }, 10000) || !result->ok())
            return {};
        return result->body.toObject().value(u"uuid"_s).toString();
    }

    static QJsonObject bindingOf(const BrokerHarness &h)
    {
        const fb::FabricBinding b = fb::FabricBinding::of(h.fabric->config());
        return {{u"fabric_endpoint"_s, b.endpoint}, {u"credential_identity"_s, b.identity}};
    }

    static std::optional<fb::CreateLookup> lookUp(BrokerHarness &h, const QByteArray &request,
                                                  const QJsonObject &binding, QObject *context)
    {
        std::optional<fb::CreateLookup> out;
        int answers = 0;
        fb::lookUpCreate(h.fabric.get(), u"connection_create"_s, request, binding, context,
                         [&](const fb::CreateLookup &l) {
                             ++answers;
                             out = l;
                         });
        if (out) { // never synchronously
            fb::CreateLookup early;
            early.call = u"answered synchronously"_s;
            return early;
        }
        if (!QTest::qWaitFor([&] { return answers > 0; }, 10000))
            return std::nullopt;
        QTest::qWait(50);
        if (answers != 1)
            return std::nullopt;
        return out;
    }

private slots:
    void init() { fbtest::failOnWarnings(); }

    void findsTheOneResourceAndNothingElse()
    {
        BrokerHarness h;
        QObject context;
        const QString uuid = create(h, u"lookup-made"_s, 3001);
        QVERIFY(!uuid.isEmpty());
        QVERIFY(!create(h, u"lookup-made-too"_s, 3002).isEmpty());

        const auto made = lookUp(h, requestNamed(u"lookup-made"_s, 3001), bindingOf(h), &context);
        QVERIFY(made);
        QVERIFY2(made->ok, qPrintable(made->error));
        QCOMPARE(made->call, u"fabric_search_connections {\"name\":\"lookup-made\"}"_s);
        QCOMPARE(made->matches.size(), 1);
        QCOMPARE(made->onlyUuid(), uuid);
        QVERIFY(made->searchedAs.isEmpty());
        QVERIFY2(made->text().contains(u"found %1  lookup-made"_s.arg(uuid)),
                 qPrintable(made->text()));

        const auto none = lookUp(h, requestNamed(u"lookup-never"_s, 3003), bindingOf(h), &context);
        QVERIFY(none);
        QVERIFY(none->ok);
        QVERIFY(none->matches.isEmpty());
        QVERIFY(none->onlyUuid().isEmpty());
        QVERIFY2(none->text().contains(u"no resource has this name"_s), qPrintable(none->text()));
    }

    void anotherEndpointIsNotSearchedOtherCredentialsAreNoted()
    {
        BrokerHarness h;
        QObject context;
        QVERIFY(!create(h, u"lookup-elsewhere"_s, 3011).isEmpty());
        QJsonObject elsewhere = bindingOf(h);
        elsewhere.insert(u"fabric_endpoint"_s, u"https://api.equinix.com"_s);
        const int before = static_cast<int>(h.sandbox.requests().size());
        const auto refused =
            lookUp(h, requestNamed(u"lookup-elsewhere"_s, 3011), elsewhere, &context);
        QVERIFY(refused);
        QVERIFY(!refused->ok);
        QVERIFY2(refused->error.contains(u"the create was sent to https://api.equinix.com"_s),
                 qPrintable(refused->error));
        QCOMPARE(static_cast<int>(h.sandbox.requests().size()), before); // nothing asked

        QJsonObject otherAccount = bindingOf(h);
        otherAccount.insert(u"credential_identity"_s, u"client id someone-else"_s);
        const auto noted =
            lookUp(h, requestNamed(u"lookup-elsewhere"_s, 3011), otherAccount, &context);
        QVERIFY(noted);
        QVERIFY(noted->ok);
        QCOMPARE(noted->matches.size(), 1);
        QCOMPARE(noted->searchedAs, u"client id test"_s);
        QVERIFY2(noted->text().contains(u"another account may not see it"_s),
                 qPrintable(noted->text()));
    }

    void noClientOrNoNameAnswersWithTheReason()
    {
        BrokerHarness h;
        QObject context;
        std::optional<fb::CreateLookup> out;
        fb::lookUpCreate(nullptr, u"connection_create"_s, R"({"name":"x"})", bindingOf(h), &context,
                         [&](const fb::CreateLookup &l) { out = l; });
        QVERIFY(!out);
        QTRY_VERIFY(out.has_value());
        QVERIFY(!out->ok);
        QCOMPARE(out->error, u"this app has no Fabric client"_s);
        const auto unnamed = lookUp(h, R"({"type":"EVPL_VC"})", bindingOf(h), &context);
        QVERIFY(unnamed);
        QVERIFY(!unnamed->ok);
        QCOMPARE(unnamed->error, u"the request has no name to search for"_s);
    }

    void noAnswerOnceTheContextIsGone()
    {
        BrokerHarness h;
        auto context = std::make_unique<QObject>();
        int answers = 0;
        fb::lookUpCreate(h.fabric.get(), u"connection_create"_s, requestNamed(u"gone"_s, 3021),
                         bindingOf(h), context.get(), [&](const fb::CreateLookup &) { ++answers; });
        context.reset();
        QTest::qWait(500);
        QCOMPARE(answers, 0);
    }
};

QTEST_GUILESS_MAIN(TstCreateLookup)
#include "tst_createlookup.moc"
