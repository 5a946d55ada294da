package web

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestServe(t *testing.T) {
	cases := []struct {
		name, path string
		h          http.Handler
		status     int
		ctype      string
		contains   string
	}{
		{"index", "/", http.HandlerFunc(Index), 200, "text/html", `<script src="/static/app.js"`},
		{"script", "/static/app.js", Static(), 200, "javascript", "/v1/ask/stream"},
		{"style", "/static/app.css", Static(), 200, "text/css", ".tree-node"},
		{"missing", "/static/nope.js", Static(), 404, "", ""},
		{"traversal", "/static/../web.go", Static(), 404, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			c.h.ServeHTTP(rec, httptest.NewRequest("GET", c.path, nil))
			if rec.Code != c.status || !strings.Contains(rec.Header().Get("Content-Type"), c.ctype) ||
				!strings.Contains(rec.Body.String(), c.contains) {
				t.Fatalf("%s: %d %q %.100s", c.path, rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
			}
			if c.status == 200 && !strings.Contains(rec.Header().Get("Content-Security-Policy"), "default-src 'self'") {
				t.Errorf("no CSP header")
			}
		})
	}
}

// TestOffline checks that the page loads nothing from elsewhere and never
// inserts server text as HTML.
func TestOffline(t *testing.T) {
	remote := regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?(https?:)?//|@import|url\(\s*["']?https?:`)
	err := fs.WalkDir(files, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := files.ReadFile(path)
		if err != nil {
			return err
		}
		if m := remote.Find(b); m != nil {
			t.Errorf("%s loads a remote resource: %s", path, m)
		}
		if strings.Contains(string(b), "innerHTML") || strings.Contains(string(b), "insertAdjacentHTML") {
			t.Errorf("%s inserts HTML", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
