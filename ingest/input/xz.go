package input

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
)

// xzReader decompresses through an external "xz -dc" process: the module
// graph has no xz decoder and the brief allows no new dependency.
type xzReader struct {
	cmd    *exec.Cmd
	out    io.ReadCloser
	stderr bytes.Buffer
	once   sync.Once
	err    error
	killed bool
	mu     sync.Mutex
}

// startXz starts "xz -dc" reading from r.
func startXz(r io.Reader) (*xzReader, error) {
	path, err := exec.LookPath("xz")
	if err != nil {
		return nil, fmt.Errorf("no xz program on PATH (Go has no built-in xz decoder here): install xz or decompress the file first with xz -d: %w", err)
	}
	x := &xzReader{cmd: exec.Command(path, "-dc")}
	x.cmd.Stdin = r
	x.cmd.Stderr = &x.stderr
	if x.out, err = x.cmd.StdoutPipe(); err != nil {
		return nil, fmt.Errorf("xz pipe: %w", err)
	}
	if err := x.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start xz: %w", err)
	}
	return x, nil
}

// Read reads decompressed bytes; at the end of the stream it reports a
// failed xz exit (corrupt input) instead of a clean EOF.
func (x *xzReader) Read(p []byte) (int, error) {
	n, err := x.out.Read(p)
	if err == io.EOF {
		if werr := x.wait(); werr != nil {
			return n, werr
		}
	}
	return n, err
}

func (x *xzReader) wait() error {
	x.once.Do(func() {
		err := x.cmd.Wait()
		x.mu.Lock()
		killed := x.killed
		x.mu.Unlock()
		if err != nil && !killed {
			x.err = fmt.Errorf("xz -dc: %w: %s", err, strings.TrimSpace(x.stderr.String()))
		}
	})
	return x.err
}

// Close kills xz if it is still running and reaps it.
func (x *xzReader) Close() error {
	x.mu.Lock()
	x.killed = true
	x.mu.Unlock()
	_ = x.cmd.Process.Kill() // fails harmlessly when xz has already exited
	_ = x.wait()             // a killed xz's exit status is not an error
	return nil
}
