package sqlkg

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/grove-kg/grove/store"
)

// fakeDB is a database/sql connector whose every query yields rows (one
// []driver.Value a row) and then end, or fails with queryErr; cancel, when
// set, is called as the last row is read.
type fakeDB struct {
	rows     [][]driver.Value
	queryErr error
	end      error // what Next returns after the rows (nil: io.EOF)
	cancel   func()
	closed   int // rows closed
	queries  int // rows opened
}

func (f *fakeDB) Connect(context.Context) (driver.Conn, error) { return fakeConn{f}, nil }
func (f *fakeDB) Driver() driver.Driver                        { return fakeDriver{} }

type fakeDriver struct{}

func (fakeDriver) Open(string) (driver.Conn, error) { return nil, errors.New("fake: no DSN") }

type fakeConn struct{ f *fakeDB }

func (fakeConn) Prepare(string) (driver.Stmt, error) { return nil, errors.New("fake: no Prepare") }
func (fakeConn) Close() error                        { return nil }
func (fakeConn) Begin() (driver.Tx, error)           { return nil, errors.New("fake: no Begin") }

func (c fakeConn) QueryContext(context.Context, string, []driver.NamedValue) (driver.Rows, error) {
	if c.f.queryErr != nil {
		return nil, c.f.queryErr
	}
	c.f.queries++
	return &fakeRows{f: c.f}, nil
}

type fakeRows struct {
	f *fakeDB
	i int
}

func (r *fakeRows) Columns() []string {
	if len(r.f.rows) == 0 {
		return []string{"a"}
	}
	return make([]string, len(r.f.rows[0]))
}

func (r *fakeRows) Close() error { r.f.closed++; return nil }

func (r *fakeRows) Next(dest []driver.Value) error {
	if r.i == len(r.f.rows) {
		if r.f.end != nil {
			return r.f.end
		}
		return io.EOF
	}
	copy(dest, r.f.rows[r.i])
	r.i++
	if r.i == len(r.f.rows) && r.f.cancel != nil {
		r.f.cancel()
	}
	return nil
}

// TestQueryAll checks queryAll's contract on a fake driver: rows in order,
// nil for none, every error (query, Scan, rows.Err, a cancelled context, a
// closed KG) wrapped through k.wrap with no rows, and the rows closed
// before it returns.
func TestQueryAll(t *testing.T) {
	type pair struct {
		n int64
		s string
	}
	boom := errors.New("boom")
	two := [][]driver.Value{{int64(1), "x"}, {int64(2), "y"}}
	for _, tc := range []struct {
		name   string
		db     fakeDB
		closed bool // the KG is closed
		cancel bool // the context ends as the last row is read
		want   []pair
		errIs  error  // nil: no error
		errHas string // in the error's text
	}{
		{name: "rows in order", db: fakeDB{rows: two}, want: []pair{{1, "x"}, {2, "y"}}},
		{name: "no rows", db: fakeDB{}},
		{name: "query error", db: fakeDB{queryErr: boom}, errIs: boom, errHas: "sql: boom"},
		{name: "scan error", db: fakeDB{rows: [][]driver.Value{{"one", "x"}}}, errHas: "sql: sql: Scan error on column index 0"},
		{name: "too few columns", db: fakeDB{rows: [][]driver.Value{{int64(1)}}}, errHas: "sql: expected 1 destination"},
		{name: "rows error after a row", db: fakeDB{rows: two[:1], end: boom}, errIs: boom, errHas: "sql: boom"},
		{name: "context ended", db: fakeDB{rows: two, end: boom}, cancel: true, errIs: context.Canceled},
		{name: "closed KG", db: fakeDB{queryErr: boom}, closed: true, errIs: store.ErrClosed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tc.cancel {
				tc.db.cancel = cancel
			}
			db := sql.OpenDB(&tc.db)
			defer db.Close()
			k := &KG{db: db}
			k.closed.Store(tc.closed)
			got, err := queryAll(ctx, k, func(p *pair) []any { return []any{&p.n, &p.s} }, "SELECT n, s")
			if tc.errIs == nil && tc.errHas == "" {
				if err != nil {
					t.Fatalf("error %v", err)
				}
			} else if err == nil {
				t.Fatalf("no error, rows %v", got)
			} else if tc.errIs != nil && !errors.Is(err, tc.errIs) {
				t.Errorf("error %v, want one wrapping %v", err, tc.errIs)
			} else if !strings.Contains(err.Error(), tc.errHas) {
				t.Errorf("error %q, want it to say %q", err, tc.errHas)
			}
			if !slices.Equal(got, tc.want) || (tc.want == nil) != (got == nil) {
				t.Errorf("rows %#v, want %#v", got, tc.want)
			}
			if tc.db.closed != tc.db.queries {
				t.Errorf("%d rows closed of %d opened", tc.db.closed, tc.db.queries)
			}
			if n := db.Stats().InUse; n != 0 {
				t.Errorf("%d connections still in use", n)
			}
		})
	}
}
