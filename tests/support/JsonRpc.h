#pragma once
// JSON-RPC 2.0 over newline-delimited JSON, as the tests' clients speak it to the broker.
// Header-only: the fuzz targets (tests/fuzz) use it through unit/mcp/TestPipe.h without linking
// the support library.
#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <QtGlobal>

namespace fbtest {

// One compact frame with its newline. No "id" when id is undefined (a notification), no
// "params" when params is empty.
inline QByteArray frame(const QJsonValue &id, const QString &method, const QJsonObject &params = {})
{
    QJsonObject m{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                  {QStringLiteral("method"), method}};
    if (!id.isUndefined())
        m.insert(QStringLiteral("id"), id);
    if (!params.isEmpty())
        m.insert(QStringLiteral("params"), params);
    return QJsonDocument(m).toJson(QJsonDocument::Compact) + '\n';
}

// Moves every complete line of *buffer (NDJSON) into *into as an object; the incomplete tail
// stays in *buffer. Returns how many lines were taken.
inline qsizetype takeJsonLines(QByteArray *buffer, QList<QJsonObject> *into)
{
    qsizetype taken = 0;
    qsizetype nl;
    while ((nl = buffer->indexOf('\n')) >= 0) {
        into->append(QJsonDocument::fromJson(buffer->left(nl)).object());
        buffer->remove(0, nl + 1);
        ++taken;
    }
    return taken;
}

// A JSON fixture written inline in a test: any JSON value (scalars too). A fixture that is not
// JSON is a bug in the test: it aborts the run with the parser's message.
inline QJsonValue parseJsonFixture(const QByteArray &text)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson('[' + text + ']', &error);
    if (error.error != QJsonParseError::NoError)
        qFatal("fixture is not JSON: %s in %s", qPrintable(error.errorString()), text.constData());
    return doc.array().at(0);
}

} // namespace fbtest
