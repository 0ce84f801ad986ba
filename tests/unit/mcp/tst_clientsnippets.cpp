// ClientSnippets::http: the HTTP snippets never hold the bearer token (it rotates at every
// start): Claude Code's headersHelper runs `<exe> http-headers`; Codex, Gemini CLI and Cursor
// read FABRIC_BROKER_HTTP_TOKEN. HttpToken::read, what `http-headers` uses: read-only, a
// private directory, O_NOFOLLOW, this user's 0600 file.
#include "TestEnvironment.h"
#include "mcp/ClientSnippets.h"
#include "transport/http/HttpToken.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace fb::mcp;
using namespace fb::transport;

class TestClientSnippets : public QObject {
    Q_OBJECT
private slots:
    void init() { fbtest::failOnWarnings(); }

    void httpSnippetTexts();
    void httpSnippetsQuoteTheExecutable();
    void readIsReadOnlyAndPrivate();
};

namespace {
ClientSnippet byId(const QList<ClientSnippet> &list, const QString &id)
{
    for (const ClientSnippet &s : list) {
        if (s.id == id)
            return s;
    }
    return {};
}
} // namespace

void TestClientSnippets::httpSnippetTexts()
{
    const QString url = QStringLiteral("http://127.0.0.1:7431/mcp");
    const QList<ClientSnippet> http = ClientSnippets::http(url, "/usr/bin/fabric-broker");
    QStringList ids;
    for (const ClientSnippet &s : http)
        ids << s.id;
    QCOMPARE(ids, QStringList({"claude-code-http", "codex-http", "gemini-http", "cursor-http",
                               "http-headers"}));
    QCOMPARE(byId(http, "claude-code-http").text,
             QStringLiteral("claude mcp add-json --scope user fabric-broker "
                            "'{\"headersHelper\":\"/usr/bin/fabric-broker http-headers\","
                            "\"type\":\"http\",\"url\":\"http://127.0.0.1:7431/mcp\"}'"));
    QCOMPARE(byId(http, "codex-http").text,
             QStringLiteral("[mcp_servers.fabric-broker]\nurl = \"http://127.0.0.1:7431/mcp\"\n"
                            "bearer_token_env_var = \"FABRIC_BROKER_HTTP_TOKEN\"\n"
                            "# a person approves changes: give them time\n"
                            "tool_timeout_sec = 900"));
    QCOMPARE(byId(http, "codex-http").where, QStringLiteral("~/.codex/config.toml"));
    const QJsonObject gemini = QJsonDocument::fromJson(byId(http, "gemini-http").text.toUtf8())
                                   .object()["mcpServers"]
                                   .toObject()["fabric-broker"]
                                   .toObject();
    QCOMPARE(gemini["httpUrl"].toString(), url);
    QCOMPARE(gemini["headers"].toObject()["Authorization"].toString(),
             QStringLiteral("Bearer $FABRIC_BROKER_HTTP_TOKEN"));
    QCOMPARE(gemini["trust"], QJsonValue(false));
    const QJsonObject cursor = QJsonDocument::fromJson(byId(http, "cursor-http").text.toUtf8())
                                   .object()["mcpServers"]
                                   .toObject()["fabric-broker"]
                                   .toObject();
    QCOMPARE(cursor["url"].toString(), url);
    QCOMPARE(cursor["headers"].toObject()["Authorization"].toString(),
             QStringLiteral("Bearer ${env:FABRIC_BROKER_HTTP_TOKEN}"));
    QCOMPARE(byId(http, "http-headers").text,
             QStringLiteral("/usr/bin/fabric-broker http-headers"));
    // The clients that read the variable say how to fill it: from the helper, never a literal.
    for (const QString id : {"codex-http", "gemini-http", "cursor-http"}) {
        QVERIFY2(byId(http, id).note.contains(QStringLiteral(
                     "export FABRIC_BROKER_HTTP_TOKEN=\"$(/usr/bin/fabric-broker http-headers "
                     "--token)\"")),
                 qPrintable(byId(http, id).note));
    }
    QVERIFY(ClientSnippets::httpNote().contains("VS Code"));
    QVERIFY(ClientSnippets::httpNote().contains("Claude Desktop"));
    QVERIFY(ClientSnippets::httpNote().contains("stdio"));
    const QJsonObject doc = ClientSnippets::httpJson(url, "/usr/bin/fabric-broker");
    QCOMPARE(doc["snippets"].toArray().size(), http.size());
    QCOMPARE(doc["token_variable"].toString(), QStringLiteral("FABRIC_BROKER_HTTP_TOKEN"));
}

void TestClientSnippets::httpSnippetsQuoteTheExecutable()
{
    const QList<ClientSnippet> http =
        ClientSnippets::http("http://[::1]:9/mcp", "/opt/Fabric Broker/bin/fabric-broker");
    // The helper is a shell command: the path is one shell word inside the JSON, which is one
    // shell word of `claude mcp add-json`.
    QCOMPARE(byId(http, "http-headers").text,
             QStringLiteral("'/opt/Fabric Broker/bin/fabric-broker' http-headers"));
    QVERIFY(byId(http, "claude-code-http")
                .text.contains(QStringLiteral(
                    "\"headersHelper\":\"'\\''/opt/Fabric Broker/bin/fabric-broker'\\'' "
                    "http-headers\"")));
}

void TestClientSnippets::readIsReadOnlyAndPrivate()
{
    QTemporaryDir scratch;
    QVERIFY(scratch.isValid());
    const QString dir = scratch.filePath("run");
    QVERIFY(QDir().mkdir(dir));
    QVERIFY(QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                           QFileDevice::ExeOwner));
    const QString path = dir + QStringLiteral("/fabric-broker-http.token");
    QString error;
    // Missing: an error naming the file, and nothing is created.
    QVERIFY(HttpToken::read(path, &error).isEmpty());
    QVERIFY2(error.contains(path), qPrintable(error));
    QVERIFY(!QFile::exists(path));
    // What the server wrote is read back.
    const QByteArray token = HttpToken::rotate(path, &error);
    QVERIFY2(!token.isEmpty(), qPrintable(error));
    QCOMPARE(HttpToken::read(path, &error), token);
    // A file others can read is refused.
    QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                            QFileDevice::ReadOther));
    error.clear();
    QVERIFY(HttpToken::read(path, &error).isEmpty());
    QVERIFY2(error.contains("0600"), qPrintable(error));
    QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner));
    // A symlink to a valid token file is not followed.
    const QString link = dir + QStringLiteral("/link.token");
    QVERIFY(QFile::link(path, link));
    error.clear();
    QVERIFY(HttpToken::read(link, &error).isEmpty());
    QVERIFY(!error.isEmpty());
    // A directory other users can enter is refused, even with a good file in it.
    QVERIFY(QFile::setPermissions(dir, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                           QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                           QFileDevice::ExeOther));
    error.clear();
    QVERIFY(HttpToken::read(path, &error).isEmpty());
    QVERIFY2(error.contains("0700"), qPrintable(error));
}

QTEST_GUILESS_MAIN(TestClientSnippets)
#include "tst_clientsnippets.moc"
