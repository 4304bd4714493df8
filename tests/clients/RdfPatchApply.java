/*
 * Apache Jena's RDF Patch module (jena-rdfpatch) as an independent applier of the service's
 * diffs, for tests/api/item_history_test.ts:
 *
 *   java -cp "$JENA_CLIENT_LIB/*" tests/clients/RdfPatchApply.java GRAPH.nt PATCH.rdfp
 *
 * Loads GRAPH (N-Triples, one triple per line) into an empty dataset as a patch of `A` rows,
 * so that Jena's own patch reader gives its blank nodes their labels exactly as it gives
 * those of PATCH (a row naming `_:x` names the node GRAPH calls `_:x`); applies PATCH with
 * RDFPatchOps; prints the resulting default graph as N-Triples. Prints the number of distinct
 * blank nodes loaded on stderr, so a caller can check that no two labels were read as one.
 */
import java.io.ByteArrayInputStream;
import java.io.FileInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.apache.jena.graph.Node;
import org.apache.jena.rdfpatch.RDFPatch;
import org.apache.jena.rdfpatch.RDFPatchOps;
import org.apache.jena.riot.Lang;
import org.apache.jena.riot.RDFDataMgr;
import org.apache.jena.sparql.core.DatasetGraph;
import org.apache.jena.sparql.core.DatasetGraphFactory;
import org.apache.jena.system.Txn;

public class RdfPatchApply {
  public static void main(String[] args) throws Exception {
    StringBuilder load = new StringBuilder("TX .\n");
    for (String line : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
      if (!line.isBlank()) load.append("A ").append(line).append('\n');
    }
    load.append("TC .\n");
    DatasetGraph dataset = DatasetGraphFactory.createTxnMem();
    RDFPatchOps.applyChange(dataset, RDFPatchOps.read(
        new ByteArrayInputStream(load.toString().getBytes(StandardCharsets.UTF_8))));
    Set<Node> blankNodes = new HashSet<>();
    Txn.executeRead(dataset, () -> dataset.getDefaultGraph().find().forEachRemaining(triple -> {
      if (triple.getSubject().isBlank()) blankNodes.add(triple.getSubject());
      if (triple.getObject().isBlank()) blankNodes.add(triple.getObject());
    }));
    System.err.println("blank nodes loaded: " + blankNodes.size());
    RDFPatch patch;
    try (InputStream in = new FileInputStream(args[1])) {
      patch = RDFPatchOps.read(in);
    }
    RDFPatchOps.applyChange(dataset, patch);
    Txn.executeRead(dataset,
        () -> RDFDataMgr.write(System.out, dataset.getDefaultGraph(), Lang.NTRIPLES));
  }
}
