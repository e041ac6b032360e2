package bodyfield

import (
	"encoding/binary"
	"unicode/utf16"
	"unicode/utf8"
)

// A small JSON scanner. encoding/json validates at roughly 100 MB/s, which
// is too slow for reading a few fields of every request on the ingest hot
// path; this one only finds where values end, and agrees with json.Valid on
// what is valid (FuzzLookup checks it).

// maxDepth is the nesting limit of encoding/json.
const maxDepth = 10000

// end returns the index just past the JSON value that starts at data[i]
// (white space before it skipped), or -1 when there is no valid value.
func end(data []byte, i, depth int) int {
	i = skipSpace(data, i)
	if i >= len(data) {
		return -1
	}
	switch c := data[i]; {
	case c == '"':
		return endString(data, i)
	case c == '{':
		return endObject(data, i, depth+1)
	case c == '[':
		return endArray(data, i, depth+1)
	case c == '-' || ('0' <= c && c <= '9'):
		return endNumber(data, i)
	case c == 't':
		return endLiteral(data, i, "true")
	case c == 'f':
		return endLiteral(data, i, "false")
	case c == 'n':
		return endLiteral(data, i, "null")
	}
	return -1
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

func endLiteral(data []byte, i int, lit string) int {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// plainByte marks the bytes a string holds without further thought: all
// but the quote, the backslash and control characters.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// plainWord reports whether the eight bytes packed in x are all plain,
// testing them at once: a byte below 0x20, or equal to a quote or a
// backslash once xor-ed with it, sets its high bit in the masks below.
// The test has no false negatives; a false positive only sends the scan
// to the byte loop.
func plainWord(x uint64) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	below := func(x uint64, n uint64) uint64 { return (x - ones*n) &^ x & highs }
	return below(x, 0x20)|below(x^(ones*'"'), 1)|below(x^(ones*'\\'), 1) == 0
}

// endString scans the string that opens at data[i] == '"'.
func endString(data []byte, i int) int {
	for i++; i < len(data); i++ {
		for len(data)-i >= 8 && plainWord(binary.LittleEndian.Uint64(data[i:])) {
			i += 8
		}
		for i < len(data) && plainByte[data[i]] {
			i++
		}
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case '"':
			return i + 1
		case '\\':
			i++
			if i >= len(data) {
				return -1
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if len(data)-i <= 4 {
					return -1
				}
				for _, h := range data[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
	return -1
}

func isHex(c byte) bool {
	return ('0' <= c && c <= '9') || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

// endNumber scans -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func endNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = digits(data, i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if j := digits(data, i+1); j > i+1 {
			i = j
		} else {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if j := digits(data, i); j > i {
			i = j
		} else {
			return -1
		}
	}
	return i
}

func digits(data []byte, i int) int {
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	return i
}

// members calls fn for each member of the object that opens at data[i] ==
// '{', with the key's quoted text and the value's bounds, and returns the
// index just past the object, or -1 when it is not valid.
func members(data []byte, i, depth int, fn func(key []byte, vStart, vEnd int)) int {
	if depth > maxDepth {
		return -1
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return -1
		}
		kEnd := endString(data, i)
		if kEnd < 0 {
			return -1
		}
		key := data[i:kEnd]
		i = skipSpace(data, kEnd)
		if i >= len(data) || data[i] != ':' {
			return -1
		}
		vStart := skipSpace(data, i+1)
		vEnd := end(data, vStart, depth)
		if vEnd < 0 {
			return -1
		}
		if fn != nil {
			fn(key, vStart, vEnd)
		}
		i = skipSpace(data, vEnd)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

func endObject(data []byte, i, depth int) int { return members(data, i, depth, nil) }

func endArray(data []byte, i, depth int) int {
	if depth > maxDepth {
		return -1
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return i + 1
	}
	for {
		i = end(data, i, depth)
		if i < 0 {
			return -1
		}
		i = skipSpace(data, i)
		if i >= len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i++
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// valid reports whether data is one JSON value with only white space
// around it, as json.Valid does.
func valid(data []byte) bool {
	e := end(data, 0, 0)
	return e >= 0 && skipSpace(data, e) == len(data)
}

// keepsExactly reports whether the inside of a valid quoted JSON string
// decodes without replacement: its bytes are UTF-8 and every \u escape of
// a surrogate is one half of a pair.
func keepsExactly(inner []byte) bool {
	if !utf8.Valid(inner) {
		return false
	}
	for i := 0; i < len(inner); i++ {
		if inner[i] != '\\' {
			continue
		}
		i++ // the escaped byte; a valid string has one
		if inner[i] != 'u' {
			continue
		}
		r := hex4(inner[i+1 : i+5])
		i += 4
		switch {
		case utf16.IsSurrogate(r) && r < 0xDC00: // a high half: a low one must follow
			if i+6 >= len(inner) || inner[i+1] != '\\' || inner[i+2] != 'u' {
				return false
			}
			lo := hex4(inner[i+3 : i+7])
			if lo < 0xDC00 || lo > 0xDFFF {
				return false
			}
			i += 6
		case utf16.IsSurrogate(r): // a low half alone
			return false
		}
	}
	return true
}

// hex4 reads four hex digits, already checked by the scanner.
func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c <= '9':
			r = r<<4 | rune(c-'0')
		case c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			r = r<<4 | rune(c-'a'+10)
		}
	}
	return r
}
