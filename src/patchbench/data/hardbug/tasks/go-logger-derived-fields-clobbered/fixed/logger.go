// Package kvlog is a small structured logger writing logfmt lines (see README.md).
package kvlog

import (
	"io"
	"sync"
	"time"
)

// Logger writes entries to an io.Writer. A Logger never changes once made: With and Named derive new
// ones, so a Logger can be shared between goroutines and derived from freely.
type Logger struct {
	out    *output
	fields []Field
	min    Level
	clock  func() time.Time
}

// output serialises writes from every logger derived from the same New.
type output struct {
	mu sync.Mutex
	w  io.Writer
}

// Option configures New.
type Option func(*Logger)

// WithClock makes the logger take entry times from now (tests use a fixed clock).
func WithClock(now func() time.Time) Option {
	return func(l *Logger) { l.clock = now }
}

// WithMinLevel drops entries below min.
func WithMinLevel(min Level) Option {
	return func(l *Logger) { l.min = min }
}

// New returns a logger writing to w, at LevelInfo and with the wall clock unless options say otherwise.
func New(w io.Writer, opts ...Option) *Logger {
	l := &Logger{out: &output{w: w}, min: LevelInfo, clock: time.Now}
	for _, opt := range opts {
		opt(l)
	}
	return l
}

// With returns a logger that adds the given key/value pairs to every entry, after the fields of l.
func (l *Logger) With(kv ...any) *Logger {
	child := *l
	child.fields = extend(l.fields, kv)
	return &child
}

// Named returns a logger whose entries carry component=name.
func (l *Logger) Named(name string) *Logger {
	return l.With("component", name)
}

// Level returns a logger like l that drops entries below min.
func (l *Logger) Level(min Level) *Logger {
	child := *l
	child.min = min
	return &child
}

// Enabled reports whether an entry at level would be written.
func (l *Logger) Enabled(level Level) bool { return level >= l.min }

// Fields returns a copy of the logger's own fields.
func (l *Logger) Fields() []Field {
	out := make([]Field, len(l.fields))
	copy(out, l.fields)
	return out
}

// Debug writes an entry at LevelDebug.
func (l *Logger) Debug(msg string, kv ...any) { l.log(LevelDebug, msg, kv) }

// Info writes an entry at LevelInfo.
func (l *Logger) Info(msg string, kv ...any) { l.log(LevelInfo, msg, kv) }

// Warn writes an entry at LevelWarn.
func (l *Logger) Warn(msg string, kv ...any) { l.log(LevelWarn, msg, kv) }

// Error writes an entry at LevelError.
func (l *Logger) Error(msg string, kv ...any) { l.log(LevelError, msg, kv) }

func (l *Logger) log(level Level, msg string, kv []any) {
	if !l.Enabled(level) {
		return
	}
	head := []Field{
		{Key: "time", Value: l.clock()},
		{Key: "level", Value: level.String()},
		{Key: "msg", Value: msg},
	}
	fields := extend(l.fields, kv)
	buf := make([]byte, 0, 256)
	for _, f := range head {
		buf = appendField(buf, f)
	}
	for _, f := range fields {
		buf = appendField(buf, f)
	}
	buf = append(buf[1:], '\n') // drop the leading space
	l.out.mu.Lock()
	defer l.out.mu.Unlock()
	_, _ = l.out.w.Write(buf)
}
