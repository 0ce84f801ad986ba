#include "broker/ConfirmStateStore.h"

#include "core/TokenDigest.h"

#include <QCryptographicHash>
#include <QMessageAuthenticationCode>
#include <QRandomGenerator>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;

namespace fb {

namespace {

constexpr QLatin1StringView kPrefix{"fbrs1."};
constexpr qsizetype kIdBytes = 16;
constexpr auto kB64 = QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals;

QByteArray randomBytes(qsizetype n)
{
    QByteArray out(n, Qt::Uninitialized);
    QRandomGenerator *rng = QRandomGenerator::system(); // the OS CSPRNG
    for (qsizetype i = 0; i < n; ++i)
        out[i] = static_cast<char>(rng->generate() & 0xff);
    return out;
}

} // namespace

ConfirmStateStore::ConfirmStateStore(Clock *clock, QObject *parent)
    : QObject(parent)
    , m_clock(clock ? clock : Clock::system())
    , m_key(randomBytes(32))
{
    m_timer.setSingleShot(true);
    connect(&m_timer, &QTimer::timeout, this, &ConfirmStateStore::expireDue);
}

ConfirmStateStore::~ConfirmStateStore() = default;

QByteArray ConfirmStateStore::mac(const QByteArray &id, quint64 sessionId,
                                  const QString &tokenSha256) const
{
    QMessageAuthenticationCode code(QCryptographicHash::Sha256, m_key);
    code.addData(QByteArray(kPrefix.data(), kPrefix.size()));
    code.addData(id);
    code.addData("|", 1);
    code.addData(QByteArray::number(sessionId));
    code.addData("|", 1);
    code.addData(tokenSha256.toUtf8());
    return code.result();
}

QString ConfirmStateStore::issue(const PendingConfirm &record)
{
    QByteArray id;
    do {
        id = randomBytes(kIdBytes);
    } while (m_pending.contains(id) || m_remembered.contains(id));
    // Bounded: the oldest waiting record of the session (or of all) gives way, timed out.
    QList<PendingConfirm> ended;
    while (pendingCount(record.sessionId) >= MaxPendingPerSession)
        ended.append(*endOldest(record.sessionId));
    while (m_pending.size() >= MaxPending)
        ended.append(*endOldest(std::nullopt));
    m_pending.insert(id, record);
    m_pendingOrder.append(id);
    rearm();
    for (const PendingConfirm &r : std::as_const(ended))
        emit timedOut(r);
    QString state = QString(kPrefix);
    state += QString::fromLatin1(id.toBase64(kB64));
    state += u'.';
    state += QString::fromLatin1(mac(id, record.sessionId, record.tokenSha256).toBase64(kB64));
    return state;
}

ConfirmStateStore::Lookup ConfirmStateStore::take(const QString &state, quint64 sessionId,
                                                  const QString &tokenSha256)
{
    Lookup out;
    if (state.size() > MaxStateLength || !state.startsWith(kPrefix))
        return out;
    const QStringList parts = state.mid(kPrefix.size()).split(u'.');
    if (parts.size() != 2)
        return out;
    const auto idDecoded = QByteArray::fromBase64Encoding(
        parts[0].toLatin1(), kB64 | QByteArray::AbortOnBase64DecodingErrors);
    const auto macDecoded = QByteArray::fromBase64Encoding(
        parts[1].toLatin1(), kB64 | QByteArray::AbortOnBase64DecodingErrors);
    if (!idDecoded || !macDecoded || idDecoded.decoded.size() != kIdBytes)
        return out;
    // Integrity first: nothing is looked up for a state this process did not issue.
    if (!TokenDigest::equalSecrets(mac(idDecoded.decoded, sessionId, tokenSha256),
                                   macDecoded.decoded))
        return out;
    const QByteArray &id = idDecoded.decoded;

    expireDue();
    if (auto it = m_pending.find(id); it != m_pending.end()) {
        // One time: removed before the caller acts on it.
        PendingConfirm record = *it;
        m_pending.erase(it);
        m_pendingOrder.removeOne(id);
        remember(id, Status::Completed, record);
        rearm();
        out.status = Status::Taken;
        out.record = std::move(record);
        return out;
    }
    if (auto it = m_remembered.find(id); it != m_remembered.end()) {
        out.status = it->status;
        out.record = it->record;
        out.endReason = it->endReason;
        return out;
    }
    // Issued by this process but long forgotten: it was used or timed out.
    out.status = Status::Completed;
    return out;
}

QJsonObject ConfirmStateStore::inputRequiredResult(const QJsonObject &elicitationParams,
                                                   const QString &state)
{
    return QJsonObject{
        {u"resultType"_s, u"input_required"_s},
        {u"inputRequests"_s,
         QJsonObject{{QString(InputKey), QJsonObject{{u"method"_s, u"elicitation/create"_s},
                                                     {u"params"_s, elicitationParams}}}}},
        {u"requestState"_s, state}};
}

std::optional<QJsonObject> ConfirmStateStore::answerIn(const QJsonValue &inputResponses)
{
    const QJsonValue answer = inputResponses.toObject().value(QString(InputKey));
    if (!answer.isObject())
        return std::nullopt;
    return answer.toObject();
}

void ConfirmStateStore::expireDue()
{
    const qint64 now = m_clock->nowMs();
    QList<QByteArray> due;
    for (auto it = m_pending.cbegin(); it != m_pending.cend(); ++it) {
        if (now >= it->deadlineMs)
            due.append(it.key());
    }
    std::sort(due.begin(), due.end(), [this](const QByteArray &a, const QByteArray &b) {
        return m_pending.value(a).deadlineMs < m_pending.value(b).deadlineMs;
    });
    QList<PendingConfirm> ended;
    for (const QByteArray &id : std::as_const(due)) {
        PendingConfirm record = m_pending.take(id);
        m_pendingOrder.removeOne(id);
        remember(id, Status::TimedOut, record);
        ended.append(std::move(record));
    }
    rearm();
    for (const PendingConfirm &record : std::as_const(ended))
        emit timedOut(record);
}

int ConfirmStateStore::pendingCount(quint64 sessionId) const
{
    return int(std::count_if(m_pending.cbegin(), m_pending.cend(),
                             [sessionId](const auto &r) { return r.sessionId == sessionId; }));
}

std::optional<PendingConfirm> ConfirmStateStore::endOldest(std::optional<quint64> sessionId,
                                                           const QString &endReason)
{
    for (qsizetype i = 0; i < m_pendingOrder.size(); ++i) {
        const QByteArray id = m_pendingOrder.at(i); // a copy: the list changes below
        if (sessionId && m_pending.value(id).sessionId != *sessionId)
            continue;
        PendingConfirm record = m_pending.take(id);
        m_pendingOrder.removeOne(id);
        remember(id, Status::TimedOut, record, endReason);
        return record;
    }
    return std::nullopt;
}

int ConfirmStateStore::endAll(const QString &reason)
{
    QList<PendingConfirm> all;
    while (!m_pendingOrder.isEmpty())
        all.append(*endOldest(std::nullopt, reason));
    rearm();
    for (const PendingConfirm &r : std::as_const(all))
        emit ended(r, reason);
    return int(all.size());
}

void ConfirmStateStore::remember(const QByteArray &id, Status status, const PendingConfirm &record,
                                 const QString &endReason)
{
    if (!m_remembered.contains(id))
        m_rememberedOrder.append(id);
    m_remembered.insert(id, Remembered{status, record, endReason});
    while (m_rememberedOrder.size() > MaxRemembered)
        m_remembered.remove(m_rememberedOrder.takeFirst());
}

void ConfirmStateStore::rearm()
{
    if (m_pending.isEmpty()) {
        m_timer.stop();
        return;
    }
    qint64 next = std::numeric_limits<qint64>::max();
    for (const PendingConfirm &r : std::as_const(m_pending))
        next = std::min(next, r.deadlineMs);
    const qint64 wait = std::clamp<qint64>(next - m_clock->nowMs(), 0, 24LL * 3600 * 1000);
    m_timer.start(static_cast<int>(wait));
}

} // namespace fb
