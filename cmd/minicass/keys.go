package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/minicass/minicass/partitioner"
	"github.com/minicass/minicass/types"
)

// Partition keys written on the command line (sstabledump -k/-x, ring).

// parseKeyOf converts a partition key with components of the given types,
// written as text, to its serialized form: one value, or the values of a
// composite key separated by ':' ('\:' is a colon in a value), as
// CompositeType.fromString reads them.
func parseKeyOf(kinds []types.Type, s string) ([]byte, error) {
	if len(kinds) == 1 {
		return parseKeyComponent(kinds[0], s)
	}
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == ':':
			cur.WriteByte(':')
			i++
		case s[i] == ':':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	parts = append(parts, cur.String())
	if len(parts) != len(kinds) {
		return nil, fmt.Errorf("key %q has %d components, the partition key %d", s, len(parts), len(kinds))
	}
	values := make([][]byte, len(parts))
	for i, p := range parts {
		v, err := parseKeyComponent(kinds[i], p)
		if err != nil {
			return nil, err
		}
		values[i] = v
	}
	return partitioner.CompositeKey(values)
}

// parseKeyComponent reads one key value as AbstractType.fromString does:
// text as it is, a blob as hex, anything else as a CQL literal, quoted if
// need be (timestamps, dates, inet addresses).
func parseKeyComponent(t types.Type, s string) ([]byte, error) {
	switch t.Kind {
	case types.Text, types.Ascii:
		return []byte(s), nil
	case types.Blob:
		b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
		if err != nil {
			return nil, fmt.Errorf("key %q is not hex: %w", s, err)
		}
		return b, nil
	}
	v, err := types.ParseLiteral(t, s)
	if err == nil {
		return v, nil
	}
	if v, qerr := types.ParseLiteral(t, "'"+strings.ReplaceAll(s, "'", "''")+"'"); qerr == nil {
		return v, nil
	}
	return nil, errors.Join(fmt.Errorf("key %q is not a %s", s, t), err)
}
