#pragma once
// Money: an amount in one ISO 4217 currency, as the policy's limits and thresholds, team.quorum's
// rules and a proposal's monthly price carry it. Amounts in different currencies are never
// converted: they are not comparable, and a comparison that must decide counts them as above.
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <optional>

namespace fb {

struct Money {
    double amount = 0;
    QString currency; // ISO 4217, three upper-case letters

    QJsonObject toJson() const;
    QString display() const; // "USD 1,000.00"
    bool operator==(const Money &) const = default;
    // Whether this amount is above limit: true when it is larger in the same currency, and when
    // the currencies differ (they cannot be compared, so the stricter answer holds).
    bool above(const Money &limit) const;

    // Whether text is a currency code: three upper-case ASCII letters.
    static bool isCurrencyCode(const QString &text);
    // Strict: an object with exactly "amount" (a finite number >= 0) and "currency" (a currency
    // code). nullopt otherwise, with each problem appended to errors named by key
    // ("<key>.amount: must be a number >= 0").
    static std::optional<Money> parse(const QJsonValue &value, const QString &key,
                                      QStringList *errors);
};

} // namespace fb
