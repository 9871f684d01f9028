#!/usr/bin/python3
"""Modbus slave for cabinet's field tests, built on Debian's python3-pymodbus (3.0.x).

  modbus_peer.py tcp <port, 0 for any> [--disable-fc 15,16]
  modbus_peer.py rtu <pty-path> [--disable-fc ...] [--units 1,2]

--units: answer only these unit ids (default: any). On RTU a request to another unit gets no
answer at all, as on a real RS485 line where that address is absent.

Holding registers, input registers, coils and discrete inputs 0..199 exist (zero-based addressing); anything else answers
exception 02. --disable-fc removes function codes from pymodbus's decoder so the device answers
exception 01 (a device without FC15/16 is common in the field).

Control channel on stdin/stdout, one JSON object per line:
  {"op":"hr","addr":a,"count":n}  -> {"hr":[...]}      raw holding registers
  {"op":"co","addr":a,"count":n}  -> {"co":[0,1,...]}  coils
  {"op":"reset"}                  -> {"ok":true}       zero everything
  {"op":"set","table":"hr"|"ir"|"co"|"di","addr":a,"values":[...]} -> {"ok":true}  place raw values
  {"op":"stats"}                  -> {"requests":{"3":n,...}}  requests handled per function code
  {"op":"decode","addr":a,"type":t,"order":o} -> {"value":x}
      the value at a as pymodbus's own BinaryPayloadDecoder reads it (t: int32, uint32, float32,
      float64; o: cabinet's order name, mapped below to pymodbus's byte order and word order), so
      a test sees what a device decoding the registers would hold, by an implementation not ours
The first line printed is {"ready":true,...} once the server is listening.
"""
import asyncio
import json
import os
import sys
import threading
import types

SIZE = 200


def install_serial_shim():
    """pymodbus.server imports pyserial and serial_asyncio at module level. Debian installs them only
    as Recommends; when absent, provide the minimal transport pymodbus needs: a raw pty fd driven by
    the asyncio loop. Framing, CRC and request handling stay pymodbus's own."""
    try:
        import serial  # noqa: F401
        import serial_asyncio  # noqa: F401
        return
    except ImportError:
        pass
    import termios
    import tty

    serial_mod = types.ModuleType("serial")
    serialutil = types.ModuleType("serial.serialutil")

    class SerialException(Exception):
        pass

    serialutil.SerialException = SerialException
    serial_mod.serialutil = serialutil
    serial_mod.SerialException = SerialException
    sys.modules["serial"] = serial_mod
    sys.modules["serial.serialutil"] = serialutil

    class PtyTransport(asyncio.Transport):
        def __init__(self, loop, fd, protocol, port):
            super().__init__()
            self._loop, self._fd, self._protocol = loop, fd, protocol
            self.serial = types.SimpleNamespace(port=port)
            self._closed = False
            loop.add_reader(fd, self._on_readable)

        def _on_readable(self):
            try:
                data = os.read(self._fd, 4096)
            except BlockingIOError:
                return
            except OSError:
                data = b""
            if not data:
                self.close()
                return
            self._protocol.data_received(data)

        def write(self, data):
            if not self._closed:
                os.write(self._fd, data)

        def get_extra_info(self, name, default=None):
            return default

        def is_closing(self):
            return self._closed

        def close(self):
            if self._closed:
                return
            self._closed = True
            self._loop.remove_reader(self._fd)
            os.close(self._fd)
            self._loop.call_soon(self._protocol.connection_lost, None)

    async def create_serial_connection(loop, protocol_factory, port, **_kwargs):
        try:
            fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        except OSError as exc:
            raise SerialException(str(exc)) from exc
        tty.setraw(fd, termios.TCSANOW)
        # A pty keeps bytes written while no slave was reading; a real RS485 line does not. Start
        # like a slave that was just powered on, not one that replays requests from before.
        termios.tcflush(fd, termios.TCIFLUSH)
        protocol = protocol_factory()
        transport = PtyTransport(loop, fd, protocol, port)
        protocol.connection_made(transport)
        return transport, protocol

    sa = types.ModuleType("serial_asyncio")
    sa.create_serial_connection = create_serial_connection
    sys.modules["serial_asyncio"] = sa


# cabinet's `order` -> (byte order inside a register, register order), in pymodbus's terms.
ORDERS = {"LE": (">", ">"), "BE": ("<", "<"), "CDAB": (">", "<"), "BADC": ("<", ">")}
WIDTH = {"int32": 2, "uint32": 2, "float32": 2, "float64": 4}


def decode(slave, cmd):
    from pymodbus.payload import BinaryPayloadDecoder

    byteorder, wordorder = ORDERS[cmd["order"]]
    regs = slave.getValues(3, cmd["addr"], WIDTH[cmd["type"]])
    decoder = BinaryPayloadDecoder.fromRegisters(regs, byteorder=byteorder, wordorder=wordorder)
    read = {
        "int32": decoder.decode_32bit_int,
        "uint32": decoder.decode_32bit_uint,
        "float32": decoder.decode_32bit_float,
        "float64": decoder.decode_64bit_float,
    }[cmd["type"]]
    # json.dumps writes a float's shortest repr, which reads back as the same double
    return {"value": read()}


def main():
    mode, where = sys.argv[1], sys.argv[2]
    disabled = set()
    if "--disable-fc" in sys.argv:
        disabled = {int(x) for x in sys.argv[sys.argv.index("--disable-fc") + 1].split(",")}
    units = None
    if "--units" in sys.argv:
        units = [int(x) for x in sys.argv[sys.argv.index("--units") + 1].split(",")]

    install_serial_shim()
    from pymodbus.datastore import ModbusSequentialDataBlock, ModbusServerContext, ModbusSlaveContext
    from pymodbus.factory import ServerDecoder
    from pymodbus.transaction import ModbusRtuFramer, ModbusSocketFramer
    import pymodbus.server.async_io as aio

    if disabled:
        original_init = ServerDecoder.__init__

        def patched_init(self, *a, **kw):
            original_init(self, *a, **kw)
            lookup = self._ServerDecoder__lookup  # pylint: disable=protected-access
            for fc in disabled:
                lookup.pop(fc, None)

        ServerDecoder.__init__ = patched_init

    slave = ModbusSlaveContext(
        hr=ModbusSequentialDataBlock(0, [0] * SIZE),
        co=ModbusSequentialDataBlock(0, [0] * SIZE),
        di=ModbusSequentialDataBlock(0, [0] * SIZE),
        ir=ModbusSequentialDataBlock(0, [0] * SIZE),
        zero_mode=True,
    )
    if units is None:
        context = ModbusServerContext(slaves=slave, single=True)
    else:
        context = ModbusServerContext(slaves={u: slave for u in units}, single=False)

    requests = {}
    original_execute = aio.ModbusBaseRequestHandler.execute

    def counting_execute(self, request, *addr):
        fc = str(request.function_code)
        requests[fc] = requests.get(fc, 0) + 1
        return original_execute(self, request, *addr)

    aio.ModbusBaseRequestHandler.execute = counting_execute
    fcs = {"hr": 3, "ir": 4, "co": 1, "di": 2}

    def control():
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                cmd = json.loads(line)
                op = cmd["op"]
                if op == "hr":
                    out = {"hr": slave.getValues(3, cmd["addr"], cmd["count"])}
                elif op == "co":
                    out = {"co": [1 if b else 0 for b in slave.getValues(1, cmd["addr"], cmd["count"])]}
                elif op == "decode":
                    out = decode(slave, cmd)
                elif op == "reset":
                    for fc in fcs.values():
                        slave.setValues(fc, 0, [0] * SIZE)
                    out = {"ok": True}
                elif op == "set":
                    slave.setValues(fcs[cmd["table"]], cmd["addr"], cmd["values"])
                    out = {"ok": True}
                elif op == "stats":
                    out = {"requests": dict(requests)}
                else:
                    out = {"error": "unknown op"}
            except Exception as exc:  # pylint: disable=broad-except
                out = {"error": str(exc)}
            print(json.dumps(out), flush=True)
        os._exit(0)  # stdin closed: the test runner is gone

    async def run():
        if mode == "tcp":
            server = await aio.StartAsyncTcpServer(
                context=context, address=("127.0.0.1", int(where)), framer=ModbusSocketFramer, defer_start=True,
                ignore_missing_slaves=True,
            )
            task = asyncio.create_task(server.serve_forever())
            while server.server is None:
                if task.done():
                    task.result()
                await asyncio.sleep(0.01)
            port = server.server.sockets[0].getsockname()[1]
            print(json.dumps({"ready": True, "mode": "tcp", "port": port}), flush=True)
            threading.Thread(target=control, daemon=True).start()
            await task
        else:
            server = await aio.StartAsyncSerialServer(
                context=context, port=where, framer=ModbusRtuFramer, baudrate=9600, defer_start=True,
                ignore_missing_slaves=True,
            )
            await server.start()
            print(json.dumps({"ready": True, "mode": "rtu", "port": where}), flush=True)
            threading.Thread(target=control, daemon=True).start()
            await asyncio.Event().wait()

    asyncio.run(run())


if __name__ == "__main__":
    main()
