// The approver's side in the app on a real PostgreSQL 15 (TeamApprovalsDialogFixture.h), rendered
// offscreen: TeamApprovalsDialog (opened with open(), never exec()) lists a proposal another
// workstation published as soon as the database's NOTIFY arrives, shows its untrusted strings
// inert, records a click on Approve as this role's decision bound to the SHA-256 of the text
// shown, and that decision completes the proposing broker's quorum; the role's own proposal
// cannot be approved; while the database is unreachable a banner says so and the decision buttons
// are off, and it comes back by itself. Signed decisions, rejections, unknown outcomes and the
// row as published: tst_teamapprovalsdialog_signing; when the app opens it: tst_teamdesk.
#include "TeamApprovalsDialogFixture.h"
#include "TestEnvironment.h"
#include "gui/TeamApprovalsDialog.h"
#include "team/ApprovalKeys.h"
#include "team/TeamConfirm.h"

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

class TstTeamApprovalsDialog : public QObject, private TeamApprovalsDialogHarness {
    Q_OBJECT

private slots:
    void initTestCase() { initTeam(); }
    void init()
    {
        // The session bannerWhileTheDatabaseIsUnreachable ends on purpose: allowed there alone.
        failOnWarnings(QByteArray(QTest::currentTestFunction()) ==
                               "bannerWhileTheDatabaseIsUnreachable"
                           ? QStringList{u"the team database connection was lost: "_s}
                           : QStringList{});
    }

    void approvalInTheDialogCompletesTheProposersQuorum()
    {
        auto carol = queueAs(u"carol"_s, u"ws-1"_s, u"evil\nPrice: USD 0.00 \u202Egnp.exe"_s);
        auto alice = queueAs(u"alice"_s, u"ws-2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);

        // alice's key, as her keychain holds it and the proposer's policy lists it: only signed
        // approvals count (issue #34).
        const QByteArray privateKey = ApprovalKeys::generate().value_or(QByteArray());
        const QByteArray publicKey = ApprovalKeys::publicKeyOf(privateKey).value_or(QByteArray());
        const fb::ApproverKey listed{u"alice"_s, ApprovalKeys::fingerprint(publicKey), publicKey};

        auto *dialog = new TeamApprovalsDialog(alice.get());
        QPointer<TeamApprovalsDialog> guard(dialog);
        dialog->setKeyLoader([&privateKey, dialog](auto answer) {
            QTimer::singleShot(10, dialog,
                               [&privateKey, answer] { answer(privateKey, QString()); });
        });
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
        confirm.setApproverKeys(QList<fb::ApproverKey>{listed});
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
#include "tst_teamapprovalsdialog.moc"
