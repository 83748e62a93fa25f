// Package schema holds the JSON Schema of gdtopo's JSON output
// (gdtopo.schema.json), for tests and tools that validate it.
package schema

import _ "embed"

// JSON is gdtopo.schema.json: every document gdtopo writes with -o json or
// -o jsonl, one definition each under $defs (check, result, matrix, tree,
// path, comparison).
//
//go:embed gdtopo.schema.json
var JSON []byte
