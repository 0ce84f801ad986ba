#pragma once
// An MCP client on a broker's local socket, in the test's own event loop (ServerHost, the run
// modes): initialize, tools/list, and whatever else a test sends.
#include "JsonRpc.h"

#include <QJsonArray>
#include <QLocalSocket>
#include <QTest>

namespace fbtest {

// An MCP client on the host's socket.
struct McpSocketClient {
    QLocalSocket socket;
    QByteArray inbox;
    QList<QJsonObject> received;

    bool connectTo(const QString &path)
    {
        socket.connectToServer(path);
        if (!socket.waitForConnected(5000))
            return false;
        QObject::connect(&socket, &QLocalSocket::readyRead, [this] {
            inbox += socket.readAll();
            takeJsonLines(&inbox, &received);
        });
        return true;
    }
    void send(const QByteArray &line) { socket.write(line); }
    // The first message received with key (an "id" or the relay's welcome); empty after 10 s.
    QJsonObject waitFor(const QString &key, const QJsonValue &value = QJsonValue::Undefined)
    {
        QJsonObject hit;
        static_cast<void>(QTest::qWaitFor(
            [&] {
                for (const QJsonObject &m : std::as_const(received))
                    if (m.contains(key) && (value.isUndefined() || m.value(key) == value)) {
                        hit = m;
                        return true;
                    }
                return false;
            },
            10000));
        return hit;
    }
    QJsonObject initialize()
    {
        send(frame(1, QStringLiteral("initialize"),
                   {{QStringLiteral("protocolVersion"), QStringLiteral("2025-06-18")},
                    {QStringLiteral("capabilities"), QJsonObject{}},
                    {QStringLiteral("clientInfo"),
                     QJsonObject{{QStringLiteral("name"), QStringLiteral("tst")},
                                 {QStringLiteral("version"), QStringLiteral("1")}}}}));
        const QJsonObject result =
            waitFor(QStringLiteral("id"), 1).value(QStringLiteral("result")).toObject();
        send(frame(QJsonValue::Undefined, QStringLiteral("notifications/initialized")));
        return result;
    }
    QStringList toolNames()
    {
        send(frame(2, QStringLiteral("tools/list")));
        QStringList names;
        for (const QJsonValue &t : waitFor(QStringLiteral("id"), 2)
                                       .value(QStringLiteral("result"))
                                       .toObject()
                                       .value(QStringLiteral("tools"))
                                       .toArray())
            names << t.toObject().value(QStringLiteral("name")).toString();
        return names;
    }
};

} // namespace fbtest
