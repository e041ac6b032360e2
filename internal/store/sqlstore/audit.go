package sqlstore

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/hookrelay/hookrelay/internal/store"
)

// The audit log (the replays table) records what a replay or a backfill
// selected as a JSON object in its filter column, the same for both
// drivers; fields not set are left out, times are RFC 3339 in UTC.

// filterJSON is a replay's filter as the audit log records it.
type filterJSON struct {
	IDs         []string `json:"ids,omitempty"`
	Source      string   `json:"source,omitempty"`
	Type        string   `json:"type,omitempty"`
	Destination string   `json:"destination,omitempty"`
	Status      string   `json:"status,omitempty"`
	Since       string   `json:"since,omitempty"`
	Until       string   `json:"until,omitempty"`
}

// backfillJSON is a backfill's window as the audit log records it.
type backfillJSON struct {
	Destination string `json:"destination"`
	Since       string `json:"since,omitempty"`
	Until       string `json:"until,omitempty"`
}

// AuditFilter returns f as the filter of a replay's audit row.
func AuditFilter(f store.EventFilter) string {
	b, _ := json.Marshal(filterJSON{ // cannot fail for strings
		IDs: f.IDs, Source: f.Source, Type: f.Type, Destination: f.Destination, Status: string(f.Status),
		Since: auditTime(f.Since), Until: auditTime(f.Until),
	})
	return string(b)
}

// AuditBackfill returns a backfill's destination and window as the
// filter of its audit row.
func AuditBackfill(destination string, since, until time.Time) string {
	b, _ := json.Marshal(backfillJSON{ // cannot fail for strings
		Destination: destination, Since: auditTime(since), Until: auditTime(until),
	})
	return string(b)
}

// auditTime formats t for an audit row; the zero time is empty.
func auditTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// AuditDestination returns the detail of a pause or resume audit row.
func AuditDestination(destination string) string {
	b, _ := json.Marshal(struct { // cannot fail for a string
		Destination string `json:"destination"`
	}{destination})
	return string(b)
}

// AuditDelivery returns the detail of a skip audit row.
func AuditDelivery(d store.Delivery) string {
	b, _ := json.Marshal(struct { // cannot fail for these types
		DeliveryID  int64  `json:"delivery_id"`
		EventID     string `json:"event_id"`
		Destination string `json:"destination"`
	}{d.ID, d.EventID, d.Destination})
	return string(b)
}

// SkipNote is the last error a skipped delivery records.
func SkipNote(actor string) string { return "skipped by " + actor }

// purgeJSON is what a purge selected, and why, as the audit log records it.
type purgeJSON struct {
	IDs             []string `json:"ids,omitempty"`
	Source          string   `json:"source,omitempty"`
	ProviderEventID string   `json:"provider_event_id,omitempty"`
	Path            string   `json:"path,omitempty"`
	ValueHMAC       string   `json:"value_hmac,omitempty"`
	Since           string   `json:"since,omitempty"`
	Until           string   `json:"until,omitempty"`
	Reason          string   `json:"reason"`
}

// AuditPurge returns a purge's selector and reason as the filter of its
// audit row.
func AuditPurge(a store.PurgeAudit) string {
	sel := a.Selector
	b, _ := json.Marshal(purgeJSON{ // cannot fail for strings
		IDs: sel.IDs, Source: sel.Source, ProviderEventID: sel.ProviderEventID,
		Path: sel.Path, ValueHMAC: sel.ValueHMAC,
		Since: auditTime(sel.Since), Until: auditTime(sel.Until), Reason: a.Reason,
	})
	return string(b)
}

// PurgeNote is the last error a delivery ended by a purge records.
func PurgeNote(actor string) string { return "event purged by " + actor }

// CheckPurge refuses a purge request no driver carries out: more ids than
// store.MaxPurgeBatch.
func CheckPurge(req store.PurgeRequest) error {
	if len(req.IDs) > store.MaxPurgeBatch {
		return fmt.Errorf("purge: %d ids, at most %d at once", len(req.IDs), store.MaxPurgeBatch)
	}
	return nil
}

// AuditTakeover returns the detail of the audit row of a job that a node
// took over: the job, the node that had it and the node that took it.
func AuditTakeover(j store.JobRecord) string {
	b, _ := json.Marshal(struct { // cannot fail for strings
		JobID    string `json:"job_id"`
		JobKind  string `json:"job_kind"`
		FromNode string `json:"from_node"`
		ToNode   string `json:"to_node"`
	}{j.ID, j.Kind, j.TakenOverFrom, j.Node})
	return string(b)
}
