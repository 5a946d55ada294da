//go:build !unix

package dirlock

// Holders is unknown on this platform.
func Holders(string) []Holder { return nil }
