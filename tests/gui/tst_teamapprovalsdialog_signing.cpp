// What the approver signs in the app, on a real PostgreSQL 15 (TeamApprovalsDialogFixture.h),
// rendered offscreen: with a key loader (the keychain's approval key) TeamApprovalsDialog's
// decision carries its signed statement, which verifies against the key and the text shown, and
// the approvals the proposing broker rejected are listed; an unknown outcome is shown with its
// lookup and resolved, signed, by a person other than the proposer; the row is shown as published
// (the broker's Request SHA-256, Sandbox or Production) or refused when its hash is not its body's.
#include "TeamApprovalsDialogFixture.h"
#include "TestEnvironment.h"
#include "core/CompiledRequest.h"
#include "gui/TeamApprovalsDialog.h"
#include "team/ApprovalKeys.h"
#include "team/ApprovalVerify.h"

#include <QAccessible>
#include <QCryptographicHash>
#include <QJsonDocument>
#include <QJsonObject>
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

class TstTeamApprovalsDialogSigning : public QObject, private TeamApprovalsDialogHarness {
    Q_OBJECT

private slots:
    void initTestCase() { initTeam(); }
    void init() { failOnWarnings(); }

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
        auto publish = [&](const QByteArray &name) { return publishAndConsume(*carol, name); };
        auto select = [&](const QString &name) { return selectRow(dialog, name); };
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

    // An unknown outcome (issue #26, requirement 5): shown with the lookup already run; only a
    // person other than the proposer can mark it, created with the one uuid found or not created
    // when nothing was found, signed over the exact text shown, lookup included.
    void anUnknownOutcomeIsResolvedBySecondPerson()
    {
        auto carol = queueAs(u"carol"_s, u"ws-1"_s);
        auto alice = queueAs(u"alice"_s, u"ws-2"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && alice->isAvailable(), 10000);
        const QByteArray privateKey = ApprovalKeys::generate().value_or(QByteArray());
        const QByteArray publicKey = ApprovalKeys::publicKeyOf(privateKey).value_or(QByteArray());
        QVERIFY(!publicKey.isEmpty());

        // carol's create left unknown: published, approved, sending, outcome unknown.
        auto unknownCreate = [&](const QByteArray &name) { return leaveUnknown(*carol, name); };
        // The catalog as the test decides it: by request name.
        QHash<QString, CreateLookup> catalog;
        int lookups = 0;
        auto lookup = [&](const TeamProposal &p, std::function<void(const CreateLookup &)> answer) {
            ++lookups;
            const QString name =
                QJsonDocument::fromJson(p.request).object().value(u"name"_s).toString();
            CreateLookup l = catalog.value(name);
            l.call = createLookupCall(p.changeType, p.request);
            QTimer::singleShot(10, alice.get(), [answer, l] { answer(l); });
        };
        CreateLookup none;
        none.ok = true;
        catalog.insert(u"gone-1"_s, none);
        CreateLookup one;
        one.ok = true;
        one.matches.append(QJsonObject{{u"uuid"_s, u"11111111-2222-4333-8444-555555555555"_s},
                                       {u"name"_s, u"made-1"_s},
                                       {u"state"_s, u"ACTIVE"_s}});
        catalog.insert(u"made-1"_s, one);
        CreateLookup failed;
        failed.error = u"Fabric answered 503"_s;
        catalog.insert(u"down-1"_s, failed);

        const auto gone = unknownCreate("gone-1");
        const auto made = unknownCreate("made-1");
        const auto down = unknownCreate("down-1");
        QVERIFY(gone && made && down);

        auto open = [&](TeamQueue *queue) {
            auto d = std::make_unique<TeamApprovalsDialog>(queue);
            d->setAttribute(Qt::WA_DeleteOnClose, false);
            d->setKeyLoader([&, dialog = d.get()](auto answer) {
                QTimer::singleShot(10, dialog, [&, answer] { answer(privateKey, QString()); });
            });
            d->setLookup(lookup);
            d->open();
            return d;
        };
        auto select = [](TeamApprovalsDialog &d, const QString &name) {
            return selectRow(d, name);
        };

        // The proposer's own app shows it, searched, but cannot mark it.
        auto own = open(carol.get());
        QTRY_VERIFY_WITH_TIMEOUT(
            select(*own, u"gone-1"_s) &&
                own->details()->toPlainText().contains(u"no resource has this name"_s),
            10000);
        QVERIFY(!own->markCreatedButton()->isEnabled());
        QVERIFY(!own->markNotCreatedButton()->isEnabled());
        QVERIFY2(own->statusLabel()->text().contains(u"another person marks its outcome"_s),
                 qPrintable(own->statusLabel()->text()));
        own->close();

        auto dialog = open(alice.get());
        // A failed search: nothing can be marked.
        QTRY_VERIFY_WITH_TIMEOUT(select(*dialog, u"down-1"_s) &&
                                     dialog->details()->toPlainText().contains(
                                         u"the search failed: Fabric answered 503"_s),
                                 10000);
        QVERIFY(dialog->markCreatedButton()->isVisible());
        QVERIFY(!dialog->markCreatedButton()->isEnabled());
        QVERIFY(!dialog->markNotCreatedButton()->isEnabled());
        QVERIFY(!dialog->approveButton()->isEnabled());

        // Nothing found: "not created", signed over the text shown.
        QTRY_VERIFY_WITH_TIMEOUT(
            select(*dialog, u"gone-1"_s) && dialog->markNotCreatedButton()->isEnabled(), 10000);
        QVERIFY(!dialog->markCreatedButton()->isEnabled());
        const QString shown = dialog->details()->toPlainText();
        QVERIFY2(shown.contains(u"Lookup: fabric_search_connections {\"name\":\"gone-1\"}"_s),
                 qPrintable(shown));
        QSignalSpy resolved(dialog.get(), &TeamApprovalsDialog::resolutionRecorded);
        QTest::mouseClick(dialog->markNotCreatedButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(resolved.size(), 1, 10000);
        QCOMPARE(resolved.at(0).at(1).toString(), u"not_created"_s);
        QCOMPARE(resolved.at(0).at(2).toBool(), true);
        QVERIFY2(dialog->statusLabel()->text().contains(
                     u"signed with key %1"_s.arg(ApprovalKeys::fingerprint(publicKey))),
                 qPrintable(dialog->statusLabel()->text()));
        std::optional<TeamQueue::Snapshot> snap;
        alice->read(gone->id, [&](const std::optional<TeamQueue::Snapshot> &s, const QString &) {
            snap = s;
        });
        QTRY_VERIFY_WITH_TIMEOUT(snap.has_value(), 10000);
        QCOMPARE(snap->state, u"not_created"_s);
        QVERIFY(snap->resolution);
        QCOMPARE(snap->resolution->resolver, u"alice"_s);
        QCOMPARE(snap->resolution->outcome, u"not_created"_s);
        QCOMPARE(snap->resolution->dialogSha256,
                 QCryptographicHash::hash(shown.toUtf8(), QCryptographicHash::Sha256));
        const fb::ApproverKey listed{u"alice"_s, ApprovalKeys::fingerprint(publicKey), publicKey};
        const ApprovalCheck check = verifyResolution(*gone, *snap->resolution, {listed});
        QVERIFY2(check.counts, qPrintable(check.reason));

        // One resource of that name: "created" with its uuid.
        QTRY_VERIFY_WITH_TIMEOUT(
            select(*dialog, u"made-1"_s) && dialog->markCreatedButton()->isEnabled(), 10000);
        QVERIFY(!dialog->markNotCreatedButton()->isEnabled());
        QTest::mouseClick(dialog->markCreatedButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(resolved.size(), 2, 10000);
        QCOMPARE(resolved.at(1).at(2).toBool(), true);
        snap.reset();
        alice->read(made->id, [&](const std::optional<TeamQueue::Snapshot> &s, const QString &) {
            snap = s;
        });
        QTRY_VERIFY_WITH_TIMEOUT(snap.has_value(), 10000);
        QCOMPARE(snap->state, u"created"_s);
        QVERIFY(snap->resolution);
        QCOMPARE(snap->resolution->uuid, u"11111111-2222-4333-8444-555555555555"_s);
        // The resolved one is shown as resolved, and nothing more can be marked on it.
        QTRY_VERIFY_WITH_TIMEOUT(
            select(*dialog, u"made-1"_s) &&
                dialog->details()->toPlainText().contains(u"Outcome resolved by role alice"_s),
            10000);
        QVERIFY(!dialog->markCreatedButton()->isEnabled());
        QVERIFY(!dialog->markNotCreatedButton()->isEnabled());
        QVERIFY(lookups >= 3);
        dialog->close();
    }

    // What you see is what you sign (issue #34): the Request SHA-256 shown is the broker's
    // request_sha256 (change type and body), the binding says Sandbox or Production with the
    // endpoint and credentials, and a row whose stored hash is not its body's is refused.
    void theRowIsShownAsPublishedOrRefused()
    {
        auto carol = queueAs(u"carol"_s, u"ws-1"_s);
        auto bob = queueAs(u"bob"_s, u"ws-3"_s);
        QTRY_VERIFY_WITH_TIMEOUT(carol->isAvailable() && bob->isAvailable(), 10000);
        auto publish = [&](const QByteArray &body, const QJsonObject &binding) {
            std::optional<QByteArray> id;
            carol->publish(u"connection_create"_s, body, binding, std::nullopt, "{}",
                           QCryptographicHash::hash(body, QCryptographicHash::Sha256), 60000,
                           [&](const std::optional<QByteArray> &v, const QString &) { id = v; });
            if (!QTest::qWaitFor([&] { return id.has_value(); }, 10000))
                return QByteArray();
            return id.value_or(QByteArray());
        };
        const QByteArray sandboxBody = R"({"name":"seen-sandbox"})";
        const QByteArray prodBody = R"({"name":"seen-production","bandwidth":10000})";
        QVERIFY(!publish(sandboxBody, {{u"fabric_endpoint"_s, u"http://127.0.0.1:4010"_s},
                                       {u"credential_identity"_s, u"client id sandbox"_s}})
                     .isEmpty());
        const QByteArray prodId =
            publish(prodBody, {{u"fabric_endpoint"_s, u"https://api.equinix.com"_s},
                               {u"credential_identity"_s, u"client id prod-7"_s}});
        QVERIFY(!prodId.isEmpty());

        TeamApprovalsDialog dialog(bob.get());
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.open();
        auto select = [&](const QString &name) { return selectRow(dialog, name); };
        QTRY_VERIFY_WITH_TIMEOUT(select(u"seen-sandbox"_s), 10000);
        QString shown = dialog.details()->toPlainText();
        QVERIFY2(shown.contains(u"Fabric: Sandbox, endpoint http://127.0.0.1:4010"_s),
                 qPrintable(shown));
        QVERIFY(shown.contains(u"Fabric credentials: client id sandbox"_s));
        // The same value the broker's result calls request_sha256, under the same name.
        const QString brokers = requestSha256(ChangeType::ConnectionCreate, sandboxBody);
        QVERIFY2(shown.contains(u"Request SHA-256: "_s + brokers), qPrintable(shown));
        QVERIFY(!shown.contains(QString::fromLatin1(
            QCryptographicHash::hash(sandboxBody, QCryptographicHash::Sha256).toHex())));
        QVERIFY(dialog.approveButton()->isEnabled());

        QVERIFY(select(u"seen-production"_s));
        shown = dialog.details()->toPlainText();
        QVERIFY2(shown.contains(u"Fabric: Production, endpoint https://api.equinix.com"_s),
                 qPrintable(shown));
        QVERIFY(shown.contains(u"Fabric credentials: client id prod-7"_s));
        QVERIFY(dialog.approveButton()->isEnabled());

        // The schema owner puts a harmless body beside the real request's hash.
        const auto check = owner->exec(
            "SELECT conname FROM pg_constraint WHERE conrelid = 'fabric_team.proposals'::regclass "
            "AND pg_get_constraintdef(oid) LIKE '%sha256(convert_to(request%'");
        QVERIFY(check.ok() && check.value->rowCount() == 1);
        const QByteArray conname = check.value->value(0, "conname");
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals DROP CONSTRAINT " + conname);
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals DISABLE TRIGGER USER");
        const auto swapped = owner->exec("UPDATE fabric_team.proposals SET request = "
                                         "'{\"name\":\"seen-production\",\"bandwidth\":50}' "
                                         "WHERE id = $1::uuid",
                                         {prodId});
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals ENABLE TRIGGER USER");
        FB_SQL(*owner, "ALTER TABLE fabric_team.proposals ADD CONSTRAINT " + conname +
                           " CHECK (request_sha256 = sha256(convert_to(request, 'UTF8'))) "
                           "NOT VALID");
        QVERIFY2(swapped.ok(), qPrintable(swapped.error.text()));
        dialog.refresh();
        QTRY_VERIFY_WITH_TIMEOUT(select(u"Refused"_s), 10000);
        shown = dialog.details()->toPlainText();
        QVERIFY2(shown.startsWith(u"Refused: this proposal is not shown"_s), qPrintable(shown));
        QVERIFY(!shown.contains(u"bandwidth"_s)); // not the harmless body
        QVERIFY(!shown.contains(u'\n'));          // one plain line
        QVERIFY(!dialog.approveButton()->isEnabled());
        QVERIFY(!dialog.denyButton()->isEnabled());
        QVERIFY(dialog.statusLabel()->text().startsWith(u"Refused"_s));
        QSignalSpy recorded(&dialog, &TeamApprovalsDialog::decisionRecorded);
        QTest::mouseClick(dialog.approveButton(), Qt::LeftButton);
        QTest::qWait(200);
        QCOMPARE(recorded.size(), 0);
        const auto none = owner->exec(
            "SELECT count(*) AS n FROM fabric_team.approvals WHERE proposal_id = $1::uuid",
            {prodId});
        QVERIFY(none.ok());
        QCOMPARE(none.value->value(0, "n"), QByteArray("0"));
        dialog.close();
    }
};

QTEST_MAIN(TstTeamApprovalsDialogSigning)
#include "tst_teamapprovalsdialog_signing.moc"
