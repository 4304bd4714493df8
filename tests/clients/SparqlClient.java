/*
 * Apache Jena as a client of the service's /sparql endpoint, for
 * tests/integration/sparql_protocol_clients_test.ts: runs a SELECT, an ASK and a CONSTRUCT
 * with QueryExecutionHTTP in every request form and every results format Jena reads, and
 * prints what Jena parsed as one JSON object (ASK answers in the order of the queries),
 * terms written as `<iri>`, `"lexical"@lang`,
 * `"lexical"^^<datatype>` or `"lexical"` (xsd:string), so the test compares terms, not
 * serializations.
 *
 *   java -cp "$JENA_CLIENT_LIB/*" tests/clients/SparqlClient.java ENDPOINT SELECT CONSTRUCT ASK...
 */
import java.util.Iterator;
import org.apache.jena.atlas.json.JSON;
import org.apache.jena.atlas.json.JsonArray;
import org.apache.jena.atlas.json.JsonObject;
import org.apache.jena.datatypes.xsd.XSDDatatype;
import org.apache.jena.graph.Node;
import org.apache.jena.query.QuerySolution;
import org.apache.jena.query.ResultSet;
import org.apache.jena.rdf.model.Model;
import org.apache.jena.rdf.model.Statement;
import org.apache.jena.sparql.exec.http.QueryExecutionHTTP;
import org.apache.jena.sparql.exec.http.QuerySendMode;

public class SparqlClient {
  public static void main(String[] args) {
    String endpoint = args[0], select = args[1], construct = args[2];
    JsonObject out = new JsonObject();
    // One request form per results format, so every form and format is exercised once.
    out.put("select GET json", select(endpoint, select, QuerySendMode.asGetAlways,
        "application/sparql-results+json"));
    out.put("select POST xml", select(endpoint, select, QuerySendMode.asPost,
        "application/sparql-results+xml"));
    out.put("select form tsv", select(endpoint, select, QuerySendMode.asPostForm,
        "text/tab-separated-values"));
    for (String format : new String[] {"application/sparql-results+json",
        "application/sparql-results+xml"}) {
      JsonArray answers = new JsonArray();
      for (int i = 3; i < args.length; i++) {
        try (QueryExecutionHTTP exec = builder(endpoint, args[i], QuerySendMode.asGetAlways)
            .acceptHeaderAskQuery(format).build()) {
          answers.add(exec.execAsk());
        }
      }
      out.put("ask " + format, answers);
    }
    for (String format : new String[] {"text/turtle", "application/n-triples",
        "application/rdf+xml", "application/ld+json"}) {
      try (QueryExecutionHTTP exec = builder(endpoint, construct, QuerySendMode.asGetAlways)
          .acceptHeaderGraph(format).build()) {
        out.put("construct " + format, triples(exec.execConstruct()));
      }
    }
    System.out.println(JSON.toStringFlat(out));
  }

  private static org.apache.jena.sparql.exec.http.QueryExecutionHTTPBuilder builder(
      String endpoint, String query, QuerySendMode mode) {
    return QueryExecutionHTTP.service(endpoint).query(query).sendMode(mode);
  }

  private static JsonArray select(String endpoint, String query, QuerySendMode mode,
      String format) {
    JsonArray rows = new JsonArray();
    try (QueryExecutionHTTP exec = builder(endpoint, query, mode)
        .acceptHeaderSelectQuery(format).build()) {
      ResultSet results = exec.execSelect();
      while (results.hasNext()) {
        QuerySolution solution = results.next();
        JsonObject row = new JsonObject();
        for (Iterator<String> names = solution.varNames(); names.hasNext();) {
          String name = names.next();
          row.put(name, term(solution.get(name).asNode()));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  private static JsonArray triples(Model model) {
    JsonArray triples = new JsonArray();
    for (Statement statement : model.listStatements().toList()) {
      JsonArray triple = new JsonArray();
      triple.add(term(statement.getSubject().asNode()));
      triple.add(term(statement.getPredicate().asNode()));
      triple.add(term(statement.getObject().asNode()));
      triples.add(triple);
    }
    return triples;
  }

  private static String term(Node node) {
    if (node.isURI()) return "<" + node.getURI() + ">";
    if (node.isBlank()) return "_:";
    String lexical = "\"" + node.getLiteralLexicalForm() + "\"";
    if (!node.getLiteralLanguage().isEmpty()) return lexical + "@" + node.getLiteralLanguage();
    String datatype = node.getLiteralDatatypeURI();
    return datatype.equals(XSDDatatype.XSDstring.getURI())
        ? lexical
        : lexical + "^^<" + datatype + ">";
  }
}
