#pragma once
// What the suites of the sandbox over real loopback HTTP share (tst_fabricsandbox,
// tst_sandboxapi, tst_sandboxauth, tst_sandboxsearch, tst_sandboxvalidator): one FabricSandbox
// per suite listening on loopback, a client logged in to it, the estate reset after every test.
#include "SandboxFixtures.h"
#include "SandboxTestClient.h"
#include "sandbox/FabricSandbox.h"
#include "sandbox/SandboxIds.h"

#include <QTest>
#include <memory>

using fb::FabricSandbox;
namespace Ids = fb::SandboxIds;

inline QString s(QLatin1String v)
{
    return QString(v);
}

inline QJsonObject byUuid(const QString &uuid)
{
    return QJsonObject{
        {"filter",
         QJsonObject{{"property", "/uuid"}, {"operator", "="}, {"values", QJsonArray{uuid}}}}};
}

// The base of those suites: its private slots start the sandbox before the first test and reset
// it after every test (each suite's own init() sets what warnings it allows).
class SandboxSuite : public QObject {
    Q_OBJECT

protected:
    std::unique_ptr<FabricSandbox> sandbox;
    std::unique_ptr<SandboxTestClient> client;

    int connectionTotal()
    {
        const HttpResult r = client->post("/fabric/v4/connections/search", QJsonObject{});
        return r.object()["pagination"].toObject()["total"].toInt();
    }

private Q_SLOTS:
    // The sandbox listens on 127.0.0.1 and the client has a token.
    void initTestCase()
    {
        sandbox = std::make_unique<FabricSandbox>();
        QVERIFY(sandbox->listen());
        QVERIFY(sandbox->port() != 0);
        QCOMPARE(sandbox->baseUrl().host(), QStringLiteral("127.0.0.1"));
        client = std::make_unique<SandboxTestClient>(sandbox->baseUrl());
        QVERIFY(!client->login().isEmpty());
        resetSandbox();
    }

    void cleanup() { resetSandbox(); }

private:
    // The seeded estate again, provisioning that takes a minute.
    void resetSandbox()
    {
        sandbox->reset();
        sandbox->setProvisioning(60000, 1);
    }
};
