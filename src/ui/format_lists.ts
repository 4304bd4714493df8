/**
 * The RDF formats the workbench's scripts offer, from the format table
 * (src/rdf/format_table.ts): rendered into the pages as data attributes, so no script keeps
 * a second list. They are facts of the service, the same for every caller: the pages still
 * hold no data.
 */
import { downloadExtension, formatsWhere, RDF_FORMATS } from "../rdf/format_table.ts";

/** One download button of the item page: `/api/item.<extension>`. */
export interface DownloadChoice {
  extension: string;
  label: string;
}

/** One kind of file the import form takes. */
export interface ImportChoice {
  /** File name endings, without the dot. */
  extensions: string[];
  /** The Content-Type the file is sent with. */
  mediaType: string;
  /** Whether the syntax holds named graphs (else it is imported by subject only). */
  graphs: boolean;
}

/** The item page's downloads, in the table's order. */
export const DOWNLOAD_CHOICES: DownloadChoice[] = formatsWhere((info) => info.download)
  .map((format) => ({ extension: downloadExtension(format), label: RDF_FORMATS[format].label }));

/**
 * The import form's files, graph formats first. A `.json` file goes as the format that
 * generic JSON means (JSON-LD), as `POST /api/admin/import` reads it.
 */
export const IMPORT_CHOICES: ImportChoice[] = [
  ...formatsWhere((info) => info.importBy === "graph"),
  ...formatsWhere((info) => info.importBy === "subject"),
].map((format) => {
  const info = RDF_FORMATS[format];
  const extensions = info.extensions.map((extension) => extension.slice(1));
  return {
    extensions: info.answersGenericJson ? [...extensions, "json"] : extensions,
    mediaType: info.mediaType,
    graphs: info.importBy === "graph",
  };
});

/** What the import file's label says it takes: `(.nq, .trig; by subject also .ttl, …)`. */
export function importFileHint(choices: readonly ImportChoice[] = IMPORT_CHOICES): string {
  const named = (graphs: boolean) =>
    choices.filter((choice) => choice.graphs === graphs)
      .map((choice) => `.${choice.extensions[0]}`).join(", ");
  return `(${named(true)}; by subject also ${named(false)})`;
}

/** `value` as JSON in a double-quoted HTML attribute. */
export function jsonAttribute(value: unknown): string {
  return JSON.stringify(value).replaceAll("&", "&amp;").replaceAll('"', "&quot;")
    .replaceAll("<", "&lt;").replaceAll(">", "&gt;");
}
