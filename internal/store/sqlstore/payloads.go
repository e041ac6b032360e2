package sqlstore

import (
	"encoding/base64"
	"fmt"
	"strconv"

	"github.com/hookrelay/hookrelay/internal/payloadcrypt"
	"github.com/hookrelay/hookrelay/internal/store"
)

// Payloads seals the payload columns both drivers write (an event's body,
// headers and raw query, an attempt's response snippet and headers) and
// opens them when read.
// Every write and read of those columns goes through it; nothing else
// touches their bytes. With no keys it stores them plain and its key id is
// NULL.
//
// A sealed body, snippet or attempt's headers is stored as the sealed
// bytes; sealed headers and query, in text columns, as their base64; an
// empty query and an attempt without headers are stored empty. The
// associated data names the column and the row (event id, or delivery id
// for an attempt's columns), so a value moved to another row does not
// open.
type Payloads struct {
	// Keys seals and opens; nil seals nothing.
	Keys *payloadcrypt.Ring
}

// SealedEvent is an event's payload columns as stored.
type SealedEvent struct {
	Body    []byte
	Headers string
	// Query is the event's raw query, sealed unless empty.
	Query string
	// KeyID is the id of the key that sealed Body, Headers and Query, or
	// nil.
	KeyID *string
}

// SealEvent returns the payload columns of e as stored.
func (p Payloads) SealEvent(e store.Event) (SealedEvent, error) {
	headers, err := EncodeHeaders(e.Headers)
	if err != nil {
		return SealedEvent{}, err
	}
	return p.sealColumns(e.ID, NonNil(e.Body), headers, e.RawQuery)
}

// sealColumns seals the body, the headers' JSON and the raw query of event
// id.
func (p Payloads) sealColumns(id string, body []byte, headers, query string) (SealedEvent, error) {
	if p.Keys == nil {
		return SealedEvent{Body: body, Headers: headers, Query: query}, nil
	}
	var sealedQuery string
	if query != "" {
		q, _, err := p.Keys.Seal(eventAD("raw_query", id), []byte(query))
		if err != nil {
			return SealedEvent{}, fmt.Errorf("seal event %s: %w", id, err)
		}
		sealedQuery = base64.StdEncoding.EncodeToString(q)
	}
	sealedBody, keyID, err := p.Keys.Seal(eventAD("body", id), body)
	if err != nil {
		return SealedEvent{}, fmt.Errorf("seal event %s: %w", id, err)
	}
	h, _, err := p.Keys.Seal(eventAD("headers", id), []byte(headers))
	if err != nil {
		return SealedEvent{}, fmt.Errorf("seal event %s: %w", id, err)
	}
	return SealedEvent{Body: sealedBody, Headers: base64.StdEncoding.EncodeToString(h), Query: sealedQuery, KeyID: &keyID}, nil
}

// OpenEvent sets e's Body and Headers from the stored columns: e.Body as
// read, headers, and the row's key id.
func (p Payloads) OpenEvent(e *store.Event, headers string, keyID *string) error {
	body, err := p.OpenBody(e.ID, e.Body, keyID)
	if err != nil {
		return err
	}
	if headers, err = p.openHeaders(e.ID, headers, keyID); err != nil {
		return err
	}
	if e.Headers, err = DecodeHeaders(headers); err != nil {
		return fmt.Errorf("open event %s: %w", e.ID, err)
	}
	e.Body = body
	return nil
}

// ResealEvent opens the stored payload columns of event id and returns
// them sealed under the current key, the headers' JSON byte for byte.
func (p Payloads) ResealEvent(id string, body []byte, headers, query string, keyID *string) (SealedEvent, error) {
	body, err := p.OpenBody(id, body, keyID)
	if err != nil {
		return SealedEvent{}, err
	}
	if headers, err = p.openHeaders(id, headers, keyID); err != nil {
		return SealedEvent{}, err
	}
	if query, err = p.OpenQuery(id, query, keyID); err != nil {
		return SealedEvent{}, err
	}
	return p.sealColumns(id, body, headers, query)
}

// OpenQuery returns the raw query of event id from its stored column and
// key id. An empty query is stored plain.
func (p Payloads) OpenQuery(id, stored string, keyID *string) (string, error) {
	if stored == "" {
		return "", nil
	}
	return p.openText(id, "raw_query", stored, keyID)
}

// OpenBody returns the body of event id from its stored column and key id.
func (p Payloads) OpenBody(id string, stored []byte, keyID *string) ([]byte, error) {
	if keyID == nil {
		return NonNil(stored), nil
	}
	b, err := p.Keys.Open(*keyID, eventAD("body", id), stored)
	if err != nil {
		return nil, fmt.Errorf("open event %s: %w", id, err)
	}
	return b, nil
}

// openHeaders returns the headers' JSON of event id from its stored
// column and key id.
func (p Payloads) openHeaders(id, stored string, keyID *string) (string, error) {
	return p.openText(id, "headers", stored, keyID)
}

// openText returns a text column of event id as it was sealed: stored
// plain when keyID is nil, else base64 of the ciphertext bound to the
// column and the event.
func (p Payloads) openText(id, column, stored string, keyID *string) (string, error) {
	if keyID == nil {
		return stored, nil
	}
	sealed, err := base64.StdEncoding.DecodeString(stored)
	if err != nil {
		return "", fmt.Errorf("open event %s: %s is not base64: %w", id, column, err)
	}
	text, err := p.Keys.Open(*keyID, eventAD(column, id), sealed)
	if err != nil {
		return "", fmt.Errorf("open event %s: %w", id, err)
	}
	return string(text), nil
}

// SealSnippet returns a response snippet of an attempt of delivery
// deliveryID as stored, with the key id to store with it.
func (p Payloads) SealSnippet(deliveryID int64, snippet []byte) ([]byte, *string, error) {
	if p.Keys == nil {
		return snippet, nil, nil
	}
	sealed, id, err := p.Keys.Seal(snippetAD(deliveryID), snippet)
	if err != nil {
		return nil, nil, fmt.Errorf("seal snippet of delivery %d: %w", deliveryID, err)
	}
	return sealed, &id, nil
}

// OpenSnippet returns the response snippet of an attempt of delivery
// deliveryID from its stored column and key id.
func (p Payloads) OpenSnippet(deliveryID int64, stored []byte, keyID *string) (string, error) {
	if keyID == nil {
		return string(stored), nil
	}
	b, err := p.Keys.Open(*keyID, snippetAD(deliveryID), stored)
	if err != nil {
		return "", fmt.Errorf("open snippet of delivery %d: %w", deliveryID, err)
	}
	return string(b), nil
}

// ResealSnippet opens the stored snippet of an attempt of delivery
// deliveryID and returns it sealed under the current key.
func (p Payloads) ResealSnippet(deliveryID int64, stored []byte, keyID *string) ([]byte, *string, error) {
	snippet, err := p.OpenSnippet(deliveryID, stored, keyID)
	if err != nil {
		return nil, nil, err
	}
	return p.SealSnippet(deliveryID, []byte(snippet))
}

// SealAttemptHeaders returns the encoded headers (see
// EncodeAttemptHeaders) of an attempt of delivery deliveryID as stored:
// sealed under the current key, the one SealSnippet seals with, unless
// there are none, which are stored as no bytes.
func (p Payloads) SealAttemptHeaders(deliveryID int64, headers []byte) ([]byte, error) {
	if p.Keys == nil || len(headers) == 0 {
		return NonNil(headers), nil
	}
	sealed, _, err := p.Keys.Seal(attemptHeadersAD(deliveryID), headers)
	if err != nil {
		return nil, fmt.Errorf("seal headers of delivery %d: %w", deliveryID, err)
	}
	return sealed, nil
}

// OpenAttemptHeaders returns the encoded headers of an attempt of delivery
// deliveryID from its stored column and key id.
func (p Payloads) OpenAttemptHeaders(deliveryID int64, stored []byte, keyID *string) ([]byte, error) {
	if keyID == nil || len(stored) == 0 {
		return stored, nil
	}
	b, err := p.Keys.Open(*keyID, attemptHeadersAD(deliveryID), stored)
	if err != nil {
		return nil, fmt.Errorf("open headers of delivery %d: %w", deliveryID, err)
	}
	return b, nil
}

// ResealAttempt opens the stored snippet and headers of an attempt of
// delivery deliveryID and returns them sealed under the current key.
func (p Payloads) ResealAttempt(deliveryID int64, snippet, headers []byte, keyID *string) (sealedSnippet, sealedHeaders []byte, err error) {
	if sealedSnippet, _, err = p.ResealSnippet(deliveryID, snippet, keyID); err != nil {
		return nil, nil, err
	}
	if headers, err = p.OpenAttemptHeaders(deliveryID, headers, keyID); err != nil {
		return nil, nil, err
	}
	if sealedHeaders, err = p.SealAttemptHeaders(deliveryID, headers); err != nil {
		return nil, nil, err
	}
	return sealedSnippet, sealedHeaders, nil
}

// Current returns the id of the key that seals, or store.ErrNoKeys.
func (p Payloads) Current() (string, error) {
	if p.Keys == nil {
		return "", store.ErrNoKeys
	}
	return p.Keys.Current(), nil
}

// CountKey adds n rows under keyID (nil: plain, counted as "") to counts.
func CountKey(counts map[string]int64, keyID *string, n int64) {
	id := ""
	if keyID != nil {
		id = *keyID
	}
	counts[id] += n
}

// eventAD is the associated data of an event's column.
func eventAD(column, eventID string) []byte {
	return []byte("hookrelay events." + column + " " + eventID)
}

// attemptHeadersAD is the associated data of the headers of a delivery's
// attempt.
func attemptHeadersAD(deliveryID int64) []byte {
	return []byte("hookrelay attempts.headers " + strconv.FormatInt(deliveryID, 10))
}

// snippetAD is the associated data of a snippet of a delivery's attempt.
func snippetAD(deliveryID int64) []byte {
	return []byte("hookrelay attempts.response_snippet " + strconv.FormatInt(deliveryID, 10))
}
