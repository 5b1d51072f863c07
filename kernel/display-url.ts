/**
 * A URL as messages and log lines show it: scheme, host and path. The `user:password@` part, the
 * query and the fragment are left out: catalog and artifact URLs may carry credentials in any of
 * them (`?token=…`), and these messages reach clients (refresh report, /admin/status, 502 answers).
 */
export function displayUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return '(not a valid URL)';
  }
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
}
