// Every error code the API can answer with, its HTTP status and when it happens. The error
// handler, the OpenAPI document and the README's error table all read this one registry.
export const ERROR_CODES = {
  validation_error: { status: 400, when: 'A field, query parameter or body is invalid; `details[]` names each field and reason.' },
  bad_request: { status: 400, when: 'The request is not valid HTTP/1.1 (refused by the HTTP parser before any route).' },
  auth_required: { status: 401, when: 'No valid session token (absent, expired, forged or revoked).' },
  login_refused: { status: 401, when: 'A login challenge or credential was unknown, expired, revoked, reused, locked or wrong (the security log has the reason).' },
  login_method_forbidden: { status: 403, when: 'RFID login from an address that is not the panel (see panel_addresses).' },
  cross_site_request: { status: 403, when: 'A state-changing request (or a WebSocket) that a browser sent from a page of another origin: Sec-Fetch-Site other than same-origin, or an Origin that is not the host and port asked; nothing was done (docs/https.md).' },
  https_required: { status: 403, when: 'A session token offered in clear from the LAN: a WebSocket upgrade on the plain HTTP port from an address other than loopback while HTTPS listens, or `access_token` in the query string of a plain connection from such an address (docs/https.md).' },
  rbac_forbidden: { status: 403, when: 'The role lacks the permission for this action.' },
  scope_boundary_denied: { status: 403, when: 'Master routes (and installation-wide settings) called with a tenant token, or tenant routes with a master token.' },
  tenant_boundary_denied: { status: 403, when: "A tenant caller named another tenant's id in the query or body." },
  not_found: { status: 404, when: 'Unknown route, or the record (tables, forms, ...) does not exist.' },
  alarm_not_found: { status: 404, when: 'Acknowledging an alarm that does not exist.' },
  module_not_found: { status: 404, when: 'The module id is not in the catalogue.' },
  module_not_installed: { status: 404, when: 'An endpoint of a module that is not installed; uninstalling a module that is not installed.' },
  method_not_allowed: { status: 405, when: 'The path exists but not with this method.' },
  already_exists: { status: 409, when: 'Creating a record whose id is taken.' },
  alarm_already_acknowledged: { status: 409, when: 'Acknowledging an alarm that is already acknowledged; the first acknowledgement is kept and named in the message.' },
  lifecycle_conflict: { status: 409, when: 'A state transition the lifecycle does not allow.' },
  module_already_installed: { status: 409, when: 'Installing a module that is installed.' },
  module_is_core: { status: 409, when: 'Uninstalling a core module.' },
  module_dependency_missing: { status: 409, when: 'Installing a module whose dependencies are not installed.' },
  module_has_dependents: { status: 409, when: 'Uninstalling a module that an installed module depends on.' },
  industry_policy_conflict: { status: 409, when: 'The industry policy forbids the module operation.' },
  module_version_conflict: { status: 409, when: 'The install would leave two major lines of a module active in one industry.' },
  profile_incompatible: { status: 409, when: "An imported industry profile's industry_code, equipment_profile or name does not match the target profile, the industry asked for, or the industries this installation serves (poultry-profiles/import-yaml: anything but poultry); nothing is stored." },
  profile_industry_mismatch: { status: 409, when: 'An industry-specific profile command (poultry-profiles export-yaml, publish, rollback) names a profile of another industry.' },
  event_not_whitelisted: { status: 409, when: 'Tenant-master event_type outside the whitelist (the whitelist is in the decisions below and in the route description).' },
  status_not_whitelisted: { status: 409, when: 'Tenant-master status outside the whitelist (the whitelist is in the decisions below and in the route description).' },
  upgrade_required: { status: 426, when: 'A WebSocket endpoint (GET /api/v1/status/stream) called without a WebSocket upgrade.' },
  idempotency_key_reused: { status: 422, when: 'An Idempotency-Key was reused with a different request body or route.' },
  idempotency_in_progress: { status: 409, when: 'A request with the same Idempotency-Key is still being processed.' },
  request_timeout: { status: 408, when: 'The request headers or body did not arrive within the server\'s time limit.' },
  payload_too_large: { status: 413, when: 'The request body exceeds max_body_bytes.' },
  unsupported_media_type: { status: 415, when: 'A request body that is not application/json.' },
  headers_too_large: { status: 431, when: 'The request headers exceed the HTTP parser\'s limit (16 KB), e.g. an oversized Authorization or Cookie header.' },
  rate_limited: { status: 429, when: 'Too many attempts (login throttling, test messages of a notification channel); retry after the time in Retry-After.' },
  not_on_master: { status: 409, when: 'A command that would make the server connect to an address given in the request (an adapter profile\'s read-now, saving an adapter profile the poller would read) sent to the master cloud (cloud-multi): the master has no field bus and dials nobody\'s address; nothing is sent or stored. Those commands run on the site box.' },
  device_read_failed: { status: 502, when: 'A read from field equipment (an adapter profile\'s read-now) got no value: the device refused, did not answer in time, was not found, or answered with an error; the message is the field service\'s (Connection refused <ip:port> addr:<n>, Timeout ..., Illegal data address).' },
  notification_test_failed: { status: 502, when: 'A notification channel\'s test message (notification-channels/commands/test) was not accepted: the mail server or webhook receiver could not be reached, did not answer in time, refused the login or the message, or answered with an error; the message says why in words, details[].reason names the cause. Nothing is stored.' },
  internal_error: { status: 500, when: 'An unexpected failure; the body never carries a stack trace. The request id finds it in the log.' },
  service_unavailable: { status: 503, when: 'The database is not open or not migrated yet, or the service is stopping.' },
} as const satisfies Record<string, { status: number; when: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * One field issue: the field, a machine reason, and what a reader needs to word it in their
 * language (validate.ts fills them for body issues): min and max of a range, min_length and
 * max_length of a text, min_items and max_items of a list, allowed values, the format or type
 * expected.
 */
export interface ErrorDetail {
  field: string;
  reason: string;
  min?: number;
  max?: number;
  min_length?: number;
  max_length?: number;
  min_items?: number;
  max_items?: number;
  allowed?: (string | number | boolean)[];
  format?: string;
  expected?: string;
}

export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = ERROR_CODES[code].status;
  }
}

export const invalid = (field: string, reason: string, message?: string) =>
  new ApiError('validation_error', message ?? `invalid value for ${field}: ${reason}`, [{ field, reason }]);
