// Where the contract says "not shown", the project decides. Each decision is written here once;
// the OpenAPI document carries them (info.description and x-decisions) and a test checks that
// the README names every topic.
export const DECISIONS: readonly { topic: string; decision: string }[] = [
  { topic: 'Paging', decision: 'Default page size 50, maximum 500. A `limit` above 500 (or below 1) is a 400 validation_error, never silently capped.' },
  { topic: 'Unknown query parameters', decision: 'Refused with 400 validation_error (reason `unknown_parameter`), so a misspelt filter never returns every row.' },
  { topic: 'Sorting', decision: 'Only the fields a resource lists as sortable; anything else is 400 `unsupported_value`. Ties are broken by the primary key so pages are stable.' },
  { topic: 'Search', decision: '`q` is a case-insensitive substring match over the resource\'s search fields (for tables/forms: the id and the whole JSON document).' },
  { topic: 'Request size', decision: 'Bodies above `max_body_bytes` (default 1 MiB) get 413 payload_too_large; a body that is not application/json gets 415.' },
  { topic: 'Idempotency', decision: 'Every POST accepts `Idempotency-Key` (1-200 visible ASCII). The first non-5xx answer is stored for 24 hours per caller and replayed with header `Idempotent-Replayed: true`; the same key with another route or body is 422 idempotency_key_reused; a concurrent duplicate is 409 idempotency_in_progress.' },
  { topic: 'Generic records', decision: 'tables/forms: PATCH merges shallowly (a null value removes a field); `id` cannot change; `created_at`, `updated_at` and `resource` are set by the runtime and ignored when sent. DELETE removes the record and answers 200 with the removed item.' },
  { topic: 'Probes', decision: '`/live` answers 200 `{status:"live"}` while the process runs; `/ready` answers 200 `{status:"ready"}` once the database is open and migrated, else 503 `{status:"starting"|"stopping", reason}`; `/health` answers `{status:"ok", layer:"master-cloud"}`.' },
  { topic: 'Diagnostics', decision: '`GET /api/v1/operability/runtime` returns the runtime snapshot (engine, applied migrations, dependency versions, module states).' },
  { topic: 'Contract headers', decision: 'X-Route-Path, X-Route-Module, X-Route-Filter, X-Client-Version and X-Client-Build-Time are optional free text (at most 200 characters kept each); they are recorded in the access log and the security log and never change behaviour.' },
  { topic: 'Request id', decision: '`X-Request-Id` (1-128 of A-Z a-z 0-9 . _ -) is adopted, anything else is replaced by a generated UUID; it is echoed back in the header and in meta.request_id.' },
  { topic: 'Errors', decision: '401 is `auth_required` only; 422 is used for a reused Idempotency-Key; 500 is `internal_error` with no stack trace, only the request id to find the log line.' },
];
