/**
 * Every relative link of README.md and docs/*.md leads to a file of the repository: a plain
 * clone is the whole product, its documentation included.
 */
import { strict as assert } from "node:assert";

const ROOT = new URL("../../", import.meta.url);
/** `[text](target)`, the target up to a space (a title) or the closing parenthesis. */
const LINK = /\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g;

/** README.md and every Markdown file under docs/. */
function pages(): URL[] {
  const found = [new URL("README.md", ROOT)];
  for (const entry of Deno.readDirSync(new URL("docs/", ROOT))) {
    if (entry.isFile && entry.name.endsWith(".md")) found.push(new URL(`docs/${entry.name}`, ROOT));
  }
  return found;
}

Deno.test("relative links in README.md and docs/*.md resolve to files in the repository", () => {
  const broken: string[] = [];
  for (const page of pages()) {
    const text = Deno.readTextFileSync(page);
    for (const [, target] of text.matchAll(LINK)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("#")) continue;
      const path = decodeURIComponent(target.split("#")[0]);
      const resolved = new URL(path, page);
      const name = page.href.slice(ROOT.href.length);
      if (!resolved.href.startsWith(ROOT.href)) {
        broken.push(`${name}: ${target} leaves the repository`);
        continue;
      }
      try {
        Deno.statSync(resolved);
      } catch {
        broken.push(`${name}: ${target} does not exist`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("the README links the HTTP API reference", () => {
  const readme = Deno.readTextFileSync(new URL("README.md", ROOT));
  assert.match(readme, /\]\(docs\/api\.md\)/);
});
