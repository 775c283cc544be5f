//go:build tools

package minicass

import (
	_ "github.com/cockroachdb/datadriven"
	_ "github.com/gocql/gocql"
	_ "github.com/google/btree"
	_ "github.com/klauspost/compress/s2"
	_ "github.com/klauspost/compress/snappy"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/spaolacci/murmur3"
	_ "github.com/stretchr/testify/require"
	_ "pgregory.net/rapid"
	_ "github.com/chzyer/readline"
)
