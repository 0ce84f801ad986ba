#pragma once
// A broker started in a suite's own process (ServerHost, the run modes, the relay) reads and
// writes only a private scratch folder while a BrokerScratch lives: it is $XDG_RUNTIME_DIR
// (sockets, the HTTP token), holds the audit log, the day marker and the user's policy path, and
// nothing of the caller's environment chooses Fabric credentials, toolsets, approvals, a team
// database or a policy.
#include "TestEnvironment.h"

#include <QFile>
#include <QTemporaryDir>
#include <memory>
#include <vector>

namespace fbtest {

class BrokerScratch {
public:
    // False when the folder cannot be made private (0700, as a runtime directory must be).
    bool setUp()
    {
        if (!m_dir.isValid() ||
            !QFile::setPermissions(m_dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                     QFileDevice::ExeOwner))
            return false;
        set("XDG_RUNTIME_DIR", m_dir.path());
        set("XDG_STATE_HOME", path(QStringLiteral("state")));
        set("XDG_CONFIG_HOME", path(QStringLiteral("config")));
        set("EQUINIX_MCP_AUDIT_LOG", path(QStringLiteral("audit.jsonl")));
        for (const char *name :
             {"EQUINIX_CLIENT_ID", "EQUINIX_CLIENT_SECRET", "EQUINIX_API_CLIENTID",
              "EQUINIX_API_CLIENTSECRET", "EQUINIX_API_TOKEN", "EQUINIX_API_ENDPOINT",
              "EQUINIX_MCP_TOOLSETS", "EQUINIX_MCP_APPROVAL", "EQUINIX_MCP_PROPOSAL_TTL_MS",
              "EQUINIX_MCP_MAX_PENDING", "EQUINIX_MCP_ALLOW_UNCONFIRMED_MUTATIONS",
              "FABRIC_BROKER_TEAM_DATABASE", "FABRIC_BROKER_POLICY",
              "FABRIC_BROKER_EXTRA_ADMIN_POLICY"})
            m_env.push_back(std::make_unique<ScopedEnvironmentVariable>(name, QByteArray()));
        return true;
    }
    // Restores the environment (call from cleanupTestCase).
    void tearDown() { m_env.clear(); }

    QString path(const QString &name) const { return m_dir.filePath(name); }
    QString runtimeDirectory() const { return m_dir.path(); }

private:
    void set(const char *name, const QString &value)
    {
        m_env.push_back(
            std::make_unique<ScopedEnvironmentVariable>(name, QFile::encodeName(value)));
    }
    QTemporaryDir m_dir;
    std::vector<std::unique_ptr<ScopedEnvironmentVariable>> m_env;
};

} // namespace fbtest
