package nginxdiff

import (
	"fmt"
	"io"
	"maps"
	"slices"
)

// Classes gathers a run's differences by class, each class's examples
// in the order they came. A class starting "KEPT " or "LEFT " is one a
// README documents; any other is new.
type Classes map[string][]string

// Add files example under class.
func (c Classes) Add(class, example string) {
	c[class] = append(c[class], example)
}

// Print writes each class in sorted order with its count, then its
// first show examples.
func (c Classes) Print(w io.Writer, show int) {
	for _, k := range slices.Sorted(maps.Keys(c)) {
		ex := c[k]
		fmt.Fprintf(w, "== %s (%d)\n", k, len(ex))
		for _, e := range ex[:min(show, len(ex))] {
			fmt.Fprintln(w, e)
		}
	}
}
