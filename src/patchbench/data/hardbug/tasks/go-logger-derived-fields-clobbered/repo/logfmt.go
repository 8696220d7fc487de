package kvlog

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// appendField writes " key=value" in logfmt.
func appendField(b []byte, f Field) []byte {
	b = append(b, ' ')
	b = appendKey(b, f.Key)
	b = append(b, '=')
	return appendValue(b, f.Value)
}

// appendKey writes a key; characters that cannot appear in a logfmt key become '_'.
func appendKey(b []byte, key string) []byte {
	if key == "" {
		return append(b, '_')
	}
	for _, r := range key {
		if r <= ' ' || r == '=' || r == '"' || r == unicode.ReplacementChar {
			r = '_'
		}
		b = append(b, string(r)...)
	}
	return b
}

func appendValue(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case string:
		return appendString(b, v)
	case bool:
		return strconv.AppendBool(b, v)
	case int:
		return strconv.AppendInt(b, int64(v), 10)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case uint64:
		return strconv.AppendUint(b, v, 10)
	case float64:
		return strconv.AppendFloat(b, v, 'g', -1, 64)
	case time.Duration:
		return appendString(b, v.String())
	case time.Time:
		return appendString(b, v.UTC().Format(time.RFC3339Nano))
	case error:
		return appendString(b, v.Error())
	case fmt.Stringer:
		return appendString(b, v.String())
	}
	return appendString(b, fmt.Sprint(v))
}

func appendString(b []byte, s string) []byte {
	if needsQuotes(s) {
		return strconv.AppendQuote(b, s)
	}
	return append(b, s...)
}

func needsQuotes(s string) bool {
	if s == "" {
		return true
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return r <= ' ' || r == '=' || r == '"' || r == '\\' || r == unicode.ReplacementChar || !unicode.IsPrint(r)
	}) >= 0
}
