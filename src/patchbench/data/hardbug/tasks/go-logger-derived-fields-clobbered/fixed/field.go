package kvlog

import "fmt"

// Field is one key/value pair of an entry.
type Field struct {
	Key   string
	Value any
}

// badKey is written as the key of a value that has no key (an odd number of key/value arguments).
const badKey = "!BADKEY"

// pairs turns a flat key/value list into fields. A non-string key is formatted with %v; a trailing
// key without a value becomes a !BADKEY field holding it.
func pairs(kv []any) []Field {
	if len(kv) == 0 {
		return nil
	}
	out := make([]Field, 0, (len(kv)+1)/2)
	for i := 0; i < len(kv); i += 2 {
		if i+1 == len(kv) {
			out = append(out, Field{Key: badKey, Value: kv[i]})
			break
		}
		key, ok := kv[i].(string)
		if !ok {
			key = fmt.Sprint(kv[i])
		}
		out = append(out, Field{Key: key, Value: kv[i+1]})
	}
	return out
}

// extend returns base followed by the fields of kv, in a new slice: base belongs to a logger that
// other loggers may share, so its spare capacity must never be written to.
func extend(base []Field, kv []any) []Field {
	extra := pairs(kv)
	if len(extra) == 0 {
		return base
	}
	out := make([]Field, 0, len(base)+len(extra))
	out = append(out, base...)
	return append(out, extra...)
}
