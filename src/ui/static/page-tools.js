/**
 * `/ui/tools` (admin): SHACL shapes generated from an uploaded RDF file (previewed with
 * highlighting, downloadable), webhook delivery and its dead letters (tools-webhooks.js), and
 * the effective settings.
 */
import { api, applyRole, ensureOk, errorBox, saveBlob, show, withQuery } from "./workbench.js";
import { highlightTurtle } from "./turtle.js";
import { showWebhooks } from "./tools-webhooks.js";

let shapes = "";

document.getElementById("shacl-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const status = document.getElementById("shacl-status");
  const result = document.getElementById("shacl-result");
  const file = document.getElementById("shacl-file").files[0];
  const namespace = document.getElementById("shacl-namespace").value.trim();
  if (!file) return;
  show(status, `Generating shapes from ${file.name}…`);
  result.hidden = true;
  try {
    const body = new FormData();
    body.append("file", file, file.name);
    const response = await ensureOk(
      await api(withQuery("/api/admin/tools/generate-shacl", { namespace }), {
        method: "POST",
        body,
      }),
    );
    shapes = await response.text();
    show(document.getElementById("shacl-preview"), highlightTurtle(shapes));
    result.hidden = false;
    show(status, `Shapes for ${file.name}: ${shapes.split("\n").length} lines.`);
  } catch (error) {
    show(status, errorBox(error));
  }
});

document.getElementById("shacl-download").addEventListener("click", () => {
  saveBlob(new Blob([shapes], { type: "text/turtle" }), "shapes.ttl");
});

document.getElementById("settings-button").addEventListener("click", async () => {
  const settings = document.getElementById("settings");
  try {
    const response = await ensureOk(
      await api("/api/admin/tools/dump-settings", { method: "POST" }),
    );
    settings.textContent = await response.text();
    settings.hidden = false;
  } catch (error) {
    settings.hidden = false;
    show(settings, errorBox(error));
  }
});

if (await applyRole()) {
  await showWebhooks();
} else {
  show(
    document.getElementById("shacl-status"),
    errorBox("The tools need the admin role; this token has a weaker one."),
  );
}
