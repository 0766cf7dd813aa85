package gfxinfo

import "github.com/fpstop/fpstop/source"

// PoisonReleased puts src (FromFile or FromReader, before Run) in recycle.go's test mode: a
// slab whose events were all released is poisoned and dropped instead of carved again.
func PoisonReleased(src source.Source) { src.(*fileSource).rc.poison = true }

// RecycledSlabs returns how many slabs src carved again and how many it poisoned.
func RecycledSlabs(src source.Source) (reused, poisoned int64) {
	rc := src.(*fileSource).rc
	return rc.reused.Load(), rc.poisoned.Load()
}

// PoisonNs is the time a poisoned frame carries.
const PoisonNs = poisonNs
