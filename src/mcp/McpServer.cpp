#include "mcp/McpServer.h"
#include "mcp/Logging.h"
#include "mcp/Session.h"
#include "mcp/TaskStore.h"
#include "telemetry/Telemetry.h"

#include <QPointer>

using namespace Qt::StringLiterals;

namespace fb::mcp {

class McpServer::Private {
public:
    ToolRegistry *registry = nullptr;
    ServerOptions options;
    QList<Session *> sessions;
    quint64 nextId = 0;
    RelayHelloHandler relayHello;
    QPointer<telemetry::Telemetry> telemetry;
    TaskStore *tasks = nullptr; // child

    Session *attach(McpServer *q, Session *session)
    {
        sessions.append(session);
        QObject::connect(session, &Session::initialized, q,
                         [q, session] { emit q->sessionInitialized(session->clientInfo()); });
        QObject::connect(session, &Session::closed, q, [this, q, session] {
            sessions.removeAll(session);
            emit q->sessionClosed(session->clientInfo());
            session->deleteLater();
        });
        emit q->sessionOpened(session->clientInfo());
        session->start();
        return session;
    }
};

McpServer::McpServer(ToolRegistry *registry, ServerOptions options, QObject *parent)
    : QObject(parent)
    , d(new Private)
{
    qRegisterMetaType<fb::mcp::ClientInfo>();
    d->registry = registry;
    d->options = std::move(options);
    if (d->options.version.isEmpty())
        d->options.version = QStringLiteral(FB_VERSION);
    d->tasks = new TaskStore(this);
    // notifications/tasks/status to the session that created the task, while it is there.
    connect(d->tasks, &TaskStore::changed, this, [this](const TaskState &state) {
        if (Session *s = session(state.sessionId))
            s->notifyTaskStatus(state);
    });
    connect(registry, &ToolRegistry::toolsChanged, this, [this] {
        for (Session *s : std::as_const(d->sessions))
            s->notifyToolsListChanged();
    });
}

McpServer::~McpServer()
{
    disconnect(d->tasks, nullptr, this, nullptr);
    const QList<Session *> sessions = std::exchange(d->sessions, {});
    for (Session *s : sessions) {
        disconnect(s, nullptr, this, nullptr);
        s->close(u"server shutting down"_s);
        delete s;
    }
    delete d;
}

void McpServer::setTelemetry(telemetry::Telemetry *telemetry)
{
    d->telemetry = telemetry;
}

telemetry::Telemetry *McpServer::telemetry() const
{
    return d->telemetry.data();
}

ToolRegistry *McpServer::registry() const
{
    return d->registry;
}

void McpServer::setRelayHelloHandler(RelayHelloHandler handler)
{
    d->relayHello = std::move(handler);
}

const RelayHelloHandler &McpServer::relayHelloHandler() const
{
    return d->relayHello;
}

const ServerOptions &McpServer::options() const
{
    return d->options;
}

Session *McpServer::serve(const Peer &peer)
{
    if (peer.limited && d->sessions.size() >= d->options.maxSessions) {
        qCWarning(lcMcpServer).noquote()
            << u"refusing a connection (%1): already %2 sessions (maximum %3)"_s.arg(peer.transport)
                   .arg(d->sessions.size())
                   .arg(d->options.maxSessions);
        return nullptr;
    }
    auto *session = new Session(this, ++d->nextId, peer.transport, peer.input, peer.output, this);
    if (peer.relayPolicy)
        session->applyRelayPolicy(*peer.relayPolicy);
    return d->attach(this, session);
}

TaskStore *McpServer::tasks() const
{
    return d->tasks;
}

QList<ClientInfo> McpServer::sessions() const
{
    QList<ClientInfo> out;
    out.reserve(d->sessions.size());
    for (const Session *s : std::as_const(d->sessions))
        out.append(s->clientInfo());
    return out;
}

Session *McpServer::session(quint64 sessionId) const
{
    for (Session *s : std::as_const(d->sessions)) {
        if (s->id() == sessionId)
            return s;
    }
    return nullptr;
}

int McpServer::sessionCount() const
{
    return static_cast<int>(d->sessions.size());
}

void McpServer::broadcastLog(const QString &level, const QString &logger, const QJsonValue &data)
{
    for (Session *s : std::as_const(d->sessions))
        s->sendLog(level, logger, data);
}

} // namespace fb::mcp
