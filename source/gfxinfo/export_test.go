package gfxinfo

// Parse is Parser.Parse with storage of its own, for tests that keep the Dump.
func Parse(data []byte) (*Dump, error) { return new(Parser).Parse(data) }

// ParseChunk parses one dump (a piece of Split's output, already decoded), reusing p's storage.
func (ps *Parser) ParseChunk(chunk []byte) *Dump {
	ps.reset()
	return ps.parseChunk(chunk)
}
