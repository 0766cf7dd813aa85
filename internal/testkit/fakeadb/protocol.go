package fakeadb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// ADB transport message commands (protocol.txt): little-endian ASCII, e.g. "CNXN".
const (
	cmdCNXN uint32 = 0x4e584e43
	cmdAUTH uint32 = 0x48545541
	cmdOPEN uint32 = 0x4e45504f
	cmdOKAY uint32 = 0x59414b4f
	cmdCLSE uint32 = 0x45534c43
	cmdWRTE uint32 = 0x45545257
)

// AUTH message types (arg0) and the 20-byte challenge the fake sends as its token.
const (
	authToken        uint32 = 1
	authSignature    uint32 = 2
	authRSAPublicKey uint32 = 3
)

var authChallenge = []byte("fpstop-fake-token-20")

// protocolVersion is the version the fake announces: 0x01000001 is the first version that
// skips payload checksums, which adb 29 also speaks.
const protocolVersion uint32 = 0x01000001

// DefaultMaxData is the payload limit the fake announces in its CNXN when Config.MaxData is 0.
const DefaultMaxData = 256 * 1024

// maxAcceptedPayload bounds what the fake reads from the host in one message, whatever the
// host believes our maxdata to be: a corrupt header must not make it allocate gigabytes.
const maxAcceptedPayload = 16 << 20

const headerLen = 24

// message is one ADB transport message.
type message struct {
	cmd, arg0, arg1 uint32
	data            []byte
}

func cmdName(c uint32) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], c)
	return string(b[:])
}

func (m message) String() string {
	return fmt.Sprintf("%s(%d, %d, %d bytes)", cmdName(m.cmd), m.arg0, m.arg1, len(m.data))
}

var errBadMagic = errors.New("fakeadb: bad message magic")

// readMessage reads one message. Checksums are not verified (version 0x01000001 and later
// do not compute them).
func readMessage(r io.Reader) (message, error) {
	var h [headerLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return message{}, err
	}
	m := message{
		cmd:  binary.LittleEndian.Uint32(h[0:]),
		arg0: binary.LittleEndian.Uint32(h[4:]),
		arg1: binary.LittleEndian.Uint32(h[8:]),
	}
	n := binary.LittleEndian.Uint32(h[12:])
	magic := binary.LittleEndian.Uint32(h[20:])
	if magic != m.cmd^0xffffffff {
		return message{}, errBadMagic
	}
	if n > maxAcceptedPayload {
		return message{}, fmt.Errorf("fakeadb: payload of %d bytes in %s is too large", n, cmdName(m.cmd))
	}
	if n > 0 {
		m.data = make([]byte, n)
		if _, err := io.ReadFull(r, m.data); err != nil {
			return message{}, err
		}
	}
	return m, nil
}

// encodeHeader fills the 24-byte header for a message carrying data. The checksum field is
// filled as older hosts expect (sum of the payload bytes), although ours never need it.
func encodeHeader(h *[headerLen]byte, cmd, arg0, arg1 uint32, data []byte) {
	var sum uint32
	for _, b := range data {
		sum += uint32(b)
	}
	binary.LittleEndian.PutUint32(h[0:], cmd)
	binary.LittleEndian.PutUint32(h[4:], arg0)
	binary.LittleEndian.PutUint32(h[8:], arg1)
	binary.LittleEndian.PutUint32(h[12:], uint32(len(data)))
	binary.LittleEndian.PutUint32(h[16:], sum)
	binary.LittleEndian.PutUint32(h[20:], cmd^0xffffffff)
}
