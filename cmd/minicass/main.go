// Command minicass is the minicass command line: the cqlsh-like shell, the
// CQL native protocol server and nodetool-style tools.
package main

import (
	"fmt"
	"os"
)

// version is the minicass release.
const version = "0.1.0-dev"

const usage = `minicass %s: an embedded Cassandra-style storage engine

usage:
  minicass                      the interactive shell on the default data directory
  minicass shell [flags]        the shell (--data DIR | --memory, -e STMTS, -f FILE, --format table|json|csv)
  minicass serve [flags]        the CQL native protocol v4 server (--listen 127.0.0.1:9042)
  minicass nodetool [flags] ... flush, compact and the teaching views
  minicass version              print the version
`

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && (args[0] == "version" || args[0] == "--version") {
		fmt.Println("minicass", version)
		return 0
	}
	fmt.Printf(usage, version)
	return 0
}
