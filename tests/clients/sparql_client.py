"""
SPARQLWrapper and rdflib as clients of the service's /sparql endpoint, for
tests/integration/sparql_protocol_clients_test.ts: runs a SELECT, an ASK and a CONSTRUCT
in every results format SPARQLWrapper asks for, re-parses each answer with rdflib's
parsers (Python's csv module for CSV), also queries through rdflib's own SPARQLStore, and
prints the parsed answers as one JSON object (ASK answers in the order of the queries), terms written as `<iri>`, `"lexical"@lang`,
`"lexical"^^<datatype>` or `"lexical"` (xsd:string); CSV rows keep values only, as CSV
carries no term types.

    /usr/bin/python3 tests/clients/sparql_client.py ENDPOINT SELECT CONSTRUCT ASK...
"""
import csv
import io
import json
import sys

from rdflib import XSD, BNode, Graph, Literal, URIRef
from rdflib.plugins.stores.sparqlstore import SPARQLStore
from rdflib.query import Result
from SPARQLWrapper import CSV, GET, JSON, N3, POST, RDFXML, TSV, TURTLE, XML, SPARQLWrapper


def term(node):
    if isinstance(node, URIRef):
        return f"<{node}>"
    if isinstance(node, BNode):
        return "_:"
    assert isinstance(node, Literal), node
    if node.language:
        return f'"{node}"@{node.language}'
    if node.datatype is None or node.datatype == XSD.string:
        return f'"{node}"'
    return f'"{node}"^^<{node.datatype}>'


def raw(endpoint, query, return_format, method=GET, accept=None):
    wrapper = SPARQLWrapper(endpoint)
    wrapper.setQuery(query)
    wrapper.setReturnFormat(return_format)
    wrapper.setMethod(method)
    if accept:
        wrapper.addCustomHttpHeader("Accept", accept)
    return wrapper.query()


def rows(result):
    return [{str(var): term(value) for var, value in row.asdict().items()} for row in result]


def json_rows(answer):
    def json_term(value):
        if value["type"] == "uri":
            return term(URIRef(value["value"]))
        if value["type"] == "bnode":
            return "_:"
        return term(Literal(value["value"], lang=value.get("xml:lang"),
                            datatype=value.get("datatype"), normalize=False))
    return [{var: json_term(value) for var, value in binding.items()}
            for binding in answer["results"]["bindings"]]


def triples(graph):
    return [[term(s), term(p), term(o)] for s, p, o in graph]


def main():
    endpoint, select, construct, *asks = sys.argv[1:]
    out = {}
    out["select GET json"] = json_rows(raw(endpoint, select, JSON).convert())
    # SPARQLWrapper POSTs queries as a form; the other formats are re-parsed by rdflib.
    for name, return_format, method in [("xml", XML, POST), ("tsv", TSV, GET)]:
        body = raw(endpoint, select, return_format, method).response.read()
        out[f"select {method} {name}"] = rows(Result.parse(io.BytesIO(body), format=name))
    csv_text = raw(endpoint, select, CSV).response.read().decode("utf-8")
    out["select GET csv"] = list(csv.DictReader(io.StringIO(csv_text, newline="")))
    out["ask GET json"] = [raw(endpoint, ask, JSON).convert()["boolean"] for ask in asks]
    out["ask GET xml"] = [
        Result.parse(io.BytesIO(raw(endpoint, ask, XML).response.read()), format="xml").askAnswer
        for ask in asks
    ]
    # SPARQLWrapper 1.8 has no N-Triples format of its own (its N3 prefers Turtle), and
    # refuses JSONLD without the old rdflib-jsonld package: both are asked for by Accept.
    for name, return_format, accept, rdflib_format in [
        ("turtle", TURTLE, None, "turtle"), ("n-triples", N3, "application/n-triples", "nt"),
        ("rdf/xml", RDFXML, None, "xml"), ("json-ld", N3, "application/ld+json", "json-ld"),
    ]:
        body = raw(endpoint, construct, return_format, accept=accept).response.read()
        graph = Graph().parse(data=body, format=rdflib_format)
        out[f"construct {name}"] = triples(graph)
    store = Graph(SPARQLStore(endpoint))
    out["rdflib SPARQLStore select"] = rows(store.query(select))
    out["rdflib SPARQLStore ask"] = [store.query(ask).askAnswer for ask in asks]
    out["rdflib SPARQLStore construct"] = triples(store.query(construct).graph)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
