package trace

// Observer receives a run's events as they happen. Every value passed is a
// copy the observer may keep. Calls for one run are serialised (never
// concurrent), come from a goroutine of the Recorder's (never the run's,
// never under a lock) and arrive in the order the Recorder applied them,
// so a node's OnNode always precedes its OnNodeUpdate. A slow observer
// delays only its own events, which queue in memory; it may call the
// Recorder's read methods (Node, Snapshot).
type Observer interface {
	// OnNode reports a new node.
	OnNode(Node)
	// OnNodeUpdate reports a changed node (value, order, flags).
	OnNodeUpdate(Node)
	// OnModelCall reports a finished model call.
	OnModelCall(ModelCall)
	// OnKGCall reports a finished KG call.
	OnKGCall(KGCall)
}

// Finisher is an Observer that wants to know when a run's stream ends:
// OnFinish is called once, after the last event of a finished run.
type Finisher interface {
	OnFinish()
}

// Funcs adapts functions to an Observer; nil fields ignore their event.
type Funcs struct {
	Node       func(Node)
	NodeUpdate func(Node)
	ModelCall  func(ModelCall)
	KGCall     func(KGCall)
}

// OnNode calls f.Node.
func (f Funcs) OnNode(n Node) {
	if f.Node != nil {
		f.Node(n)
	}
}

// OnNodeUpdate calls f.NodeUpdate.
func (f Funcs) OnNodeUpdate(n Node) {
	if f.NodeUpdate != nil {
		f.NodeUpdate(n)
	}
}

// OnModelCall calls f.ModelCall.
func (f Funcs) OnModelCall(c ModelCall) {
	if f.ModelCall != nil {
		f.ModelCall(c)
	}
}

// OnKGCall calls f.KGCall.
func (f Funcs) OnKGCall(c KGCall) {
	if f.KGCall != nil {
		f.KGCall(c)
	}
}

// Tee returns an Observer that forwards every event to each non-nil
// observer in turn, each receiving its own copy.
func Tee(obs ...Observer) Observer {
	var live []Observer
	for _, o := range obs {
		if o != nil {
			live = append(live, o)
		}
	}
	return tee(live)
}

type tee []Observer

// OnFinish tells every observer that is a Finisher.
func (t tee) OnFinish() {
	for _, o := range t {
		if f, ok := o.(Finisher); ok {
			f.OnFinish()
		}
	}
}

func (t tee) OnNode(n Node) {
	for _, o := range t {
		o.OnNode(n.Clone())
	}
}

func (t tee) OnNodeUpdate(n Node) {
	for _, o := range t {
		o.OnNodeUpdate(n.Clone())
	}
}

func (t tee) OnModelCall(c ModelCall) {
	for _, o := range t {
		o.OnModelCall(c.Clone())
	}
}

func (t tee) OnKGCall(c KGCall) {
	for _, o := range t {
		o.OnKGCall(c.Clone())
	}
}
