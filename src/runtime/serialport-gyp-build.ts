// Stands in for `node-gyp-build` inside @serialport/bindings-cpp when bundled (build.mjs plugin
// "cabinet-native"): bindings-cpp calls it with its package folder, which does not exist inside the
// single executable; the addon extracted by src/runtime/sea.ts is handed over instead.
// Without this, modbus-serial's `require('./ports/rtubufferedport')` throws inside a try/catch and
// the RTU port class silently disappears.
import { serialportBinding } from './native.js';

export default function nodeGypBuild(_dir?: string): object {
  const binding = serialportBinding();
  if (!binding) {
    throw new Error('serialport bindings are not available: this bundle must run as the cabinet single executable');
  }
  return binding;
}
