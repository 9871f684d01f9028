// The five contract headers (2.1), kept for the access log and the security log. A leaf file, so
// the security log and the request context can both use it without importing each other.
export interface RouteContext {
  route_path?: string;
  route_module?: string;
  route_filter?: string;
  client_version?: string;
  client_build_time?: string;
}
