/**
 * Secrets and how they are masked, wherever settings are shown (the settings dump, config
 * error messages).
 *
 * Secrets are found by rule, not by a list of paths, so a setting added later is masked
 * as soon as its name looks secret: a key whose name ends in one of the secret words
 * (`password`, `secret`, `token`, `apiKey`, `credentials`, …; `sparqlPassword` and
 * `accessToken` too) has its value masked whole, and every string anywhere has the user
 * info of URLs (`scheme://user:pass@host`) and secret-looking query parameters masked.
 */
/** What a secret is shown as. */
export const MASK = "******";

/**
 * Key names (lower-cased, without `-` and `_`) ending in one of these hold secrets.
 * `tokens` does not: it is a list whose entries are masked by their own keys.
 */
const SECRET_KEY_ENDINGS = [
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "apikey",
  "credential",
  "credentials",
  "privatekey",
  "accesskey",
];

/**
 * `scheme://userinfo@`: the user info of a URL anywhere in a string, up to the last `@`
 * of the authority, as URL parsers read it (an unencoded `@` in a password stays hidden).
 */
const URL_USER_INFO = /\b([A-Za-z][A-Za-z0-9+.-]*:\/\/)([^\s/?#]+)@/g;

/** `?name=value` / `&name=value` query parameters anywhere in a string. */
const QUERY_PARAMETER = /([?&])([^=&#\s]+)=([^&#\s]*)/g;

/** Whether a setting or parameter of this name holds a secret. */
export function isSecretName(name: string): boolean {
  const normalized = name.toLowerCase().replace(/[-_]/g, "");
  return SECRET_KEY_ENDINGS.some((ending) => normalized.endsWith(ending));
}

/** A string with the credentials of the URLs in it masked. */
export function maskUrlCredentials(text: string): string {
  return text
    .replace(URL_USER_INFO, (_match, scheme: string, userInfo: string) => {
      const colon = userInfo.indexOf(":");
      // A lone user name in a URL is as often a token as a name: mask it whole.
      return colon < 0 ? `${scheme}${MASK}@` : `${scheme}${userInfo.slice(0, colon)}:${MASK}@`;
    })
    .replace(QUERY_PARAMETER, (match, separator: string, name: string, value: string) => {
      if (value === "" || !isSecretName(decodeQueryName(name))) return match;
      return `${separator}${name}=${MASK}`;
    });
}

function decodeQueryName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * A deep copy of `value` with every secret masked: values under secret-looking keys
 * (whatever their type), and URL credentials in every string, keys included. Unset
 * secrets (undefined, null, empty) stay as they are, so the dump shows what is not set.
 */
export function maskSecrets(value: unknown): unknown {
  if (typeof value === "string") return maskUrlCredentials(value);
  if (Array.isArray(value)) return value.map(maskSecrets);
  if (value !== null && typeof value === "object") {
    const masked: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(value)) {
      masked[maskUrlCredentials(key)] = isSecretName(key) && isSet(entry)
        ? MASK
        : maskSecrets(entry);
    }
    return masked;
  }
  return value;
}

function isSet(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return false;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === "object") return Object.keys(value).length > 0;
  return true;
}
