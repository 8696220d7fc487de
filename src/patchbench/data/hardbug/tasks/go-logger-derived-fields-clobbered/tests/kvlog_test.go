package tests

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"example.com/kvlog"
)

var fixed = time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)

func clock() time.Time { return fixed }

// newLogger returns a logger writing to a buffer with a fixed clock.
func newLogger() (*kvlog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return kvlog.New(&buf, kvlog.WithClock(clock)), &buf
}

// lastLine returns the last line written to buf, without its newline.
func lastLine(t *testing.T, buf *bytes.Buffer) string {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	return lines[len(lines)-1]
}

// chain derives depth loggers from root, one field at a time, the way request handling layers do.
func chain(root *kvlog.Logger, depth int) (*kvlog.Logger, string) {
	l := root
	var want []string
	for i := 0; i < depth; i++ {
		l = l.With(fmt.Sprintf("k%d", i), i)
		want = append(want, fmt.Sprintf("k%d=%d", i, i))
	}
	return l, strings.Join(want, " ")
}

func TestSiblingLoggersKeepTheirOwnFields(t *testing.T) {
	for depth := 0; depth <= 8; depth++ {
		root, buf := newLogger()
		parent, fields := chain(root, depth)
		alice := parent.With("user", "alice")
		bob := parent.With("user", "bob")
		alice.Info("login")
		want := strings.TrimSpace(`time=2026-11-30T09:00:00Z level=info msg=login ` + fields + ` user=alice`)
		if got := lastLine(t, buf); got != strings.Replace(want, "  ", " ", 1) {
			t.Errorf("depth %d: alice logged\n  %s\nwant\n  %s", depth, got, want)
		}
		bob.Info("login")
		if got := lastLine(t, buf); !strings.HasSuffix(got, " user=bob") {
			t.Errorf("depth %d: bob logged %s", depth, got)
		}
	}
}

func TestEntryFieldsOfAParentDoNotLeakIntoItsChildren(t *testing.T) {
	for depth := 0; depth <= 8; depth++ {
		root, buf := newLogger()
		parent, _ := chain(root, depth)
		child := parent.With("user", "alice")
		parent.Info("request done", "status", 200, "bytes", 512)
		child.Info("audit")
		got := lastLine(t, buf)
		if !strings.HasSuffix(got, " user=alice") || strings.Contains(got, "status=") {
			t.Errorf("depth %d: child logged %s after its parent logged an entry with its own fields", depth, got)
		}
	}
}

func TestNamedSiblingsKeepTheirComponent(t *testing.T) {
	for depth := 0; depth <= 8; depth++ {
		root, buf := newLogger()
		parent, _ := chain(root, depth)
		db := parent.Named("db")
		cache := parent.Named("cache")
		db.Warn("slow query", "took", 1500*time.Millisecond)
		got := lastLine(t, buf)
		if !strings.HasSuffix(got, " component=db took=1.5s") {
			t.Errorf("depth %d: db logged %s", depth, got)
		}
		cache.Warn("miss")
		if got := lastLine(t, buf); !strings.HasSuffix(got, " component=cache") {
			t.Errorf("depth %d: cache logged %s", depth, got)
		}
	}
}

// Request handlers derive from one shared logger at the same time: the test binary runs with the race
// detector, so a parent written to while another goroutine derives from it fails here however the two
// happen to interleave.
func TestLoggersDerivedAtOnceFromOneParent(t *testing.T) {
	users := []string{"alice", "bob", "carol", "dave"}
	for depth := 0; depth <= 8; depth++ {
		root, buf := newLogger()
		parent, _ := chain(root, depth)
		children := make([]*kvlog.Logger, len(users))
		var wg sync.WaitGroup
		for i, user := range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				children[i] = parent.With("user", user)
			}()
		}
		wg.Wait()
		for i, child := range children {
			child.Info("login")
			if got := lastLine(t, buf); !strings.HasSuffix(got, " user="+users[i]) {
				t.Errorf("depth %d: the logger derived for %s logged %s", depth, users[i], got)
			}
		}
	}
}

func TestWithLeavesTheParentUnchanged(t *testing.T) {
	root, buf := newLogger()
	parent := root.With("service", "payments")
	_ = parent.With("user", "alice", "role", "admin")
	parent.Info("started")
	want := "time=2026-11-30T09:00:00Z level=info msg=started service=payments"
	if got := lastLine(t, buf); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	if n := len(parent.Fields()); n != 1 {
		t.Fatalf("parent has %d fields, want 1", n)
	}
}

func TestFieldOrderIsLoggerThenEntry(t *testing.T) {
	root, buf := newLogger()
	l := root.With("a", 1, "b", 2).With("c", 3)
	l.Error("boom", "err", errors.New("disk full"), "retry", false)
	want := `time=2026-11-30T09:00:00Z level=error msg=boom a=1 b=2 c=3 err="disk full" retry=false`
	if got := lastLine(t, buf); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestLogfmtQuoting(t *testing.T) {
	cases := []struct {
		name  string
		value any
		want  string
	}{
		{"plain word", "ok", "v=ok"},
		{"with space", "two words", `v="two words"`},
		{"with equals", "a=b", `v="a=b"`},
		{"with quote", `say "hi"`, `v="say \"hi\""`},
		{"empty string", "", `v=""`},
		{"newline", "a\nb", `v="a\nb"`},
		{"nil value", nil, "v=null"},
		{"float", 0.25, "v=0.25"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, buf := newLogger()
			root.Info("m", "v", c.value)
			if got := lastLine(t, buf); !strings.HasSuffix(got, " "+c.want) {
				t.Errorf("got %s, want it to end with %s", got, c.want)
			}
		})
	}
}

func TestOddArgumentsAndOddKeys(t *testing.T) {
	root, buf := newLogger()
	root.With("user id", "u1").Info("m", 42, "answer", "dangling")
	want := "time=2026-11-30T09:00:00Z level=info msg=m user_id=u1 42=answer !BADKEY=dangling"
	if got := lastLine(t, buf); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestLevels(t *testing.T) {
	var buf bytes.Buffer
	l := kvlog.New(&buf, kvlog.WithClock(clock), kvlog.WithMinLevel(kvlog.LevelWarn))
	l.Info("dropped")
	l.Debug("dropped")
	l.Warn("kept")
	if got := strings.Count(buf.String(), "\n"); got != 1 {
		t.Fatalf("%d entries written, want 1:\n%s", got, buf.String())
	}
	verbose := l.Level(kvlog.LevelDebug)
	verbose.Debug("now kept")
	if !strings.Contains(buf.String(), "level=debug msg=\"now kept\"") {
		t.Fatalf("debug entry missing:\n%s", buf.String())
	}
	if l.Enabled(kvlog.LevelInfo) || !verbose.Enabled(kvlog.LevelInfo) {
		t.Fatal("Level must not change the logger it is called on")
	}
}

func TestParseLevel(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want kvlog.Level
		ok   bool
	}{
		{"lower case", "debug", kvlog.LevelDebug, true},
		{"upper case", "WARN", kvlog.LevelWarn, true},
		{"alias", " warning ", kvlog.LevelWarn, true},
		{"empty means info", "", kvlog.LevelInfo, true},
		{"unknown", "verbose", kvlog.LevelInfo, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := kvlog.ParseLevel(c.in)
			if (err == nil) != c.ok || got != c.want {
				t.Errorf("ParseLevel(%q) = %v, %v", c.in, got, err)
			}
		})
	}
}
