package main

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

func TestWithGraphFiles(t *testing.T) {
	tests := []struct {
		name      string
		files     []string
		flags     []string
		wantFiles []string
		wantGraph map[string]string
		wantErr   string
	}{
		{name: "none", files: []string{"a.nt"}, wantFiles: []string{"a.nt"}},
		{name: "one", files: []string{"a.nt"}, flags: []string{"b=b.nt"},
			wantFiles: []string{"a.nt", "b.nt"}, wantGraph: map[string]string{"b.nt": "b"}},
		{name: "only flags, = in the path", flags: []string{"x=dir/k=v.nt", " y =y.nt"},
			wantFiles: []string{"dir/k=v.nt", "y.nt"}, wantGraph: map[string]string{"dir/k=v.nt": "x", "y.nt": "y"}},
		{name: "no =", flags: []string{"b.nt"}, wantErr: "want NAME=FILE"},
		{name: "no name", flags: []string{"=b.nt"}, wantErr: "want NAME=FILE"},
		{name: "no file", flags: []string{"b="}, wantErr: "want NAME=FILE"},
		{name: "twice", files: []string{"a.nt"}, flags: []string{"b=a.nt"}, wantErr: "loaded twice"},
		{name: "twice in flags", flags: []string{"b=a.nt", "c=a.nt"}, wantErr: "loaded twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, graphOf, err := withGraphFiles(slices.Clone(tc.files), tc.flags)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(files, tc.wantFiles) || !maps.Equal(graphOf, tc.wantGraph) {
				t.Fatalf("got %v %v %v, want %v %v", files, graphOf, err, tc.wantFiles, tc.wantGraph)
			}
		})
	}
}

// FuzzWithGraphFiles: any flag value gives an error or a graph for a file
// that is then among the files, named without surrounding space.
func FuzzWithGraphFiles(f *testing.F) {
	f.Add("b=b.nt")
	f.Add("=")
	f.Add(" x = y=z ")
	f.Fuzz(func(t *testing.T, flag string) {
		files, graphOf, err := withGraphFiles([]string{"a.nt"}, []string{flag})
		if err != nil {
			return
		}
		for file, g := range graphOf {
			if !slices.Contains(files, file) || g == "" || g != strings.TrimSpace(g) {
				t.Fatalf("flag %q: file %q graph %q, files %v", flag, file, g, files)
			}
		}
	})
}
