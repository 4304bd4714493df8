/**
 * `/ui/api`: Swagger UI on this service's `/openapi.json`, every request (the document's
 * and "Try it out") carrying the user's token. No validator badge: it would ask a public
 * service about the document.
 */
import { api, authHeaders } from "./workbench.js";

// The document itself needs a reader token: fetch it once through the token dialog.
const response = await api("/openapi.json");
const spec = response.ok ? await response.json() : undefined;

globalThis.SwaggerUIBundle({
  dom_id: "#swagger",
  ...(spec ? { spec } : { url: "/openapi.json" }),
  validatorUrl: null,
  deepLinking: true,
  tryItOutEnabled: false,
  requestInterceptor: (request) => {
    Object.assign(request.headers, authHeaders());
    return request;
  },
});
