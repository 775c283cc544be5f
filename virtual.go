package minicass

import "github.com/minicass/minicass/cql/virtual"

// Virtual tables an embedder implements in Go (Options.VirtualKeyspaces).
// The types are package cql/virtual's, which documents them.
type (
	// VirtualKeyspace is a virtual keyspace and its tables.
	VirtualKeyspace = virtual.UserKeyspace
	// VirtualTable is a table implemented in Go: its definition and its
	// rows. It is read-only unless it also implements some of
	// VirtualPartitionDeleter, VirtualRangeDeleter, VirtualRowDeleter,
	// VirtualColumnDeleter, VirtualColumnUpdater and VirtualTruncater.
	VirtualTable = virtual.UserTable
	// VirtualTableDef defines a virtual table's name and columns.
	VirtualTableDef = virtual.TableDef
	// VirtualColumnDef is one column of a virtual table: name and CQL type.
	VirtualColumnDef = virtual.ColumnDef
	// VirtualRow is one row of a virtual table, its Go values by column.
	VirtualRow = virtual.Row
	// VirtualPartitionDeleter deletes a partition of a virtual table.
	VirtualPartitionDeleter = virtual.PartitionDeleter
	// VirtualRangeDeleter deletes a clustering range of a partition.
	VirtualRangeDeleter = virtual.RangeDeleter
	// VirtualRowDeleter deletes one row.
	VirtualRowDeleter = virtual.RowDeleter
	// VirtualColumnDeleter sets one column of a row to null.
	VirtualColumnDeleter = virtual.ColumnDeleter
	// VirtualColumnUpdater sets one column of a row.
	VirtualColumnUpdater = virtual.ColumnUpdater
	// VirtualTruncater removes every row of a virtual table.
	VirtualTruncater = virtual.Truncater
	// VirtualColumnValue is a column's new value (VirtualColumnUpdater).
	VirtualColumnValue = virtual.ColumnValue
	// VirtualClusteringRange is a range of clustering keys
	// (VirtualRangeDeleter).
	VirtualClusteringRange = virtual.ClusteringRange
)
