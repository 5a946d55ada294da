package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// configSections returns the config file's sections and the keys each
// takes: the backend settings bound to flags (backendKeys), and
// sparql.dialects, read from the file alone; nil for llm and serve, which
// are checked where they are decoded, strictly, naming the bad key.
func configSections() map[string][]string {
	sections := map[string][]string{"llm": nil, "serve": nil, "sparql": {"dialects"}}
	for _, key := range backendKeys() {
		if section, name, ok := strings.Cut(key, "."); ok {
			sections[section] = append(sections[section], name)
		}
	}
	return sections
}

// checkConfigKeys reports the keys of the config file at path that no
// setting reads: a top-level key must be a section or the name of a flag
// of some command (flags are bound by name), a key of a checked section
// one of its keys. A typo would otherwise fall back to the default
// silently ("dbb:" and the default database, "urll:" and no model).
func checkConfigKeys(path string, root *cobra.Command) error {
	file := viper.New()
	file.SetConfigFile(path)
	if err := file.ReadInConfig(); err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	flags := map[string]bool{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		add := func(f *pflag.Flag) { flags[f.Name] = true }
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	sections := configSections()
	var bad []string
	for key, val := range file.AllSettings() {
		known, section := sections[key]
		switch {
		case section && known != nil:
			if m, ok := val.(map[string]any); ok {
				for k := range m {
					if !slices.Contains(known, k) {
						bad = append(bad, key+"."+k)
					}
				}
			}
		case !section && !flags[key]:
			bad = append(bad, key)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return fmt.Errorf("config file %s: unknown key(s) %s (sections: %s; top-level keys are flag names such as db, "+
		"log-level, kg-backend)", path, strings.Join(bad, ", "), strings.Join(slices.Sorted(maps.Keys(sections)), ", "))
}
