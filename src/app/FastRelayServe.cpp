#include "app/FastRelayServe.h"

#include "app/CommandLine.h"
#include "mcp/McpServer.h"
#include "mcp/Session.h"
#include "transport/socket/FastRelayConnection.h"
#include "transport/socket/FastRelayWire.h"
#include "transport/socket/LocalSocketServer.h"
#include "transport/stdio/StdioDevices.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace fb {

void serveFastRelay(transport::FastRelayConnection *relay, mcp::McpServer *server,
                    const QString &socketPath, const RelayDecider &decide)
{
    const transport::RelayLaunch &launch = relay->launch();
    const auto done = [relay](int code) {
        relay->finish(code);
        relay->deleteLater();
    };
    // The relay's own command line, parsed as the app parses its own. Anything that is not a
    // plain --stdio for this socket (an error, --help, another socket, another mode) is left to
    // the app binary the relay then runs, which says what it would say without an app running.
    CommandLine cli;
    if (!cli.parseQuietly(launch.arguments) || !cli.isSet(u"stdio"_s) || cli.isSet(u"headless"_s) ||
        cli.isSet(u"listen"_s) || cli.isSet(u"sandbox-only"_s) ||
        transport::LocalSocketServer::resolveSocketPath(cli.value(SettingId::Socket)) !=
            socketPath) {
        relay->notTaken();
        relay->deleteLater();
        return;
    }
    RelayRequest request;
    QString why;
    if (!RelayRequest::fromCommandLine(cli.value(SettingId::Toolsets),
                                       cli.isSet(SettingId::ForceSandbox), launch.environment,
                                       &request, &why)) {
        relay->say(u"fabric-broker: "_s + why);
        done(1);
        return;
    }
    request.pid = launch.pid;
    const mcp::SessionPolicy policy = decide(request);
    transport::StdioDevices *devices = relay->take();
    mcp::Peer peer{u"socket"_s, devices->input(), devices->output()};
    peer.relayPolicy = policy;
    mcp::Session *session = server->serve(peer);
    if (!session) {
        relay->say(u"fabric-broker: the running Fabric Broker serves as many sessions as it "
                   u"allows (%1); close another MCP client and reconnect"_s.arg(
                       server->options().maxSessions));
        done(1);
        return;
    }
    relay->setParent(session); // the session owns the relay and its devices
    const QString refused = policy.welcome.value(u"refused"_s).toString().left(8192);
    if (!refused.isEmpty()) {
        // For the person reading the client's server log (often only its first line): the fix
        // first, then the whole refusal; the client gets the refusal as the JSON-RPC error of
        // its first request, and the relay then ends with kRefusedExitCode.
        QStringList fixes;
        for (const QJsonValue &c : policy.welcome.value(u"conflicts"_s).toArray()) {
            const QString fix = c.toObject().value(u"fix"_s).toString().left(1024);
            if (!fix.isEmpty() && fixes.size() < 8)
                fixes << u"Fix: "_s + fix + u'.';
        }
        if (!fixes.isEmpty())
            relay->say(u"fabric-broker: "_s + fixes.join(u' '));
        relay->say(u"fabric-broker: "_s + refused);
    } else {
        QStringList toolsets;
        for (const QJsonValue &t : policy.welcome.value(u"toolsets"_s).toArray())
            toolsets << t.toString().left(32);
        relay->say(u"fabric-broker: relaying stdio to the running Fabric Broker at %1 (pid %2): "
                   u"session served with the toolsets %3 - approvals through the %4 channel"_s
                       .arg(socketPath)
                       .arg(QCoreApplication::applicationPid())
                       .arg(toolsets.join(u','),
                            policy.welcome.value(u"approvalChannel"_s).toString().left(16)));
    }
    const int exitCode = refused.isEmpty() ? 0 : fastrelay::kRefusedExitCode;
    QObject::connect(session, &mcp::Session::closed, relay,
                     [relay, exitCode] { relay->finish(exitCode); });
    QObject::connect(relay, &transport::FastRelayConnection::relayGone, session,
                     [session] { session->close(u"the relay process ended"_s); });
    QObject::connect(session, &mcp::Session::refusalAnswered, session, [session] {
        QTimer::singleShot(0, session, [session] { session->close(u"refused"_s); });
    });
}

} // namespace fb
