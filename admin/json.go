package admin

import (
	"encoding/hex"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"

	"github.com/minicass/minicass/cql"
	"github.com/minicass/minicass/server"
	"github.com/minicass/minicass/wire"
)

// Rule is the JSON form of a server.FaultRule. Names are lower case with
// underscores; every field may be left out.
//
//	{"query": "...", "prefix": "...", "pattern": "...",
//	 "requests": ["query", "execute", "batch", "prepare"],
//	 "kinds": ["read", "range", "write", "batch", "counter_write", "cas", "truncate", "other"],
//	 "consistencies": ["LOCAL_QUORUM"],
//	 "error": {"code": "write_timeout", "message": "...", "consistency": "QUORUM", "received": 1,
//	           "block_for": 2, "num_failures": 1, "data_present": true, "write_type": "SIMPLE",
//	           "required": 3, "alive": 1, "keyspace": "ks", "table": "t", "function": "f", "arg_types": ["int"]},
//	 "delay_ms": 500, "action": "answer" | "no_answer" | "close", "times": 1}
//
// An error code is one of the names of errorCodes or a number.
type Rule struct {
	Query         string     `json:"query,omitempty"`
	Prefix        string     `json:"prefix,omitempty"`
	Pattern       string     `json:"pattern,omitempty"`
	Requests      []string   `json:"requests,omitempty"`
	Kinds         []string   `json:"kinds,omitempty"`
	Consistencies []string   `json:"consistencies,omitempty"`
	Error         *ErrorBody `json:"error,omitempty"`
	DelayMS       float64    `json:"delay_ms,omitempty"`
	Action        string     `json:"action,omitempty"`
	Times         int        `json:"times,omitempty"`
}

// ErrorBody is the JSON form of an ERROR response (server.Error).
type ErrorBody struct {
	Code        any      `json:"code"`
	Message     string   `json:"message,omitempty"`
	Consistency string   `json:"consistency,omitempty"`
	Required    int32    `json:"required,omitempty"`
	Alive       int32    `json:"alive,omitempty"`
	Received    int32    `json:"received,omitempty"`
	BlockFor    int32    `json:"block_for,omitempty"`
	NumFailures int32    `json:"num_failures,omitempty"`
	DataPresent bool     `json:"data_present,omitempty"`
	WriteType   string   `json:"write_type,omitempty"`
	Keyspace    string   `json:"keyspace,omitempty"`
	Table       string   `json:"table,omitempty"`
	Function    string   `json:"function,omitempty"`
	ArgTypes    []string `json:"arg_types,omitempty"`
}

// errorCodes names the protocol's error codes for ErrorBody.Code.
var errorCodes = map[string]wire.ErrorCode{
	"server_error":      wire.CodeServer,
	"protocol_error":    wire.CodeProtocol,
	"bad_credentials":   wire.CodeBadCredentials,
	"unavailable":       wire.CodeUnavailable,
	"overloaded":        wire.CodeOverloaded,
	"is_bootstrapping":  wire.CodeIsBootstrapping,
	"truncate_error":    wire.CodeTruncate,
	"write_timeout":     wire.CodeWriteTimeout,
	"read_timeout":      wire.CodeReadTimeout,
	"read_failure":      wire.CodeReadFailure,
	"function_failure":  wire.CodeFunctionFailure,
	"write_failure":     wire.CodeWriteFailure,
	"cas_write_unknown": wire.CodeCASWriteUnknown,
	"syntax_error":      wire.CodeSyntax,
	"unauthorized":      wire.CodeUnauthorized,
	"invalid":           wire.CodeInvalid,
	"config_error":      wire.CodeConfig,
	"already_exists":    wire.CodeAlreadyExists,
}

var requestNames = map[string]server.FaultRequests{
	"query": server.FaultQuery, "execute": server.FaultExecute, "batch": server.FaultBatch, "prepare": server.FaultPrepare,
}

var kindNames = map[string]server.RequestKind{
	"other": server.KindOther, "read": server.KindRead, "range": server.KindRange, "write": server.KindWrite,
	"batch": server.KindBatch, "counter_write": server.KindCounterWrite, "cas": server.KindCAS, "truncate": server.KindTruncate,
}

var actionNames = map[string]server.FaultAction{
	"": server.FaultAnswer, "answer": server.FaultAnswer, "no_answer": server.FaultNoAnswer, "close": server.FaultClose,
}

func parseConsistency(s string) (wire.Consistency, error) {
	for c := wire.Any; c.Valid(); c++ {
		if strings.EqualFold(c.String(), s) {
			return c, nil
		}
	}
	return 0, fmt.Errorf("unknown consistency %q", s)
}

func nameOf[T comparable](m map[string]T, v T) string {
	for k, x := range m {
		if x == v && k != "" {
			return k
		}
	}
	return fmt.Sprint(v)
}

// serverRule converts r, reporting unknown names.
func (r *Rule) serverRule() (server.FaultRule, error) {
	out := server.FaultRule{Query: r.Query, Prefix: r.Prefix, Pattern: r.Pattern, Times: r.Times,
		Delay: time.Duration(r.DelayMS * float64(time.Millisecond))}
	for _, n := range r.Requests {
		q, ok := requestNames[strings.ToLower(n)]
		if !ok {
			return out, fmt.Errorf("unknown request %q (query, execute, batch, prepare)", n)
		}
		out.Requests |= q
	}
	for _, n := range r.Kinds {
		k, ok := kindNames[strings.ToLower(n)]
		if !ok {
			return out, fmt.Errorf("unknown kind %q", n)
		}
		out.Kinds = append(out.Kinds, k)
	}
	for _, n := range r.Consistencies {
		c, err := parseConsistency(n)
		if err != nil {
			return out, err
		}
		out.Consistencies = append(out.Consistencies, c)
	}
	a, ok := actionNames[strings.ToLower(r.Action)]
	if !ok {
		return out, fmt.Errorf("unknown action %q (answer, no_answer, close)", r.Action)
	}
	out.Action = a
	if b := r.Error; b != nil {
		e := &server.Error{Message: b.Message, Required: b.Required, Alive: b.Alive, Received: b.Received,
			BlockFor: b.BlockFor, NumFailures: b.NumFailures, DataPresent: b.DataPresent, WriteType: b.WriteType,
			Keyspace: b.Keyspace, Table: b.Table, Function: b.Function, ArgTypes: b.ArgTypes}
		switch c := b.Code.(type) {
		case string:
			code, ok := errorCodes[strings.ToLower(c)]
			if !ok {
				return out, fmt.Errorf("unknown error code %q", c)
			}
			e.Code = code
		case float64:
			if c < 0 || c > 0xffff || c != float64(int(c)) {
				return out, fmt.Errorf("error code %v out of range", c)
			}
			e.Code = wire.ErrorCode(c)
		default:
			return out, fmt.Errorf("error code: want a name or a number, got %v", b.Code)
		}
		if b.Consistency != "" {
			c, err := parseConsistency(b.Consistency)
			if err != nil {
				return out, err
			}
			e.Consistency = c
		}
		out.Error = e
	}
	return out, nil
}

// ruleJSON is the JSON form of an installed rule.
func ruleJSON(r server.FaultRule) Rule {
	out := Rule{Query: r.Query, Prefix: r.Prefix, Pattern: r.Pattern, Times: r.Times,
		DelayMS: float64(r.Delay) / float64(time.Millisecond), Action: r.Action.String()}
	for n, q := range requestNames {
		if r.Requests&q != 0 {
			out.Requests = append(out.Requests, n)
		}
	}
	sortStrings(out.Requests)
	for _, k := range r.Kinds {
		out.Kinds = append(out.Kinds, nameOf(kindNames, k))
	}
	for _, c := range r.Consistencies {
		out.Consistencies = append(out.Consistencies, c.String())
	}
	if e := r.Error; e != nil {
		out.Error = &ErrorBody{Code: nameOf(errorCodes, e.Code), Message: e.Message, Required: e.Required, Alive: e.Alive,
			Received: e.Received, BlockFor: e.BlockFor, NumFailures: e.NumFailures, DataPresent: e.DataPresent,
			WriteType: e.WriteType, Keyspace: e.Keyspace, Table: e.Table, Function: e.Function, ArgTypes: e.ArgTypes}
		if e.Code != wire.CodeServer && e.Code != wire.CodeOverloaded && e.Code != wire.CodeIsBootstrapping &&
			e.Code != wire.CodeFunctionFailure && e.Code != wire.CodeAlreadyExists {
			out.Error.Consistency = e.Consistency.String()
		}
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

// Entry is the JSON form of a query log entry (cql.LogEntry).
type Entry struct {
	Seq               uint64     `json:"seq"`
	Time              string     `json:"time"`
	Source            string     `json:"source"`
	User              string     `json:"user,omitempty"`
	Keyspace          string     `json:"keyspace,omitempty"`
	Query             string     `json:"query"`
	Kind              string     `json:"kind"`
	Prepared          bool       `json:"prepared"`
	Values            []any      `json:"values,omitempty"`
	Consistency       string     `json:"consistency"`
	SerialConsistency string     `json:"serial_consistency,omitempty"`
	PageSize          int        `json:"page_size,omitempty"`
	PagingState       string     `json:"paging_state,omitempty"`
	Timestamp         *int64     `json:"timestamp,omitempty"`
	Warnings          []string   `json:"warnings,omitempty"`
	Error             *ErrorBody `json:"error,omitempty"`
}

func entryJSON(e *cql.LogEntry) Entry {
	out := Entry{Seq: e.Seq, Time: e.Time.UTC().Format(time.RFC3339Nano), Source: e.Source, User: e.User,
		Keyspace: e.Keyspace, Query: e.Query, Kind: e.Kind(), Prepared: e.Prepared, Consistency: e.Consistency.String(),
		PageSize: e.PageSize, Warnings: e.Warnings}
	if e.SerialConsistency != 0 {
		out.SerialConsistency = e.SerialConsistency.String()
	}
	if e.PagingState != nil {
		out.PagingState = hex.EncodeToString(e.PagingState)
	}
	if e.HasTimestamp {
		ts := e.Timestamp
		out.Timestamp = &ts
	}
	for _, v := range e.DecodedValues() {
		out.Values = append(out.Values, jsonValue(v))
	}
	if e.Err != nil {
		out.Error = &ErrorBody{Code: nameOf(errorCodes, e.Err.Code), Message: e.Err.Message}
	}
	return out
}

// jsonValue renders a decoded bind value as JSON can carry it: numbers,
// strings, booleans and null as themselves, collections element by
// element, anything else (UUIDs, addresses, times, big numbers, blobs) as
// its text.
func jsonValue(v any) any {
	switch v := v.(type) {
	case nil, bool, string, int8, int16, int32, int64, int, float32, float64:
		return v
	case cql.Unset:
		return map[string]bool{"unset": true}
	case []byte:
		return "0x" + hex.EncodeToString(v)
	case time.Time:
		return v.UTC().Format(time.RFC3339Nano)
	case net.IP:
		return v.String()
	case *big.Int:
		return v.String()
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonValue(x)
		}
		return out
	}
	return fmt.Sprint(v)
}
