#pragma once
// A QLocalSocket MCP client for integration tests (no Q_OBJECT).
#include "JsonRpc.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>
#include <QTest>

namespace fbtest {

class SocketClient {
public:
    QLocalSocket socket;
    QList<QJsonObject> messages;
    QByteArray partial;

    SocketClient()
    {
        QObject::connect(&socket, &QLocalSocket::readyRead, [this] {
            partial += socket.readAll();
            takeJsonLines(&partial, &messages);
        });
    }
    bool connectTo(const QString &path)
    {
        socket.connectToServer(path);
        return socket.waitForConnected(2000);
    }
    void request(const QJsonValue &id, const QString &method, const QJsonObject &params = {})
    {
        socket.write(frame(id, method, params));
    }
    void notify(const QString &method) { socket.write(frame(QJsonValue::Undefined, method)); }
    QJsonObject response(const QJsonValue &id, int timeoutMs = 3000)
    {
        QJsonObject found;
        (void)QTest::qWaitFor(
            [&] {
                for (const QJsonObject &o : std::as_const(messages)) {
                    if (!o.contains("method") && o.value("id") == id) {
                        found = o;
                        return true;
                    }
                }
                return false;
            },
            timeoutMs);
        return found;
    }
    bool initialize()
    {
        request(0, "initialize",
                QJsonObject{{"protocolVersion", "2025-06-18"},
                            {"capabilities", QJsonObject()},
                            {"clientInfo", QJsonObject{{"name", "sock"}, {"version", "1"}}}});
        const bool ok = response(0).contains("result");
        notify("notifications/initialized");
        return ok;
    }
};

} // namespace fbtest
