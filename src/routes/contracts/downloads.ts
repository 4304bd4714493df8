/** Contracts of `GET /api/item.{ttl,rdf,nt,n3,jsonld}` (docs/api.md, Item downloads). */
import { z } from "zod";
import { defineContract } from "../../http/route_contract.ts";
import { DOWNLOAD_FORMATS, mediaTypeOf } from "../media_types.ts";
import {
  BAD_PARAMETERS,
  COLLECTION,
  ETAG_HEADER,
  ITEM,
  NOT_EXPRESSIBLE,
  VERSION,
  VERSIONED_READ_PROBLEMS,
} from "./shared.ts";

/** The download of an item as a `.{extension}` file. */
function downloadContract(extension: string) {
  return defineContract({
    method: "GET",
    path: `/api/item.${extension}`,
    operationId: `downloadItem${extension[0].toUpperCase()}${extension.slice(1)}`,
    summary: `Download an item as a .${extension} file`,
    description: "Streamed, so a large item is never built as one string in memory. " +
      "`version` downloads one version of the item's history.",
    tags: ["Item downloads"],
    access: "authenticated",
    collectionRight: "read",
    query: z.object({ collection: COLLECTION, item: ITEM, version: VERSION }),
    responses: {
      200: {
        description: "The item's graph as a file.",
        content: [mediaTypeOf(DOWNLOAD_FORMATS[extension])],
        headers: {
          "Content-Disposition": `attachment; filename="<safe name>.${extension}"`,
          ETag: ETAG_HEADER,
          "Memento-Datetime": "For a version: when it was written.",
        },
      },
      304: { description: "Not modified: `If-None-Match` holds the current ETag." },
    },
    problems: {
      400: BAD_PARAMETERS,
      404: VERSIONED_READ_PROBLEMS[404],
      410: VERSIONED_READ_PROBLEMS[410],
      406: NOT_EXPRESSIBLE,
    },
  });
}

/** One contract per download extension, by extension. */
export const DOWNLOAD_CONTRACTS: Record<string, ReturnType<typeof downloadContract>> = Object
  .fromEntries(
    Object.keys(DOWNLOAD_FORMATS).map((extension) => [extension, downloadContract(extension)]),
  );
