package main

import "github.com/minicass/minicass/shell"

func init() {
	commands["shell"] = command{
		summary: "the shell (--data DIR | --memory, -e STMTS, -f FILE, --format table|json|csv, -k KS)",
		run: func(args []string, io stdio) int {
			return shell.Main(args, io.in, io.out, io.err, version)
		},
	}
}
