// A client Transport for the official MCP SDK over a Unix domain socket (the broker's per-user
// QLocalServer). Framing is the stdio transport's: newline-delimited JSON, read with the SDK's
// own ReadBuffer and written with its serializeMessage.
import net from 'node:net';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';

export class SocketClientTransport {
  constructor(socketPath) {
    this.socketPath = socketPath;
    this._readBuffer = new ReadBuffer();
    this._socket = undefined;
    this._closed = false;
    this.onclose = undefined;
    this.onerror = undefined;
    this.onmessage = undefined;
  }

  start() {
    if (this._socket) throw new Error('SocketClientTransport already started');
    return new Promise((resolve, reject) => {
      const socket = net.createConnection(this.socketPath);
      this._socket = socket;
      let connected = false;
      socket.once('connect', () => { connected = true; resolve(); });
      socket.on('data', (chunk) => {
        try {
          this._readBuffer.append(chunk);
        } catch (e) {
          this.onerror?.(e);
          return;
        }
        for (;;) {
          let message;
          try {
            message = this._readBuffer.readMessage();
          } catch (e) {
            this.onerror?.(e);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      socket.on('error', (e) => {
        if (!connected) reject(e);
        else this.onerror?.(e);
      });
      socket.on('close', () => {
        this._readBuffer.clear();
        if (!this._closed) {
          this._closed = true;
          this.onclose?.();
        }
      });
    });
  }

  send(message) {
    return new Promise((resolve, reject) => {
      if (!this._socket || this._socket.destroyed) {
        reject(new Error('socket is not connected'));
        return;
      }
      this._socket.write(serializeMessage(message), (err) => (err ? reject(err) : resolve()));
    });
  }

  // Half-close first (the server sees end of input and closes its session), then make sure
  // the socket is gone.
  async close() {
    const socket = this._socket;
    if (!socket || socket.destroyed) {
      if (!this._closed) { this._closed = true; this.onclose?.(); }
      return;
    }
    await new Promise((resolve) => {
      const timer = setTimeout(() => { socket.destroy(); }, 1000);
      socket.once('close', () => { clearTimeout(timer); resolve(); });
      socket.end();
    });
  }

  // For tests: drop the connection abruptly (no half-close).
  destroy() { this._socket?.destroy(); }
}
