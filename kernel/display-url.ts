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

/**
 * A URL, or a URL template (`ARTIFACT_BASE_URL_TEMPLATE` with its `{version}`), as an answer may
 * show it: as configured, less its `user:password@`, its query and its fragment, where credentials
 * go. Unlike `displayUrl` it leaves the rest of the text as it is (no `/` added, a placeholder not
 * percent-encoded), so a URL without secrets is shown exactly as configured.
 */
export function withoutSecrets(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#]*@/i, '$1').replace(/[?#][^]*$/, '');
}

/**
 * A message that may quote URLs (a library's error naming a subgraph's routing URL), as a log line
 * may show it: every `user:password@` in it left out.
 */
export function withoutUrlCredentials(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]*@/gi, '$1');
}
