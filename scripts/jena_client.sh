#!/usr/bin/env bash
# Fetches Apache Jena's query client (jena-arq and its dependencies) and its RDF Patch module
# (jena-rdfpatch) from Maven Central into a cache and prints the directory of the jars: the
# real SPARQL client of the protocol tests (tests/integration/sparql_protocol_clients_test.ts),
# the independent RDF reader of the W3C suites and the independent applier of item diffs
# (tests/clients/).
#
#   RCS_CACHE_DIR   cache root ($HOME/.cache/rdf-content-service)
#   JENA_VERSION    default 5.6.0
set -euo pipefail
version="${JENA_VERSION:-5.6.0}"
dir="${RCS_CACHE_DIR:-${HOME:-/tmp}/.cache/rdf-content-service}/jena-client/$version"
# The marker names the modules: a cache filled before a module was added is filled again.
marker="$dir/.complete-arq-rdfpatch"
if [ ! -f "$marker" ]; then
  command -v mvn >/dev/null 2>&1 || { echo "jena_client.sh: needs Maven (mvn) on PATH" >&2; exit 1; }
  # A download that stopped half way leaves no marker; start it again from scratch.
  rm -rf "$dir/lib"
  mkdir -p "$dir"
  cat >"$dir/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local</groupId><artifactId>jena-client</artifactId><version>1</version>
  <dependencies>
    <dependency>
      <groupId>org.apache.jena</groupId><artifactId>jena-arq</artifactId>
      <version>$version</version>
    </dependency>
    <dependency>
      <groupId>org.apache.jena</groupId><artifactId>jena-rdfpatch</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
</project>
POM
  mvn -q -f "$dir/pom.xml" dependency:copy-dependencies -DoutputDirectory="$dir/lib" >&2 ||
    { echo "jena_client.sh: Maven could not fetch jena-arq and jena-rdfpatch $version" >&2; exit 1; }
  touch "$marker"
fi
echo "$dir/lib"
