package schema

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCheckMemtableConfiguration pins 4.1's MemtableParams rules: the
// built-in default, inheritance of the class and of the parameters key by
// key, short class names, and the texts of each refusal.
func TestCheckMemtableConfiguration(t *testing.T) {
	class := func(s string) *string { return &s }
	configs := map[string]MemtableConfiguration{
		"trie":       {ClassName: class("TrieMemtable"), Parameters: map[string]string{"shards": "4"}},
		"trie8":      {Inherits: "trie", Parameters: map[string]string{"shards": "8"}},
		"trie_bad":   {Inherits: "trie", Parameters: map[string]string{"flush": "x"}},
		"full":       {ClassName: class("org.apache.cassandra.db.memtable.SkipListMemtable")},
		"from_def":   {Inherits: "default"},
		"orphan":     {Inherits: "nowhere"},
		"no_class":   {},
		"custom":     {ClassName: class("com.example.MyMemtable"), Parameters: map[string]string{"size": "1"}},
		"custom_bad": {ClassName: class("com.example.Other"), Parameters: map[string]string{"a": "1"}},
	}
	extra := map[string][]string{"com.example.MyMemtable": {"size"}}
	for _, ok := range []string{"default", "trie", "trie8", "full", "from_def", "custom"} {
		require.NoError(t, CheckMemtableConfiguration(configs, extra, ok), ok)
	}
	for name, want := range map[string]string{
		"unknown":    `Memtable configuration "unknown" not found.`,
		"trie_bad":   "Memtable class org.apache.cassandra.db.memtable.TrieMemtable does not accept any futher parameters, but {flush=x} were given.",
		"orphan":     `Configuration definition inherits unknown nowhere. A configuration can only extend one defined earlier or "default".`,
		"no_class":   "The 'class_name' option must be specified.",
		"custom_bad": "Could not create memtable factory for class com.example.Other{a=1}",
	} {
		require.EqualError(t, CheckMemtableConfiguration(configs, extra, name), want, name)
	}
	// A cycle of inheritance is refused, not followed forever.
	loop := map[string]MemtableConfiguration{"a": {Inherits: "b"}, "b": {Inherits: "a"}}
	require.Error(t, CheckMemtableConfiguration(loop, nil, "a"))
}
