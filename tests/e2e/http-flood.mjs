// Helper of http-limits.test.mjs (run with its own raised descriptor limit): opens IDLE idle
// TCP connections that send nothing, and BODIES connections that send headers announcing an
// 8 MiB body and then (only when no answer came within 1 s) 1 MiB of it, half with a foreign Host and half authorized. Prints one JSON
// line when all are under way ({"ready":true,...}), then holds them until stdin closes and
// prints what the server answered the body senders.
import net from 'node:net';

const [host, port, token, idleCount, bodyCount] = process.argv.slice(2);
const sockets = [];
let idleOpen = 0; let idleClosedByServer = 0; let connectErrors = 0;
const answers = [];

function open() {
  return new Promise((resolve) => {
    const s = net.connect({ host, port: Number(port) });
    s.on('connect', () => resolve(s));
    s.on('error', () => { connectErrors += 1; resolve(null); });
  });
}

for (let i = 0; i < Number(idleCount); i++) {
  const s = await open();
  if (!s) continue;
  idleOpen += 1;
  s.on('data', () => {});
  s.on('close', () => { idleClosedByServer += 1; });
  sockets.push(s);
}

const chunk = Buffer.alloc(1024 * 1024, 0x61);
for (let i = 0; i < Number(bodyCount); i++) {
  const s = await open();
  if (!s) continue;
  const foreign = i % 2 === 0;
  let reply = '';
  s.on('data', (d) => { reply += d.toString('latin1'); });
  s.on('close', () => answers.push({ foreign, status: Number(reply.split(' ')[1] ?? 0), body: reply.split('\r\n\r\n')[1] ?? '' }));
  s.on('error', () => {});
  s.write(`POST /mcp HTTP/1.1\r\nHost: ${foreign ? 'evil.example' : `127.0.0.1:${port}`}\r\n`
    + `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\n`
    + 'Accept: application/json, text/event-stream\r\nContent-Length: 8388608\r\n\r\n');
  // The server answers on the headers alone. Only when no answer came within a second (an
  // overdue answer: the server may be buffering) does the body follow: writing into a socket
  // the server has answered and is closing makes the kernel reset it, and Node then drops the
  // answer it had read (under AddressSanitizer and load an answer can take over 100 ms).
  setTimeout(() => { if (!s.destroyed && reply === '') s.write(chunk); }, 1000);
  sockets.push(s);
}
process.stdout.write(`${JSON.stringify({ ready: true, idleOpen, connectErrors })}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  process.stdout.write(`${JSON.stringify({ done: true, idleOpen, idleClosedByServer, answers })}\n`);
  for (const s of sockets) s.destroy();
  process.exit(0);
});
