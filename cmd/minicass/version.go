package main

import (
	"fmt"

	"github.com/minicass/minicass/shell"
)

func init() {
	commands["version"] = command{
		summary: "print the version",
		run: func(args []string, io stdio) int {
			fmt.Fprintf(io.out, "minicass %s (Cassandra %s, CQL spec %s, native protocol v%d)\n",
				version, shell.CassandraVersion, shell.CQLVersion, shell.ProtocolVersion)
			return 0
		},
	}
}
