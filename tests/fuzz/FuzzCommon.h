#pragma once
// Shared bits of the libFuzzer targets: one QCoreApplication per process, quiet logging, and
// a crash-on-violation assertion that the fuzzer records as a finding.
#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QLoggingCategory>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace fbfuzz {

inline void initApp()
{
    static int argc = 1;
    static char name[] = "fuzz";
    static char *argv[] = {name, nullptr};
    static QCoreApplication *app = nullptr;
    if (!app) {
        QLoggingCategory::setFilterRules(QStringLiteral("*=false"));
        app = new QCoreApplication(argc, argv);
    }
}

[[noreturn]] inline void fail(const char *what)
{
    std::fprintf(stderr, "fuzz property violated: %s\n", what);
    std::abort();
}

// JSON equality with numbers compared as IEEE doubles (RFC 8785 / I-JSON semantics): Qt keeps
// integers that fit in qint64 exactly, canonical JSON does not.
inline bool sameJson(const QJsonValue &a, const QJsonValue &b)
{
    if (a.isDouble() && b.isDouble())
        return a.toDouble() == b.toDouble();
    if (a.type() != b.type())
        return false;
    if (a.isArray()) {
        const QJsonArray x = a.toArray(), y = b.toArray();
        if (x.size() != y.size())
            return false;
        for (qsizetype i = 0; i < x.size(); ++i)
            if (!sameJson(x.at(i), y.at(i)))
                return false;
        return true;
    }
    if (a.isObject()) {
        // Compare sorted member lists, not lookups: QJsonObject::value() in Qt 6.4 can miss
        // keys that mix Latin-1 and other text.
        auto members = [](const QJsonObject &o) {
            QList<std::pair<QString, QJsonValue>> m;
            for (auto it = o.constBegin(); it != o.constEnd(); ++it)
                m.append({it.key(), it.value()});
            std::sort(m.begin(), m.end(),
                      [](const auto &p, const auto &q) { return p.first < q.first; });
            return m;
        };
        const auto x = members(a.toObject()), y = members(b.toObject());
        if (x.size() != y.size())
            return false;
        for (qsizetype i = 0; i < x.size(); ++i) {
            if (x.at(i).first != y.at(i).first || !sameJson(x.at(i).second, y.at(i).second))
                return false;
        }
        return true;
    }
    return a == b;
}

} // namespace fbfuzz
