/**
 * How the service names a backend's URL in messages and logs: scheme, host, port and path,
 * never the credentials or the query string a configured URL may carry.
 */

/** `https://host:9200/path` without user info and query; the text itself if not a URL. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return url;
  }
}
