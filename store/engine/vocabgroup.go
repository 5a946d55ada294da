package engine

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/grove-kg/grove/store/internal/frontcode"
)

// Grouped vocabulary merge. The id assignment (assignIDs) reads every
// vocabulary it merges at once and writes a map for each: two open files
// and their buffers per vocabulary. A load of billions of quads is read in
// thousands of batches (Wikidata truthy at a 512 MiB budget: about 3,000),
// more than the open-file limit of many systems allows and, at 128 KiB of
// buffers per batch, more memory than the budget. So beyond
// maxVocabFanIn batches the vocabularies are first merged group by group:
// at most maxVocabFanIn consecutive batches merge into one group vocabulary
// (the group's distinct terms in term order, in the batch format) and a
// membership file (for each group term, the batches of the group that
// hold it). The id assignment then reads the group vocabularies and writes
// one map per group, and composeMaps turns each group map into its
// batches' maps: it reads the group map and the membership file in step
// and appends each id to the maps of the batches that hold the term (a
// batch's terms are in the same order as the group's, so its map comes
// out in local id order). More than maxVocabFanIn groups are grouped
// again, so a group merge or composition holds at most maxVocabFanIn+2
// files and the id assignment 2*maxVocabFanIn; each level of groups
// writes and reads every term once more than a single merge (measured: ~5 s
// per 100M quads at a 512 MiB budget).
const maxVocabFanIn = 256

// vocabGroup is one group of consecutive vocabularies, [first, end), with
// its merged vocabulary and membership file.
type vocabGroup struct {
	first, end     int
	vocab, members string
	nterms         int
}

// vocabFanIn is the number of vocabularies merged at once.
func (l *Loader) vocabFanIn() int {
	if l.db.vocabFanIn > 1 {
		return l.db.vocabFanIn
	}
	return maxVocabFanIn
}

// mergeVocabs merges the sorted vocabularies (and removes them) and
// returns the dictionary and, per vocabulary, the path of its local ->
// global map. Beyond the fan-in it merges them in groups and the groups'
// vocabularies the same way, so every merge reads at most fan-in files
// whatever the number of batches. The groups are balanced: n
// vocabularies in ceil(n/fan-in) groups of nearly equal size.
func (l *Loader) mergeVocabs(ctx context.Context, stored *storedDict, vocabs []string) (dictResult, []string, error) {
	fan, n := l.vocabFanIn(), len(vocabs)
	if n <= fan {
		return l.assignIDs(ctx, stored, vocabs)
	}
	t := time.Now()
	ngroups := (n + fan - 1) / fan
	groups := make([]vocabGroup, ngroups)
	gvocabs := make([]string, ngroups)
	for i := range groups {
		g := &groups[i]
		g.first, g.end = i*n/ngroups, (i+1)*n/ngroups
		if err := l.mergeGroup(ctx, g, vocabs[g.first:g.end]); err != nil {
			return dictResult{next: l.nextID}, nil, err
		}
		gvocabs[i] = g.vocab
	}
	l.db.log.Info("bulk load merged batch vocabularies in groups", "vocabularies", n, "groups", ngroups,
		"terms", l.dictTerms, "took", time.Since(t).Round(time.Millisecond))
	res, gmaps, err := l.mergeVocabs(ctx, stored, gvocabs)
	if err != nil {
		return res, nil, err
	}
	maps := make([]string, n)
	for i, g := range groups {
		if err := l.composeMaps(ctx, g, gmaps[i], maps[g.first:g.end]); err != nil {
			return res, nil, err
		}
	}
	return res, maps, nil
}

// mergeGroup merges the vocabularies of g (paths) into g's vocabulary and
// membership file, and removes them.
func (l *Loader) mergeGroup(ctx context.Context, g *vocabGroup, paths []string) error {
	readers, err := openVocabs(paths)
	defer closeVocabs(readers)
	if err != nil {
		return err
	}
	gw := &groupWriter{}
	if gw.vocab, err = l.sd.create("gvocab"); err != nil {
		return err
	}
	if gw.members, err = l.sd.create("members"); err != nil {
		gw.vocab.abort()
		return err
	}
	err = runVocabMerge(ctx, readers, func(c *mergedChunk) error {
		l.progress("dictionary", int64(l.dictTerms), -1)
		l.dictTerms += c.len()
		return gw.add(c)
	})
	if err == nil {
		err = gw.close()
	}
	if err != nil {
		gw.abort()
		return err
	}
	g.vocab, g.members, g.nterms = gw.vocab.path, gw.members.path, gw.n
	for _, p := range paths {
		l.sd.drop(p)
	}
	return nil
}

// groupWriter writes a group's vocabulary (front-coded, like a batch's)
// and membership file (per term a uvarint count and the uvarint indexes,
// within the group, of the batches that hold it).
type groupWriter struct {
	vocab, members *spillWriter
	fc             frontcode.Encoder
	rec            []byte
	n              int
}

func (w *groupWriter) add(c *mergedChunk) error {
	for i := range c.len() {
		term, batches := c.term(i)
		w.rec = w.fc.Append(w.rec[:0], term)
		if _, err := w.vocab.Write(w.rec); err != nil {
			return err
		}
		w.rec = binary.AppendUvarint(w.rec[:0], uint64(len(batches)))
		for _, b := range batches {
			w.rec = binary.AppendUvarint(w.rec, uint64(b))
		}
		if _, err := w.members.Write(w.rec); err != nil {
			return err
		}
		w.n++
	}
	return nil
}

func (w *groupWriter) close() error {
	if err := w.vocab.Close(); err != nil {
		return err
	}
	return w.members.Close()
}

// abort closes and removes both files (after an error; also after a
// failed close, when one of them may be closed already).
func (w *groupWriter) abort() {
	w.vocab.abort()
	w.members.abort()
}

// composeMaps writes the local -> global map of every vocabulary of g
// from the group's map (group term -> global id) and membership file,
// stores their paths in maps, and removes both.
func (l *Loader) composeMaps(ctx context.Context, g vocabGroup, groupMap string, maps []string) error {
	mr, err := openSpill(groupMap, 1<<20)
	if err != nil {
		return err
	}
	defer mr.Close()
	br, err := openSpill(g.members, 1<<20)
	if err != nil {
		return err
	}
	defer br.Close()
	outs := make([]*vocabReader, 0, g.end-g.first)
	defer func() { closeVocabs(outs) }()
	for range g.end - g.first {
		w, err := l.sd.createBuf("map", manyWriteBuf)
		if err != nil {
			return err
		}
		outs = append(outs, &vocabReader{out: w})
	}
	var ids deltaReader
	for j := range g.nterms {
		if j%(1<<16) == 0 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
		}
		id, err := ids.next(mr.r)
		if err != nil {
			return fmt.Errorf("id map %s: %w", groupMap, noEOF(err))
		}
		if err := emitMembers(br, outs, id); err != nil {
			return err
		}
	}
	for i, v := range outs {
		maps[i] = v.out.path
	}
	if err := closeVocabOutputs(outs); err != nil {
		return err
	}
	l.sd.drop(groupMap)
	l.sd.drop(g.members)
	return nil
}

// emitMembers reads one membership record from br and appends id to the
// map of each batch it names.
func emitMembers(br *spillReader, outs []*vocabReader, id uint64) error {
	k, err := readMember(br.r, len(outs)) // a count: at most every batch
	if err != nil {
		return fmt.Errorf("temporary file %s: %w", br.f.Name(), err)
	}
	for range k {
		b, err := readMember(br.r, len(outs)-1)
		if err != nil {
			return fmt.Errorf("temporary file %s: %w", br.f.Name(), err)
		}
		if err := outs[b].emit(id); err != nil {
			return err
		}
	}
	return nil
}

// readMember reads a membership count or batch index of at most most.
func readMember(r *bufio.Reader, most int) (int, error) {
	u, err := binary.ReadUvarint(r)
	if err != nil {
		return 0, noEOF(err)
	}
	if u > uint64(most) {
		return 0, fmt.Errorf("membership value %d out of range: %w", u, errBadRun)
	}
	return int(u), nil
}
