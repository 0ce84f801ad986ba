#include "core/Money.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace fb {

QJsonObject Money::toJson() const
{
    return {{u"amount"_s, amount}, {u"currency"_s, currency}};
}

QString Money::display() const
{
    QLocale loc(QLocale::English, QLocale::UnitedStates);
    return currency + u' ' + loc.toString(amount, 'f', 2);
}

bool Money::above(const Money &limit) const
{
    return currency != limit.currency || amount > limit.amount;
}

bool Money::isCurrencyCode(const QString &text)
{
    // Exactly three ASCII capitals (a regular expression's "$" would also let "USD\n" through).
    return text.size() == 3 &&
           std::all_of(text.begin(), text.end(), [](QChar c) { return c >= u'A' && c <= u'Z'; });
}

std::optional<Money> Money::parse(const QJsonValue &v, const QString &key, QStringList *errors)
{
    if (!v.isObject()) {
        errors->append(u"%1: must be an object {\"amount\": <number >= 0>, \"currency\": "
                       "\"<ISO 4217 code>\"}"_s.arg(key));
        return std::nullopt;
    }
    const QJsonObject o = v.toObject();
    bool ok = true;
    for (auto it = o.begin(); it != o.end(); ++it) {
        if (it.key() != u"amount" && it.key() != u"currency") {
            errors->append(u"%1.%2: unknown key"_s.arg(key, it.key().left(64)));
            ok = false;
        }
    }
    const QJsonValue amount = o.value(u"amount"_s);
    if (!amount.isDouble() || !std::isfinite(amount.toDouble()) || amount.toDouble() < 0) {
        errors->append(u"%1.amount: must be a number >= 0"_s.arg(key));
        ok = false;
    }
    const QJsonValue currency = o.value(u"currency"_s);
    if (!currency.isString() || !isCurrencyCode(currency.toString())) {
        errors->append(
            u"%1.currency: must be a three-letter ISO 4217 code such as \"USD\""_s.arg(key));
        ok = false;
    }
    if (!ok)
        return std::nullopt;
    return Money{amount.toDouble(), currency.toString()};
}

} // namespace fb
