package providersim

import (
	"time"
)

// Event is one simulated event and what became of it.
type Event struct {
	// ID is the provider's event id, unique per run.
	ID string
	// Seq is the event's sequence number, from 1.
	Seq int
	// Body is the raw JSON body sent at every attempt.
	Body []byte
	// Attempts counts the tries made so far.
	Attempts int
	// Acked tells whether a try was answered 2xx; AckedAt is when.
	Acked   bool
	AckedAt time.Time
	// FirstAt is when the first try was made.
	FirstAt time.Time
	// LastStatus is the last answer's status code, 0 when it got none;
	// LastError the last transport error.
	LastStatus int
	LastError  string
}

// Response is one try of one event.
type Response struct {
	EventID string
	// Attempt numbers the try, from 1.
	Attempt int
	// Sent is when the try began; Answered when its answer or error came.
	Sent, Answered time.Time
	// Status is the answer's status code, or 0 when there was none (a
	// refused connection, a reset, a timeout).
	Status int
	// Err is the transport error when Status is 0.
	Err string
	// RetryAfter is the answer's Retry-After, 0 when absent.
	RetryAfter time.Duration
}

// Report is everything a simulator run recorded.
type Report struct {
	// Events are in sequence order.
	Events []Event
	// Responses are in the order their answers came.
	Responses []Response
}

// Sent counts the events started.
func (r Report) Sent() int { return len(r.Events) }

// AckedIDs returns the ids of the acknowledged events, in sequence order.
func (r Report) AckedIDs() []string {
	var ids []string
	for _, e := range r.Events {
		if e.Acked {
			ids = append(ids, e.ID)
		}
	}
	return ids
}

// Unacked returns the events that were given up without an
// acknowledgement.
func (r Report) Unacked() []Event {
	var out []Event
	for _, e := range r.Events {
		if !e.Acked {
			out = append(out, e)
		}
	}
	return out
}

// Attempts counts every try of every event.
func (r Report) Attempts() int { return len(r.Responses) }

// Statuses counts the answers by status code; 0 counts tries that got no
// answer.
func (r Report) Statuses() map[int]int { return CountStatuses(r.Responses) }

// Within returns the tries that began at or after from and were answered
// before to: the answers given entirely inside that window.
func (r Report) Within(from, to time.Time) []Response {
	var out []Response
	for _, resp := range r.Responses {
		if !resp.Sent.Before(from) && resp.Answered.Before(to) {
			out = append(out, resp)
		}
	}
	return out
}

// CountStatuses counts responses by status code; 0 counts tries that got
// no answer.
func CountStatuses(rs []Response) map[int]int {
	m := map[int]int{}
	for _, resp := range rs {
		m[resp.Status]++
	}
	return m
}
