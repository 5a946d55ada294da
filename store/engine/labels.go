package engine

import (
	"slices"
	"strings"

	"github.com/cayleygraph/quad"
	badger "github.com/dgraph-io/badger/v4"

	"github.com/grove-kg/grove/store"
	"github.com/grove-kg/grove/store/literal"
)

// labelKind classifies the predicates that describe a node.
type labelKind uint8

const (
	kindLabel labelKind = iota + 1
	kindAlias
	kindDesc
)

// labelInfo is the cached human description of one term.
type labelInfo struct {
	label, desc string
	aliases     []string
	literal     bool
}

// predInfo is the cached description of one predicate.
type predInfo struct {
	id, label, inverse string
	hidden             bool
	stmt, value        uint64  // ids of "p:<id>" and "ps:<id>" (0 if absent)
	sortKey            sortKey // labelSortKey(label)
}

// labelPreds maps the term ids of every label, alias and description
// predicate configured in any graph to their kind.
func (db *DB) labelPreds(txn *badger.Txn) map[uint64]labelKind {
	if m, ok := db.preds.labelPreds(txn); ok {
		return m
	}
	m := map[uint64]labelKind{}
	add := func(preds []string, k labelKind) {
		for _, p := range preds {
			if id, ok, _ := db.termID(txn, quad.IRI(p)); ok {
				if _, seen := m[id]; !seen {
					m[id] = k
				}
			}
		}
	}
	cfgs := []store.LabelConfig{store.DefaultLabelConfig()}
	for _, g := range db.GraphMetas() {
		cfgs = append(cfgs, g.LabelCfg)
	}
	for _, c := range cfgs {
		add(c.Label, kindLabel)
		add(c.Alias, kindAlias)
		add(c.Description, kindDesc)
	}
	db.preds.putLabelPreds(txn, m)
	return m
}

// info returns the label, description and aliases of a term.
func (db *DB) info(txn *badger.Txn, id uint64) (labelInfo, error) {
	if !db.preds.fresh(txn) {
		return db.readInfo(txn, id)
	}
	if li, ok := db.labels.Get(id); ok {
		return li, nil
	}
	li, err := db.readInfo(txn, id)
	if err == nil {
		db.preds.fill(txn, func() { db.labels.Set(id, li, int64(len(li.label)+len(li.desc)+48)) })
	}
	return li, err
}

// readInfo reads the label, description and aliases of a term.
func (db *DB) readInfo(txn *badger.Txn, id uint64) (labelInfo, error) {
	v, err := db.term(txn, id)
	if err != nil {
		return labelInfo{}, err
	}
	var li labelInfo
	if isLiteral(v) {
		li = labelInfo{label: literal.Render(v, db.labelFunc(txn)), literal: true}
		return li, nil
	}
	return db.readLabels(txn, id)
}

// readLabels collects the label-like literals of a node. English (or
// untagged) text wins over other languages; between labels (or
// descriptions) of the same rank the smallest text wins, so that the
// choice depends on the quads alone, not on the order their terms got ids
// in (a label added by a later write or load has a larger id than one
// loaded earlier, where a fresh load of the same quads numbers terms in
// their sort order). Aliases are sorted for the same reason.
func (db *DB) readLabels(txn *badger.Txn, id uint64) (labelInfo, error) {
	preds := db.labelPreds(txn)
	var li labelInfo
	var labelRank, descRank int
	err := db.nodeGroups(txn, spaceSPO, id, func(gi groupInfo) error {
		kind, ok := preds[gi.b]
		if !ok {
			return nil
		}
		vals, err := groupMembers(txn, spaceSPO, gi, nil, 0)
		if err != nil {
			return err
		}
		for _, vid := range vals {
			v, err := db.term(txn, vid)
			if err != nil {
				return err
			}
			text, rank := literalText(v), langRank(v)
			switch {
			case text == "":
			case kind == kindLabel && (li.label == "" || rank > labelRank || rank == labelRank && text < li.label):
				if li.label != "" {
					li.aliases = append(li.aliases, li.label)
				}
				li.label, labelRank = text, rank
			case kind == kindDesc && (li.desc == "" || rank > descRank || rank == descRank && text < li.desc):
				li.desc, descRank = text, rank
			case kind != kindDesc && !slices.Contains(li.aliases, text) && text != li.label:
				li.aliases = append(li.aliases, text)
			}
		}
		return nil
	})
	slices.Sort(li.aliases) // in an order of their own, as the label
	return li, err
}

// langRank prefers English, then untagged, then anything else.
func langRank(v quad.Value) int {
	ls, ok := v.(quad.LangString)
	switch {
	case !ok:
		return 2
	case ls.Lang == "en" || strings.HasPrefix(ls.Lang, "en-"):
		return 3
	}
	return 1
}

func isLiteral(v quad.Value) bool {
	switch v.(type) {
	case quad.IRI, quad.BNode:
		return false
	}
	return true
}

// labelFunc returns a resolver from entity id to label for literal
// rendering (quantity units).
func (db *DB) labelFunc(txn *badger.Txn) func(string) string {
	return func(id string) string {
		tid, ok, err := db.visibleTermID(txn, valueOfID(id))
		if err != nil || !ok {
			return ""
		}
		li, err := db.readLabels(txn, tid)
		if err != nil {
			return ""
		}
		return li.label
	}
}

// pred returns the labels and flags of a predicate.
func (db *DB) pred(txn *badger.Txn, p uint64) (predInfo, error) {
	if pi, ok := db.preds.pred(txn, p); ok {
		return pi, nil
	}
	v, err := db.term(txn, p)
	if err != nil {
		return predInfo{}, err
	}
	pi := predInfo{id: nodeID(v)}
	li, err := db.readLabels(txn, p)
	if err != nil {
		return pi, err
	}
	pi.label = li.label
	if q, ok := strings.CutPrefix(pi.id, store.QualifierPrefix); ok {
		// A qualifier is named after the property it qualifies with.
		pi.label = db.predLabelByID(txn, q)
	}
	if pi.label == "" {
		pi.label = deriveLabel(pi.id)
	}
	pi.inverse = inverseLabel(pi.label)
	if err := db.predFlags(txn, p, &pi); err != nil {
		return pi, err
	}
	if _, isLabel := db.labelPreds(txn)[p]; isLabel || internalPredicate(pi.id) || pi.id == store.OWLSameAs {
		pi.hidden = true
	}
	pi.stmt, _, _ = db.termID(txn, quad.IRI(store.StatementPrefix+pi.id))
	pi.value, _, _ = db.termID(txn, quad.IRI(store.StatementValuePrefix+pi.id))
	pi.sortKey = labelSortKey(pi.label)
	db.preds.putPred(txn, p, pi)
	return pi, nil
}

// predFlags reads grove:hidden and grove:inverseLabel of a predicate.
func (db *DB) predFlags(txn *badger.Txn, p uint64, pi *predInfo) error {
	for _, name := range []string{store.GroveHidden, store.GroveInverseLabel} {
		pid, ok, err := db.termID(txn, quad.IRI(name))
		if err != nil || !ok {
			continue
		}
		groups, err := db.relationGroups(txn, spaceSPO, p, pid)
		if err != nil {
			return err
		}
		for _, gi := range groups {
			vals, err := groupMembers(txn, spaceSPO, gi, nil, 1)
			if err != nil {
				return err
			} else if len(vals) == 0 {
				continue
			}
			v, err := db.term(txn, vals[0])
			if err != nil {
				return err
			}
			if name == store.GroveHidden {
				pi.hidden = literalText(v) == "true"
			} else if t := literalText(v); t != "" {
				pi.inverse = t
			}
		}
	}
	return nil
}

// internalPredicate reports Grove's own and statement-node predicates.
func internalPredicate(id string) bool {
	for _, p := range []string{"grove:", store.StatementPrefix, store.StatementValuePrefix, store.QualifierPrefix} {
		if strings.HasPrefix(id, p) {
			return true
		}
	}
	return false
}

// deriveLabel and inverseLabel are store.DeriveLabel and store.InverseLabel,
// shared with the remote backends.
func deriveLabel(id string) string { return store.DeriveLabel(id) }

func inverseLabel(label string) string { return store.InverseLabel(label) }

func defaultLabelConfig() store.LabelConfig { return store.DefaultLabelConfig() }

func containsStr(list []string, s string) bool { return slices.Contains(list, s) }
