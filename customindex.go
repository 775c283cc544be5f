package minicass

import "github.com/minicass/minicass/engine"

// Custom index implementations an embedder writes in Go
// (Options.IndexClasses). The types are package engine's, which documents
// them.
type (
	// IndexClass makes the instances of one custom index class.
	IndexClass = engine.IndexClass
	// IndexOptionsValidator is an IndexClass that checks WITH OPTIONS.
	IndexOptionsValidator = engine.IndexOptionsValidator
	// CustomIndex is one custom index of a table.
	CustomIndex = engine.CustomIndex
	// IndexDropper is a CustomIndex told when it leaves the schema.
	IndexDropper = engine.IndexDropper
	// Indexer receives one partition update of the base table.
	Indexer = engine.Indexer
)
