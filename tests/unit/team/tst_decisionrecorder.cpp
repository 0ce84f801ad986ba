// DecisionRecorder below the GUI (issue #40): the key's copy handed to the signer comes from the
// loader once, as a private copy, and without a loader the caller's words say why there is none.
// Its decide() and resolve() on a real queue: tests/gui/tst_teamapprovalsdialog*.
#include "TestEnvironment.h"
#include "team/DecisionRecorder.h"

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
};

QTEST_GUILESS_MAIN(TestDecisionRecorder)
#include "tst_decisionrecorder.moc"
