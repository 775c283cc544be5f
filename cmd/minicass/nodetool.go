package main

import "fmt"

// nodetool is a placeholder until the engine has its maintenance views.
func init() {
	commands["nodetool"] = command{
		summary: "flush, compact and the teaching views [not yet available]",
		run: func(args []string, io stdio) int {
			fmt.Fprintln(io.err, "minicass nodetool: not yet available")
			return 1
		},
	}
}
