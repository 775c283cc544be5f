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
	// IndexInitializer is a CustomIndex with an initialization task.
	IndexInitializer = engine.IndexInitializer
	// IndexFailureLoad is a CustomIndex that names its load after a failed build.
	IndexFailureLoad = engine.IndexFailureLoad
	// IndexLoad is what an index whose build failed still serves.
	IndexLoad = engine.IndexLoad
	// IndexBlockingBuilder is a CustomIndex that says whether a rebuild covers it.
	IndexBlockingBuilder = engine.IndexBlockingBuilder
	// IndexExpressionSupporter is a CustomIndex that says which restrictions it serves.
	IndexExpressionSupporter = engine.IndexExpressionSupporter
	// IndexOperator is the operator of a restriction.
	IndexOperator = engine.IndexOperator
	// IndexExpressionType is a CustomIndex that takes custom index expressions.
	IndexExpressionType = engine.IndexExpressionType
	// IndexFlusher is a CustomIndex flushed with its table.
	IndexFlusher = engine.IndexFlusher
	// IndexTruncater is a CustomIndex told of TRUNCATE.
	IndexTruncater = engine.IndexTruncater
)
