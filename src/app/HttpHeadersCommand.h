#pragma once
// "fabric-broker http-headers": prints the header an MCP client needs for the loopback HTTP
// endpoint, {"Authorization":"Bearer <token>"}, read from the token file the running broker
// writes (rotated at every start). Meant for Claude Code's headersHelper, which runs it at each
// connection, so the token never sits in a client's config or on a command line.
//   fabric-broker http-headers [--token] [--token-file PATH]
// --token prints the token alone (for a client that reads it from an environment variable).
// The file is read as the server writes it: its directory must be this user's and private
// (0700), the file is opened O_NOFOLLOW and checked with fstat (this user's 0600 regular file).
// Exit 0 with the header; 1 when there is no usable token (the reason on stderr); 2 on a usage
// error. Never creates or rotates a token.
#include <QStringList>

namespace fb {

// args: the full command line ({program, "http-headers", ...}).
int runHttpHeadersCommand(const QStringList &args);

} // namespace fb
