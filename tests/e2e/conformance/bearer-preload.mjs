// Loaded with `node --import` by run.sh into the conformance CLI: the suite has no option for
// request headers, and fabric-broker's HTTP endpoint requires "Authorization: Bearer <token>" on
// every request (any local user can reach a loopback port). This gives the suite the token the
// way a configured client has it: an undici interceptor on the global dispatcher (shared by
// Node's fetch and the suite's own undici), and a wrapper of node:http's request (the suite's raw
// header tests), add the header to requests for FB_CONFORMANCE_URL's origin that do not carry one. Nothing else about the traffic changes: the suite talks HTTP
// directly to fabric-broker, Host and Origin included.
import http from 'node:http';
import { Agent, setGlobalDispatcher } from 'undici';

const target = new URL(process.env.FB_CONFORMANCE_URL);
const token = process.env.FB_CONFORMANCE_TOKEN;
if (!token) throw new Error('FB_CONFORMANCE_TOKEN is not set');

function withAuth(headers) {
  const value = `Bearer ${token}`;
  if (headers == null) return { authorization: value };
  if (Array.isArray(headers)) {
    // Flat [name, value, name, value, ...] as undici passes them.
    for (let i = 0; i < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === 'authorization') return headers;
    }
    return [...headers, 'authorization', value];
  }
  if (typeof headers[Symbol.iterator] === 'function' && typeof headers !== 'string') {
    const pairs = [...headers];
    if (pairs.some(([k]) => String(k).toLowerCase() === 'authorization')) return pairs;
    return [...pairs, ['authorization', value]];
  }
  if (Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) return headers;
  return { ...headers, authorization: value };
}

setGlobalDispatcher(new Agent().compose((dispatch) => (opts, handler) => {
  const origin = typeof opts.origin === 'string' ? opts.origin : opts.origin?.toString();
  if (origin && new URL(origin).host === target.host) opts = { ...opts, headers: withAuth(opts.headers) };
  return dispatch(opts, handler);
}));

const originalRequest = http.request;
http.request = function request(options, ...rest) {
  if (options && typeof options === 'object' && !(options instanceof URL)) {
    const host = options.host ?? options.hostname;
    if (`${host}:${options.port}` === target.host) options = { ...options, headers: withAuth(options.headers ?? {}) };
  }
  return originalRequest.call(this, options, ...rest);
};
