package server

import "sync"

// gate counts the requests inside route handlers, so that shutdown can
// wait for the last one before Run closes the database under it. Once
// closed it admits no request.
type gate struct {
	mu     sync.Mutex
	idle   sync.Cond
	active int
	closed bool
}

// enter admits a request; false once the gate is closed.
func (g *gate) enter() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.active++
	return true
}

// leave ends a request admitted by enter.
func (g *gate) leave() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active--
	if g.active == 0 && g.idle.L != nil {
		g.idle.Broadcast()
	}
}

// close admits no more requests and waits until none is inside; waiting,
// when some still are, is called first with their number.
func (g *gate) close(waiting func(n int)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
	if g.idle.L == nil {
		g.idle.L = &g.mu
	}
	if g.active > 0 && waiting != nil {
		waiting(g.active)
	}
	for g.active > 0 {
		g.idle.Wait()
	}
}
