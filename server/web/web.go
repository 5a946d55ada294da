// Package web is Grove's browser interface, embedded in the binary: one
// HTML page with plain CSS and JavaScript (no framework, no CDN, works
// offline) served by package server at "/" and "/static/".
package web

import (
	"embed"
	"io/fs"
	"net/http"
)

//go:embed static
var files embed.FS

// static is the embedded directory served under /static/.
func staticFS() fs.FS {
	sub, err := fs.Sub(files, "static")
	if err != nil {
		panic(err) // the directory is embedded at build time
	}
	return sub
}

// Index serves the page.
func Index(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w)
	http.ServeFileFS(w, r, staticFS(), "index.html")
}

// Static serves the page's assets under /static/.
func Static() http.Handler {
	fsrv := http.StripPrefix("/static/", http.FileServerFS(staticFS()))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		setSecurityHeaders(w)
		fsrv.ServeHTTP(w, r)
	})
}

// setSecurityHeaders forbids every origin but our own.
func setSecurityHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}
