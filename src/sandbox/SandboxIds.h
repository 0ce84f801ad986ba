#pragma once
// Fixed identifiers of the sandbox's seeded estate (resources/sandbox/estate.json), so tests and
// docs can name them; tst_sandboxseed checks that each one is seeded.
// Scheme: <kind>-0000-4000-8000-<serial>, kind 50000000 port, 5e000000 service profile,
// c0000000 connection, e0000000 network, 70000000 service token, a0000000 cloud router.
#include <QLatin1String>

namespace fb::SandboxIds {

// Ports (all owned by the sandbox account 100001).
inline constexpr QLatin1String PortSvPrimary{"50000000-0000-4000-8000-000000000001"};   // SV, DOT1Q
inline constexpr QLatin1String PortSvSecondary{"50000000-0000-4000-8000-000000000002"}; // SV, DOT1Q
inline constexpr QLatin1String PortDc{"50000000-0000-4000-8000-000000000003"};          // DC, DOT1Q
inline constexpr QLatin1String PortNyQinq{"50000000-0000-4000-8000-000000000004"};      // NY, QINQ
inline constexpr QLatin1String PortAm{"50000000-0000-4000-8000-000000000005"};          // AM, DOT1Q
inline constexpr QLatin1String PortLd{"50000000-0000-4000-8000-000000000006"};          // LD, DOT1Q
inline constexpr QLatin1String PortSg{"50000000-0000-4000-8000-000000000007"};          // SG, DOT1Q

// Service profiles.
inline constexpr QLatin1String ProfileAwsDirectConnect{"5e000000-0000-4000-8000-000000000001"};
inline constexpr QLatin1String ProfileAzureExpressRoute{"5e000000-0000-4000-8000-000000000002"};
inline constexpr QLatin1String ProfileGenericL2{"5e000000-0000-4000-8000-000000000003"};

// Existing connections.
inline constexpr QLatin1String ConnectionSvAwsPrimary{"c0000000-0000-4000-8000-000000000001"};
inline constexpr QLatin1String ConnectionSvDcEvpl{"c0000000-0000-4000-8000-000000000002"};
inline constexpr QLatin1String ConnectionSvAwsSecondary{"c0000000-0000-4000-8000-000000000003"};
inline constexpr QLatin1String ConnectionNyLdEvpl{"c0000000-0000-4000-8000-000000000004"};

// Networks.
inline constexpr QLatin1String NetworkGlobalEvplan{"e0000000-0000-4000-8000-000000000001"};
inline constexpr QLatin1String NetworkAmerEplan{"e0000000-0000-4000-8000-000000000002"};

// Service tokens.
inline constexpr QLatin1String ServiceTokenSv{"70000000-0000-4000-8000-000000000001"};
inline constexpr QLatin1String ServiceTokenLdExpired{"70000000-0000-4000-8000-000000000002"};

// Cloud routers.
inline constexpr QLatin1String RouterSvStandard{"a0000000-0000-4000-8000-000000000001"};
inline constexpr QLatin1String RouterLdLab{"a0000000-0000-4000-8000-000000000002"};

// The account every seeded and created resource belongs to.
inline constexpr int AccountNumber = 100001;

} // namespace fb::SandboxIds
