#pragma once
// ClientSnippets: the one generator of every "connect this MCP client" snippet: the Connect a
// client dialog, `fabric-broker client-config` and the README all show its output. Every
// snippet runs the same stable command, `<executable> --stdio`, so admins can allowlist it; the
// toolsets and approval channel come from the running app's settings (a relayed session may
// only narrow them), not from each client's config.
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace fb::mcp {

struct ClientSnippet {
    enum class Kind { Command, File, Link };
    QString id;     // stable: "claude-code", "claude-code-json", "claude-desktop", "vscode", ...
    QString client; // "Claude Code"
    Kind kind = Kind::Command;
    QString where;     // File: the file to edit; Command/Link: empty
    QString text;      // exactly what to run, paste or open
    QString note = {}; // optional: what else the snippet needs (plain text)
};

class ClientSnippets {
public:
    static QString serverName();     // "fabric-broker"
    static QStringList serverArgs(); // {"--stdio"}
    // Long enough for a person to read and decide (the proposal TTL), for clients that cut tool
    // calls off after a fixed time (Codex: tool_timeout_sec, default 60).
    static int toolTimeoutSeconds();

    // Shown beside the snippets (README, Connect a client, client-config): without the app a
    // spawned --stdio is read-only, and how to turn proposals on.
    static QString proposalsNote();
    // Beside it: which read toolsets there are and how to serve more than the core one.
    static QString toolsetsNote();

    static QList<ClientSnippet> all(const QString &executable);
    // For clients that speak Streamable HTTP: the loopback endpoint's URL, and how each client
    // gets the bearer token without it ever being written as a literal (the token rotates at
    // every start): Claude Code runs `<executable> http-headers` as its headersHelper; Codex,
    // Gemini CLI and Cursor read it from an environment variable (httpTokenVariable()) that
    // `<executable> http-headers --token` fills. No snippet holds the token itself.
    static QList<ClientSnippet> http(const QString &url, const QString &executable);
    static QString httpTokenVariable(); // "FABRIC_BROKER_HTTP_TOKEN"
    // Shown beside the HTTP snippets: the clients that can only take a literal token.
    static QString httpNote();
    static QJsonObject httpJson(const QString &url, const QString &executable);
    static QJsonObject toJson(const QString &executable);
    static QString kindName(ClientSnippet::Kind kind); // "command", "file", "link"

    // POSIX shell word for a path or JSON text ('...' when anything but [A-Za-z0-9_./:@%+=,-]).
    static QString shellQuote(const QString &arg);
    // TOML basic string.
    static QString tomlString(const QString &text);
};

} // namespace fb::mcp
