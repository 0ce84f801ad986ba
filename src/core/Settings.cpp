#include "core/Settings.h"

#include "core/UntrustedText.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace fb {

namespace {

QString joinedChoices(const QStringList &choices)
{
    // "auto, client or desktop"
    if (choices.size() < 2)
        return choices.join(u", "_s);
    return choices.mid(0, choices.size() - 1).join(u", "_s) + u" or "_s + choices.last();
}

} // namespace

std::optional<QStringList> Settings::parseList(const SettingSpec &spec, const QString &raw,
                                               QString *error)
{
    const QStringList known = spec.choiceList();
    const QString noun = QString(spec.choiceNoun);
    const QString named = (known + spec.aliasNames()).join(u", "_s);
    QStringList result;
    for (const QString &part : raw.split(u',', Qt::SkipEmptyParts)) {
        const QString name = part.trimmed().toLower();
        if (name.isEmpty())
            continue;
        const QStringList expanded = spec.aliasChoices(name);
        if (!known.contains(name) && expanded.isEmpty()) {
            *error = u"Unknown %1: %2 (known %1s: %3)"_s.arg(noun, part.trimmed(), named);
            return std::nullopt;
        }
        for (const QString &n : expanded.isEmpty() ? QStringList{name} : expanded)
            if (!result.contains(n))
                result.append(n);
    }
    if (result.isEmpty()) {
        *error = u"No %1 named (known %1s: %2)"_s.arg(noun, named);
        return std::nullopt;
    }
    // Deterministic order: that of the choices.
    std::sort(result.begin(), result.end(), [&known](const QString &a, const QString &b) {
        return known.indexOf(a) < known.indexOf(b);
    });
    return result;
}

namespace {

QString code(QLatin1StringView text)
{
    return text.isEmpty() ? u"—"_s : u"`"_s + QString(text) + u"`"_s;
}

QString plain(QLatin1StringView markdown)
{
    return QString(markdown).remove(u'`');
}

// Words of text on lines of at most 79 columns, each indented by six spaces.
QString wrapped(const QString &text)
{
    const QString indent = u"      "_s;
    QString out;
    QString line = indent;
    for (const QString &word : text.split(u' ', Qt::SkipEmptyParts)) {
        if (line.size() > indent.size() && line.size() + 1 + word.size() > 79) {
            out += line + u'\n';
            line = indent;
        }
        if (line.size() > indent.size())
            line += u' ';
        line += word;
    }
    return out + line + u'\n';
}

} // namespace

bool SettingSpec::hasSource(SettingSource source) const
{
    switch (source) {
    case SettingSource::Default:
        return true;
    case SettingSource::Saved:
        return !savedKey.isEmpty();
    case SettingSource::Environment:
        return !env.isEmpty();
    case SettingSource::Flag:
        return !flag.isEmpty();
    }
    return false;
}

QStringList SettingSpec::choiceList() const
{
    return QString(choices).split(u',', Qt::SkipEmptyParts);
}

QStringList SettingSpec::aliasChoices(const QString &alias) const
{
    for (const QString &entry : QString(choiceAliases).split(u';', Qt::SkipEmptyParts)) {
        if (entry.section(u'=', 0, 0) == alias)
            return entry.section(u'=', 1).split(u'+', Qt::SkipEmptyParts);
    }
    return {};
}

QStringList SettingSpec::aliasNames() const
{
    QStringList names;
    for (const QString &alias : QString(choiceAliases).split(u';', Qt::SkipEmptyParts))
        names.append(alias.section(u'=', 0, 0));
    return names;
}

QString SettingSpec::sourceLabel(SettingSource source) const
{
    switch (source) {
    case SettingSource::Default:
        return u"default"_s;
    case SettingSource::Saved:
        return u"saved "_s + QString(savedKey);
    case SettingSource::Environment:
        return QString(env);
    case SettingSource::Flag:
        return u"--"_s + QString(flag);
    }
    return {};
}

const SettingSpec &Settings::spec(SettingId id)
{
    const auto rows = table();
    const auto it =
        std::find_if(rows.begin(), rows.end(), [id](const SettingSpec &s) { return s.id == id; });
    Q_ASSERT(it != rows.end());
    return *it;
}

QString Settings::envName(SettingId id)
{
    return QString(spec(id).env);
}

QString Settings::savedKey(SettingId id)
{
    return QString(spec(id).savedKey);
}

const SettingSpec *Settings::findByName(QStringView name)
{
    for (const SettingSpec &s : table()) {
        if (name == s.name)
            return &s;
    }
    return nullptr;
}

std::optional<QString> Settings::rawValue(const SettingSpec &spec, SettingSource source,
                                          const SettingSources &sources)
{
    if (!spec.hasSource(source))
        return std::nullopt;
    std::optional<QString> raw;
    switch (source) {
    case SettingSource::Default:
        return QString(spec.defaultValue);
    case SettingSource::Saved:
        if (sources.saved.contains(spec.id))
            raw = sources.saved.value(spec.id);
        break;
    case SettingSource::Flag:
        if (sources.flags.contains(spec.id))
            raw = sources.flags.value(spec.id);
        break;
    case SettingSource::Environment:
        for (QLatin1StringView name : {spec.env, spec.envAlias}) {
            if (name.isEmpty() || !sources.environment.contains(QString(name)))
                continue;
            const QString value = sources.environment.value(QString(name));
            if (spec.emptyIsUnset && value.trimmed().isEmpty())
                continue;
            raw = value;
            break;
        }
        break;
    }
    if (raw && spec.emptyIsUnset && raw->trimmed().isEmpty())
        return std::nullopt;
    return raw;
}

std::optional<QVariant> Settings::parse(const SettingSpec &spec, const QString &raw,
                                        SettingSource source, QString *error)
{
    const QString label = spec.sourceLabel(source);
    QString why;
    switch (spec.type) {
    case SettingType::Text:
    case SettingType::Secret:
        return QVariant(raw.trimmed());
    case SettingType::Switch:
    case SettingType::SavedBool:
        return QVariant(raw == u"true" || raw == u"1");
    case SettingType::Integer: {
        bool ok = false;
        const qint64 v = raw.trimmed().toLongLong(&ok);
        if (spec.onInvalid == OnInvalid::UseDefault) {
            if (!ok || v < spec.min)
                return defaultValue(spec.id);
            return QVariant(std::min(v, spec.max));
        }
        if (ok && v >= spec.min && v <= spec.max)
            return QVariant(v);
        *error = u"%1 must be an integer between %2 and %3 (got \"%4\")"_s.arg(label)
                     .arg(spec.min)
                     .arg(spec.max)
                     .arg(raw.left(40));
        return std::nullopt;
    }
    case SettingType::ExactBool:
        // Exactly one spelling each: anything else is a typo the operator must hear about.
        if (raw == u"true")
            return QVariant(true);
        if (raw == u"false")
            return QVariant(false);
        *error = u"%1 must be exactly true or false (got \"%2\")"_s.arg(
            label, UntrustedText::escapeInvisible(raw.left(40)));
        return std::nullopt;
    case SettingType::Choice: {
        const QString value = raw.trimmed().toLower();
        if (value.isEmpty())
            return QVariant(QString(spec.defaultValue));
        if (spec.choiceList().contains(value))
            return QVariant(value);
        *error = u"%1 must be %2"_s.arg(label, joinedChoices(spec.choiceList()));
        return std::nullopt;
    }
    case SettingType::ChoiceList:
        if (auto list = parseList(spec, raw, &why))
            return QVariant(*list);
        *error = label + u": "_s + why;
        return std::nullopt;
    }
    return std::nullopt;
}

QVariant Settings::defaultValue(SettingId id)
{
    const SettingSpec &s = spec(id);
    QString ignored;
    switch (s.type) {
    case SettingType::Text:
    case SettingType::Secret:
        return QString(s.defaultValue);
    case SettingType::Integer:
        return QString(s.defaultValue).toLongLong();
    default:
        return parse(s, QString(s.defaultValue), SettingSource::Default, &ignored)
            .value_or(QVariant());
    }
}

std::optional<QVariant> Settings::resolve(SettingId id, const SettingSources &sources,
                                          SettingSource *winner, QString *error)
{
    const SettingSpec &s = spec(id);
    std::optional<QVariant> value;
    SettingSource from = SettingSource::Default;
    for (SettingSource source :
         {SettingSource::Saved, SettingSource::Environment, SettingSource::Flag}) {
        const std::optional<QString> raw = rawValue(s, source, sources);
        if (!raw)
            continue;
        QString why;
        std::optional<QVariant> parsed = parse(s, *raw, source, &why);
        if (!parsed) {
            if (source == SettingSource::Saved)
                continue; // the app's own file: an unusable value is as good as none
            if (error)
                *error = why;
            return std::nullopt;
        }
        value = std::move(parsed);
        from = source;
    }
    if (winner)
        *winner = from;
    return value ? *value : defaultValue(id);
}

QString Settings::markdownTable()
{
    QString out = u"| setting | environment | flag | saved (desktop Settings) | policy lock | "
                  u"meaning | default |\n|---|---|---|---|---|---|---|\n"_s;
    for (const SettingSpec &s : table()) {
        if (s.internal)
            continue;
        QString env = code(s.env);
        if (!s.envAlias.isEmpty())
            env += u" (also "_s + code(s.envAlias) + u")"_s;
        const QString flag = s.flag.isEmpty() ? u"—"_s : u"`--"_s + QString(s.flag) + u"`"_s;
        const QString def =
            !s.defaultDisplay.isEmpty() ? QString(s.defaultDisplay) : code(s.defaultValue);
        out += u"| `"_s + QString(s.name) + u"` | "_s + env + u" | "_s + flag + u" | "_s +
               code(s.savedKey) + u" | "_s + code(s.policyKey) + u" | "_s + QString(s.summary) +
               u" | "_s + def + u" |\n"_s;
    }
    return out;
}

QString Settings::environmentHelp()
{
    QString out;
    for (const SettingSpec &s : table()) {
        if (s.internal || s.env.isEmpty())
            continue;
        out += u"  "_s + QString(s.env);
        if (!s.envAlias.isEmpty())
            out += u" (or "_s + QString(s.envAlias) + u")"_s;
        if (!s.flag.isEmpty())
            out += u", overridden by --"_s + QString(s.flag);
        out += u'\n';
        QString text = plain(s.summary);
        const QString def =
            !s.defaultDisplay.isEmpty() ? plain(s.defaultDisplay) : QString(s.defaultValue);
        if (!def.isEmpty())
            text += u" (default: "_s + def + u")"_s;
        out += wrapped(text);
    }
    return out;
}

} // namespace fb
