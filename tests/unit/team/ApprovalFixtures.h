#pragma once
// What the signed approvals' suites share (tst_approvalstatement, tst_approvalkeys,
// tst_approvalverify): RFC 8032's key, a version 2 and a version 1 statement with their canonical
// bytes, SHA-256 and signatures as Python's json, hashlib and cryptography 48 computed them, the
// proposal they name and the policy's key for alice.
#include "core/Sha256.h"
#include "core/TeamPolicy.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalStatement.h"
#include "team/ApprovalVerify.h"
#include "team/ApproverDecision.h"

#include <QDateTime>
#include <QTest>

using namespace fb;
using namespace fb::team;

namespace {

// RFC 8032, 7.1, TEST 1.
const QByteArray kSeed =
    QByteArray::fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");
const QByteArray kPub =
    QByteArray::fromHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");

// The statement below (version 2), as Python's json/hashlib and the cryptography package computed
// it: request_sha256 = sha256(b"connection_create\n" + body), price_sha256 = sha256 of the
// price's RFC 8785 form, token_sha256 = sha256(b"token").
const QByteArray kCanonical =
    R"({"approver":"alice","change_type":"connection_create","credential_identity":"client id abc",)"
    R"("decided_at":"2026-12-02T05:00:00.123Z","decision":"approve",)"
    R"("dialog_sha256":"0999920f72ab28d6c33e169fffccb43af374859e8322f7b51467f126fcd99cd3",)"
    R"("dry_run_sha256":"45b273a198030a612c482bb1daecaf0e2811f1ce009af3fe53a4143041502d47",)"
    R"("expires_at":"2026-12-02T05:15:00.000Z","fabric_endpoint":"https://api.equinix.com",)"
    R"("format":"fabric-broker approval 2",)"
    R"("price_sha256":"c8c5d8287957dced8e89e34a07c33b75f82c74abc90a05d5b22bc462c67574b2",)"
    R"("proposal_id":"0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69","proposer":"bob",)"
    R"("request_sha256":"09925c5b4018bfa87c9cc0c5aed724bd92a66964651ba32dbb08977f3fff36a9",)"
    R"("token_sha256":"3c469e9d6c5875d37a43f353d4f88e61fcf812c66eee3457465a40b0da4153e0"})";
const QByteArray kCanonicalSha256 =
    "548f7603ce9350eb60e8e5fbc6a336b35d32cb74c4f125cd9bef7c3d06f6891f";
const QByteArray kSignature =
    QByteArray::fromHex("62ad4ea9987813a17addb169b57790bdd35682d4406334d2e701654848a365d2"
                        "60752b3386be3d9b018abbfe535adbaa7ac5e954ceef4af15be665b2e6ed0a02");

// A version 1 statement of the same decision (old history), as Python computed it: its
// request_sha256 is the body's alone (the row's column).
const QByteArray kCanonicalV1 =
    R"({"approver":"alice","change_type":"connection_create","decided_at":"2026-12-02T05:00:00.123Z",)"
    R"("decision":"approve","dialog_sha256":"0999920f72ab28d6c33e169fffccb43af374859e8322f7b51467f126fcd99cd3",)"
    R"("dry_run_sha256":"45b273a198030a612c482bb1daecaf0e2811f1ce009af3fe53a4143041502d47",)"
    R"("expires_at":"2026-12-02T05:15:00.000Z","format":"fabric-broker approval 1",)"
    R"("proposal_id":"0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69",)"
    R"("request_sha256":"015abd7f5cc57a2dd94b7590f04ad8084273905ee33ec5cebeae62276a97f862"})";
const QByteArray kCanonicalV1Sha256 =
    "34c4695501c807c6042516f41921e2781d7ea230bd0c74995fcb8a1cc984d1d7";
const QByteArray kSignatureV1 =
    QByteArray::fromHex("7f5f4ee468f846e6c434b2eb9f46c596d45ddbeea0af3c4f8dfcf70d5ccab2a4"
                        "4a81632a059dc24b87f192be60dc6d895be4b9f4da10d605261df5303399ec0b");

inline qint64 utcMs(const char *text)
{
    return QDateTime::fromString(QString::fromLatin1(text), Qt::ISODateWithMs).toMSecsSinceEpoch();
}

inline TeamProposal proposal()
{
    TeamProposal p;
    p.id = "0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69";
    p.changeType = QStringLiteral("connection_create");
    p.request = R"({"a":1})";
    p.requestSha256 = Sha256::hash(p.request).toHex();
    p.dryRun = R"({ "uuid" : "x" })"; // as jsonb prints it: hashed in its canonical form
    p.proposer = QStringLiteral("bob");
    p.binding =
        QJsonObject{{QStringLiteral("fabric_endpoint"), QStringLiteral("https://api.equinix.com")},
                    {QStringLiteral("credential_identity"), QStringLiteral("client id abc")}};
    p.price = QJsonObject{{QStringLiteral("monthly_recurring"), 150},
                          {QStringLiteral("currency"), QStringLiteral("USD")}};
    p.tokenSha256 = Sha256::hash("token").toHex();
    p.expiresMs = utcMs("2026-12-02T05:15:00.000Z");
    return p;
}

inline ApprovalStatement statement()
{
    const TeamProposal p = proposal();
    ApprovalStatement s;
    s.proposalId = p.id;
    s.changeType = p.changeType;
    s.requestSha256 =
        Sha256::hash(QByteArray(QByteArray("connection_create\n") + p.request)).toHex();
    s.dryRunSha256 = canonicalJsonSha256Hex(p.dryRun);
    s.priceSha256 = priceSha256Hex(p.price);
    s.fabricEndpoint = QStringLiteral("https://api.equinix.com");
    s.credentialIdentity = QStringLiteral("client id abc");
    s.tokenSha256 = p.tokenSha256;
    s.proposer = p.proposer;
    s.dialogSha256 = Sha256::hash("dialog text").toHex();
    s.decision = QStringLiteral("approve");
    s.approver = QStringLiteral("alice");
    s.decidedMs = utcMs("2026-12-02T05:00:00.123Z");
    s.expiresMs = p.expiresMs;
    return s;
}

inline ApprovalStatement statementV1()
{
    ApprovalStatement s = statement();
    s.version = 1;
    s.requestSha256 = proposal().requestSha256;
    s.priceSha256.clear();
    s.fabricEndpoint.clear();
    s.credentialIdentity.clear();
    s.tokenSha256.clear();
    s.proposer.clear();
    return s;
}

inline SignedApproval signedRow(const ApprovalStatement &s, const QByteArray &seed = kSeed)
{
    SignedApproval a;
    a.approver = s.approver;
    a.decision = s.decision;
    a.dialogSha256 = Sha256::hash("dialog text");
    a.statement = s.canonical();
    a.signature = *ApprovalKeys::sign(seed, a.statement);
    a.publicKey = *ApprovalKeys::publicKeyOf(seed);
    return a;
}

inline QList<ApproverKey> policyKeys(const QString &role = QStringLiteral("alice"))
{
    return {ApproverKey{role, ApprovalKeys::fingerprint(kPub), kPub}};
}

} // namespace
