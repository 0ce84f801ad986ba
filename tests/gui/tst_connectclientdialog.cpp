// ConnectClientDialog: it shows exactly the snippets the one generator (mcp/ClientSnippets) makes,
// each copied or opened by its button, and with the loopback HTTP endpoint on adds the HTTP
// snippets, none of which holds the bearer token.
#include "TestEnvironment.h"
#include "gui/ConnectClientDialog.h"
#include "mcp/ClientSnippets.h"
#include "transport/http/HttpToken.h"

#include <QApplication>
#include <QClipboard>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace fb;

class TestConnectClientDialog : public QObject {
    Q_OBJECT

private slots:
    void init() { fbtest::failOnWarnings(); }

    void connectClientSnippets()
    {
        // The dialog shows exactly what the one generator makes (its parsing is tested with real
        // JSON/TOML/URL parsers in tests/e2e/client-config.test.mjs).
        const QString exe = QStringLiteral("/opt/Fabric Broker/bin/fabric-broker");
        ConnectClientDialog dialog(exe);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        dialog.setOpenLinks(false);
        const QList<mcp::ClientSnippet> snippets = mcp::ClientSnippets::all(exe);
        QStringList ids;
        for (const mcp::ClientSnippet &s : snippets)
            ids << s.id;
        QCOMPARE(dialog.snippetIds(), ids);
        // The note beside the snippets: the same text as client-config and the README.
        const auto *note = dialog.findChild<QLabel *>(QStringLiteral("proposalsNote"));
        QVERIFY(note);
        QCOMPARE(note->text(), mcp::ClientSnippets::proposalsNote());
        const auto *toolsets = dialog.findChild<QLabel *>(QStringLiteral("toolsetsNote"));
        QVERIFY(toolsets);
        QCOMPARE(toolsets->text(), mcp::ClientSnippets::toolsetsNote());
        for (const char *client :
             {"Claude Code", "Claude Desktop", "VS Code", "Cursor", "Codex", "Gemini CLI"}) {
            bool found = false;
            for (const mcp::ClientSnippet &s : snippets)
                found = found || s.client == QLatin1StringView(client);
            QVERIFY2(found, client);
        }
        for (const mcp::ClientSnippet &s : snippets) {
            if (s.kind == mcp::ClientSnippet::Kind::Link) {
                QVERIFY(!dialog.snippet(s.id));
                QSignalSpy opened(&dialog, &ConnectClientDialog::linkRequested);
                QTest::mouseClick(dialog.installButton(s.id), Qt::LeftButton);
                QCOMPARE(opened.count(), 1);
                QCOMPARE(opened.at(0).at(0).toString(), s.text);
            } else {
                QVERIFY(!dialog.installButton(s.id)); // copy buttons otherwise
                QCOMPARE(dialog.snippet(s.id)->toPlainText(), s.text);
            }
            QTest::mouseClick(dialog.copyButton(s.id), Qt::LeftButton);
            QCOMPARE(QApplication::clipboard()->text(), s.text);
        }
        QVERIFY(dialog.snippet("claude-code")
                    ->toPlainText()
                    .contains("'/opt/Fabric Broker/bin/fabric-broker' --stdio"));
    }

    void connectClientHttpSnippets()
    {
        // With the loopback HTTP endpoint on, the dialog adds its snippets after the stdio ones;
        // none holds the bearer token (it rotates at every start), even when a token file exists.
        QTemporaryDir runtime;
        QVERIFY(QFile::setPermissions(runtime.path(), QFileDevice::ReadOwner |
                                                          QFileDevice::WriteOwner |
                                                          QFileDevice::ExeOwner));
        const QByteArray oldRuntime = qgetenv("XDG_RUNTIME_DIR");
        qputenv("XDG_RUNTIME_DIR", QFile::encodeName(runtime.path()));
        QString error;
        const QByteArray token =
            transport::HttpToken::loadOrCreate(transport::HttpToken::defaultPath(), &error);
        QVERIFY2(!token.isEmpty(), qPrintable(error));
        const QString exe = QStringLiteral("/opt/Fabric Broker/bin/fabric-broker");
        const QString url = QStringLiteral("http://127.0.0.1:7431/mcp");
        ConnectClientDialog dialog(exe, nullptr, url);
        dialog.setAttribute(Qt::WA_DeleteOnClose, false);
        qputenv("XDG_RUNTIME_DIR", oldRuntime);
        QStringList ids;
        for (const mcp::ClientSnippet &s : mcp::ClientSnippets::all(exe))
            ids << s.id;
        const QList<mcp::ClientSnippet> http = mcp::ClientSnippets::http(url, exe);
        for (const mcp::ClientSnippet &s : http)
            ids << s.id;
        QCOMPARE(dialog.snippetIds(), ids);
        for (const mcp::ClientSnippet &s : http) {
            const QString shown = dialog.snippet(s.id)->toPlainText();
            QCOMPARE(shown, s.text);
            QVERIFY2(!shown.contains(QString::fromLatin1(token)), qPrintable(s.id));
            if (!s.note.isEmpty()) {
                auto *note = dialog.findChild<QLabel *>(s.id + QStringLiteral("Note"));
                QVERIFY(note);
                QCOMPARE(note->text(), s.note);
                QCOMPARE(note->textFormat(), Qt::PlainText);
            }
        }
        const QString command = dialog.snippet("claude-code-http")->toPlainText();
        QVERIFY2(command.startsWith("claude mcp add-json --scope user fabric-broker '"),
                 qPrintable(command));
        QVERIFY2(
            command.contains(
                R"("headersHelper":"'\''/opt/Fabric Broker/bin/fabric-broker'\'' http-headers")"),
            qPrintable(command));
        auto *httpNote = dialog.findChild<QLabel *>(QStringLiteral("httpNote"));
        QVERIFY(httpNote);
        QVERIFY(httpNote->text().contains(url));
        QVERIFY(httpNote->text().contains(QStringLiteral("stdio")));
        // Without the endpoint: no HTTP snippet (and the stdio list is unchanged).
        ConnectClientDialog plain(exe);
        plain.setAttribute(Qt::WA_DeleteOnClose, false);
        QVERIFY(!plain.snippetIds().contains("claude-code-http"));
        QVERIFY(!plain.findChild<QLabel *>(QStringLiteral("httpNote")));
    }
};

QTEST_MAIN(TestConnectClientDialog)
#include "tst_connectclientdialog.moc"
