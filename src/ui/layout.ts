/**
 * The HTML shell every workbench page shares: navigation, the token dialog, the page's own
 * skeleton and its script. Pages hold no data: their scripts fetch it from the JSON API with
 * the user's token, so the shell is the same for every caller and may be served openly.
 */

/** What makes one page: its title, skeleton and the files it loads. */
export interface PageDefinition {
  title: string;
  /** The page's HTML inside `<main>`, below its heading; static, no data. */
  body: string;
  /** Third-party scripts and style sheets (names under /ui/assets/) loaded before the page's. */
  scripts?: string[];
  styles?: string[];
  /** The page's module under /ui/assets/. */
  module: string;
}

/** Links of the navigation bar; `admin` ones are hidden from weaker tokens. */
const NAVIGATION: { href: string; label: string; admin?: boolean }[] = [
  { href: "/", label: "Home" },
  { href: "/ui/search", label: "Search" },
  { href: "/ui/sparql", label: "SPARQL" },
  { href: "/ui/jobs", label: "Jobs", admin: true },
  { href: "/ui/tools", label: "Tools", admin: true },
  { href: "/ui/api", label: "API" },
];

/**
 * Scripts and styles from this service only; inline styles are allowed because YASGUI and
 * Swagger UI set element styles, inline scripts are not; nothing may frame the pages.
 */
export const WORKBENCH_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** What the shell shows for this service's configuration (never per caller). */
export interface ShellOptions {
  /** Tokens are configured: the Token button is shown. Without them every caller is admin. */
  tokens: boolean;
}

/** The page's whole HTML document. */
export function renderPage(
  path: string,
  page: PageDefinition,
  shell: ShellOptions,
): string {
  const links = NAVIGATION.map((link) => {
    const current = link.href === path ? ' aria-current="page"' : "";
    const admin = link.admin ? " data-needs-admin" : "";
    return `<li${admin}><a href="${link.href}"${current}>${link.label}</a></li>`;
  }).join("");
  const styles = ["workbench.css", ...(page.styles ?? [])]
    .map((name) => `<link rel="stylesheet" href="/ui/assets/${name}">`).join("\n");
  const scripts = (page.scripts ?? [])
    .map((name) => `<script src="/ui/assets/${name}"></script>`).join("\n");
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · RDF content service</title>
<link rel="icon" href="data:,">
${styles}
</head>
<body>
<a class="skip-link" href="#main">Skip to content</a>
<header class="top">
<nav aria-label="Workbench"><ul>${links}</ul></nav>
<div class="access">
<span id="access-state" role="status"></span>
<button type="button" id="token-button"${shell.tokens ? "" : " hidden"}>Token</button>
</div>
</header>
<dialog id="token-dialog" aria-labelledby="token-title">
<form id="token-form" method="dialog">
<h2 id="token-title">Access token</h2>
<p id="token-reason">This service needs a bearer token. It is kept in this tab only (sessionStorage).</p>
<label for="token-input">Bearer token</label>
<input id="token-input" name="token" type="password" autocomplete="off" required>
<div class="buttons">
<button type="submit" value="save">Use token</button>
<button type="button" id="token-forget">Forget token</button>
<button type="button" id="token-cancel">Cancel</button>
</div>
</form>
</dialog>
<main id="main" tabindex="-1">
<h1>${page.title}</h1>
${page.body}
</main>
<footer class="bottom"><a href="/ui/assets/licenses.txt">Licences of the embedded software</a></footer>
${scripts}
<script type="module" src="/ui/assets/${page.module}"></script>
</body>
</html>
`;
}
