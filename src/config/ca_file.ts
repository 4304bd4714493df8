/**
 * CA files the configuration names (`caFile` keys): PEM certificates trusted for HTTPS to
 * an engine, on top of the runtime's default roots.
 *
 * They are read and parsed once, at start-up, so a wrong path or a file that holds no
 * certificate stops the service with the key that names it, instead of failing every
 * HTTPS request later with a handshake error.
 */
import { readFileSync } from "node:fs";
import { X509Certificate } from "node:crypto";
import { ConfigError } from "./load.ts";

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[^-]*-----END CERTIFICATE-----/g;

/**
 * The certificates of the PEM file at `path`, one PEM block each; `key` is the setting that
 * named the file, for the {@link ConfigError} thrown when it cannot be used.
 */
export function readCaCertificates(path: string, key: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError(key, [`${key}: cannot read ${path}: ${(error as Error).message}`]);
  }
  const certificates = text.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0) {
    throw new ConfigError(key, [
      `${key}: ${path} holds no PEM certificate (-----BEGIN CERTIFICATE----- block)`,
    ]);
  }
  certificates.forEach((certificate, index) => {
    try {
      new X509Certificate(certificate);
    } catch (error) {
      throw new ConfigError(key, [
        `${key}: certificate ${index + 1} of ${path} is not valid: ${(error as Error).message}`,
      ]);
    }
  });
  return certificates;
}
