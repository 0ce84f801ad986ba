#pragma once
// SandboxSeed: the sandbox's seed estate is data, resources/sandbox/estate.json (compiled in as
// :/fabric-broker/sandbox/estate.json): metros, ports, service profiles, cloud routers, networks,
// service tokens, connections and the rate card. SandboxEstate::seed() builds the Fabric v4
// resources from it (SandboxSeed.cpp); what is the same for every resource of a kind stays there.
// The document is ours, so a malformed one is a programming error: builtin() stops the process
// with the JSON pointer of the first bad value. The fixed identifiers are in SandboxIds.h.
#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

namespace fb::SandboxSeed {

// Bounds of a seed document.
inline constexpr qsizetype MaxBytes = 1024 * 1024;
inline constexpr qsizetype MaxItems = 1000; // per array
inline constexpr qsizetype MaxStringLength = 256;

// The compiled-in document, as stored.
QByteArray resourceBytes();

// Parses and validates a seed document: JSON types exactly as documented in the file's format,
// no missing or unknown fields, bounded sizes, unique identifiers, and every reference (a port's
// metro, a connection's port or profile, a seller region, ...) resolving. Returns the document,
// or nullopt with *error = "<JSON pointer>: <what is wrong>".
std::optional<QJsonObject> parse(const QByteArray &bytes, QString *error);

// The compiled-in document, parsed once; qFatal (naming the bad path) if it is malformed.
const QJsonObject &builtin();

} // namespace fb::SandboxSeed
