#pragma once
// In-memory bidirectional pipe for driving an MCP session in tests. Each PipeEnd is a
// sequential QIODevice; what one end writes becomes readable on the other, announced with a
// queued readyRead (like a real socket). One write() = one delivery, so writing two frames in
// one call puts them in the same read. No Q_OBJECT: only inherited signals are used.
#include "../../support/JsonRpc.h"

#include <QIODevice>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QList>
#include <QMetaObject>
#include <QTest>
#include <cstring>
#include <functional>

namespace fbtest {

class PipeEnd : public QIODevice {
public:
    PipeEnd() { open(QIODevice::ReadWrite | QIODevice::Unbuffered); }
    void setPeer(PipeEnd *peer) { m_peer = peer; }
    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override { return m_buf.size() + QIODevice::bytesAvailable(); }
    bool atEnd() const override { return m_eof && m_buf.isEmpty(); }
    // A stalled end keeps what it writes (the peer "does not read"): bytesToWrite grows.
    void setStalled(bool stalled) { m_stalled = stalled; }
    qint64 bytesToWrite() const override { return m_stalledBytes.size(); }
    // Half-close: the peer sees end of input.
    void closeWriteChannel()
    {
        PipeEnd *peer = m_peer;
        QMetaObject::invokeMethod(
            peer,
            [peer] {
                peer->m_eof = true;
                emit peer->readChannelFinished();
            },
            Qt::QueuedConnection);
    }
    void deliver(const QByteArray &data)
    {
        m_buf.append(data);
        QMetaObject::invokeMethod(
            this, [this] { emit readyRead(); }, Qt::QueuedConnection);
    }

protected:
    qint64 readData(char *data, qint64 maxSize) override
    {
        const qint64 n = qMin<qint64>(maxSize, m_buf.size());
        if (n == 0)
            return m_eof ? -1 : 0;
        std::memcpy(data, m_buf.constData(), size_t(n));
        m_buf.remove(0, n);
        return n;
    }
    qint64 writeData(const char *data, qint64 len) override
    {
        if (m_stalled)
            m_stalledBytes.append(data, len);
        else if (m_peer)
            m_peer->deliver(QByteArray(data, len));
        return len;
    }

private:
    PipeEnd *m_peer = nullptr;
    QByteArray m_buf;
    QByteArray m_stalledBytes;
    bool m_eof = false;
    bool m_stalled = false;
};

// The client side: sends frames, collects every line the server writes.
class TestClient {
public:
    PipeEnd clientEnd; // the test writes here
    PipeEnd serverEnd; // the session reads and writes here
    QList<QByteArray> lines;
    QList<QJsonValue> messages; // parsed lines (objects, or arrays for batch responses)
    QByteArray partial;
    bool badLine = false; // a line that was not valid compact JSON

    TestClient()
    {
        clientEnd.setPeer(&serverEnd);
        serverEnd.setPeer(&clientEnd);
        QObject::connect(&clientEnd, &QIODevice::readyRead, [this] { onRead(); });
    }

    void onRead()
    {
        partial += clientEnd.readAll();
        qsizetype nl;
        while ((nl = partial.indexOf('\n')) >= 0) {
            const QByteArray line = partial.left(nl);
            partial.remove(0, nl + 1);
            lines.append(line);
            QJsonParseError err;
            const QJsonDocument doc = QJsonDocument::fromJson(line, &err);
            if (err.error != QJsonParseError::NoError || line.contains('\n') ||
                doc.toJson(QJsonDocument::Compact) != line)
                badLine = true;
            messages.append(doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object()));
        }
    }

    void sendRaw(const QByteArray &bytes) { clientEnd.write(bytes); }
    void send(const QJsonObject &message)
    {
        sendRaw(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
    }
    static QByteArray frame(const QJsonValue &id, const QString &method,
                            const QJsonObject &params = {})
    {
        return fbtest::frame(id, method, params);
    }
    void request(const QJsonValue &id, const QString &method, const QJsonObject &params = {})
    {
        sendRaw(frame(id, method, params));
    }
    void notify(const QString &method, const QJsonObject &params = {})
    {
        sendRaw(frame(QJsonValue::Undefined, method, params));
    }

    // The response (object with this id and no method), waiting up to timeoutMs.
    QJsonObject response(const QJsonValue &id, int timeoutMs = 3000)
    {
        QJsonObject found;
        (void)QTest::qWaitFor(
            [&] {
                for (const QJsonValue &m : std::as_const(messages)) {
                    const QJsonObject o = m.toObject();
                    if (!o.contains("method") && o.contains("id") && o.value("id") == id) {
                        found = o;
                        return true;
                    }
                }
                return false;
            },
            timeoutMs);
        return found;
    }
    int countResponses(const QJsonValue &id) const
    {
        int n = 0;
        for (const QJsonValue &m : messages) {
            const QJsonObject o = m.toObject();
            if (!o.contains("method") && o.value("id") == id)
                ++n;
        }
        return n;
    }
    QList<QJsonObject> withMethod(const QString &method) const
    {
        QList<QJsonObject> out;
        for (const QJsonValue &m : messages) {
            if (m.toObject().value("method").toString() == method)
                out.append(m.toObject());
        }
        return out;
    }
    QJsonObject waitMethod(const QString &method, int index = 0, int timeoutMs = 3000)
    {
        (void)QTest::qWaitFor([&] { return withMethod(method).size() > index; }, timeoutMs);
        const auto list = withMethod(method);
        return list.size() > index ? list.at(index) : QJsonObject();
    }
    static int errorCode(const QJsonObject &response)
    {
        return response.value("error").toObject().value("code").toInt();
    }
};

} // namespace fbtest
