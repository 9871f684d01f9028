#!/usr/bin/python3
"""A digital I/O module for cabinet's alarm relay tests, on Debian's python3-pymodbus (3.0.x):
16 coils (relay outputs 0..15) that log every write the network makes, with its wall-clock time.

  io_peer.py tcp <port, 0 for any>     a fixed port lets a test stop it and bring it back there
  io_peer.py rtu <pty-path>

Control channel on stdin/stdout, one JSON object per line (as modbus_peer.py):
  {"op":"co","addr":a,"count":n}   -> {"co":[0,1,...]}          the coils now
  {"op":"writes","addr":a}         -> {"writes":[[t,v],...]}    every write to coil a: unix time (s), value
  {"op":"lose"}                    -> {"ok":true}               all coils to 0 without a write logged
                                                                (the module rebooted and lost its outputs)
The first line printed is {"ready":true,...} once the server is listening.
"""
import asyncio
import json
import os
import sys
import threading
import time

from modbus_peer import install_serial_shim

COILS = 16


def main():
    mode, where = sys.argv[1], sys.argv[2]
    install_serial_shim()
    from pymodbus.datastore import ModbusSequentialDataBlock, ModbusServerContext, ModbusSlaveContext
    from pymodbus.transaction import ModbusRtuFramer, ModbusSocketFramer
    import pymodbus.server.async_io as aio

    log = {}
    lock = threading.Lock()

    class LoggedCoils(ModbusSequentialDataBlock):
        """Coils that remember each write: the server calls setValues only for FC05/FC15."""

        def setValues(self, address, values):  # noqa: N802 (pymodbus's name)
            super().setValues(address, values)
            now = time.time()
            vals = values if isinstance(values, list) else [values]
            with lock:
                for i, v in enumerate(vals):
                    log.setdefault(address + i, []).append([now, 1 if v else 0])

    coils = LoggedCoils(0, [0] * COILS)
    slave = ModbusSlaveContext(co=coils, di=ModbusSequentialDataBlock(0, [0] * COILS), hr=ModbusSequentialDataBlock(0, [0] * 4), ir=ModbusSequentialDataBlock(0, [0] * 4), zero_mode=True)
    context = ModbusServerContext(slaves=slave, single=True)

    def control():
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                cmd = json.loads(line)
                op = cmd["op"]
                if op == "co":
                    out = {"co": [1 if b else 0 for b in coils.getValues(cmd["addr"], cmd["count"])]}
                elif op == "writes":
                    with lock:
                        out = {"writes": list(log.get(cmd["addr"], []))}
                elif op == "lose":
                    ModbusSequentialDataBlock.setValues(coils, 0, [0] * COILS)
                    out = {"ok": True}
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
                ignore_missing_slaves=True, allow_reuse_address=True,  # back on its port after a stop
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
