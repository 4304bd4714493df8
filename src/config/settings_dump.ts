/**
 * The effective settings as YAML, for the admin tool that shows them, with every secret
 * replaced by the mask (see `secret_masking.ts` for what counts as a secret).
 */
import { stringify } from "yaml";
import type { ServiceConfig } from "./schema.ts";
import { maskSecrets } from "./secret_masking.ts";

/** The configuration as YAML, secrets masked. */
export function dumpSettings(config: ServiceConfig): string {
  return stringify(maskSecrets(config), { lineWidth: 0 });
}
