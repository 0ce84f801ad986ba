#include "transport/http/HttpAddress.h"

#include <QHostAddress>

using namespace Qt::StringLiterals;

namespace fb::transport::HttpAddress {

QString defaultAddress()
{
    return u"127.0.0.1:7431"_s;
}

bool parse(const QString &text, QHostAddress *address, quint16 *port, QString *error)
{
    const QString t = text.trimmed();
    const qsizetype colon = t.lastIndexOf(u':');
    QString host = colon < 0 ? QString() : t.left(colon);
    bool ok = false;
    const uint p = colon < 0 ? 0 : t.mid(colon + 1).toUInt(&ok);
    if (colon < 0 || !ok || p > 65535) {
        if (error)
            *error = u"--http wants 127.0.0.1:PORT or [::1]:PORT (PORT 0 = a free port), not "
                     "\"%1\""_s.arg(t.left(100));
        return false;
    }
    if (host == "localhost"_L1)
        host = u"127.0.0.1"_s;
    if (host.startsWith(u'[') && host.endsWith(u']'))
        host = host.mid(1, host.size() - 2);
    const QHostAddress parsed(host);
    if (parsed.isNull() || !parsed.isLoopback()) {
        if (error)
            *error = u"--http serves loopback only (127.0.0.1 or [::1]), not \"%1\""_s.arg(
                host.left(100));
        return false;
    }
    *address = parsed;
    *port = static_cast<quint16>(p);
    return true;
}

} // namespace fb::transport::HttpAddress
