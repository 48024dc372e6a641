package server

import (
	"encoding/base64"
	"fmt"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxMessage is the longest line the server writes, in bytes. Clients
// built on the TypeScript SDK (the Inspector, most Node hosts) close the
// connection when their buffer would pass 10 MiB, and the read that ends
// a line brings what follows it too (up to 64 KiB a read from a pipe):
// one answer past that ends the whole session, not just the request. A
// file within resources.max_file_size can still make a longer answer, as
// JSON escapes control characters and a blob is base64.
const maxMessage = 10<<20 - 128<<10

// maxContents bounds the contents of one answer, what maxMessage leaves
// for them beside the envelope (a longer one, with an id of kilobytes, is
// still refused as it is written).
const maxContents = maxMessage - 4<<10

// jsonLen is the length of s as a JSON string, its quotes included, as
// encoding/json writes it with HTML escaping: at least as long as the
// SDK's own encoding, which leaves '<', '>' and '&' as they are.
func jsonLen(s string) int {
	n := 2 + len(s)
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			n += int(asciiExtra[b])
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += 6 - size // \ufffd, \u2028, \u2029 in place of its bytes
		}
		i += size
	}
	return n
}

// asciiExtra is what encoding/json adds to an ASCII byte: 1 for the
// escapes \", \\, \n, \r, \t, \b and \f, 5 for the other control
// characters and HTML's <, > and &, written \u00XX.
var asciiExtra = func() (t [utf8.RuneSelf]uint8) {
	for b := range t {
		switch c := byte(b); {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			t[b] = 1
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			t[b] = 5
		}
	}
	return t
}()

// contentsLen is about the length of c in an answer: its text or blob as
// JSON, and room for its URI and MIME type.
func contentsLen(c *mcp.ResourceContents) int {
	n := len(c.URI) + len(c.MIMEType) + 64
	if c.Blob != nil {
		return n + 2 + base64.StdEncoding.EncodedLen(len(c.Blob))
	}
	return n + jsonLen(c.Text)
}

// blocksLen is about the length of text blocks in an answer, or a bound
// of it under maxContents.
func blocksLen(blocks []string) int {
	n := 0
	for _, b := range blocks {
		n += len(b) + 32
	}
	if 6*n < maxContents {
		return 6 * n
	}
	n = 0
	for _, b := range blocks {
		n += jsonLen(b) + 32
	}
	return n
}

// tooLong says that n bytes of JSON are more than one message holds:
// "9.90 MiB of JSON, more than the 9.87 MiB one message may hold (...)",
// in bytes when MiB would not tell the two apart.
func tooLong(n int) string {
	size, limit := mib(n), mib(maxContents)
	if size == limit {
		size, limit = fmt.Sprintf("%d bytes", n), fmt.Sprintf("%d bytes", maxContents)
	}
	return fmt.Sprintf("%s of JSON, more than %s", size, messageLimit(limit))
}

// messageLimit is the limit an answer too long for one message is over.
func messageLimit(limit string) string {
	return fmt.Sprintf("the %s one message may hold (clients of the TypeScript SDK close the connection past 10 MiB)", limit)
}

// mib writes a size in MiB with two decimals.
func mib(n int) string {
	return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
}
