/**
 * The namespaces the item page shortens IRIs with for reading (the graph, the history's
 * changes), before the prefixes the service knows (`GET /api/labels`); the full IRI always
 * stays in the title.
 */
export const COMMON_PREFIXES = {
  rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  rdfs: "http://www.w3.org/2000/01/rdf-schema#",
  xsd: "http://www.w3.org/2001/XMLSchema#",
  owl: "http://www.w3.org/2002/07/owl#",
  dct: "http://purl.org/dc/terms/",
  dc: "http://purl.org/dc/elements/1.1/",
  foaf: "http://xmlns.com/foaf/0.1/",
  skos: "http://www.w3.org/2004/02/skos/core#",
  schema: "https://schema.org/",
  sh: "http://www.w3.org/ns/shacl#",
  prov: "http://www.w3.org/ns/prov#",
  dcat: "http://www.w3.org/ns/dcat#",
};
