package gfxinfo

// Parse is Parser.Parse with storage of its own, for tests that keep the Dump.
func Parse(data []byte) (*Dump, error) { return new(Parser).Parse(data) }

// ParseChunk parses one dump (as dumpReader cuts it, decoded), reusing p's storage.
func (ps *Parser) ParseChunk(chunk []byte) *Dump { return ps.parseChunk(chunk) }
