package providersim

import (
	"bytes"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/hookrelay/hookrelay/internal/signature"
)

const destSecret = "whsec_ZGVzdGluYXRpb24tc2VjcmV0"

// push posts body to the destination as the relay would, signed with
// secret, and returns the status or the transport error.
func push(t *testing.T, url, secret, id string, body []byte) (int, error) {
	t.Helper()
	now := time.Now()
	sig, err := signature.SignStandard(secret, id, now, body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Webhook-Id", id)
	req.Header.Set("Webhook-Timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("Webhook-Signature", sig)
	req.Header.Set("Hookrelay-Event-Id", "evt_"+id)
	req.Header.Set("Hookrelay-Attempt", "2")
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func TestDestination(t *testing.T) {
	t.Parallel()
	d, err := NewDestination(DestinationOptions{Secret: destSecret})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	url := d.URL()

	tests := []struct {
		id, secret string
		want       int
	}{
		{"msg_1", destSecret, 200},
		{"msg_1", destSecret, 200},
		{"msg_2", destSecret, 200},
		{"msg_3", "whsec_d3Jvbmctc2VjcmV0", 400},
	}
	for _, tt := range tests {
		if got, err := push(t, url, tt.secret, tt.id, []byte(`{"id":"x"}`)); err != nil || got != tt.want {
			t.Errorf("push %s: status %d, error %v; want %d", tt.id, got, err, tt.want)
		}
	}
	if got := d.Counts(); len(got) != 2 || got["msg_1"] != 2 || got["msg_2"] != 1 {
		t.Errorf("counts %v, want msg_1 twice and msg_2 once", got)
	}
	if d.Received() != 2 || d.Invalid() != 1 {
		t.Errorf("received %d, invalid %d; want 2 and 1", d.Received(), d.Invalid())
	}
	dels := d.Deliveries()
	if len(dels) != 4 || dels[0].ProviderEventID != "evt_msg_1" || dels[0].Attempt != 2 || !dels[0].Valid || dels[3].Valid {
		t.Errorf("deliveries %+v", dels)
	}

	d.Down()
	if _, err := push(t, url, destSecret, "msg_4", []byte(`{}`)); err == nil {
		t.Error("a push to a destination that is down was answered")
	}
	if err := d.Up(); err != nil {
		t.Fatal(err)
	}
	if d.URL() != url {
		t.Errorf("URL after Up %s, want %s", d.URL(), url)
	}
	if got, err := push(t, url, destSecret, "msg_4", []byte(`{}`)); err != nil || got != 200 {
		t.Errorf("push after Up: status %d, error %v", got, err)
	}
	if d.Counts()["msg_4"] != 1 {
		t.Error("msg_4 not recorded after Up")
	}
}
