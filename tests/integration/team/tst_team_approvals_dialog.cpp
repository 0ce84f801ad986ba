// The approver's side in the app on a real PostgreSQL 15 (TeamFixture.h), rendered offscreen:
// TeamApprovalsDialog (opened with open(), never exec()) lists a proposal another workstation
// published as soon as the database's NOTIFY arrives, shows its untrusted strings inert, records
// a click on Approve as this role's decision bound to the SHA-256 of the text shown, and that
// decision completes the proposing broker's quorum; while the database is unreachable a banner
// says so and the decision buttons are off, and it comes back by itself. With a key loader (the
// keychain's approval key) the decision carries its signed statement, which verifies against
// the key and the text shown; the approvals the proposing broker rejected are listed.
#include "TeamFixture.h"
#include "gui/TeamApprovalsDialog.h"
#include "gui/TeamDesk.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalVerify.h"
#include "team/TeamConfirm.h"

#include <QAccessible>
#include <QApplication>
#include <QCryptographicHash>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>

using namespace fbtest;
using namespace fb;
using namespace fb::team;
using namespace Qt::StringLiterals;

class TstTeamApprovalsDialog : public QObject {
    Q_OBJECT

private:
    TeamFixture fx;
    QString db;
    std::unique_ptr<PgConnection> owner;

    std::unique_ptr<TeamQueue> queueAs(const QString &role, const QString &host,
                                       const QString &client = u"test-client 1.0"_s)
    {
        auto q =
            std::make_unique<TeamQueue>(fx.cluster.uri(role, db), TeamIdentity{role, host, client});
        q->connection().reconnectDelayMs = 50;
        q->start();
        return q;
    }

private slots:
    void initTestCase()
    {
        QVERIFY2(fx.setUp(), "PostgreSQL did not start (see the warning above)");
        db = fx.initializedDatabase();
        QVERIFY(!db.isEmpty());
        owner = connectAs(fx.cluster, u"fb_owner"_s, db);
        QVERIFY(owner);
    }

    void approvalInTheDialogCompletesTheProposersQuorum()
    {
        auto carol = queueAs(u"carol"_s, u"ws-1"_s, u"evil\nPrice: USD 0.00 \u202Egnp.exe"_s);
        auto alice = queueAs(u"alice"_s, u"ws-2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);

        auto *dialog = new TeamApprovalsDialog(alice.get());
        QPointer<TeamApprovalsDialog> guard(dialog);
        QSignalSpy refreshed(dialog, &TeamApprovalsDialog::refreshed);
        dialog->open();
        QVERIFY(dialog->isVisible());
        QVERIFY(dialog->banner()->isHidden());
        QTRY_VERIFY_WITH_TIMEOUT(!refreshed.isEmpty(), 10000);
        QCOMPARE(dialog->list()->count(), 0);

        // carol's broker publishes and its confirm starts waiting.
        const QByteArray request = R"({"name":"vc-<b>1</b>","type":"EVPL_VC"})";
        std::optional<QByteArray> id;
        carol->publish(u"connection_create"_s, request, {}, std::nullopt, "{}",
                       QCryptographicHash::hash("tok", QCryptographicHash::Sha256), 60000,
                       [&](const std::optional<QByteArray> &v, const QString &) { id = v; });
        QTRY_VERIFY_WITH_TIMEOUT(id.has_value() && id->size() == 36, 10000);
        std::optional<TeamProposal> row;
        carol->consume(QCryptographicHash::hash("tok", QCryptographicHash::Sha256),
                       [&](const std::optional<TeamProposal> &p, const QString &) { row = p; });
        QTRY_VERIFY_WITH_TIMEOUT(row.has_value(), 10000);
        TeamConfirm confirm(carol.get(), *row, 1);
        QSignalSpy decided(&confirm, &TeamConfirm::decided);
        confirm.start();

        // The approver's dialog shows it, woken by NOTIFY.
        QTRY_COMPARE_WITH_TIMEOUT(dialog->list()->count(), 1, 10000);
        QVERIFY(dialog->list()->item(0)->text().contains(u"carol"_s));
        const QString shown = dialog->details()->toPlainText();
        QVERIFY(shown.contains(u"vc-<b>1</b>"_s)); // as typed, inert
        for (const QString &line : shown.split(u'\n'))
            QVERIFY2(!line.startsWith(u"Price: USD 0.00"_s), qPrintable(line));
        QVERIFY(!shown.contains(QChar(0x202E)));
        QVERIFY(dialog->approveButton()->isEnabled());

        // A real click on Approve.
        QSignalSpy recorded(dialog, &TeamApprovalsDialog::decisionRecorded);
        QTest::mouseClick(dialog->approveButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(recorded.size(), 1, 10000);
        QCOMPARE(recorded.at(0).at(2).toBool(), true);
        const auto a = owner->exec("SELECT approver, decision, encode(dialog_sha256, 'hex') AS d, "
                                   "os_user, host FROM fabric_team.approvals WHERE proposal_id = "
                                   "$1::uuid",
                                   {*id});
        QVERIFY(a.ok());
        QCOMPARE(a.value->rowCount(), 1);
        QCOMPARE(a.value->value(0, "approver"), QByteArray("alice"));
        QCOMPARE(a.value->value(0, "decision"), QByteArray("approve"));
        QCOMPARE(a.value->value(0, "host"), QByteArray("ws-2"));
        QCOMPARE(a.value->value(0, "d"),
                 QCryptographicHash::hash(shown.toUtf8(), QCryptographicHash::Sha256).toHex());
        // ...and the proposer's broker is woken and its quorum is met.
        QTRY_COMPARE_WITH_TIMEOUT(decided.size(), 1, 10000);
        QCOMPARE(decided.at(0).at(0).value<TeamConfirm::Verdict>(), TeamConfirm::Verdict::Met);
        QCOMPARE(confirm.count().counted, QStringList{u"alice"_s});
        dialog->close(); // WA_DeleteOnClose
        QTRY_VERIFY(guard.isNull());
    }

    void aDecisionIsSignedAndRejectionsAreShown()
    {
        auto carol = queueAs(u"carol"_s, u"ws-1"_s);
        auto alice = queueAs(u"alice"_s, u"ws-2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);
        const QByteArray privateKey = ApprovalKeys::generate().value_or(QByteArray());
        const QByteArray publicKey = ApprovalKeys::publicKeyOf(privateKey).value_or(QByteArray());
        QVERIFY(!publicKey.isEmpty());

        TeamApprovalsDialog dialog(alice.get());
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        int loads = 0;
        QString keyError; // what the next load answers instead of the key
        dialog.setKeyLoader([&](auto answer) {
            ++loads;
            // Later, from the event loop, as the keychain answers.
            QTimer::singleShot(10, &dialog, [&, answer] {
                answer(keyError.isEmpty() ? privateKey : QByteArray(), keyError);
            });
        });
        dialog.open();
        auto publish = [&](const QByteArray &name) -> std::optional<TeamProposal> {
            const QByteArray token = QCryptographicHash::hash(name, QCryptographicHash::Sha256);
            std::optional<QByteArray> id;
            carol->publish(u"connection_create"_s, R"({"name":")" + name + R"("})", {},
                           std::nullopt, R"({"uuid":"dry"})", token, 60000,
                           [&](const std::optional<QByteArray> &v, const QString &) { id = v; });
            if (!QTest::qWaitFor([&] { return id.has_value(); }, 10000))
                return std::nullopt;
            std::optional<TeamProposal> row;
            carol->consume(token,
                           [&](const std::optional<TeamProposal> &p, const QString &) { row = p; });
            if (!QTest::qWaitFor([&] { return row.has_value(); }, 10000))
                return std::nullopt;
            return row;
        };
        auto select = [&](const QString &name) {
            for (int i = 0; i < dialog.list()->count(); ++i) {
                dialog.list()->setCurrentRow(i);
                if (dialog.details()->toPlainText().contains(name))
                    return true;
            }
            return false;
        };
        auto rowOf = [&](const QByteArray &id) {
            SignedApproval a;
            const auto r = owner->exec(
                "SELECT approver, decision, dialog_sha256, statement, signature, public_key FROM "
                "fabric_team.approvals WHERE proposal_id = $1::uuid",
                {id});
            if (r.ok() && r.value->rowCount() == 1)
                a = {QString::fromUtf8(r.value->value(0, "approver")),
                     QString::fromUtf8(r.value->value(0, "decision")),
                     r.value->value(0, "dialog_sha256"),
                     r.value->value(0, "statement"),
                     r.value->value(0, "signature"),
                     r.value->value(0, "public_key")};
            return a;
        };

        const auto signedRow = publish("signed-1");
        QVERIFY(signedRow);
        QTRY_VERIFY_WITH_TIMEOUT(select(u"signed-1"_s), 10000);
        const QString shown = dialog.details()->toPlainText();
        QSignalSpy recorded(&dialog, &TeamApprovalsDialog::decisionRecorded);
        QTest::mouseClick(dialog.approveButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(recorded.size(), 1, 10000);
        QCOMPARE(loads, 1);
        QCOMPARE(recorded.at(0).at(2).toBool(), true);
        QVERIFY2(dialog.statusLabel()->text().contains(
                     u"recorded, signed with key %1"_s.arg(ApprovalKeys::fingerprint(publicKey))),
                 qPrintable(dialog.statusLabel()->text()));
        // What a screen reader reads out is that text, not a fixed name.
        auto spoken = [](QWidget *w) {
            QAccessibleInterface *a = QAccessible::queryAccessibleInterface(w);
            return a ? a->text(QAccessible::Name) : QString();
        };
        QCOMPARE(spoken(dialog.statusLabel()), dialog.statusLabel()->text());
        // What was stored verifies against the key listed for alice, bound to the text shown.
        // (The row's bytea columns come back as PostgreSQL's hex text.)
        SignedApproval stored = rowOf(signedRow->id);
        QCOMPARE(stored.approver, u"alice"_s);
        auto unhex = [](const QByteArray &pg) { return QByteArray::fromHex(pg.mid(2)); };
        stored.dialogSha256 = unhex(stored.dialogSha256);
        stored.signature = unhex(stored.signature);
        stored.publicKey = unhex(stored.publicKey);
        QCOMPARE(stored.dialogSha256,
                 QCryptographicHash::hash(shown.toUtf8(), QCryptographicHash::Sha256));
        QCOMPARE(stored.publicKey, publicKey);
        const fb::ApproverKey listed{u"alice"_s, ApprovalKeys::fingerprint(publicKey), publicKey};
        const ApprovalCheck check = verifyApproval(*signedRow, stored, {listed});
        QVERIFY2(check.counts, qPrintable(check.reason));

        // No key: recorded unsigned, and the dialog says why.
        keyError = u"no approval key in the keychain yet"_s;
        const auto unsignedRow = publish("unsigned-1");
        QVERIFY(unsignedRow);
        QTRY_VERIFY_WITH_TIMEOUT(select(u"unsigned-1"_s), 10000);
        QTest::mouseClick(dialog.denyButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(recorded.size(), 2, 10000);
        QVERIFY2(dialog.statusLabel()->text().contains(
                     u"recorded, not signed: no approval key in the keychain yet"_s),
                 qPrintable(dialog.statusLabel()->text()));
        QVERIFY(rowOf(unsignedRow->id).statement.isEmpty());

        // The proposing broker's report of an approval it did not count shows under the details
        // of that proposal (woken by the report's NOTIFY), and not under another's.
        const auto third = publish("reported-1");
        QVERIFY(third);
        QTRY_VERIFY_WITH_TIMEOUT(select(u"reported-1"_s), 10000);
        QVERIFY(dialog.rejectedLabel()->isHidden());
        TeamApproval bob(u"bob"_s, u"approve"_s, u"bob"_s, u"ws-3"_s);
        bob.id = "00000000-0000-4000-8000-000000000001";
        std::optional<bool> reported;
        carol->reportRejected(third->id, bob,
                              u"signed with key SHA256:x, which the policy does not list\n<b>"_s,
                              [&](const std::optional<bool> &v, const QString &) { reported = v; });
        QTRY_VERIFY_WITH_TIMEOUT(reported.value_or(false), 10000);
        QTRY_VERIFY_WITH_TIMEOUT(dialog.rejectedLabel()->isVisible(), 10000);
        QVERIFY2(dialog.rejectedLabel()->text().startsWith(
                     u"bob's approval does not count: signed with key SHA256:x"_s),
                 qPrintable(dialog.rejectedLabel()->text()));
        QCOMPARE(dialog.rejectedLabel()->textFormat(), Qt::PlainText);
        QCOMPARE(spoken(dialog.rejectedLabel()), dialog.rejectedLabel()->text());
        QVERIFY(!dialog.rejectedLabel()->text().contains(u'\n')); // a control character, made inert
        QVERIFY(select(u"signed-1"_s));
        QTRY_VERIFY_WITH_TIMEOUT(dialog.rejectedLabel()->isHidden(), 10000);
        dialog.close();
    }

    void ownProposalCannotBeApprovedHere()
    {
        FB_SQL(*fx.super, "GRANT fabric_approvers TO dave");
        auto dave = queueAs(u"dave"_s, u"ws-4"_s);
        QTRY_VERIFY_WITH_TIMEOUT(dave->isAvailable(), 10000);
        std::optional<QByteArray> id;
        dave->publish(u"connection_create"_s, R"({"name":"own"})", {}, std::nullopt, "{}",
                      QCryptographicHash::hash("own", QCryptographicHash::Sha256), 60000,
                      [&](const std::optional<QByteArray> &v, const QString &) { id = v; });
        QTRY_VERIFY_WITH_TIMEOUT(id.has_value(), 10000);
        TeamApprovalsDialog dialog(dave.get());
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.open();
        QTRY_VERIFY_WITH_TIMEOUT(dialog.list()->count() >= 1, 10000);
        for (int i = 0; i < dialog.list()->count(); ++i) {
            dialog.list()->setCurrentRow(i);
            if (dialog.details()->toPlainText().contains(u"\"own\""_s))
                break;
        }
        QVERIFY(dialog.details()->toPlainText().contains(u"\"own\""_s));
        QVERIFY(!dialog.approveButton()->isEnabled());
        QVERIFY(dialog.denyButton()->isEnabled());
        QVERIFY(dialog.statusLabel()->text().contains(u"would not count"_s));
        dialog.close();
    }

    void theAppOpensTheDialogWhenAProposalWaits()
    {
        // What DesktopUi creates when team.database is set.
        TeamDesk desk(fx.cluster.uri(u"bob"_s, db));
        QTRY_VERIFY_WITH_TIMEOUT(desk.queue()->isAvailable() && desk.queue()->isApprover(), 10000);
        auto openDialogs = [] {
            int n = 0;
            for (QWidget *w : QApplication::topLevelWidgets())
                if (qobject_cast<TeamApprovalsDialog *>(w) && w->isVisible())
                    ++n;
            return n;
        };
        auto carol = queueAs(u"carol"_s, u"ws-1"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable(), 10000);
        std::optional<QByteArray> id;
        carol->publish(u"connection_create"_s, R"({"name":"pop"})", {}, std::nullopt, "{}",
                       QCryptographicHash::hash("pop", QCryptographicHash::Sha256), 60000,
                       [&](const std::optional<QByteArray> &v, const QString &) { id = v; });
        QTRY_VERIFY_WITH_TIMEOUT(id.has_value(), 10000);
        QTRY_COMPARE_WITH_TIMEOUT(openDialogs(), 1, 10000);
        // A proposer-only role's app never pops it.
        TeamDesk proposerDesk(fx.cluster.uri(u"carol"_s, db));
        QTRY_VERIFY_WITH_TIMEOUT(proposerDesk.queue()->isAvailable(), 10000);
        QTest::qWait(300);
        QCOMPARE(openDialogs(), 1);
    }

    void bannerWhileTheDatabaseIsUnreachable()
    {
        auto bob = queueAs(u"bob"_s, u"ws-3"_s);
        QTRY_VERIFY_WITH_TIMEOUT(bob->isAvailable(), 10000);
        bob->connection().reconnectDelayMs = 2000;
        TeamApprovalsDialog dialog(bob.get());
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.open();
        QVERIFY(dialog.banner()->isHidden());
        FB_SQL(*fx.super, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                          "usename = 'bob'");
        QTRY_VERIFY_WITH_TIMEOUT(!dialog.banner()->isHidden(), 10000);
        QVERIFY(dialog.banner()->text().contains(u"unreachable"_s));
        QVERIFY(!dialog.approveButton()->isEnabled());
        QVERIFY(!dialog.denyButton()->isEnabled());
        QTRY_VERIFY_WITH_TIMEOUT(dialog.banner()->isHidden(), 15000);
        dialog.close();
    }
};

QTEST_MAIN(TstTeamApprovalsDialog)
#include "tst_team_approvals_dialog.moc"
