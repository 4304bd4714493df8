/** The service version: in /health, the X-Service-Version header and the OpenAPI document. */
export const SERVICE_VERSION = "0.1.0";
