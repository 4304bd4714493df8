/*
 * Apache Jena RIOT as an independent reader of the service's downloads, for
 * tests/api/w3c_rdf_suites_test.ts: one JVM re-reads every file of a whole run and says,
 * per file, whether it is the same graph (isomorphic, blank nodes matched) as its case's
 * reference graph.
 *
 *   java -cp "$JENA_CLIENT_LIB/*" tests/clients/RdfRereadCheck.java JOBS
 *
 * JOBS has one tab-separated line per file: case id, role (`reference` or `download`), path,
 * Jena language name, base IRI, and an IRI to turn back into a blank node (a minted item
 * URI) or nothing. A case's reference line comes before its downloads. Printed, one line
 * per download (and per reference that fails to parse): case id, path, then `same`,
 * `different` or `error`, and a message.
 */
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.jena.graph.Graph;
import org.apache.jena.graph.Node;
import org.apache.jena.graph.NodeFactory;
import org.apache.jena.graph.Triple;
import org.apache.jena.riot.Lang;
import org.apache.jena.riot.RDFLanguages;
import org.apache.jena.riot.RDFParser;
import org.apache.jena.riot.system.ErrorHandlerFactory;
import org.apache.jena.sparql.graph.GraphFactory;

public class RdfRereadCheck {
  public static void main(String[] args) throws Exception {
    List<String> jobs = Files.readAllLines(Path.of(args[0]));
    Map<String, Graph> references = new HashMap<>();
    StringBuilder out = new StringBuilder();
    for (String job : jobs) {
      if (job.isEmpty()) continue;
      String[] field = job.split("\t", -1);
      String id = field[0], role = field[1], path = field[2], lang = field[3], base = field[4];
      String minted = field[5];
      try {
        Graph graph = parse(path, RDFLanguages.nameToLang(lang), base);
        if (role.equals("reference")) {
          references.put(id, graph);
          continue;
        }
        if (!minted.isEmpty()) graph = unmint(graph, NodeFactory.createURI(minted));
        Graph reference = references.get(id);
        String verdict = reference == null ? "error\tno reference graph"
            : reference.isIsomorphicWith(graph) ? "same\t"
            : "different\t" + graph.size() + " triples, the reference has " + reference.size();
        out.append(id).append('\t').append(path).append('\t').append(verdict).append('\n');
      } catch (Exception e) {
        String message = String.valueOf(e.getMessage()).replaceAll("\\s+", " ");
        out.append(id).append('\t').append(path).append("\terror\t").append(message).append('\n');
      }
    }
    System.out.print(out);
  }

  static Graph parse(String path, Lang lang, String base) {
    Graph graph = GraphFactory.createDefaultGraph();
    RDFParser.create()
        .source(path)
        .lang(lang)
        .base(base)
        .errorHandler(ErrorHandlerFactory.errorHandlerNoLogging)
        .parse(graph);
    return graph;
  }

  /** The graph with `minted` replaced by one blank node, as the request body had it. */
  static Graph unmint(Graph graph, Node minted) {
    Node blank = NodeFactory.createBlankNode();
    Graph result = GraphFactory.createDefaultGraph();
    graph.find().forEachRemaining((Triple t) -> result.add(Triple.create(
        t.getSubject().equals(minted) ? blank : t.getSubject(),
        t.getPredicate(),
        t.getObject().equals(minted) ? blank : t.getObject())));
    return result;
  }
}
