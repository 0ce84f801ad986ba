#pragma once
// PgAsync: one libpq connection driven from the Qt event loop, never blocking it on the network
// (docs/team.md, "The queue"). Connecting uses PQconnectStartParams/PQconnectPoll, statements
// PQsendQueryParams, and both wait on QSocketNotifiers on PQsocket(); notifications (LISTEN)
// arrive as notified(). Statements run one at a time in the order queued; each gets exactly one
// completion, also when the connection is lost or a statement does not answer in time (then the
// connection is dropped and every queued statement fails). Nothing here keeps or prints the URI.
//
// Lost connections are re-opened after a delay (reconnectDelayMs, doubling up to 16 s); every
// (re)connect runs the setup statements, LISTENs on the channels given, and emits connected().
#include "team/PgConnection.h"

#include <QObject>
#include <QPointer>
#include <QQueue>
#include <QString>
#include <QStringList>
#include <functional>

class QSocketNotifier;
class QTimer;

namespace fb::team {

class PgAsync : public QObject {
    Q_OBJECT
public:
    using Done = std::function<void(const PgResult<PgRows> &)>;

    explicit PgAsync(QObject *parent = nullptr);
    ~PgAsync() override;

    // Starts connecting (and keeps reconnecting) to uri; listens on channels once connected.
    void open(const QString &uri, const QStringList &channels);
    // The role's password when it is kept in the OS keychain (team.database never holds one):
    // given to libpq with each connect, never logged or shown. Empty: libpq's own ways
    // (~/.pgpass, peer, certificates).
    void setPassword(const QString &password) { m_password = password.toUtf8(); }
    // Drops the connection; every queued statement fails. No reconnect until open() again.
    void close();

    bool isConnected() const { return m_state == State::Ready; }
    // Why the database is not usable, for people ("connection refused ..."); empty when it is.
    QString unavailableReason() const { return m_reason; }
    QString role() const { return m_role; }

    // Queues one parameterized statement; done is called exactly once, later (never before
    // query() returns), from the event loop. Not connected: it fails with unavailableReason().
    void query(const QByteArray &sql, const QList<QByteArray> &params, Done done);

    int statementTimeoutMs = 5000;
    int connectTimeoutMs = 5000;
    int reconnectDelayMs = 250;

signals:
    void connected();
    void disconnected(const QString &reason);
    // A NOTIFY on one of the channels: a wake-up only, the payload is untrusted text.
    void notified(const QString &channel, const QByteArray &payload);

private:
    enum class State { Closed, Connecting, Ready, Waiting };
    struct Pending {
        QByteArray sql;
        QList<QByteArray> params;
        Done done;
        bool internal = false; // setup and LISTEN statements
    };

    void startConnect();
    void pollConnect();
    void onReadable();
    void onWritable();
    void sendNext();
    void flush();
    void fail(const QString &reason);
    void finishConnection();
    void watch(bool read, bool write);
    void completeLater(Done done, PgResult<PgRows> result);
    PgError lastError() const;

    pg_conn *m_conn = nullptr;
    QSocketNotifier *m_read = nullptr;
    QSocketNotifier *m_write = nullptr;
    QTimer *m_timer = nullptr;     // the connect or statement deadline
    QTimer *m_reconnect = nullptr; // the next attempt
    State m_state = State::Closed;
    QString m_uri;
    QByteArray m_password;
    QStringList m_channels;
    QString m_reason;
    QString m_role;
    QQueue<Pending> m_queue;
    std::optional<Pending> m_inFlight;
    std::optional<PgResult<PgRows>> m_lastResult; // of the statement in flight
    int m_delayMs = 0;
    bool m_reportedDown = false; // disconnected() said so since the last connected()
};

} // namespace fb::team
