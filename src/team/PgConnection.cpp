#include "team/PgConnection.h"

#include "lazy/LazyLibrary.h"

#include <libpq-fe.h>

#include <QLoggingCategory>
#include <vector>

Q_LOGGING_CATEGORY(lcTeamPg, "fabricbroker.team.pg")

namespace fb::team {

namespace {

// The server's notices ("schema ... already exists, skipping") are for whoever debugs, not for
// stderr, where libpq prints them by default.
void logNotice(void *, const char *message)
{
    qCDebug(lcTeamPg) << "server notice:" << pgLine(message);
}

struct ResultDeleter {
    void operator()(PGresult *r) const { PQclear(r); }
};

// Query parameters as libpq wants them: pointers that live as long as the QByteArrays.
struct Params {
    explicit Params(const QList<QByteArray> &params)
    {
        values.reserve(static_cast<size_t>(params.size()));
        for (const QByteArray &p : params)
            values.push_back(p.isNull() ? nullptr : p.constData());
    }
    int count() const { return static_cast<int>(values.size()); }
    const char *const *data() const { return values.empty() ? nullptr : values.data(); }
    std::vector<const char *> values;
};

} // namespace

QString PgError::text() const
{
    QString s = message;
    if (!detail.isEmpty())
        s += QStringLiteral(" (") + detail + u')';
    if (!sqlState.isEmpty())
        s += QStringLiteral(" [SQLSTATE ") + sqlState + u']';
    return s;
}

QByteArray PgRows::value(int row, QByteArrayView column) const
{
    const qsizetype c = columns.indexOf(column.toByteArray());
    if (c < 0 || row < 0 || row >= rows.size())
        return {};
    return rows.at(row).at(c);
}

PgResult<std::unique_ptr<PgConnection>> PgConnection::open(const QString &uri,
                                                           int connectTimeoutSeconds)
{
    PgResult<std::unique_ptr<PgConnection>> result;
    if (!uri.startsWith(u"postgresql://") && !uri.startsWith(u"postgres://")) {
        result.error.message = QStringLiteral(
            "not a PostgreSQL connection URI (postgresql://[user@]host[:port]/database[?...])");
        return result;
    }
    std::string missing;
    if (!lazy::libpq().available(&missing)) { // opened on first use (lazy/LazyLibrary.h)
        result.error.message = QString::fromStdString(missing);
        return result;
    }
    const QByteArray uriBytes = uri.toUtf8();
    char *parseError = nullptr;
    PQconninfoOption *options = PQconninfoParse(uriBytes.constData(), &parseError);
    if (!options) {
        result.error.message = QStringLiteral("invalid connection URI: ") + pgLine(parseError);
        PQfreemem(parseError);
        return result;
    }
    bool hasTimeout = false;
    for (PQconninfoOption *o = options; o->keyword; ++o) {
        if (qstrcmp(o->keyword, "connect_timeout") == 0 && o->val && *o->val)
            hasTimeout = true;
    }
    PQconninfoFree(options);

    const QByteArray timeout = QByteArray::number(connectTimeoutSeconds);
    // The URI is expanded as dbname; the keywords after it override it (a null value is
    // ignored). Text comes back as UTF-8 whatever PGCLIENTENCODING says: the audit chain is
    // hashed over the stored UTF-8 bytes.
    const char *keywords[] = {"dbname", "connect_timeout", "application_name", "client_encoding",
                              nullptr};
    const char *values[] = {uriBytes.constData(), hasTimeout ? nullptr : timeout.constData(),
                            "fabric-broker", "UTF8", nullptr};
    PGconn *conn = PQconnectdbParams(keywords, values, 1);
    if (!conn) {
        result.error.message = QStringLiteral("out of memory");
        return result;
    }
    PQsetNoticeProcessor(conn, &logNotice, nullptr);
    std::unique_ptr<PgConnection> c(new PgConnection(conn));
    if (PQstatus(conn) != CONNECTION_OK) {
        result.error = c->connectionError();
        return result;
    }
    // Our statements say what they mean whatever the role's defaults: UTC, no search_path tricks.
    const auto setup = c->exec("SET TimeZone = 'UTC'; SET search_path = pg_catalog, pg_temp");
    if (!setup.ok()) {
        result.error = setup.error;
        return result;
    }
    qCDebug(lcTeamPg) << "connected:" << c->describe();
    result.value = std::move(c);
    return result;
}

PgConnection::~PgConnection()
{
    if (m_conn)
        PQfinish(m_conn);
}

PgError PgConnection::connectionError() const
{
    PgError e;
    e.message = pgLine(PQerrorMessage(m_conn));
    if (e.message.isEmpty())
        e.message = QStringLiteral("connection failed");
    return e;
}

QString pgLine(const char *text)
{
    return QString::fromUtf8(text ? text : "").simplified();
}

PgResult<PgRows> pgRowsOf(PGresult *r)
{
    PgResult<PgRows> out;
    const ExecStatusType status = PQresultStatus(r);
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        out.error.sqlState = QString::fromLatin1(PQresultErrorField(r, PG_DIAG_SQLSTATE));
        out.error.message = pgLine(PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY));
        if (out.error.message.isEmpty())
            out.error.message = pgLine(PQresultErrorMessage(r));
        QStringList more;
        for (int field : {PG_DIAG_MESSAGE_DETAIL, PG_DIAG_MESSAGE_HINT}) {
            const QString t = pgLine(PQresultErrorField(r, field));
            if (!t.isEmpty())
                more << t;
        }
        out.error.detail = more.join(QStringLiteral("; "));
        return out;
    }
    PgRows rows;
    const int columns = PQnfields(r);
    for (int c = 0; c < columns; ++c)
        rows.columns << QByteArray(PQfname(r, c));
    const int count = PQntuples(r);
    rows.rows.reserve(count);
    for (int i = 0; i < count; ++i) {
        QList<QByteArray> row;
        row.reserve(columns);
        for (int c = 0; c < columns; ++c) {
            if (PQgetisnull(r, i, c))
                row << QByteArray();
            else
                row << QByteArray(PQgetvalue(r, i, c), PQgetlength(r, i, c));
        }
        rows.rows << row;
    }
    rows.affected = QByteArray(PQcmdTuples(r)).toLongLong();
    out.value = std::move(rows);
    return out;
}

PgReadSnapshot::PgReadSnapshot(PgConnection &db)
    : m_db(db)
{
    auto r = m_db.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    m_begun = r.ok();
    m_error = r.error;
}

PgReadSnapshot::~PgReadSnapshot()
{
    if (m_begun)
        m_db.exec("ROLLBACK");
}

PgResult<PgRows> PgConnection::take(PGresult *raw)
{
    std::unique_ptr<PGresult, ResultDeleter> r(raw);
    PgResult<PgRows> out;
    if (!r) {
        out.error = connectionError();
        return out;
    }
    return pgRowsOf(r.get());
}

PgResult<PgRows> PgConnection::exec(const QByteArray &sql, const QList<QByteArray> &params)
{
    if (params.isEmpty())
        return take(PQexec(m_conn, sql.constData()));
    const Params p(params);
    return take(
        PQexecParams(m_conn, sql.constData(), p.count(), nullptr, p.data(), nullptr, nullptr, 0));
}

PgResult<PgRows> PgConnection::execScript(const QByteArray &sql)
{
    // PQexec runs every statement of the string and returns the last result (or the first
    // error, which ends the string's execution).
    return take(PQexec(m_conn, sql.constData()));
}

bool PgConnection::send(const QByteArray &sql, const QList<QByteArray> &params)
{
    const Params p(params);
    return PQsendQueryParams(m_conn, sql.constData(), p.count(), nullptr, p.data(), nullptr,
                             nullptr, 0) == 1;
}

PgResult<PgRows> PgConnection::collect()
{
    // One statement was sent: its result, then the terminating null.
    PGresult *first = PQgetResult(m_conn);
    while (PGresult *extra = PQgetResult(m_conn))
        PQclear(extra);
    return take(first);
}

QString PgConnection::role() const
{
    return QString::fromUtf8(PQuser(m_conn));
}

QString PgConnection::describe() const
{
    const QString host = QString::fromUtf8(PQhost(m_conn));
    return QStringLiteral("role %1 on database %2 at %3:%4")
        .arg(role(), QString::fromUtf8(PQdb(m_conn)), host, QString::fromUtf8(PQport(m_conn)));
}

int PgConnection::serverVersion() const
{
    return PQserverVersion(m_conn);
}

QByteArray byteaLiteral(const QByteArray &bytes)
{
    return QByteArrayLiteral("\\x") + bytes.toHex();
}

std::optional<QByteArray> fromByteaText(const QByteArray &text)
{
    if (!text.startsWith("\\x") || (text.size() % 2) != 0)
        return std::nullopt;
    const QByteArray hex = text.mid(2);
    for (char ch : hex) {
        if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
            return std::nullopt;
    }
    return QByteArray::fromHex(hex);
}

} // namespace fb::team
