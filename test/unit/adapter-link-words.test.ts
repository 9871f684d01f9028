// A controller's link state in the installer's words (src/ui/src/components/adapters/link-words.ts):
// the field service's failure messages said as what to check, with no raw code left; each state
// of device-polling/list (ok, lost, lost with its bus, not yet polled) as a headline, and the
// colour of a loss following its alarm's priority.
import { describe, expect, it } from 'vitest';
import { agoWords, errorWords, linkWords, type PolledDevice } from '../../src/ui/src/components/adapters/link-words.js';

const NOW = Date.parse('2026-11-24T10:45:00Z');
const device = (d: Partial<PolledDevice>): PolledDevice => ({ device_id: 'poultry:a', state: 'ok', reason: null, bus: 'tcp:127.0.0.1:5020', misses: 0, last_ok_at: '2026-11-24T10:44:48Z', last_message: null, lost_since: null, ...d });

describe('a field failure in words', () => {
  it('says what to check, never the code', () => {
    const cases: [string, RegExp][] = [
      ['Connection refused 127.0.0.1:5020 addr:0', /^Nothing answers at 127\.0\.0\.1 port 5020: check that the controller is on/],
      ['Timeout 10.0.0.7:502 addr:3', /^No answer in time from 10\.0\.0\.7 port 502: check its power/],
      ['Host unreachable 10.0.0.7:502 addr:3', /^The network does not reach 10\.0\.0\.7 port 502/],
      ['Error read register /dev/ttyUSB0 unit:3 addr:40 Illegal data address', /^Reading \/dev\/ttyUSB0, unit 3 \(address 40\): the controller has no such register/],
      ['CRC error /dev/ttyUSB0 unit:3 addr:40', /^A garbled answer on the cable from \/dev\/ttyUSB0, unit 3: check the RS485 wiring/],
      ['RS-485 bus /dev/serial/by-id/usb-FTDI lost: Port Not Open', /^The RS485 adapter \/dev\/serial\/by-id\/usb-FTDI does not answer: check that it is plugged in$/],
      ['Something odd ECONNRESET addr:7', /^Something odd address 7$/],
    ];
    for (const [raw, words] of cases) {
      const said = errorWords(raw)!;
      expect(said).toMatch(words);
      expect(said).not.toMatch(/addr:|unit:|\bE[A-Z]{4,}\b/);
    }
    expect(errorWords(null)).toBeNull();
  });
});

describe('a controller\'s link in words', () => {
  it('answering, with the last reading\'s age', () => {
    expect(agoWords('2026-11-24T10:44:48Z', NOW)).toBe('12 s ago');
    expect(linkWords(device({}), { reads: true, priority: 'P1', now: NOW })).toMatchObject({ kind: 'answering', tone: 'ok', headline: 'Answering', detail: 'last reading 12 s ago' });
  });

  it('lost: since when, its misses, why; red for a P1, amber for a P2', () => {
    const lost = device({ state: 'lost', reason: 'no_answer', misses: 3, lost_since: '2026-11-24T10:42:00Z', last_message: 'Timeout 127.0.0.1:5020 addr:0' });
    const p1 = linkWords(lost, { reads: true, priority: 'P1', now: NOW });
    expect(p1).toMatchObject({ kind: 'lost', tone: 'alarm' });
    expect(p1.headline).toMatch(/^Not answering since /);
    expect(p1.detail).toMatch(/^3 reads missed in a row; last reading /);
    expect(p1.error).toMatch(/^No answer in time from 127\.0\.0\.1 port 5020/);
    expect(linkWords(lost, { reads: true, priority: 'P2', now: NOW }).tone).toBe('warn');
  });

  it('the bus lost: since when, and the adapter to check', () => {
    const w = linkWords(device({ state: 'lost', reason: 'bus_lost', bus: 'rtu:/dev/ttyUSB0', lost_since: '2026-11-24T10:40:00Z', last_message: 'RS-485 bus /dev/ttyUSB0 lost: Port Not Open' }), { reads: true, priority: 'P1', now: NOW });
    expect(w).toMatchObject({ kind: 'bus_lost', tone: 'alarm', error: 'The RS485 adapter /dev/ttyUSB0 does not answer: check that it is plugged in' });
    expect(w.headline).toMatch(/^Bus lost since /);
  });

  it('not polled yet, or nothing to poll', () => {
    expect(linkWords(undefined, { reads: true, priority: 'P1', now: NOW })).toMatchObject({ kind: 'not_polled', tone: 'muted', headline: 'Not polled yet' });
    expect(linkWords(device({ state: 'unknown', last_ok_at: null }), { reads: true, priority: 'P1', now: NOW })).toMatchObject({ headline: 'Not polled yet', tone: 'muted' });
    expect(linkWords(undefined, { reads: false, priority: 'P1', now: NOW })).toMatchObject({ kind: 'nothing_to_read', headline: 'Not polled' });
  });
});
