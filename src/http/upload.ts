/**
 * File uploads: a multipart/form-data body, size-limited, read into its fields; the one file
 * part it carries picked out (refusing a body where that is ambiguous rather than guessing);
 * and the file's text. What the file holds is the route's business.
 */
import type { Context } from "hono";
import type { AppEnv } from "./app_env.ts";
import { readBodyBytes } from "./body.ts";
import { DomainError } from "../errors/domain_error.ts";
import { unsupportedMediaType } from "./unsupported_media_type.ts";

/** The uploaded file of a multipart body of at most `limit` bytes. */
export async function readUploadedFile(c: Context<AppEnv>, limit: number): Promise<File> {
  const contentType = c.req.header("content-type") ?? "";
  const bytes = await readBodyBytes(c, limit);
  return uploadedFile(await readMultipart(bytes, contentType));
}

/** A multipart body's fields; 415 when the body is not multipart, 400 when it is broken. */
export async function readMultipart(bytes: Uint8Array, contentType: string): Promise<FormData> {
  if (!/^multipart\/form-data\s*;/i.test(contentType)) {
    throw unsupportedMediaType({
      given: contentType,
      accepted: ["multipart/form-data"],
      hint: "Upload the file as its part 'file' (curl: -F file=@data.ttl).",
    });
  }
  try {
    return await new Response(bytes as Uint8Array<ArrayBuffer>, {
      headers: { "Content-Type": contentType },
    }).formData();
  } catch (error) {
    throw new DomainError("invalid-multipart", {
      detail: `The multipart/form-data body could not be read: ${
        error instanceof Error ? error.message : String(error)
      }`,
    });
  }
}

/** The part named `file`, else the only file part; 400 when there is none or no telling. */
function uploadedFile(form: FormData): File {
  const named = form.get("file");
  const namedFiles = form.getAll("file").filter((value) => value instanceof File).length;
  if (namedFiles > 1) {
    // Taking the first of several would silently ignore data the client sent.
    throw new DomainError("ambiguous-file", {
      detail: `The body holds ${namedFiles} parts named 'file'; send exactly one.`,
      errors: [{ path: "file", message: "several parts named 'file'" }],
    });
  }
  if (named instanceof File) return named;
  const files = [...form.values()].filter((value): value is File => value instanceof File);
  if (files.length === 1 && named === null) return files[0];
  if (files.length > 1 && named === null) {
    throw new DomainError("ambiguous-file", {
      detail: `The body holds ${files.length} files and none of them is the part 'file'; ` +
        "send one file, or name the one to use 'file'.",
      errors: [{ path: "file", message: "several file parts, none named 'file'" }],
    });
  }
  throw new DomainError("missing-file", {
    detail: named === null
      ? "The multipart body holds no file: upload the RDF data as the part 'file'."
      : "The part 'file' is a plain field, not a file upload: send it with a file name " +
        "(curl: -F file=@data.ttl).",
    errors: [{ path: "file", message: "required" }],
  });
}

/** The file's text; 400 when it is not UTF-8. */
export async function fileText(file: File): Promise<string> {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(await file.arrayBuffer());
  } catch {
    throw new DomainError("invalid-encoding", {
      detail: `The file ${JSON.stringify(file.name)} is not valid UTF-8.`,
      errors: [{ path: "file", message: "not UTF-8" }],
    });
  }
}
