#include "mcp/ClientSnippets.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QUrl>

using namespace Qt::StringLiterals;

namespace fb::mcp {

namespace {

QJsonArray argsJson()
{
    return QJsonArray::fromStringList(ClientSnippets::serverArgs());
}

QString compact(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Compact));
}

QString indented(const QJsonObject &o)
{
    return QString::fromUtf8(QJsonDocument(o).toJson(QJsonDocument::Indented)).trimmed();
}

// The HTTP snippets' JSON carries each snippet's note; the stdio snippets' JSON never has.
enum class WithNotes { No, Yes };

QJsonArray snippetsJson(const QList<ClientSnippet> &list, WithNotes notes)
{
    QJsonArray snippets;
    for (const ClientSnippet &s : list) {
        QJsonObject o{{u"id"_s, s.id},
                      {u"client"_s, s.client},
                      {u"kind"_s, ClientSnippets::kindName(s.kind)},
                      {u"text"_s, s.text}};
        if (!s.where.isEmpty())
            o.insert(u"where"_s, s.where);
        if (notes == WithNotes::Yes && !s.note.isEmpty())
            o.insert(u"note"_s, s.note);
        snippets.append(o);
    }
    return snippets;
}

} // namespace

QString ClientSnippets::serverName()
{
    return u"fabric-broker"_s;
}

QStringList ClientSnippets::serverArgs()
{
    return {u"--stdio"_s};
}

int ClientSnippets::toolTimeoutSeconds()
{
    return 900;
}

QString ClientSnippets::proposalsNote()
{
    return u"With no Fabric Broker app running, a spawned fabric-broker --stdio serves only the "
           u"read tools: proposals are off. To let agents propose creates, start the Fabric "
           u"Broker app and turn on proposals there (Turn on proposals, or Settings), or add "
           u"--toolsets read,mutate after --stdio (used while no app runs; a running app refuses "
           u"it unless proposals are on there)."_s;
}

QString ClientSnippets::toolsetsNote()
{
    return u"The agent reads through the core read tools by default. For the whole estate add "
           u"--toolsets all-read after --stdio, or name the read toolsets it needs: read, "
           u"estate, routing, observability, precision-time, marketplace, account (README, "
           u"Toolsets); with the app running, turn them on in its Settings."_s;
}

QString ClientSnippets::kindName(ClientSnippet::Kind kind)
{
    switch (kind) {
    case ClientSnippet::Kind::Command:
        return u"command"_s;
    case ClientSnippet::Kind::File:
        return u"file"_s;
    case ClientSnippet::Kind::Link:
        break;
    }
    return u"link"_s;
}

QString ClientSnippets::shellQuote(const QString &arg)
{
    static const QRegularExpression safe(u"^[A-Za-z0-9_./:@%+=,-]+$"_s);
    if (!arg.isEmpty() && safe.match(arg).hasMatch())
        return arg;
    QString quoted = arg;
    quoted.replace(u'\'', u"'\\''"_s);
    return u'\'' + quoted + u'\'';
}

QString ClientSnippets::tomlString(const QString &text)
{
    QString out = u"\""_s;
    for (const QChar c : text) {
        if (c == u'"' || c == u'\\') {
            out += u'\\';
            out += c;
        } else if (c.unicode() < 0x20 || c.unicode() == 0x7f) {
            out += u"\\u%1"_s.arg(c.unicode(), 4, 16, QChar(u'0'));
        } else {
            out += c;
        }
    }
    return out + u'"';
}

QList<ClientSnippet> ClientSnippets::all(const QString &exe)
{
    const QString name = serverName();
    const QString q = shellQuote(exe);
    QStringList argWords;
    for (const QString &a : serverArgs())
        argWords << shellQuote(a);
    const QString args = argWords.join(u' ');
    const QJsonObject stdioServer{{u"command"_s, exe}, {u"args"_s, argsJson()}};
    QJsonObject typed = stdioServer;
    typed.insert(u"type"_s, u"stdio"_s);
    QJsonObject named = stdioServer;
    named.insert(u"name"_s, name);
    const QJsonObject mcpServers{{u"mcpServers"_s, QJsonObject{{name, stdioServer}}}};
    QJsonObject gemini = stdioServer;
    gemini.insert(u"trust"_s, false); // every tool call is confirmed in Gemini CLI as well
    QStringList tomlArgs;
    for (const QString &a : serverArgs())
        tomlArgs << tomlString(a);

    using K = ClientSnippet::Kind;
    return {
        // User scope: the default scope is one project directory.
        {u"claude-code"_s,
         u"Claude Code"_s,
         K::Command,
         {},
         u"claude mcp add --scope user %1 -- %2 %3"_s.arg(name, q, args)},
        {u"claude-code-json"_s,
         u"Claude Code"_s,
         K::Command,
         {},
         u"claude mcp add-json --scope user %1 %2"_s.arg(name, shellQuote(compact(typed)))},
        {u"claude-desktop"_s, u"Claude Desktop"_s, K::File, u"claude_desktop_config.json"_s,
         indented(mcpServers)},
        {u"vscode"_s,
         u"VS Code"_s,
         K::Command,
         {},
         u"code --add-mcp %1"_s.arg(shellQuote(compact(named)))},
        {u"vscode-link"_s,
         u"VS Code"_s,
         K::Link,
         {},
         u"vscode:mcp/install?"_s + QString::fromLatin1(QUrl::toPercentEncoding(compact(named)))},
        {u"cursor-link"_s,
         u"Cursor"_s,
         K::Link,
         {},
         u"cursor://anysphere.cursor-deeplink/mcp/install?name=%1&config=%2"_s.arg(
             QString::fromLatin1(QUrl::toPercentEncoding(name)),
             QString::fromLatin1(QUrl::toPercentEncoding(
                 QString::fromLatin1(compact(stdioServer).toUtf8().toBase64()))))},
        {u"cursor"_s, u"Cursor"_s, K::File, u"~/.cursor/mcp.json"_s, indented(mcpServers)},
        {u"codex"_s, u"Codex"_s, K::File, u"~/.codex/config.toml"_s,
         u"[mcp_servers.%1]\ncommand = %2\nargs = [%3]\n# a person approves changes: give them "
         u"time\ntool_timeout_sec = %4"_s.arg(name, tomlString(exe), tomlArgs.join(u", "_s))
             .arg(toolTimeoutSeconds())},
        {u"gemini"_s, u"Gemini CLI"_s, K::File, u"~/.gemini/settings.json"_s,
         indented(QJsonObject{{u"mcpServers"_s, QJsonObject{{name, gemini}}}})},
    };
}

QString ClientSnippets::httpTokenVariable()
{
    return u"FABRIC_BROKER_HTTP_TOKEN"_s;
}

QString ClientSnippets::httpNote()
{
    return u"Over HTTP every request needs the bearer token, which is new at every start of "
           u"the broker; no snippet holds it. VS Code and Claude Desktop can only be given the "
           u"token as a literal (VS Code's inputs keep a pasted one, which goes stale at the "
           u"next start; Claude Desktop's config file takes no headers): connect them with the "
           u"stdio snippets instead."_s;
}

QList<ClientSnippet> ClientSnippets::http(const QString &url, const QString &exe)
{
    const QString name = serverName();
    const QString var = httpTokenVariable();
    const QString headersCommand = shellQuote(exe) + u" http-headers"_s;
    const QString tokenCommand = headersCommand + u" --token"_s;
    // Run in the shell that starts the client: the token goes into the client's environment
    // (readable only by this user), never onto a command line or into shell history.
    const QString exportLine = u"export %1=\"$(%2)\""_s.arg(var, tokenCommand);
    const QString envNote =
        u"Start it from a shell where you first ran: %1 (again after each start of the broker, "
        u"which makes a new token)."_s.arg(exportLine);
    const QJsonObject claude{
        {u"type"_s, u"http"_s}, {u"url"_s, url}, {u"headersHelper"_s, headersCommand}};
    const QJsonObject gemini{
        {u"httpUrl"_s, url},
        {u"headers"_s, QJsonObject{{u"Authorization"_s, QString(u"Bearer $"_s + var)}}},
        {u"trust"_s, false}};
    const QJsonObject cursor{
        {u"url"_s, url},
        {u"headers"_s,
         QJsonObject{{u"Authorization"_s, QString(u"Bearer ${env:"_s + var + u'}')}}}};
    using K = ClientSnippet::Kind;
    return {
        // headersHelper: Claude Code runs the command at every connection and sends the headers
        // it prints, so a rotated token is picked up by a reconnect.
        {u"claude-code-http"_s,
         u"Claude Code over HTTP"_s,
         K::Command,
         {},
         u"claude mcp add-json --scope user %1 %2"_s.arg(name, shellQuote(compact(claude))),
         u"Claude Code runs %1 at each connection to get the current token."_s.arg(headersCommand)},
        {u"codex-http"_s, u"Codex over HTTP"_s, K::File, u"~/.codex/config.toml"_s,
         u"[mcp_servers.%1]\nurl = %2\nbearer_token_env_var = %3\n# a person approves changes: "
         u"give them time\ntool_timeout_sec = %4"_s.arg(name, tomlString(url), tomlString(var),
                                                        QString::number(toolTimeoutSeconds())),
         envNote},
        {u"gemini-http"_s, u"Gemini CLI over HTTP"_s, K::File, u"~/.gemini/settings.json"_s,
         indented(QJsonObject{{u"mcpServers"_s, QJsonObject{{name, gemini}}}}), envNote},
        {u"cursor-http"_s, u"Cursor over HTTP"_s, K::File, u"~/.cursor/mcp.json"_s,
         indented(QJsonObject{{u"mcpServers"_s, QJsonObject{{name, cursor}}}}), envNote},
        {u"http-headers"_s,
         u"Any client over HTTP"_s,
         K::Command,
         {},
         headersCommand,
         u"Prints the header every request to %1 needs, as JSON (--token: the token alone). "
         u"Give it to the client through a file or a helper, never on a command line."_s.arg(url)},
    };
}

QJsonObject ClientSnippets::httpJson(const QString &url, const QString &executable)
{
    return QJsonObject{{u"url"_s, url},
                       {u"token_variable"_s, httpTokenVariable()},
                       {u"note"_s, httpNote()},
                       {u"snippets"_s, snippetsJson(http(url, executable), WithNotes::Yes)}};
}

QJsonObject ClientSnippets::toJson(const QString &executable)
{
    return QJsonObject{{u"executable"_s, executable},
                       {u"args"_s, argsJson()},
                       {u"note"_s, proposalsNote()},
                       {u"toolsets_note"_s, toolsetsNote()},
                       {u"snippets"_s, snippetsJson(all(executable), WithNotes::No)}};
}

} // namespace fb::mcp
