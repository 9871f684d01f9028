// A bound on how many bytes of MQTT packets the embedded broker parses in one event-loop turn.
// Aedes reads everything a client's socket has buffered (one socket read is up to 64 KB, about a
// thousand small publishes) and parses and handles it in one go, so a flooding sensor holds the
// loop for the whole slice and every HTTP answer waits behind it. Here each read hands aedes at
// most what is left of the turn's budget, shared by all clients; the rest stays in the socket's
// buffer (and, past its high-water mark, in the kernel and the client: TCP backpressure) and is
// read on a later turn. The bytes are the same and in order; only the turn they are parsed in moves.
import type { Socket } from 'node:net';

/** Bytes of packets parsed per event-loop turn, for all clients together. */
export const INTAKE_BYTES_PER_TURN = 16_384;

/** The aedes client internals the budget drives: a read starts a batch, its packets' callbacks end it. */
interface BatchingClient {
  _parsingBatch: number;
  _nextBatch(): void;
}

const isBatching = (c: unknown): c is BatchingClient =>
  typeof (c as BatchingClient | null)?._nextBatch === 'function' && typeof (c as BatchingClient)._parsingBatch === 'number';

export interface IntakeBudget {
  /** Puts a connection's reads under the budget (a client of another aedes version is left as it is). */
  limit(socket: Socket, client: unknown): void;
  /** The most bytes handed out in one turn, and the turns that ran out of budget (tests, diagnostics). */
  readonly stats: { maxTurnBytes: number; deferredTurns: number };
}

export function intakeBudget(bytesPerTurn = INTAKE_BYTES_PER_TURN): IntakeBudget {
  let used = 0;
  let resetting = false;
  const stats = { maxTurnBytes: 0, deferredTurns: 0 };
  const waiting = new Set<{ socket: Socket; client: BatchingClient }>();
  const nextTurn = () => {
    if (resetting) return;
    resetting = true;
    setImmediate(() => {
      resetting = false;
      used = 0;
      // Clients whose reads were cut short read again now: nothing else would, since a cut
      // slice may hold no whole packet, and then no packet callback starts the next batch.
      const now = [...waiting];
      waiting.clear();
      for (const w of now) {
        if (!w.socket.destroyed && w.client._parsingBatch <= 0 && w.socket.readableLength > 0) w.client._nextBatch();
      }
    });
  };
  return {
    stats,
    limit(socket, client) {
      if (!isBatching(client)) return;
      const read = socket.read.bind(socket);
      const entry = { socket, client };
      socket.read = ((size?: number) => {
        // Node's own read(0) calls (refilling the buffer) and any sized read are left alone.
        if (size !== undefined && size !== null) return read(size);
        const buffered = socket.readableLength;
        if (buffered === 0) return read();
        const left = bytesPerTurn - used;
        if (left <= 0) {
          stats.deferredTurns++;
          waiting.add(entry);
          nextTurn();
          return null;
        }
        const take = Math.min(buffered, left);
        const chunk = take === buffered ? read() : read(take);
        if (chunk) {
          used += chunk.length;
          stats.maxTurnBytes = Math.max(stats.maxTurnBytes, used);
        }
        nextTurn();
        if (socket.readableLength > 0) waiting.add(entry);
        return chunk;
      }) as typeof socket.read;
    },
  };
}
