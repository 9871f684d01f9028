export { fieldConfigSchema, fieldConfig, type FieldConfig, type FieldConfigInput } from './config.js';
export { createFieldService, type FieldService, type ExecuteResult, type ItemResult } from './service.js';
export { createRpcApp, type AuthResult } from './rpc-app.js';
export { runRpcCli } from './cli.js';
export type { Actor, FieldWriteAudit } from './types.js';
