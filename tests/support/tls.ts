/**
 * Throwaway TLS certificates for tests, made in code: a CA and a server certificate for
 * 127.0.0.1 and localhost it signed, both ECDSA P-256 through WebCrypto, the X.509 DER
 * written here. No openssl and no package are needed, and no key outlives the test process.
 */

/** A CA certificate, and a server certificate it signed with that server's private key. */
export interface TestCertificates {
  /** The CA certificate (PEM): what a client's CA file holds. */
  caPem: string;
  /** The server certificate (PEM), for 127.0.0.1, ::1 and localhost. */
  certPem: string;
  /** The server's private key (PKCS #8 PEM). */
  keyPem: string;
}

const ECDSA = { name: "ECDSA", namedCurve: "P-256" } as const;
const SIGN = { name: "ECDSA", hash: "SHA-256" } as const;
const DAY_MS = 24 * 60 * 60 * 1000;

/** DER bytes, on a plain ArrayBuffer as WebCrypto wants them. */
type Bytes = Uint8Array<ArrayBuffer>;

/** A fresh CA named `name`, and a server certificate for loopback signed by it (valid 2 days). */
export async function makeTestCertificates(name = "rcs test CA"): Promise<TestCertificates> {
  const ca = await crypto.subtle.generateKey(ECDSA, true, ["sign", "verify"]);
  const server = await crypto.subtle.generateKey(ECDSA, true, ["sign", "verify"]);
  const caSpki = new Uint8Array(await crypto.subtle.exportKey("spki", ca.publicKey));
  const serverSpki = new Uint8Array(await crypto.subtle.exportKey("spki", server.publicKey));
  const caKeyId = await keyIdentifier(caSpki);
  const notBefore = new Date(Date.now() - DAY_MS);
  const notAfter = new Date(Date.now() + DAY_MS);
  const caCert = await certificate({
    serial: 1,
    issuer: name,
    subject: name,
    notBefore,
    notAfter,
    spki: caSpki,
    signer: ca.privateKey,
    extensions: [
      extension(OID.basicConstraints, true, sequence(boolean(true))),
      extension(OID.keyUsage, true, bitString(new Uint8Array([0x06]), 1)), // keyCertSign, cRLSign
      extension(OID.subjectKeyIdentifier, false, octetString(caKeyId)),
    ],
  });
  const serverCert = await certificate({
    serial: 2,
    issuer: name,
    subject: "localhost",
    notBefore,
    notAfter,
    spki: serverSpki,
    signer: ca.privateKey,
    extensions: [
      extension(OID.basicConstraints, true, sequence()),
      extension(OID.keyUsage, true, bitString(new Uint8Array([0x80]), 7)), // digitalSignature
      extension(OID.extKeyUsage, false, sequence(oid(OID.serverAuth))),
      extension(
        OID.subjectAltName,
        false,
        sequence(
          tagged(0x82, new TextEncoder().encode("localhost")),
          tagged(0x87, new Uint8Array([127, 0, 0, 1])),
          tagged(0x87, new Uint8Array([...new Uint8Array(15), 1])),
        ),
      ),
      extension(OID.authorityKeyIdentifier, false, sequence(tagged(0x80, caKeyId))),
    ],
  });
  const pkcs8 = new Uint8Array(await crypto.subtle.exportKey("pkcs8", server.privateKey));
  return {
    caPem: pem("CERTIFICATE", caCert),
    certPem: pem("CERTIFICATE", serverCert),
    keyPem: pem("PRIVATE KEY", pkcs8),
  };
}

const OID = {
  ecdsaWithSha256: "1.2.840.10045.4.3.2",
  commonName: "2.5.4.3",
  basicConstraints: "2.5.29.19",
  keyUsage: "2.5.29.15",
  extKeyUsage: "2.5.29.37",
  subjectAltName: "2.5.29.17",
  subjectKeyIdentifier: "2.5.29.14",
  authorityKeyIdentifier: "2.5.29.35",
  serverAuth: "1.3.6.1.5.5.7.3.1",
};

interface CertificateFields {
  serial: number;
  issuer: string;
  subject: string;
  notBefore: Date;
  notAfter: Date;
  spki: Bytes;
  signer: CryptoKey;
  extensions: Bytes[];
}

/** An X.509 v3 certificate (RFC 5280), DER, signed ECDSA with SHA-256. */
async function certificate(fields: CertificateFields): Promise<Bytes> {
  const algorithm = sequence(oid(OID.ecdsaWithSha256));
  const toBeSigned = sequence(
    tagged(0xa0, integer(2)), // v3
    integer(fields.serial),
    algorithm,
    distinguishedName(fields.issuer),
    sequence(utcTime(fields.notBefore), utcTime(fields.notAfter)),
    distinguishedName(fields.subject),
    fields.spki,
    tagged(0xa3, sequence(...fields.extensions)),
  );
  const raw = new Uint8Array(await crypto.subtle.sign(SIGN, fields.signer, toBeSigned));
  // WebCrypto gives r‖s; X.509 wants the DER SEQUENCE { r INTEGER, s INTEGER }.
  const signature = sequence(unsignedInteger(raw.slice(0, 32)), unsignedInteger(raw.slice(32)));
  return sequence(toBeSigned, algorithm, bitString(signature, 0));
}

/** RFC 5280's key identifier method 1: SHA-1 of the subjectPublicKey bits. */
async function keyIdentifier(spki: Bytes): Promise<Bytes> {
  // A P-256 SPKI is a fixed 26-byte header, then the 65-byte uncompressed point.
  return new Uint8Array(await crypto.subtle.digest("SHA-1", spki.slice(spki.length - 65)));
}

function distinguishedName(commonName: string): Bytes {
  return sequence(
    set(sequence(oid(OID.commonName), tagged(0x0c, new TextEncoder().encode(commonName)))),
  );
}

function extension(id: string, critical: boolean, value: Bytes): Bytes {
  return sequence(oid(id), ...(critical ? [boolean(true)] : []), octetString(value));
}

// --- DER ------------------------------------------------------------------------------------

function tagged(tag: number, content: Bytes): Bytes {
  const length = content.length < 0x80
    ? [content.length]
    : content.length < 0x100
    ? [0x81, content.length]
    : [0x82, content.length >> 8, content.length & 0xff];
  return new Uint8Array([tag, ...length, ...content]);
}

function sequence(...parts: Bytes[]): Bytes {
  return tagged(0x30, concat(parts));
}

function set(...parts: Bytes[]): Bytes {
  return tagged(0x31, concat(parts));
}

function boolean(value: boolean): Bytes {
  return tagged(0x01, new Uint8Array([value ? 0xff : 0]));
}

function integer(value: number): Bytes {
  const bytes: number[] = [];
  for (let rest = value; bytes.length === 0 || rest > 0; rest = Math.floor(rest / 256)) {
    bytes.unshift(rest % 256);
  }
  return unsignedInteger(new Uint8Array(bytes));
}

/** A non-negative INTEGER from big-endian bytes: minimal, with a 0 byte when the top bit is set. */
function unsignedInteger(bytes: Bytes): Bytes {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  const minimal = bytes.slice(start);
  return tagged(0x02, minimal[0] & 0x80 ? concat([new Uint8Array([0]), minimal]) : minimal);
}

function bitString(bytes: Bytes, unusedBits: number): Bytes {
  return tagged(0x03, concat([new Uint8Array([unusedBits]), bytes]));
}

function octetString(bytes: Bytes): Bytes {
  return tagged(0x04, bytes);
}

function oid(dotted: string): Bytes {
  const [first, second, ...rest] = dotted.split(".").map(Number);
  const bytes = [40 * first + second];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let value = arc >> 7; value > 0; value >>= 7) base128.unshift(0x80 | (value & 0x7f));
    bytes.push(...base128);
  }
  return tagged(0x06, new Uint8Array(bytes));
}

function utcTime(date: Date): Bytes {
  const text = date.toISOString().slice(2, 19).replace(/[-:T]/g, "") + "Z"; // YYMMDDHHMMSSZ
  return tagged(0x17, new TextEncoder().encode(text));
}

function concat(parts: Bytes[]): Bytes {
  const all = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return all;
}

function pem(label: string, der: Bytes): string {
  let binary = "";
  for (const byte of der) binary += String.fromCharCode(byte);
  const lines = btoa(binary).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}
