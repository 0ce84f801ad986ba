#include "transport/http/HttpExchange.h"

namespace fb::transport {

HttpExchange::HttpExchange(QObject *parent)
    : QObject(parent)
{
}

void HttpExchange::respond(HttpResponse response)
{
    if (m_answered)
        return;
    m_answered = true;
    m_response = std::move(response);
    if (const auto hook = std::exchange(m_onAnswered, {}))
        hook();
}

void HttpExchange::finish(bool clientLeft)
{
    if (std::exchange(m_finished, true))
        return;
    m_onAnswered = {};
    if (clientLeft && !m_answered)
        emit abandoned();
}

} // namespace fb::transport
