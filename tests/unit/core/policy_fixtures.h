#pragma once
// What the policy suites share (tst_policy, tst_policy_layers, tst_teampolicy): a policy parsed
// from JSON that must be valid.
#include "core/Policy.h"

#include <QDebug>

namespace fbtest {

// json parsed as a policy from source; its errors are a qWarning, which fails the test (every
// policy suite calls failOnWarnings in init()).
inline fb::Policy parseOk(const QByteArray &json, const QString &source = QStringLiteral("test"))
{
    const fb::PolicyParseResult r = fb::parsePolicy(json, source);
    if (!r.ok())
        qWarning() << r.errors;
    return r.policy;
}

} // namespace fbtest
