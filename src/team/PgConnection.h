#pragma once
// PgConnection: one libpq connection (PGconn) to the team database, owned and closed by this
// object, with blocking, parameterized queries. Errors are values: PgError carries the server's
// SQLSTATE and message. Nothing here ever prints or keeps the connection URI, which may hold a
// password; describe() names the role, database and host only.
//
// Blocking is right for the command line (team init, audit verify --team). The desktop app's
// queue will drive the same connection asynchronously (PQsendQuery + a QSocketNotifier on
// PQsocket), never by blocking its event loop.
#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>
#include <memory>
#include <optional>

struct pg_conn;
struct pg_result;

namespace fb::team {

struct PgError {
    QString sqlState; // five characters, e.g. "42501" (insufficient_privilege); empty if none
    QString message;  // the server's or libpq's primary message, one line
    QString detail;   // the server's DETAIL and HINT, if any
    QString text() const;
};

// The rows of one statement, every value as text (NULL is a null QByteArray).
struct PgRows {
    QList<QByteArray> columns;
    QList<QList<QByteArray>> rows;
    qint64 affected = 0; // INSERT/UPDATE/DELETE row count
    int rowCount() const { return static_cast<int>(rows.size()); }
    // The value of the named column in row; a null QByteArray when NULL or no such column.
    QByteArray value(int row, QByteArrayView column) const;
};

template <typename T> struct PgResult {
    std::optional<T> value;
    PgError error;
    bool ok() const { return value.has_value(); }
};

class PgConnection {
public:
    // Accepts libpq connection URIs only ("postgresql://..." or "postgres://...", RFC 3986 with
    // libpq's parameters, e.g. ?sslmode=verify-full). Connecting blocks; connectTimeoutSeconds
    // bounds it unless the URI says connect_timeout itself.
    static PgResult<std::unique_ptr<PgConnection>> open(const QString &uri,
                                                        int connectTimeoutSeconds = 10);
    ~PgConnection();
    PgConnection(const PgConnection &) = delete;
    PgConnection &operator=(const PgConnection &) = delete;

    // One statement with $1..$n parameters sent as text (a null QByteArray is SQL NULL).
    PgResult<PgRows> exec(const QByteArray &sql, const QList<QByteArray> &params = {});
    // Several statements in one string (no parameters), e.g. a migration file; they run in the
    // caller's transaction when one is open.
    PgResult<PgRows> execScript(const QByteArray &sql);

    // The asynchronous half, for tests of concurrent transactions and, later, the app's queue:
    // send() queues one parameterized statement without waiting; collect() waits for its result.
    bool send(const QByteArray &sql, const QList<QByteArray> &params = {});
    PgResult<PgRows> collect();

    // "role alice on database team at /run/postgresql:5432" (never a password).
    QString describe() const;
    QString role() const;
    int serverVersion() const; // e.g. 150004
    pg_conn *handle() const { return m_conn; }

private:
    explicit PgConnection(pg_conn *conn)
        : m_conn(conn)
    {
    }
    PgResult<PgRows> take(pg_result *result);
    PgError connectionError() const;
    pg_conn *m_conn = nullptr;
};

// One read-only REPEATABLE READ transaction for a scope: one snapshot (rows committed while the
// scope reads are neither half-seen nor blamed), rolled back when the scope ends.
class PgReadSnapshot {
public:
    explicit PgReadSnapshot(PgConnection &db);
    ~PgReadSnapshot();
    PgReadSnapshot(const PgReadSnapshot &) = delete;
    PgReadSnapshot &operator=(const PgReadSnapshot &) = delete;
    bool ok() const { return m_begun; }
    const PgError &error() const { return m_error; }

private:
    PgConnection &m_db;
    bool m_begun = false;
    PgError m_error;
};

// libpq's text as one line (its messages end in a newline and indent their second line).
QString pgLine(const char *text);
// One result's rows, or its error with DETAIL and HINT (the result is not freed): the one
// conversion PgConnection and PgAsync share.
PgResult<PgRows> pgRowsOf(pg_result *result);

// Hex of bytes as PostgreSQL's bytea text output ("\x0123...") and back.
QByteArray byteaLiteral(const QByteArray &bytes);
std::optional<QByteArray> fromByteaText(const QByteArray &text);

} // namespace fb::team
