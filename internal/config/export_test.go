package config

// Get returns the entry for key (the tests look entries up by name; the CLI walks them in order).
func (f File) Get(key string) (Entry, bool) {
	for _, e := range f.Entries {
		if e.Key == key {
			return e, true
		}
	}
	return Entry{}, false
}
