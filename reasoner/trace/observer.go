package trace

// Observer receives a run's events as they happen. Every value passed is a
// copy the observer may keep. Calls for one run are serialised (never
// concurrent) and arrive in the order the Recorder applied them, so a
// node's OnNode always precedes its OnNodeUpdate. Observers must return
// quickly and must not call back into the Recorder.
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
