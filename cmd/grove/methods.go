package main

import (
	"github.com/grove-kg/grove/reasoner"
	"github.com/grove-kg/grove/reasoner/baseline"
	"github.com/grove-kg/grove/reasoner/grounded"
	"github.com/grove-kg/grove/reasoner/rtsog"
)

// registerMore adds the methods beyond Tree-of-Traversals.
func registerMore(r *reasoner.Registry) {
	grounded.Register(r)
	rtsog.Register(r)
	baseline.Register(r)
}
