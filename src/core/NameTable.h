#pragma once
// NameTable: an enum's wire names written once, as data. A table is a constexpr array of rows
// with a `value` (the enum) and a `name` member, plus any other columns a caller needs (a path,
// a noun, a QT_TRANSLATE_NOOP text); these helpers look rows up in either direction, so no enum
// needs a name switch and a reverse loop that must be kept in step with it.
#include <QString>
#include <QStringList>
#include <QStringView>
#include <cstddef>
#include <optional>

namespace fb {

template <typename Enum> struct EnumName {
    Enum value;
    QStringView name;
};

// The row of value, or nullptr when the table has none.
template <typename Row, std::size_t N>
constexpr const Row *findRow(const Row (&table)[N], decltype(Row::value) value)
{
    for (const Row &row : table) {
        if (row.value == value)
            return &row;
    }
    return nullptr;
}

// The name of value; empty when the table has no row for it.
template <typename Row, std::size_t N>
QString nameOf(const Row (&table)[N], decltype(Row::value) value)
{
    const Row *row = findRow(table, value);
    return row ? row->name.toString() : QString();
}

// The value named name (exact, case-sensitive), or nullopt.
template <typename Row, std::size_t N>
std::optional<decltype(Row::value)> valueOf(const Row (&table)[N], QStringView name)
{
    for (const Row &row : table) {
        if (row.name == name)
            return row.value;
    }
    return std::nullopt;
}

// Every name, in table order.
template <typename Row, std::size_t N> QStringList namesOf(const Row (&table)[N])
{
    QStringList names;
    names.reserve(qsizetype(N));
    for (const Row &row : table)
        names.append(row.name.toString());
    return names;
}

} // namespace fb
