// Package crash helps tests kill a child process at a chosen point (for
// example in the middle of a bulk load's write phase) with SIGKILL, as a
// crash or an out-of-memory kill would, and check what it left behind.
// The child reports on a pipe that it has reached the point and stops
// itself; the parent kills it and proves that SIGKILL ended it. It has no
// dependency on the engine, so the engine's own tests can use it.
package crash
