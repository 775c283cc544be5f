package main

import "fmt"

// serve is a placeholder until the server package has its entry point.
func init() {
	commands["serve"] = command{
		summary: "the CQL native protocol v4 server (--listen 127.0.0.1:9042) [not yet available]",
		run: func(args []string, io stdio) int {
			fmt.Fprintln(io.err, "minicass serve: not yet available")
			return 1
		},
	}
}
