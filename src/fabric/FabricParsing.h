#pragma once
// FabricParsing: the pure parts of the Fabric client (no network): strict JSON, the Fabric
// ErrorList and the OAuth error shape, the agent-facing sentences, and the price context.
// Kept apart from FabricClient so they can be unit tested on their own.
#include "core/CompiledRequest.h"
#include "fabric/FabricResult.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QString>
#include <optional>

namespace fb {

// Strict JSON: a single object or array, valid UTF-8, nothing after it. On failure returns
// std::nullopt and a short reason in *error.
std::optional<QJsonValue> parseStrictJson(const QByteArray &bytes, QString *error = nullptr);

// A Fabric ErrorList (array of {errorCode, errorMessage, correlationId, details,
// additionalInfo[{property, reason}]}), or a single such object. Returns std::nullopt when the
// body is not that shape (every entry needs a string errorCode or errorMessage). Every field is
// data: invisible and bidi characters escaped (UntrustedText::escapeInvisible), bounded (code
// and correlation id 100 characters, message 1000, details 2000, property 300, reason 1000),
// at most 20 additionalInfo entries per error.
std::optional<QList<FabricError>> parseFabricErrorList(const QByteArray &bytes);

// "EQ-3142306 bandwidth not supported by the profile (at /bandwidth)"; several errors are
// joined with "; " (at most three, then "and N more").
QString describeFabricErrors(const QList<FabricError> &errors);

// The OAuth error shape of the accesstokenv1 spec ({error_domain, error_title, error_code,
// developer_message, error_message}) as a sentence fragment; std::nullopt if not that shape.
std::optional<QString> describeOAuthError(const QByteArray &bytes);

// Collapses whitespace, escapes invisible and bidi characters and bounds the length of text that
// came from the network.
QString sanitizeRemoteText(const QString &text, int maxChars = 300);

// The POST /fabric/v4/prices/search body (FilterBody with filter.and) for a compiled
// connection_create. Returns std::nullopt and the honest reason in *unpricedReason (and the
// short line of unpricedSummary in *unpricedShort) when the request cannot be priced (other
// change types, or a connection the rate card cannot express).
std::optional<QJsonObject> buildPriceSearch(const CompiledRequest &request, QString *unpricedReason,
                                            QString *unpricedShort = nullptr);

// The one short line a person reads when a request has no price: "networks have no rate-card
// price", "service tokens have no rate-card price", "no rate-card price for 10 Mbps in SV".
QString unpricedSummary(const CompiledRequest &request);

// {"priced": true, "source", "currency", "monthly_recurring", "non_recurring",
//  "term_length_months", "product_code", "product_name", "charges": [...]} from a
// PriceSearchResponse, or the unpriced object when it carries no usable price.
QJsonObject priceContextFromResponse(const QJsonValue &response);

// {"priced": false, "reason": reason, "summary": summary}: summary is the short line for the
// dialog and the elicitation; reason holds the details (the raw Fabric error when there was one).
QJsonObject unpricedContext(const QString &reason, const QString &summary = {});

} // namespace fb
