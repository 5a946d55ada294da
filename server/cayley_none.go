package server

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/grove-kg/grove/store"
)

// noCayleyReason is why a server without a QuadStore serves no Cayley API:
// reason (Deps.NoCayley) when given, else the KG's type and
// store.ErrNoQuadStore.
func noCayleyReason(kg store.KG, reason error) error {
	if reason != nil {
		return reason
	}
	return fmt.Errorf("the %T backend has %w", kg, store.ErrNoQuadStore)
}

// newNoCayley answers every /cayley/ request of a server whose backend has
// no Cayley quad store (the SPARQL backend), naming reason: a POST to a
// write route is a 403, since such a server cannot be written (read_only in
// /v1/stats); another method there is a 405, as when Cayley is mounted; and
// everything else (queries, reads, formats) is a 501.
func (s *Server) newNoCayley(reason error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := strings.TrimPrefix(r.URL.Path, "/cayley")
		if trimmed := strings.TrimRight(path, "/"); trimmed != "" {
			path = trimmed
		}
		switch {
		case isCayleyWrite(path) && r.Method != http.MethodPost:
			w.Header().Set("Allow", http.MethodPost)
			s.writeError(w, r, &apiError{http.StatusMethodNotAllowed,
				"method " + r.Method + " not allowed on /cayley" + path + " (allowed: POST)"})
		case isCayleyWrite(path):
			s.writeError(w, r, &apiError{http.StatusForbidden, "the server is read-only: " + reason.Error()})
		default:
			s.writeError(w, r, &apiError{http.StatusNotImplemented,
				"Cayley's API (Gizmo, GraphQL and MQL queries, quad reads and writes) is not served: " + reason.Error()})
		}
	})
}

// readOnly says whether the server refuses every write: when configured
// so, and when its backend has no Cayley quad store (writes exist only in
// the Cayley mount).
func (s *Server) readOnly() bool {
	return s.cfg.ReadOnly || !s.hasCayley
}
