// DecisionRecorder below the GUI (issue #40): the key's copy handed to the signer comes from the
// loader once, as a private copy, and without a loader the caller's words say why there is none.
// With a signer (the command line's ssh-agent key, issue #37) it signs with that, never with the
// loader; with the signature required nothing unsigned reaches the queue. What a signer signs:
// tst_approverdecision. Its decide() and resolve() on a real queue:
// tests/gui/tst_teamapprovalsdialog*, tests/e2e/team-terminal.test.mjs.
#include "TestEnvironment.h"
#include "core/Sha256.h"
#include "team/DecisionRecorder.h"
#include "team/TeamQueue.h"

#include <QTest>

using namespace fb::team;

namespace {

// RFC 8032, 7.1, TEST 1.
const QByteArray kSeed =
    QByteArray::fromHex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60");

} // namespace

class TestDecisionRecorder : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void withKeyHandsACopyOnceThenWipesIt()
    {
        int calls = 0;
        QByteArray seen;
        // No loader: no key, and the caller's words for why.
        DecisionRecorder::withKey({}, QStringLiteral("no approval key is configured"),
                                  [&](const QByteArray &key, const QString &error) {
                                      ++calls;
                                      QVERIFY(key.isEmpty());
                                      QCOMPARE(error,
                                               QStringLiteral("no approval key is configured"));
                                  });
        QCOMPARE(calls, 1);

        // A loader: its key reaches fn as a private copy; the loader's own bytes are untouched.
        const QByteArray loaderKey = kSeed;
        calls = 0;
        DecisionRecorder::withKey(
            [&](std::function<void(const QByteArray &, const QString &)> answer) {
                answer(loaderKey, {});
                QCOMPARE(loaderKey, kSeed);
            },
            {},
            [&](const QByteArray &key, const QString &error) {
                ++calls;
                seen = key; // a copy of the copy (shared), taken before the wipe
                seen.detach();
                QVERIFY(error.isEmpty());
                QVERIFY(key.constData() != loaderKey.constData());
            });
        QCOMPARE(calls, 1);
        QCOMPARE(seen, kSeed);
    }

    // A queue that never connects: nothing may reach it here.
    void aRequiredSignatureKeepsUnsignedDecisionsOut()
    {
        TeamQueue queue(QStringLiteral("postgresql:///nowhere?host=/nonexistent"),
                        TeamIdentity{QStringLiteral("alice"), QStringLiteral("ws"), {}});
        TeamProposal p;
        p.id = "0d4f0f6e-8a41-4b8e-9c1e-2f1d3c4b5a69";
        p.changeType = QStringLiteral("connection_create");
        p.request = "{}";
        p.requestSha256 = fb::Sha256::hash(p.request).toHex();
        p.dryRun = "{}";
        p.proposer = QStringLiteral("carol");
        p.state = QStringLiteral("consumed");
        p.tokenSha256 = fb::Sha256::hash("t").toHex();
        p.expiresMs = 1796187600123;

        struct Outcome {
            int calls = 0;
            DecisionSigning how;
            bool recorded = true;
            QString error;
        };
        const auto decide = [&](DecisionRecorder &r, Outcome &o) {
            r.decide(p, QStringLiteral("approve"), QStringLiteral("text shown"),
                     [&o](const DecisionSigning &how, bool recorded, const QString &error) {
                         ++o.calls;
                         o.how = how;
                         o.recorded = recorded;
                         o.error = error;
                     });
        };

        // Required, and the signer signs nothing: refused at once, the loader never asked.
        int loads = 0;
        DecisionRecorder failing(&queue);
        failing.setKeyLoader([&](auto answer) {
            ++loads;
            answer(kSeed, {});
        });
        failing.setSignatureRequired(true);
        failing.setSigner([](const QByteArray &) {
            return StatementSignature{{}, {}, QStringLiteral("agent refused")};
        });
        Outcome refused;
        decide(failing, refused);
        QCOMPARE(refused.calls, 1);
        QCOMPARE(loads, 0);
        QCOMPARE(refused.recorded, false);
        QCOMPARE(refused.how.status, DecisionSigning::Status::SignerFailed);
        QVERIFY(!refused.how.keyError.isEmpty()); // (this queue's role is unknown: no statement)
        QCOMPARE(refused.error, QStringLiteral("nothing is recorded without a signature"));

        // Required, no key: refused the same way.
        DecisionRecorder keyless(&queue);
        keyless.setSignatureRequired(true);
        keyless.setNoKeyText(QStringLiteral("no key"));
        Outcome none;
        decide(keyless, none);
        QCOMPARE(none.calls, 1);
        QCOMPARE(none.how.status, DecisionSigning::Status::NoKey);
        QCOMPARE(none.recorded, false);
    }
};

QTEST_GUILESS_MAIN(TestDecisionRecorder)
#include "tst_decisionrecorder.moc"
