#pragma once
// SandboxReply: one HTTP answer of the sandbox, plus builders for Fabric's ErrorList shape
// (array of {errorCode, errorMessage, correlationId, details, additionalInfo:[{property,
// reason}]}).
#include "core/PropertyReasons.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QLatin1String>
#include <QList>
#include <QPair>
#include <QString>

namespace fb {

struct SandboxReply {
    int status = 200;
    QByteArray body;
    QByteArray contentType = QByteArrayLiteral("application/json");
    bool realCreate = false; // a create that changed the estate (201)

    static SandboxReply json(int status, const QJsonObject &object);
    static SandboxReply json(int status, const QJsonArray &array);
    // 201 with the resource a real create added to the estate (realCreate).
    static SandboxReply created(const QJsonObject &resource);
    static SandboxReply errors(int status, const QJsonArray &errorList);
    static SandboxReply error(int status, const QString &code, const QString &message,
                              const QString &correlationId, const QString &details = {},
                              const QString &property = {}, const QString &reason = {});
};

// One Fabric Error object. additionalInfo entries are (property, reason); empty parts are
// left out.
QJsonObject fabricError(const QString &code, const QString &message, const QString &correlationId,
                        const QString &details = {}, const PropertyReasons &additionalInfo = {});

// Error codes and messages the sandbox answers with. Codes the published spec shows come with
// the spec's message; the others (EQ-31423xx, EQ-3142102, EQ-3142501) are not in the v4.31
// spec examples and carry messages written for the sandbox.
namespace SandboxErrors {
inline constexpr QLatin1String InvalidArgument{"EQ-3142501"};
inline constexpr QLatin1String InvalidArgumentMessage{"Invalid argument passed"};
inline constexpr QLatin1String UnknownProfile{"EQ-3142301"};
inline constexpr QLatin1String UnknownProfileMessage{
    "Service profile does not exist or is not visible to the user"};
inline constexpr QLatin1String ProfileNotInMetro{"EQ-3142302"};
inline constexpr QLatin1String ProfileNotInMetroMessage{
    "Service profile is not available in the requested metro"};
inline constexpr QLatin1String BandwidthNotSupported{"EQ-3142306"};
inline constexpr QLatin1String BandwidthNotSupportedMessage{
    "Requested bandwidth is not supported by the service profile"};
inline constexpr QLatin1String AuthKeyRequired{"EQ-3142308"};
inline constexpr QLatin1String AuthKeyRequiredMessage{
    "Authentication key is required for this service profile"};
inline constexpr QLatin1String VlanInUse{"EQ-3142102"};
inline constexpr QLatin1String VlanInUseMessage{"VLAN tag is already in use on the port"};
inline constexpr QLatin1String DryRunUnsupported{"EQ-3142411"};
inline constexpr QLatin1String DryRunUnsupportedMessage{
    "Dry run is not supported for this connection type"};
inline constexpr QLatin1String Unauthorized{"EQ-3000039"};
inline constexpr QLatin1String UnauthorizedMessage{"User not found in request or invalid."};
inline constexpr QLatin1String MethodNotSupported{"EQ-3142569"};
inline constexpr QLatin1String MethodNotSupportedMessage{
    "Method not supported, Please check the URL passed"};
inline constexpr QLatin1String ConnectionNotFound{"EQ-3142519"};
inline constexpr QLatin1String ConnectionNotFoundMessage{
    "Connection does not exist or do not belong to user,Please check connection Id"};
inline constexpr QLatin1String TokenNotFound{"EQ-3034016"};
inline constexpr QLatin1String TokenNotFoundMessage{"Token not found"};
inline constexpr QLatin1String TokenInvalidStatus{"EQ-3142532"};
inline constexpr QLatin1String TokenInvalidStatusMessage{
    "Token with Invalid Status to create connection, Please enter valid ServiceToken"};
inline constexpr QLatin1String UuidNotFound{"EQ-3045811"};
inline constexpr QLatin1String UuidNotFoundMessage{"uuid not found"};
inline constexpr QLatin1String PathNotFound{"EQ-3034003"};
inline constexpr QLatin1String PathNotFoundMessage{
    "Method not supported,Please check the URL passed"};
inline constexpr QLatin1String ServiceUnavailable{"EQ-3041012"};
inline constexpr QLatin1String ServiceUnavailableMessage{
    "The system is unable to process your request."};
inline constexpr QLatin1String PriceValidation{"EQ-3038010"};
inline constexpr QLatin1String PriceValidationMessage{"Validation failure"};
inline constexpr QLatin1String PriceInvalidValue{"EQ-3038022"};
inline constexpr QLatin1String PriceInvalidValueMessage{"Invalid value"};
} // namespace SandboxErrors

} // namespace fb
