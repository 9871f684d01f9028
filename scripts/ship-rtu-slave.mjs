#!/usr/bin/env node
// Minimal Modbus RTU slave on a serial device (one end of a socat pty pair), for the shipping
// checks: an implementation independent of modbus-serial, so a write from the binary is seen by
// something else. Supports function 03 (read holding registers) and 06 (write single register).
// Prints one JSON line per request handled; exits on SIGTERM.
//   node scripts/ship-rtu-slave.mjs <device> [unit=1]
import { openSync, writeSync } from 'node:fs';
import { ReadStream } from 'node:tty';

const [device, unitArg = '1'] = process.argv.slice(2);
if (!device) {
  console.error('usage: ship-rtu-slave.mjs <device> [unit]');
  process.exit(2);
}
const unit = Number(unitArg);
const registers = new Map();

function crc16(buf) {
  let crc = 0xffff;
  for (const byte of buf) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 1 ? (crc >>> 1) ^ 0xa001 : crc >>> 1;
  }
  return crc;
}
function withCrc(bytes) {
  const b = Buffer.from(bytes);
  const c = crc16(b);
  return Buffer.concat([b, Buffer.from([c & 0xff, c >>> 8])]);
}

const fd = openSync(device, 'r+');
const input = new ReadStream(fd);
input.setRawMode?.(true);
let buf = Buffer.alloc(0);
input.on('data', (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  while (buf.length >= 8) {
    const frame = buf.subarray(0, 8);
    if (crc16(frame.subarray(0, 6)) !== frame.readUInt16LE(6)) {
      buf = buf.subarray(1); // resynchronise
      continue;
    }
    buf = buf.subarray(8);
    const [id, fc] = frame;
    if (id !== unit) continue;
    const addr = frame.readUInt16BE(2);
    const arg = frame.readUInt16BE(4);
    if (fc === 6) {
      registers.set(addr, arg);
      writeSync(fd, frame);
      console.log(JSON.stringify({ fc, unit: id, register: addr, value: arg }));
    } else if (fc === 3) {
      const out = [id, fc, arg * 2];
      for (let i = 0; i < arg; i++) {
        const v = registers.get(addr + i) ?? 0;
        out.push(v >>> 8, v & 0xff);
      }
      writeSync(fd, withCrc(out));
      console.log(JSON.stringify({ fc, unit: id, register: addr, count: arg }));
    } else {
      writeSync(fd, withCrc([id, fc | 0x80, 1]));
    }
  }
});
console.log(JSON.stringify({ listening: device, unit }));
process.on('SIGTERM', () => process.exit(0));
