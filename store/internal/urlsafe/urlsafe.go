// Package urlsafe makes the URLs of remote backends fit for errors and
// logs: endpoints and database URLs carry passwords in their user info
// and API keys, tokens and passwords in their query strings, and the
// errors of net/http, net/url and database drivers quote them whole.
package urlsafe

import (
	"net/url"
	"strings"
)

// Redact returns raw with the secrets of its user info replaced by ***
// (the whole user info when hideUser, else the password only), the values
// of the query parameters secret reports (every one when secret is nil)
// replaced by ***, and no fragment. ok is false when raw does not parse:
// then it must not be quoted at all.
func Redact(raw string, hideUser bool, secret func(name string) bool) (s string, ok bool) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", false
	}
	if u.User != nil {
		if hideUser {
			u.User = url.User("***")
		} else {
			u.User = url.User(u.User.Username())
		}
	}
	if u.RawQuery != "" {
		parts := strings.Split(u.RawQuery, "&")
		for i, p := range parts {
			if k, _, found := strings.Cut(p, "="); found && (secret == nil || secret(k)) {
				parts[i] = k + "=***"
			}
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	u.Fragment, u.RawFragment = "", ""
	return strings.Replace(u.String(), "%2A%2A%2A@", "***@", 1), true
}
