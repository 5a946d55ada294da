//go:build !unix

package engine

import "time"

// processCPU is unknown on this platform.
func processCPU() time.Duration { return 0 }
