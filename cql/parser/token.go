package parser

import "github.com/minicass/minicass/cql/lexer"

// tokenKind is the lexical class of a token: the lexer's kinds, under the
// short names the parser uses.
type tokenKind = lexer.Kind

// The token kinds.
const (
	tEOF         = lexer.EOF
	tIdent       = lexer.Ident
	tQuotedIdent = lexer.QuotedName
	tString      = lexer.String
	tInteger     = lexer.Integer
	tFloat       = lexer.Float
	tBoolean     = lexer.Boolean
	tUUID        = lexer.UUID
	tHex         = lexer.Hex
	tDuration    = lexer.Duration
	tQMark       = lexer.QMark
	tLParen      = lexer.LParen
	tRParen      = lexer.RParen
	tLBracket    = lexer.LBracket
	tRBracket    = lexer.RBracket
	tLBrace      = lexer.LBrace
	tRBrace      = lexer.RBrace
	tComma       = lexer.Comma
	tSemicolon   = lexer.Semicolon
	tDot         = lexer.Dot
	tColon       = lexer.Colon
	tEq          = lexer.Eq
	tLt          = lexer.Lt
	tGt          = lexer.Gt
	tLte         = lexer.Lte
	tGte         = lexer.Gte
	tNeq         = lexer.Neq
	tPlus        = lexer.Plus
	tMinus       = lexer.Minus
	tStar        = lexer.Star
	tSlash       = lexer.Slash
	tPercent     = lexer.Percent
	tPlusEq      = lexer.PlusEq
	tMinusEq     = lexer.MinusEq
)

// keyword identifies a CQL keyword. Keywords are lexed as identifiers and
// classified by a case-insensitive lookup; kwNone marks a plain identifier.
type keyword uint8

const (
	kwNone keyword = iota
	// Reserved keywords (Cassandra 4.x reserved_keywords.txt).
	kwAdd
	kwAllow
	kwAlter
	kwAnd
	kwApply
	kwAsc
	kwAuthorize
	kwBatch
	kwBegin
	kwBy
	kwColumnfamily
	kwCreate
	kwDelete
	kwDesc
	kwDescribe
	kwDrop
	kwEntries
	kwExecute
	kwFrom
	kwFull
	kwGrant
	kwIf
	kwIn
	kwIndex
	kwInfinity
	kwInsert
	kwInto
	kwIs
	kwKeyspace
	kwLimit
	kwMaterialized
	kwModify
	kwNan
	kwNorecursive
	kwNot
	kwNull
	kwOf
	kwOn
	kwOr
	kwOrder
	kwPrimary
	kwRename
	kwRevoke
	kwSchema
	kwSelect
	kwSet
	kwTable
	kwTo
	kwToken
	kwTruncate
	kwUnlogged
	kwUpdate
	kwUse
	kwUsing
	kwView
	kwWhere
	kwWith
	kwLastReserved // marker: keywords above are reserved

	// Unreserved keywords the grammar refers to; they remain valid identifiers.
	kwAggregate
	kwCalled
	kwFinalfunc
	kwFunction
	kwInitcond
	kwInput
	kwLanguage
	kwReplace
	kwReturns
	kwSfunc
	kwStype
	kwTrigger
	kwAccess
	kwAll
	kwDatacenters
	kwHashed
	kwLogin
	kwMbean
	kwMbeans
	kwNosuperuser
	kwPassword
	kwPermission
	kwPermissions
	kwRole
	kwRoles
	kwSuperuser
	kwUser
	kwUsers
	kwAggregates
	kwAs
	kwCast
	kwCluster
	kwClustering
	kwCompact
	kwContains
	kwCount
	kwCustom
	kwDefault
	kwDistinct
	kwExists
	kwFiltering
	kwFrozen
	kwFunctions
	kwGroup
	kwInternals
	kwJSON
	kwKey
	kwKeys
	kwKeyspaces
	kwLike
	kwList
	kwMap
	kwOnly
	kwOptions
	kwPartition
	kwPer
	kwStatic
	kwStorage
	kwTables
	kwTTL
	kwTuple
	kwType
	kwTypes
	kwUnset
	kwValues
	kwWritetime
	// Native type names (unreserved).
	kwAscii
	kwBigint
	kwBlob
	kwBoolean
	kwCounter
	kwDate
	kwDecimal
	kwDouble
	kwDuration
	kwFloat
	kwInet
	kwInt
	kwSmallint
	kwText
	kwTime
	kwTimestamp
	kwTimeuuid
	kwTinyint
	kwUUID
	kwVarchar
	kwVarint
)

// keywords maps lower-case keyword text to its keyword.
var keywords = map[string]keyword{
	"add": kwAdd, "allow": kwAllow, "alter": kwAlter, "and": kwAnd, "apply": kwApply,
	"asc": kwAsc, "authorize": kwAuthorize, "batch": kwBatch, "begin": kwBegin, "by": kwBy,
	"columnfamily": kwColumnfamily, "create": kwCreate, "delete": kwDelete, "desc": kwDesc,
	"describe": kwDescribe, "drop": kwDrop, "entries": kwEntries, "execute": kwExecute,
	"from": kwFrom, "full": kwFull, "grant": kwGrant, "if": kwIf, "in": kwIn, "index": kwIndex,
	"infinity": kwInfinity, "insert": kwInsert, "into": kwInto, "is": kwIs, "keyspace": kwKeyspace,
	"limit": kwLimit, "materialized": kwMaterialized, "modify": kwModify, "nan": kwNan,
	"norecursive": kwNorecursive, "not": kwNot, "null": kwNull, "of": kwOf, "on": kwOn, "or": kwOr,
	"order": kwOrder, "primary": kwPrimary, "rename": kwRename, "revoke": kwRevoke,
	"schema": kwSchema, "select": kwSelect, "set": kwSet, "table": kwTable, "to": kwTo,
	"token": kwToken, "truncate": kwTruncate, "unlogged": kwUnlogged, "update": kwUpdate,
	"use": kwUse, "using": kwUsing, "view": kwView, "where": kwWhere, "with": kwWith,

	"aggregate": kwAggregate, "called": kwCalled, "finalfunc": kwFinalfunc, "function": kwFunction,
	"initcond": kwInitcond, "input": kwInput, "language": kwLanguage, "replace": kwReplace, "returns": kwReturns,
	"sfunc": kwSfunc, "stype": kwStype, "trigger": kwTrigger,
	"access": kwAccess, "all": kwAll, "datacenters": kwDatacenters, "hashed": kwHashed, "login": kwLogin,
	"mbean": kwMbean, "mbeans": kwMbeans, "nosuperuser": kwNosuperuser, "password": kwPassword,
	"permission": kwPermission, "permissions": kwPermissions, "role": kwRole, "roles": kwRoles,
	"superuser": kwSuperuser, "user": kwUser, "users": kwUsers,
	"aggregates": kwAggregates, "as": kwAs, "cast": kwCast, "cluster": kwCluster,
	"clustering": kwClustering, "compact": kwCompact, "contains": kwContains, "count": kwCount, "custom": kwCustom,
	"default": kwDefault, "distinct": kwDistinct, "exists": kwExists, "filtering": kwFiltering,
	"frozen": kwFrozen, "functions": kwFunctions, "group": kwGroup, "internals": kwInternals,
	"json": kwJSON, "key": kwKey, "keys": kwKeys, "keyspaces": kwKeyspaces, "like": kwLike, "list": kwList,
	"map": kwMap, "only": kwOnly, "options": kwOptions, "partition": kwPartition, "per": kwPer, "static": kwStatic,
	"storage": kwStorage, "tables": kwTables, "ttl": kwTTL, "tuple": kwTuple, "type": kwType,
	"types": kwTypes, "unset": kwUnset, "values": kwValues, "writetime": kwWritetime,

	"ascii": kwAscii, "bigint": kwBigint, "blob": kwBlob, "boolean": kwBoolean,
	"counter": kwCounter, "date": kwDate, "decimal": kwDecimal, "double": kwDouble,
	"duration": kwDuration, "float": kwFloat, "inet": kwInet, "int": kwInt,
	"smallint": kwSmallint, "text": kwText, "time": kwTime, "timestamp": kwTimestamp,
	"timeuuid": kwTimeuuid, "tinyint": kwTinyint, "uuid": kwUUID, "varchar": kwVarchar,
	"varint": kwVarint,
}

// reserved reports whether k may not be used as an unquoted identifier.
func (k keyword) reserved() bool { return k != kwNone && k < kwLastReserved }

// IsReservedKeyword reports whether word (case-insensitive) is one of
// Cassandra 4.x's reserved keywords, which must be double-quoted to be used
// as identifiers. The boolean literals true and false also count, since the
// lexer never returns them as identifiers.
func IsReservedKeyword(word string) bool {
	var buf [16]byte
	if len(word) > len(buf) {
		return false
	}
	for i := 0; i < len(word); i++ {
		c := word[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	w := buf[:len(word)]
	if string(w) == "true" || string(w) == "false" {
		return true
	}
	return keywords[string(w)].reserved()
}

// token is one lexical token. Text is the exact source text; Val is the
// decoded value for strings and identifiers (unquoted identifiers
// lower-cased, quotes and escapes removed).
type token struct {
	kind tokenKind
	kw   keyword
	text string
	val  string
	pos  int // byte offset in the input
	line int // 1-based
	col  int // 0-based, in characters
}
