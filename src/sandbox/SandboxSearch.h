#pragma once
// SandboxSearch: Fabric v4 search semantics over JSON resources: the filter expression
// ({and:[...]}, {or:[...]}, {property, operator, values}), sort criteria and pagination.
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QUrlQuery>

namespace fb {

class SandboxSearch {
public:
    // All values found at a JSON-pointer-like property ("/aSide/accessPoint/port/uuid"); arrays on
    // the way are walked element by element, so "/metros/code" yields every metro code.
    static QJsonArray valuesAt(const QJsonValue &root, const QString &property);
    // The first value at the property, or undefined.
    static QJsonValue valueAt(const QJsonValue &root, const QString &property);

    // True when the item satisfies the filter. An empty or missing filter matches all. On a
    // malformed filter returns false and sets error to "<property>: <reason>".
    static bool matches(const QJsonValue &filter, const QJsonObject &item, QString *error);
    // Checks the filter's shape once (operators known, values arrays); empty string when fine,
    // else "<json path>|<reason>".
    static QString validateFilter(const QJsonValue &filter, const QString &path);

    // Sorts by [{property, direction}] (direction ASC or DESC, default DESC as Fabric does).
    static void sort(QJsonArray &items, const QJsonArray &criteria);

    struct Page {
        int offset = 0;
        int limit = 20;
    };
    // Reads pagination {offset, limit} from a search body or from query parameters. Returns
    // an error text ("pagination.limit|must be between 1 and 100") when out of range.
    static QString readPage(const QJsonObject &pagination, Page *page);
    static QString readPage(const QUrlQuery &query, Page *page);

    // {pagination:{offset, limit, total, next?, previous?}, data:[...]} for a page of items.
    // basePath is used for the next/previous links ("/fabric/v4/ports").
    static QJsonObject pageOf(const QJsonArray &items, const Page &page, const QString &basePath);
};

} // namespace fb
