// server.listen(port, host) for the box's listeners, minus Node's IPv6 pattern. Node's listen with
// a host looks the host up (an address answers itself) and then asks isIPv6 of the result to skip
// link-local addresses; the first isIPv6 compiles Node's IPv6 regular expression, a large one:
// 4-7 ms of CPU in a bare Node 24 here (measured at load average 16), paid by every restart before
// /ready since each listener has a host. An IPv4 address needs neither step: the server binds it
// through _listen2, the step listen itself ends in (kept by Node under that name for code that
// wraps it). Any other host, a cluster worker (whose listen goes through the primary) or a Node
// without _listen2 goes through listen as before.
import { isIPv4, type Server } from 'node:net';

type Bindable = Server & { _listen2?: (address: string, port: number, addressType: number) => void };

/** Listens on host:port; 'listening' or 'error' follow as after server.listen(port, host). */
export function listenOn(server: Server, port: number, host: string | undefined): void {
  const bindable = server as Bindable;
  const direct = host && isIPv4(host) && Number.isInteger(port) && port >= 0 && port <= 65535 && !process.env.NODE_UNIQUE_ID;
  if (direct && typeof bindable._listen2 === 'function') {
    bindable._listen2(host, port, 4);
    return;
  }
  server.listen(port, host);
}
