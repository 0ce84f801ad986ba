#include "gui/DesktopNotifier.h"

#include "core/UntrustedText.h"

#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QLoggingCategory>
#include <QVariantMap>

Q_LOGGING_CATEGORY(lcNotifier, "fabricbroker.gui.notifier")

namespace fb {

using namespace Qt::StringLiterals;

const QString DesktopNotifier::Service = u"org.freedesktop.Notifications"_s;
const QString DesktopNotifier::Path = u"/org/freedesktop/Notifications"_s;
const QString DesktopNotifier::Interface = u"org.freedesktop.Notifications"_s;

namespace {
// The installed desktop entry (packaging/linux): servers group and decorate by it.
const QString kDesktopEntry = u"io.github.fabric_broker.FabricBroker"_s;
const QString kIcon = u"fabric-broker"_s;
const QString kDefaultAction = u"default"_s;
} // namespace

DesktopNotifier::DesktopNotifier(const QDBusConnection &bus, QObject *parent)
    : QObject(parent)
    , m_bus(bus)
{
    if (!m_bus.isConnected()) {
        unavailable(u"no session bus"_s);
        return;
    }
    // With the service named, the bus delivers these only from the name's owner.
    m_bus.connect(Service, Path, Interface, u"ActionInvoked"_s, this,
                  SLOT(onActionInvoked(uint, QString)));
    m_bus.connect(Service, Path, Interface, u"NotificationClosed"_s, this,
                  SLOT(onNotificationClosed(uint, uint)));
}

DesktopNotifier::~DesktopNotifier()
{
    // What is shown outlives the app otherwise, and opening it would find nothing.
    for (const Entry &e : std::as_const(m_entries))
        if (e.id != 0)
            close(e.id);
}

bool DesktopNotifier::hasBus() const
{
    return m_bus.isConnected();
}

void DesktopNotifier::setEnabled(bool enabled)
{
    if (enabled == m_enabled)
        return;
    m_enabled = enabled;
    if (!enabled)
        for (const QString &key : QStringList(m_order))
            withdraw(key);
}

QString DesktopNotifier::summaryText(const QString &summary)
{
    return UntrustedText::escapeInvisible(UntrustedText::bounded(summary, MaxSummary));
}

QString DesktopNotifier::bodyText(const QStringList &bodyLines, bool markup)
{
    QStringList lines;
    for (const QString &line : bodyLines.mid(0, MaxBodyLines)) {
        QString shown = UntrustedText::escapeInvisible(UntrustedText::bounded(line, MaxLine));
        if (markup) // the body markup is a small HTML subset: only these three act
            shown.replace(u'&', u"&amp;"_s).replace(u'<', u"&lt;"_s).replace(u'>', u"&gt;"_s);
        lines << shown;
    }
    return lines.join(u'\n');
}

void DesktopNotifier::show(const QString &key, const QString &summary, const QStringList &bodyLines)
{
    if (!m_enabled || !m_bus.isConnected())
        return;
    if (!m_entries.contains(key)) {
        m_order.append(key);
        while (m_order.size() > MaxKeys)
            forget(m_order.constFirst());
    }
    Entry &entry = m_entries[key];
    entry.closeAfter = false;
    entry.next = Content{summary, bodyLines};
    if (m_caps != Capabilities::Known)
        return askCapabilities();
    if (!entry.sending)
        send(key);
}

void DesktopNotifier::withdraw(const QString &key)
{
    const auto it = m_entries.find(key);
    if (it == m_entries.end())
        return;
    if (it->sending) { // closed once the service says which id it is
        it->closeAfter = true;
        it->next.reset();
        return;
    }
    if (it->id != 0)
        close(it->id);
    forget(key);
}

void DesktopNotifier::askCapabilities()
{
    if (m_caps == Capabilities::Asking)
        return;
    m_caps = Capabilities::Asking;
    const QDBusMessage message =
        QDBusMessage::createMethodCall(Service, Path, Interface, u"GetCapabilities"_s);
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(message), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this, [this](QDBusPendingCallWatcher *w) {
        w->deleteLater();
        const QDBusPendingReply<QStringList> reply = *w;
        if (reply.isError()) {
            m_caps = Capabilities::Unknown; // asked again with the next notification
            unavailable(reply.error().name() + u": "_s + reply.error().message());
            // Nothing can be shown now; what waited is dropped (the next show asks again).
            const QStringList keys = m_order;
            for (const QString &key : keys)
                if (!m_entries.value(key).sending && m_entries.value(key).id == 0)
                    forget(key);
            return;
        }
        m_caps = Capabilities::Known;
        m_markup = reply.value().contains(u"body-markup"_s);
        qCDebug(lcNotifier) << "notification service capabilities:" << reply.value();
        const QStringList keys = m_order;
        for (const QString &key : keys)
            if (m_entries.contains(key) && m_entries.value(key).next &&
                !m_entries.value(key).sending)
                send(key);
    });
}

void DesktopNotifier::send(const QString &key)
{
    Entry &entry = m_entries[key];
    if (!entry.next)
        return;
    const Content content = *std::exchange(entry.next, std::nullopt);
    entry.sending = true;
    QVariantMap hints;
    hints.insert(u"desktop-entry"_s, kDesktopEntry);
    hints.insert(u"urgency"_s, QVariant::fromValue(uchar(1))); // normal
    QDBusMessage message = QDBusMessage::createMethodCall(Service, Path, Interface, u"Notify"_s);
    // Only "default": what it does is open; there is no action that decides anything.
    message << u"Fabric Broker"_s << entry.id << kIcon << summaryText(content.summary)
            << bodyText(content.body, m_markup) << QStringList{kDefaultAction, tr("Open")} << hints
            << qint32(-1);
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(message), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, key](QDBusPendingCallWatcher *w) {
                w->deleteLater();
                const QDBusPendingReply<uint> reply = *w;
                const auto it = m_entries.find(key);
                if (reply.isError()) {
                    unavailable(reply.error().name() + u": "_s + reply.error().message());
                    if (it != m_entries.end()) {
                        it->sending = false;
                        if (it->id == 0 || it->closeAfter)
                            forget(key);
                    }
                    return;
                }
                const uint id = reply.value();
                if (it == m_entries.end()) { // forgotten meanwhile (MaxKeys): not ours to keep
                    close(id);
                    return;
                }
                it->sending = false;
                it->id = id;
                if (it->closeAfter) {
                    close(id);
                    forget(key);
                    return;
                }
                emit shown(key, id);
                if (it->next)
                    send(key);
            });
}

void DesktopNotifier::close(uint id)
{
    QDBusMessage message =
        QDBusMessage::createMethodCall(Service, Path, Interface, u"CloseNotification"_s);
    message << id;
    m_bus.send(message);
}

void DesktopNotifier::unavailable(const QString &why)
{
    if (m_loggedUnavailable)
        return;
    m_loggedUnavailable = true;
    qCInfo(lcNotifier).noquote() << "no desktop notifications:"
                                 << UntrustedText::escapeInvisible(
                                        UntrustedText::bounded(why, 300));
}

QString DesktopNotifier::keyOf(uint id) const
{
    if (id == 0)
        return {};
    for (auto it = m_entries.cbegin(); it != m_entries.cend(); ++it)
        if (it->id == id)
            return it.key();
    return {};
}

void DesktopNotifier::forget(const QString &key)
{
    m_entries.remove(key);
    m_order.removeAll(key);
}

void DesktopNotifier::onActionInvoked(uint id, const QString &action)
{
    const QString key = keyOf(id);
    if (key.isEmpty() || action != kDefaultAction) // another program's, or not an action we offer
        return;
    qCInfo(lcNotifier).noquote() << "notification opened:" << key;
    emit openRequested(key);
}

void DesktopNotifier::onNotificationClosed(uint id, uint reason)
{
    Q_UNUSED(reason);
    const QString key = keyOf(id);
    if (key.isEmpty())
        return;
    const Entry &entry = m_entries.value(key);
    if (entry.sending || entry.next) // replaced: the new one is on its way under the same id
        return;
    forget(key);
}

} // namespace fb
