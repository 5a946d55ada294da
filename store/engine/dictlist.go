package engine

import (
	"context"
	"errors"
	"io"
)

// The dictionary lists of a bulk load. The vocabulary merge writes the new
// term -> id entries in term order to one temporary file (the term list),
// and, when the database already holds terms, the entries of new ids to
// another (the id list; with an empty dictionary every term is new and
// the term list serves for both). The write phase reads them back to
// write the term -> id keys and the id -> term blocks, each as one
// StreamWriter stream on its own goroutine. (Cutting the term keys into
// several streams of disjoint key ranges was tried: on 2 cores concurrent
// StreamWriter.Write calls of key-dense streams contend on Badger's lock,
// and a 100M-quad load got slower.)

// dictList is one dictionary list: entries in term order, front-coded
// terms and delta-coded ids (dictFile). An empty list has no file.
type dictList struct {
	path    string
	entries int64
	bytes   int64 // term bytes
}

// dictWriter writes a dictionary list; the file is created with the
// first entry.
type dictWriter struct {
	sd   *spillDir
	name string
	cur  dictFile
	open bool
	list dictList
}

func (d *dictWriter) write(term []byte, id uint64) error {
	if !d.open {
		w, err := d.sd.create(d.name)
		if err != nil {
			return err
		}
		d.cur, d.open = dictFile{w: w}, true
		d.list.path = w.path
	}
	d.list.entries++
	d.list.bytes += int64(len(term))
	return d.cur.write(term, id)
}

// close ends the list and returns it.
func (d *dictWriter) close() (dictList, error) {
	if d.open {
		d.open = false
		if err := d.cur.w.Close(); err != nil {
			return dictList{}, err
		}
	}
	return d.list, nil
}

// abort removes the open file after an error (the spill directory
// removes the rest).
func (d *dictWriter) abort() {
	if d.open {
		d.open = false
		d.cur.w.abort()
	}
}

// eachListEntry calls fn for every entry of a dictionary list in order;
// the term is only valid during the call.
func eachListEntry(ctx context.Context, list dictList, fn func(term []byte, id uint64) error) error {
	if list.path == "" {
		return nil
	}
	return eachDictEntry(ctx, list.path, fn)
}

// eachDictEntry calls fn for every entry of one dictionary file.
func eachDictEntry(ctx context.Context, path string, fn func(term []byte, id uint64) error) error {
	r, err := openSpill(path, 256<<10)
	if err != nil {
		return err
	}
	defer r.Close()
	d := dictFileReader{r: r}
	for n := 0; ; n++ {
		if n%(1<<16) == 0 {
			if err := ctxErr(ctx); err != nil {
				return err
			}
		}
		term, id, err := d.next()
		if errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		if err := fn(term, id); err != nil {
			return err
		}
	}
}
