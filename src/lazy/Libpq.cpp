// The libpq functions the team layer calls (src/team/PgConnection, PgAsync), opened on first use
// (lazy/LazyLibrary.h).
#include "lazy/Forward.h"

#include <libpq-fe.h>

// clang-format off
FB_FORWARD(libpq, void, PQclear, (PGresult *res), (res))
FB_FORWARD(libpq, char *, PQcmdTuples, (PGresult *res), (res))
FB_FORWARD(libpq, PostgresPollingStatusType, PQconnectPoll, (PGconn *conn), (conn))
FB_FORWARD(libpq, PGconn *, PQconnectStartParams,
           (const char *const *keywords, const char *const *values, int expand_dbname),
           (keywords, values, expand_dbname))
FB_FORWARD(libpq, PGconn *, PQconnectdbParams,
           (const char *const *keywords, const char *const *values, int expand_dbname),
           (keywords, values, expand_dbname))
FB_FORWARD(libpq, void, PQconninfoFree, (PQconninfoOption *connOptions), (connOptions))
FB_FORWARD(libpq, PQconninfoOption *, PQconninfoParse, (const char *conninfo, char **errmsg),
           (conninfo, errmsg))
FB_FORWARD(libpq, int, PQconsumeInput, (PGconn *conn), (conn))
FB_FORWARD(libpq, char *, PQdb, (const PGconn *conn), (conn))
FB_FORWARD(libpq, char *, PQerrorMessage, (const PGconn *conn), (conn))
FB_FORWARD(libpq, char *, PQescapeIdentifier, (PGconn *conn, const char *str, size_t len),
           (conn, str, len))
FB_FORWARD(libpq, PGresult *, PQexec, (PGconn *conn, const char *query), (conn, query))
FB_FORWARD(libpq, PGresult *, PQexecParams,
           (PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
            const char *const *paramValues, const int *paramLengths, const int *paramFormats,
            int resultFormat),
           (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,
            resultFormat))
FB_FORWARD(libpq, void, PQfinish, (PGconn *conn), (conn))
FB_FORWARD(libpq, int, PQflush, (PGconn *conn), (conn))
FB_FORWARD(libpq, char *, PQfname, (const PGresult *res, int field_num), (res, field_num))
FB_FORWARD(libpq, void, PQfreemem, (void *ptr), (ptr))
FB_FORWARD(libpq, PGresult *, PQgetResult, (PGconn *conn), (conn))
FB_FORWARD(libpq, int, PQgetisnull, (const PGresult *res, int tup_num, int field_num),
           (res, tup_num, field_num))
FB_FORWARD(libpq, int, PQgetlength, (const PGresult *res, int tup_num, int field_num),
           (res, tup_num, field_num))
FB_FORWARD(libpq, char *, PQgetvalue, (const PGresult *res, int tup_num, int field_num),
           (res, tup_num, field_num))
FB_FORWARD(libpq, char *, PQhost, (const PGconn *conn), (conn))
FB_FORWARD(libpq, int, PQisBusy, (PGconn *conn), (conn))
FB_FORWARD(libpq, int, PQnfields, (const PGresult *res), (res))
FB_FORWARD(libpq, PGnotify *, PQnotifies, (PGconn *conn), (conn))
FB_FORWARD(libpq, int, PQntuples, (const PGresult *res), (res))
FB_FORWARD(libpq, char *, PQport, (const PGconn *conn), (conn))
FB_FORWARD(libpq, char *, PQresultErrorField, (const PGresult *res, int fieldcode),
           (res, fieldcode))
FB_FORWARD(libpq, char *, PQresultErrorMessage, (const PGresult *res), (res))
FB_FORWARD(libpq, ExecStatusType, PQresultStatus, (const PGresult *res), (res))
FB_FORWARD(libpq, int, PQsendQueryParams,
           (PGconn *conn, const char *command, int nParams, const Oid *paramTypes,
            const char *const *paramValues, const int *paramLengths, const int *paramFormats,
            int resultFormat),
           (conn, command, nParams, paramTypes, paramValues, paramLengths, paramFormats,
            resultFormat))
FB_FORWARD(libpq, int, PQserverVersion, (const PGconn *conn), (conn))
FB_FORWARD(libpq, PQnoticeProcessor, PQsetNoticeProcessor,
           (PGconn *conn, PQnoticeProcessor proc, void *arg), (conn, proc, arg))
FB_FORWARD(libpq, int, PQsetnonblocking, (PGconn *conn, int arg), (conn, arg))
FB_FORWARD(libpq, int, PQsocket, (const PGconn *conn), (conn))
FB_FORWARD(libpq, ConnStatusType, PQstatus, (const PGconn *conn), (conn))
FB_FORWARD(libpq, char *, PQuser, (const PGconn *conn), (conn))
// clang-format on
