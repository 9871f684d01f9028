export { fieldConfigSchema, fieldConfig, type FieldConfig, type FieldConfigInput } from './config.js';
export { createFieldService, busKey, type FieldService, type ExecuteOptions, type ExecuteResult, type ItemResult } from './service.js';
export { createPoller, type PollerDeps, type PollerField, type BacnetReader } from './poller.js';
export { decodeRegisters, decodeRaw, toEngineering } from './encoding.js';
export { createRpcApp, type AuthResult } from './rpc-app.js';
export { runRpcCli } from './cli.js';
export type { Actor, FieldWriteAudit } from './types.js';
