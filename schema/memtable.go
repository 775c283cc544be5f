package schema

import (
	"maps"
	"slices"
	"strings"
)

// Memtable configurations are cassandra.yaml's memtable.configurations of
// Cassandra 4.1: named memtable implementations a table selects with its
// option memtable = 'name'. minicass has one memtable, so a configuration
// selects nothing; it is checked as 4.1's MemtableParams checks it when a
// table first names it, with 4.1's texts, and the name is kept in the
// table's options (system_schema.tables.memtable, DESCRIBE).

// DefaultMemtableConfiguration is the configuration every node defines,
// which a table without the option uses (MemtableParams.DEFAULT).
const DefaultMemtableConfiguration = "default"

// MemtablePackage is the package a memtable class name without a dot is
// taken from (MemtableParams.getMemtableFactory).
const MemtablePackage = "org.apache.cassandra.db.memtable."

// MemtableConfiguration is one entry of memtable.configurations: 4.1's
// InheritingClass, a class name and parameters, either of which an entry
// that inherits another may leave to it.
type MemtableConfiguration struct {
	// Inherits names the configuration (defined in the same map, or
	// "default") whose class and parameters this one starts from.
	Inherits string
	// ClassName is the memtable class, a full Java class name or a name in
	// org.apache.cassandra.db.memtable; nil leaves it to Inherits.
	ClassName *string
	// Parameters are the class's parameters; nil leaves them to Inherits,
	// and inherited ones are overridden key by key.
	Parameters map[string]string
}

// MemtableClasses are the memtable classes a configuration may name, each
// with the parameters it takes: Cassandra 4.1's SkipListMemtable (none),
// ShardedSkipListMemtable (serialize_writes, shards) and TrieMemtable
// (shards). They all run minicass's memtable.
var MemtableClasses = map[string][]string{
	MemtablePackage + "SkipListMemtable":        nil,
	MemtablePackage + "ShardedSkipListMemtable": {"serialize_writes", "shards"},
	MemtablePackage + "TrieMemtable":            {"shards"},
}

// defaultMemtableClass is the class of the built-in "default"
// configuration (MemtableParams.DEFAULT_CONFIGURATION).
const defaultMemtableClass = "SkipListMemtable"

// MemtableConfigError is a memtable configuration that cannot be used, with
// Cassandra 4.1's ConfigurationException text.
type MemtableConfigError struct{ Message string }

func (e *MemtableConfigError) Error() string { return e.Message }

// CheckMemtableConfiguration checks that name is a usable configuration of
// configs, as MemtableParams.get does the first time a table names it:
// the configuration is defined (or is "default"), its class (after
// inheritance) is given and is one of MemtableClasses or extra (classes a
// deployment adds, each with the parameters it takes), and the class takes
// every parameter given.
func CheckMemtableConfiguration(configs map[string]MemtableConfiguration, extra map[string][]string, name string) error {
	if name == DefaultMemtableConfiguration {
		if _, ok := configs[name]; !ok {
			return nil
		}
	}
	if _, ok := configs[name]; !ok {
		return &MemtableConfigError{Message: "Memtable configuration \"" + name + "\" not found."}
	}
	class, params, err := resolveMemtable(configs, name, map[string]bool{})
	if err != nil {
		return err
	}
	if class == nil || *class == "" {
		return &MemtableConfigError{Message: "The 'class_name' option must be specified."}
	}
	full := *class
	if !strings.Contains(full, ".") {
		full = MemtablePackage + full
	}
	accepts, ok := MemtableClasses[full]
	if !ok {
		accepts, ok = extra[full]
	}
	if !ok {
		// ParameterizedClass.toString: the class as given, then the
		// parameters when there are any.
		text := *class
		if params != nil {
			text += javaMap(params)
		}
		return &MemtableConfigError{Message: "Could not create memtable factory for class " + text}
	}
	rest := map[string]string{}
	for k, v := range params {
		rest[k] = v
	}
	for _, k := range accepts {
		delete(rest, k)
	}
	if len(rest) > 0 {
		return &MemtableConfigError{Message: "Memtable class " + full + " does not accept any futher parameters, but " + javaMap(rest) + " were given."}
	}
	return nil
}

// resolveMemtable is InheritingClass.resolve: the class and parameters of
// configuration name after its inheritance.
func resolveMemtable(configs map[string]MemtableConfiguration, name string, seen map[string]bool) (*string, map[string]string, error) {
	c, ok := configs[name]
	if !ok {
		if name == DefaultMemtableConfiguration {
			class := defaultMemtableClass
			return &class, nil, nil
		}
		return nil, nil, &MemtableConfigError{Message: "Configuration definition inherits unknown " + name + ". A configuration can only extend one defined earlier or \"default\"."}
	}
	if c.Inherits == "" {
		return c.ClassName, c.Parameters, nil
	}
	if seen[name] {
		return nil, nil, &MemtableConfigError{Message: "Configuration definition inherits unknown " + c.Inherits + ". A configuration can only extend one defined earlier or \"default\"."}
	}
	seen[name] = true
	class, params, err := resolveMemtable(configs, c.Inherits, seen)
	if err != nil {
		return nil, nil, err
	}
	if c.ClassName != nil {
		class = c.ClassName
	}
	switch {
	case len(c.Parameters) == 0:
	case len(params) == 0:
		params = c.Parameters
	default:
		merged := map[string]string{}
		for k, v := range params {
			merged[k] = v
		}
		for k, v := range c.Parameters {
			merged[k] = v
		}
		params = merged
	}
	return class, params, nil
}

// javaMap prints m as Java's Map.toString does ({k=v, k2=v2}), the keys in
// order (a HashMap's order is its hashing's; with one key, as in 4.1's
// tests, the texts agree).
func javaMap(m map[string]string) string {
	entries := make([]string, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		entries = append(entries, k+"="+m[k])
	}
	return "{" + strings.Join(entries, ", ") + "}"
}
