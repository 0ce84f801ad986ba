#include "team/PgAsync.h"

#include "lazy/LazyLibrary.h"

#include <libpq-fe.h>

#include <QLoggingCategory>
#include <QSocketNotifier>
#include <QTimer>
#include <vector>

Q_LOGGING_CATEGORY(lcTeamAsync, "fabricbroker.team.async")

namespace fb::team {

namespace {

void quietNotice(void *, const char *message)
{
    qCDebug(lcTeamAsync) << "server notice:" << pgLine(message);
}

constexpr int MaxReconnectDelayMs = 16000;

PgResult<PgRows> failure(const QString &message)
{
    PgResult<PgRows> r;
    r.error.message = message;
    return r;
}

} // namespace

PgAsync::PgAsync(QObject *parent)
    : QObject(parent)
    , m_timer(new QTimer(this))
    , m_reconnect(new QTimer(this))
{
    m_timer->setSingleShot(true);
    m_reconnect->setSingleShot(true);
    connect(m_timer, &QTimer::timeout, this, [this] {
        fail(m_state == State::Connecting
                 ? QStringLiteral("the team database did not accept the connection within %1 ms")
                       .arg(connectTimeoutMs)
                 : QStringLiteral("the team database did not answer within %1 ms")
                       .arg(statementTimeoutMs));
    });
    connect(m_reconnect, &QTimer::timeout, this, &PgAsync::startConnect);
    m_reason = QStringLiteral("the team database is not connected yet");
}

PgAsync::~PgAsync()
{
    // Completions of statements still queued are not called: their owners are going too.
    m_queue.clear();
    m_inFlight.reset();
    finishConnection();
}

void PgAsync::open(const QString &uri, const QStringList &channels)
{
    m_uri = uri;
    m_channels = channels;
    m_delayMs = reconnectDelayMs;
    startConnect();
}

void PgAsync::close()
{
    m_uri.clear();
    m_reconnect->stop();
    fail(QStringLiteral("the team connection was closed"));
}

void PgAsync::watch(bool read, bool write)
{
    if (m_read)
        m_read->setEnabled(read);
    if (m_write)
        m_write->setEnabled(write);
}

void PgAsync::finishConnection()
{
    // The notifiers may be the ones whose activated() is running: disabled now, deleted later.
    for (QSocketNotifier *n : {m_read, m_write}) {
        if (n) {
            n->setEnabled(false);
            n->deleteLater();
        }
    }
    m_read = nullptr;
    m_write = nullptr;
    m_timer->stop();
    if (m_conn) {
        PQfinish(m_conn);
        m_conn = nullptr;
    }
}

PgError PgAsync::lastError() const
{
    PgError e;
    e.message = m_conn ? pgLine(PQerrorMessage(m_conn)) : QString();
    if (e.message.isEmpty())
        e.message = QStringLiteral("the connection to the team database was lost");
    return e;
}

void PgAsync::startConnect()
{
    finishConnection();
    if (m_uri.isEmpty())
        return;
    std::string missing;
    if (!lazy::libpq().available(&missing)) { // opened on first use (lazy/LazyLibrary.h)
        fail(QStringLiteral("cannot connect to the team database: ") +
             QString::fromStdString(missing));
        return;
    }
    const QByteArray uri = m_uri.toUtf8();
    // expand_dbname: the URI's own settings first; a keychain password is added after it.
    const char *keywords[] = {"dbname", "application_name", "client_encoding",
                              m_password.isEmpty() ? nullptr : "password", nullptr};
    const char *values[] = {uri.constData(), "fabric-broker", "UTF8",
                            m_password.isEmpty() ? nullptr : m_password.constData(), nullptr};
    m_conn = PQconnectStartParams(keywords, values, 1);
    if (!m_conn || PQstatus(m_conn) == CONNECTION_BAD) {
        fail(QStringLiteral("cannot connect to the team database: ") + lastError().message);
        return;
    }
    PQsetNoticeProcessor(m_conn, &quietNotice, nullptr);
    m_state = State::Connecting;
    m_timer->start(connectTimeoutMs);
    pollConnect();
}

void PgAsync::pollConnect()
{
    // PQconnectPoll may change the socket (several hosts, TLS retries): notifiers follow it.
    const PostgresPollingStatusType status = PQconnectPoll(m_conn);
    if (status == PGRES_POLLING_FAILED) {
        fail(QStringLiteral("cannot connect to the team database: ") + lastError().message);
        return;
    }
    const int fd = PQsocket(m_conn);
    if (!m_read || m_read->socket() != fd) {
        for (QSocketNotifier *n : {m_read, m_write}) {
            if (n) {
                n->setEnabled(false);
                n->deleteLater();
            }
        }
        m_read = new QSocketNotifier(fd, QSocketNotifier::Read, this);
        m_write = new QSocketNotifier(fd, QSocketNotifier::Write, this);
        connect(m_read, &QSocketNotifier::activated, this, &PgAsync::onReadable);
        connect(m_write, &QSocketNotifier::activated, this, &PgAsync::onWritable);
    }
    if (status == PGRES_POLLING_READING) {
        watch(true, false);
        return;
    }
    if (status == PGRES_POLLING_WRITING) {
        watch(false, true);
        return;
    }
    // PGRES_POLLING_OK
    m_timer->stop();
    PQsetnonblocking(m_conn, 1);
    m_role = QString::fromUtf8(PQuser(m_conn));
    m_state = State::Waiting; // the setup statements run before anyone else's
    watch(true, false);
    QList<Pending> setup;
    setup << Pending{"SET TimeZone = 'UTC'", {}, {}, true}
          << Pending{"SET search_path = pg_catalog, pg_temp", {}, {}, true};
    for (const QString &channel : std::as_const(m_channels)) {
        char *quoted = PQescapeIdentifier(m_conn, channel.toUtf8().constData(),
                                          static_cast<size_t>(channel.toUtf8().size()));
        setup << Pending{QByteArray("LISTEN ") + quoted, {}, {}, true};
        PQfreemem(quoted);
    }
    setup.last().done = [this](const PgResult<PgRows> &r) {
        if (!r.ok()) {
            fail(QStringLiteral("the team database refused the session setup: ") + r.error.text());
            return;
        }
        m_state = State::Ready;
        m_reason.clear();
        m_reportedDown = false;
        m_delayMs = reconnectDelayMs;
        qCInfo(lcTeamAsync) << "connected to the team database as" << m_role;
        emit connected();
        sendNext();
    };
    for (qsizetype i = setup.size() - 1; i >= 0; --i)
        m_queue.prepend(setup.at(i));
    sendNext();
}

void PgAsync::query(const QByteArray &sql, const QList<QByteArray> &params, Done done)
{
    if (m_state != State::Ready && m_state != State::Waiting) {
        completeLater(std::move(done), failure(m_reason));
        return;
    }
    m_queue.enqueue(Pending{sql, params, std::move(done), false});
    sendNext();
}

void PgAsync::completeLater(Done done, PgResult<PgRows> result)
{
    if (!done)
        return;
    QTimer::singleShot(0, this,
                       [done = std::move(done), result = std::move(result)] { done(result); });
}

void PgAsync::sendNext()
{
    if (m_inFlight || m_queue.isEmpty() || !m_conn)
        return;
    if (m_state != State::Ready && !m_queue.head().internal)
        return;
    m_inFlight = m_queue.dequeue();
    std::vector<const char *> values;
    for (const QByteArray &p : std::as_const(m_inFlight->params))
        values.push_back(p.isNull() ? nullptr : p.constData());
    const int ok =
        PQsendQueryParams(m_conn, m_inFlight->sql.constData(), static_cast<int>(values.size()),
                          nullptr, values.empty() ? nullptr : values.data(), nullptr, nullptr, 0);
    if (ok != 1) {
        fail(QStringLiteral("the team database connection failed: ") + lastError().message);
        return;
    }
    m_timer->start(statementTimeoutMs);
    flush();
}

void PgAsync::flush()
{
    const int r = PQflush(m_conn);
    if (r < 0) {
        fail(QStringLiteral("the team database connection failed: ") + lastError().message);
        return;
    }
    watch(true, r == 1);
}

void PgAsync::onWritable()
{
    if (m_state == State::Connecting)
        pollConnect();
    else if (m_conn)
        flush();
}

void PgAsync::onReadable()
{
    if (m_state == State::Connecting) {
        pollConnect();
        return;
    }
    if (!m_conn)
        return;
    if (PQconsumeInput(m_conn) != 1 || PQstatus(m_conn) == CONNECTION_BAD) {
        fail(QStringLiteral("the team database connection was lost: ") + lastError().message);
        return;
    }
    const QPointer<PgAsync> self(this);
    // Results and notifications come in one stream: parsing a result may queue notifications
    // that arrived behind it, so both are drained until neither has anything left.
    for (;;) {
        while (PGnotify *n = PQnotifies(m_conn)) {
            const QString channel = QString::fromUtf8(n->relname).left(64);
            const QByteArray payload = QByteArray(n->extra).left(8000);
            PQfreemem(n);
            emit notified(channel, payload);
            if (!self || !m_conn)
                return;
        }
        if (!m_inFlight || PQisBusy(m_conn))
            return;
        PGresult *res = PQgetResult(m_conn);
        if (res) {
            if (!m_lastResult || m_lastResult->ok())
                m_lastResult = pgRowsOf(res); // the first error wins over later results
            PQclear(res);
            continue;
        }
        // The statement is complete.
        m_timer->stop();
        Pending done = std::move(*m_inFlight);
        m_inFlight.reset();
        const PgResult<PgRows> result =
            m_lastResult.value_or(failure(QStringLiteral("the team database returned no result")));
        m_lastResult.reset();
        if (done.done)
            done.done(result);
        if (!self || !m_conn)
            return;
        sendNext();
    }
}

void PgAsync::fail(const QString &reason)
{
    const bool wasUsable = m_state == State::Ready || m_state == State::Waiting;
    m_state = State::Closed;
    m_reason = reason;
    m_lastResult.reset();
    finishConnection();
    QList<Pending> failed;
    if (m_inFlight)
        failed << std::move(*m_inFlight);
    m_inFlight.reset();
    while (!m_queue.isEmpty())
        failed << m_queue.dequeue();
    qCWarning(lcTeamAsync).noquote() << reason;
    for (Pending &p : failed)
        if (!p.internal)
            completeLater(std::move(p.done), failure(reason));
    if (!m_uri.isEmpty()) {
        const int delay = std::max(m_delayMs, reconnectDelayMs);
        m_reconnect->start(delay);
        m_delayMs = std::min(delay * 2, MaxReconnectDelayMs);
    }
    if (wasUsable || !m_reportedDown) {
        m_reportedDown = true;
        emit disconnected(reason);
    }
}

} // namespace fb::team
