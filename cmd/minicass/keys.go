package main

import (
	"github.com/minicass/minicass/schema"
	"github.com/minicass/minicass/types"
)

// parseKeyOf converts a partition key written on the command line
// (sstabledump -k/-x, ring) to its serialized form: schema.ParseKey.
func parseKeyOf(kinds []types.Type, s string) ([]byte, error) { return schema.ParseKey(kinds, s) }
